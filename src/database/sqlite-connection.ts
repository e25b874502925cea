import sqlite3 from 'sqlite3';

/** What a statement did: the rows it read, the rows it changed. */
export interface StatementResult<T = unknown> {
  rows: T[];
  affected: number;
}

/**
 * A statement asked for once the application has begun to close the connection: SQLite cannot
 * close it while a statement is prepared, so none is prepared any more.
 */
export class ConnectionClosing extends Error {
  constructor() {
    super('The SQLite connection is closing');
  }
}

/** A statement prepared on the connection, and the runs sent to it before it was prepared. */
interface Prepared {
  statement: sqlite3.Statement;
  /**
   * Until the statement is prepared: how to fail the runs sent to it meanwhile. sqlite3 queues
   * them, and drops them unanswered when the statement cannot be prepared.
   */
  waiting?: Set<(error: Error) => void>;
}

/**
 * The connection TypeORM's SQLite driver opens, held by this application too. TypeORM takes the
 * `sqlite3` module through its documented `driver` option and opens its one connection with that
 * module's `Database`: given a subclass of sqlite3's `Database` that records each instance, the
 * application knows the connection without reading TypeORM's driver. Through it the write path
 * runs prepared statements (sqlite3's own statement API) in the transaction TypeORM's runner
 * shares: building each statement through TypeORM and preparing it again on every call cost more
 * than running it (docs/decisions.md, "The write path's statements").
 */
export class SqliteConnection {
  private database?: sqlite3.Database;
  private readonly statements = new Map<string, Prepared>();
  /** Set by finalize(): from then on every statement is refused (ConnectionClosing). */
  private closing = false;

  /** The `sqlite3` module to give TypeORM as its `driver` option (typed as TypeORM takes it). */
  driverModule(): object {
    const opened = (database: sqlite3.Database) => this.opened(database);
    class HeldDatabase extends sqlite3.Database {
      constructor(...args: ConstructorParameters<typeof sqlite3.Database>) {
        super(...args);
        opened(this);
      }
    }
    const module = { ...sqlite3, Database: HeldDatabase };
    // TypeORM calls verbose(), which would record a stack trace on every database call.
    return { ...module, verbose: () => module };
  }

  /** Whether TypeORM has opened the connection (a data source not yet initialised has none). */
  get isOpen(): boolean {
    return this.database !== undefined;
  }

  /** Runs one statement, prepared once per SQL text; `?` placeholders. */
  run<T = unknown>(sql: string, parameters: readonly unknown[] = []): Promise<StatementResult<T>> {
    let prepared: Prepared;
    try {
      prepared = this.statement(sql);
    } catch (error) {
      return Promise.reject(error as Error); // never a throw: callers chain `.catch` on the call
    }
    const { statement, waiting } = prepared;
    const reads = /^\s*(SELECT|WITH|PRAGMA)\b/i.test(sql);
    return new Promise((resolve, reject) => {
      waiting?.add(reject);
      if (reads) {
        statement.all(parameters, (error: Error | null, rows: T[]) => {
          waiting?.delete(reject);
          if (error) reject(error);
          else resolve({ rows, affected: 0 });
        });
      } else {
        statement.run(parameters, function (this: sqlite3.RunResult, error: Error | null) {
          waiting?.delete(reject);
          if (error) reject(error);
          else resolve({ rows: [], affected: this.changes });
        });
      }
    });
  }

  /**
   * Runs statements without parameters one after another in one call of the driver (sqlite3's
   * `Database#exec`): one hand-off to its thread pool for all of them. Stops at the first that
   * fails, and rejects with its error.
   */
  exec(statements: readonly string[]): Promise<void> {
    const database = this.database;
    if (!database) return Promise.reject(new Error('The SQLite connection is not open'));
    if (this.closing) return Promise.reject(new ConnectionClosing());
    return new Promise((resolve, reject) => {
      database.exec(statements.join(';\n'), (error: Error | null) =>
        error ? reject(error) : resolve(),
      );
    });
  }

  /**
   * Finalizes every prepared statement, and refuses any asked for later: SQLite cannot close a
   * connection while one is prepared, and TypeORM closes it on shutdown, whatever still runs.
   */
  async finalize(): Promise<void> {
    this.closing = true;
    const statements = [...this.statements.values()];
    this.statements.clear();
    await Promise.all(
      statements.map(
        ({ statement }) => new Promise<void>((resolve) => statement.finalize(() => resolve())),
      ),
    );
  }

  private opened(database: sqlite3.Database): void {
    this.database = database;
    this.statements.clear();
    this.closing = false;
  }

  private statement(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      if (!this.database) throw new Error('The SQLite connection is not open');
      if (this.closing) throw new ConnectionClosing();
      // A statement that fails to prepare fails the runs sent to it, and is prepared again next
      // time (a table that did not exist yet may exist then).
      // On a closed connection sqlite3 calls back at once, inside `prepare`: that refusal is
      // thrown (run() rejects with it) and nothing is kept.
      const waiting = new Set<(error: Error) => void>();
      let refusedAtOnce: Error | undefined;
      let entry: Prepared | undefined = undefined;
      const statement = this.database.prepare(sql, (error) => {
        if (!entry) {
          refusedAtOnce = error ?? undefined;
          return;
        }
        entry.waiting = undefined;
        if (!error) return;
        if (this.statements.get(sql) === entry) this.statements.delete(sql);
        for (const fail of waiting) fail(error);
      });
      if (refusedAtOnce) throw refusedAtOnce;
      entry = { statement, waiting };
      this.statements.set(sql, entry);
      prepared = entry;
    }
    return prepared;
  }
}

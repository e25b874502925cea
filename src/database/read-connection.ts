import { Logger } from '@nestjs/common';
import type pg from 'pg';
import sqlite3 from 'sqlite3';
import type { DataSource } from 'typeorm';
import { databaseFileOf, kindOf, readPoolSize } from './dialect.js';

/**
 * A connection of its own for the reads outside transactions (status lookups, credentials, the
 * catalog), beside TypeORM's. On SQLite it never sees a write that is not committed: TypeORM's one
 * connection holds the open write transaction (see SqliteGroupCommit), and a read sent there would
 * see the group's writes before their COMMIT, which may still fail. On PostgreSQL its clients are
 * never handed to TypeORM or back, so each one's error handling is in place from the moment the
 * pool makes it. Statements are prepared once, through each driver's own statement API, and
 * come in the database's own placeholders (`?` on SQLite, `$1`… on PostgreSQL: see PreparedReads).
 */
export interface ReadConnection {
  all<T>(sql: string, parameters: readonly unknown[]): Promise<T[]>;
  /**
   * A condition true when `column` is one of the keys given as the one parameter `keysParameter`
   * makes, written with a `?` placeholder.
   */
  inKeys(column: string): string;
  keysParameter(keys: readonly string[]): unknown;
  /** Statements worth running at once: one on SQLite's connection, the pool's size on PostgreSQL. */
  readonly concurrency: number;
  close(): Promise<void>;
}

/** The read connection for the data source's database, opened on first use. */
export async function openReadConnection(
  dataSource: DataSource,
  poolSize: number,
): Promise<ReadConnection> {
  if (kindOf(dataSource) === 'postgres') {
    const url = (dataSource.options as { url?: string }).url;
    // Loaded here, on PostgreSQL only: a SQLite instance keeps no pg modules in its heap.
    const { default: pgModule } = await import('pg');
    return new PostgresReads(pgModule, url, poolSize);
  }
  const file = databaseFileOf(dataSource);
  // An in-memory database exists only on TypeORM's connection.
  return file === undefined ? new SharedConnectionReads(dataSource) : SqliteReads.open(file);
}

/** How long a read waits for the database before it fails (and the request answers 503). */
export const READ_TIMEOUT_MS = 5000;

/**
 * On PostgreSQL, how long a read waits for the server, and for a new connection to it. A server
 * that stops answering (a network cut, a frozen host) must be a 503 within 2 s, never a
 * hang: a request whose read queued behind another's (CoalescedRead, BatchedReads) waits for that
 * one to fail first and then for its own, so each wait is under half of that. A read of this
 * service is an indexed lookup of a few milliseconds; one that takes this long is refused.
 */
export const POSTGRES_READ_TIMEOUT_MS = 900;

class SqliteReads implements ReadConnection {
  /** Statements prepared on this connection, by their SQL; one that failed to prepare is dropped. */
  private readonly statements = new Map<string, Promise<sqlite3.Statement>>();
  readonly concurrency = 1;

  private constructor(private readonly db: sqlite3.Database) {}

  static open(file: string): Promise<SqliteReads> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (error) => {
        if (error) return reject(error);
        db.configure('busyTimeout', READ_TIMEOUT_MS);
        // This connection only reads: a write sent to it by mistake fails instead of committing
        // outside the write path.
        db.exec('PRAGMA query_only = ON', (failed) =>
          failed ? reject(failed) : resolve(new SqliteReads(db)),
        );
      });
    });
  }

  async all<T>(sql: string, parameters: readonly unknown[]): Promise<T[]> {
    const statement = await this.statement(sql);
    // `all` resets the statement first and steps it to the end, so no read snapshot stays open
    // between calls (`get` leaves the statement active, and a later commit would stay invisible).
    return new Promise((resolve, reject) =>
      statement.all(parameters, (error: Error | null, rows: T[]) =>
        error ? reject(error) : resolve(rows),
      ),
    );
  }

  private statement(sql: string): Promise<sqlite3.Statement> {
    const kept = this.statements.get(sql);
    if (kept) return kept;
    const statement = new Promise<sqlite3.Statement>((resolve, reject) => {
      const prepared = this.db.prepare(sql, (error) => (error ? reject(error) : resolve(prepared)));
    });
    this.statements.set(sql, statement);
    // Dropped once it failed, also when sqlite3 refused it at once, inside `prepare` (a closed
    // connection): the next read prepares it again.
    statement.catch(() => {
      if (this.statements.get(sql) === statement) this.statements.delete(sql);
    });
    return statement;
  }

  inKeys(column: string): string {
    return `${column} IN (SELECT value FROM json_each(?))`;
  }

  keysParameter(keys: readonly string[]): unknown {
    return JSON.stringify(keys);
  }

  /** Finalizes every statement (SQLite cannot close a connection while one is open), then closes. */
  async close(): Promise<void> {
    const statements = [...this.statements.values()];
    this.statements.clear();
    await Promise.all(
      statements.map(async (pending) => {
        const statement = await pending.catch(() => undefined);
        if (statement) await new Promise<void>((resolve) => statement.finalize(() => resolve()));
      }),
    );
    await new Promise<void>((resolve) => this.db.close(() => resolve()));
  }
}

/** `sqlite::memory:`: the database lives on TypeORM's connection only, so reads go there too. */
class SharedConnectionReads implements ReadConnection {
  readonly concurrency = 1;

  constructor(private readonly dataSource: DataSource) {}

  all<T>(sql: string, parameters: readonly unknown[]): Promise<T[]> {
    return this.dataSource.query<T[]>(sql, [...parameters]);
  }

  inKeys(column: string): string {
    return `${column} IN (SELECT value FROM json_each(?))`;
  }

  keysParameter(keys: readonly string[]): unknown {
    return JSON.stringify(keys);
  }

  async close(): Promise<void> {}
}

/**
 * Named statements on a pool of its own: each connection parses and plans a statement once, then
 * only binds and executes it.
 */
class PostgresReads implements ReadConnection {
  private readonly names = new Map<string, { name: string; text: string }>();
  private readonly pool: pg.Pool;
  private readonly logger = new Logger('Database');
  readonly concurrency: number;

  constructor(pgModule: typeof pg, url: string | undefined, poolSize: number) {
    this.concurrency = readPoolSize(poolSize);
    this.pool = new pgModule.Pool({
      connectionString: url,
      max: this.concurrency,
      connectionTimeoutMillis: POSTGRES_READ_TIMEOUT_MS,
      query_timeout: POSTGRES_READ_TIMEOUT_MS,
      statement_timeout: POSTGRES_READ_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: 'payment-gateway-read-api',
    });
    // An idle connection broken by a restart or a terminated backend: the pool drops it and makes
    // a new one on the next read. Unhandled, the error would end the process.
    this.pool.on('error', (error) => this.logger.warn(`Read connection lost: ${error.message}`));
  }

  async all<T>(sql: string, parameters: readonly unknown[]): Promise<T[]> {
    const result = await this.pool.query<T & object>({
      ...this.named(sql),
      values: [...parameters],
    });
    return result.rows;
  }

  inKeys(column: string): string {
    return `${column} = ANY(?::text[])`;
  }

  keysParameter(keys: readonly string[]): unknown {
    return keys;
  }

  async close(): Promise<void> {
    this.names.clear();
    await this.pool.end();
  }

  private named(sql: string): { name: string; text: string } {
    let statement = this.names.get(sql);
    if (!statement) {
      statement = { name: `read_${this.names.size + 1}`, text: sql };
      this.names.set(sql, statement);
    }
    return statement;
  }
}

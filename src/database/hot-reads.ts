import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Database, Statement } from 'sqlite3';
import { DataSource } from 'typeorm';

/** The columns a status lookup needs, as stored. */
export interface SessionRow {
  validationKey: string;
  merchantId: string;
  status: string;
  detailedStatus: string | null;
  errorMessage: string | null;
  paymentResponse: string | null;
}

const SESSION_SQL =
  'SELECT validation_key AS "validationKey", merchant_id AS "merchantId", status, ' +
  'detailed_status AS "detailedStatus", error_message AS "errorMessage", ' +
  'payment_response AS "paymentResponse" FROM payment_session WHERE validation_key = ?';
const REVISION_SQL = 'SELECT revision FROM catalog_revision WHERE id = 1';

/**
 * The two reads on the hot path (a session by key, the catalog revision), as prepared statements
 * on SQLite's connection: building each query through TypeORM costs several times the query
 * itself. Other databases get the same SQL through TypeORM's query runner.
 */
@Injectable()
export class HotReads implements OnModuleDestroy {
  private readonly statements = new Map<string, Statement>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async session(validationKey: string): Promise<SessionRow | undefined> {
    return this.get<SessionRow>(SESSION_SQL, [validationKey]);
  }

  async catalogRevision(): Promise<number> {
    const row = await this.get<{ revision: number }>(REVISION_SQL, []);
    return row?.revision ?? 0;
  }

  onModuleDestroy(): void {
    for (const statement of this.statements.values()) statement.finalize();
    this.statements.clear();
  }

  private get<T>(sql: string, parameters: unknown[]): Promise<T | undefined> {
    if (this.dataSource.options.type !== 'sqlite') {
      let position = 0;
      const portable = sql.replace(/\?/g, () => `$${++position}`);
      return this.dataSource.query(portable, parameters).then((rows: T[]) => rows[0]);
    }
    // `all` resets the statement first and steps it to the end, so no read snapshot stays open
    // between calls (`get` leaves the statement active, and a new commit by another process
    // would stay invisible to this connection).
    const statement = this.statement(sql);
    return new Promise((resolve, reject) =>
      statement.all(parameters, (error: Error | null, rows: T[]) =>
        error ? reject(error) : resolve(rows[0]),
      ),
    );
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      const connection = (this.dataSource.driver as unknown as { databaseConnection: Database })
        .databaseConnection;
      statement = connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/**
 * Shares one read between the calls that arrive while it is pending, but never hands a caller a
 * read that started before the call: those wait for the next read, which starts as soon as the
 * pending one ends. Under load, one query serves a whole batch of requests, and each still sees
 * every write committed before it arrived.
 */
export class CoalescedRead<T> {
  private pending?: Promise<T>;
  private next?: Promise<T>;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.pending) return this.start();
    this.next ??= this.pending.then(
      () => this.startNext(),
      () => this.startNext(),
    );
    return this.next;
  }

  private startNext(): Promise<T> {
    this.next = undefined;
    return this.start();
  }

  private start(): Promise<T> {
    const read = this.read();
    this.pending = read;
    const clear = () => {
      if (this.pending === read) this.pending = undefined;
    };
    read.then(clear, clear);
    return read;
  }
}

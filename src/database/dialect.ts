import { Logger } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Pool } from 'pg';
import sqlite3, { type Database, type Statement } from 'sqlite3';
import { DataSource, QueryFailedError, type DataSourceOptions, type QueryRunner } from 'typeorm';
import { databaseKindOf, type DatabaseKind } from '../config/app-config.js';

/**
 * Everything that differs between the databases this service runs on: SQLite (the embedded
 * default, one process) and PostgreSQL (several instances). The rest of the code is written once.
 */

/** How long to wait for a connection, and for a query, before answering 503. */
const CONNECT_TIMEOUT_MS = 1500;
const QUERY_TIMEOUT_MS = 5000;

/** Connection options for TypeORM, without entities and migrations. */
export function connectionOptions(databaseUrl: string, poolSize: number): DataSourceOptions {
  if (databaseKindOf(databaseUrl) === 'postgres') {
    const logger = new Logger('Database');
    return {
      type: 'postgres',
      url: databaseUrl,
      poolSize,
      connectTimeoutMS: CONNECT_TIMEOUT_MS,
      // Idle connections broken by a restart of PostgreSQL raise errors on the pool; they are
      // replaced on the next query. Unhandled, they would end the process.
      poolErrorHandler: (error: Error) => logger.warn(`Connection lost: ${error.message}`),
      extra: {
        // A query on a connection that no longer answers (a network cut) fails instead of hanging.
        query_timeout: QUERY_TIMEOUT_MS,
        statement_timeout: QUERY_TIMEOUT_MS,
        keepAlive: true,
        idleTimeoutMillis: 30_000,
      },
      applicationName: 'payment-gateway-read-api',
    };
  }
  const database = sqlitePath(databaseUrl);
  if (database !== ':memory:') mkdirSync(dirname(database), { recursive: true });
  return {
    type: 'sqlite',
    database,
    enableWAL: database !== ':memory:',
    busyTimeout: 5000,
    // TypeORM calls sqlite3.verbose(), which records a stack trace on every database call.
    driver: { ...sqlite3, verbose: () => sqlite3 },
  };
}

/** The path of a `sqlite:<path>` URL, or `:memory:`. */
export function sqlitePath(databaseUrl: string): string {
  const rest = databaseUrl.slice('sqlite:'.length);
  return rest === ':memory:' ? rest : resolve(rest);
}

export function kindOf(dataSource: DataSource): DatabaseKind {
  return dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
}

/** The file the data source writes to, when it is a file (SQLite); undefined otherwise. */
export function databaseFileOf(dataSource: DataSource): string | undefined {
  const options = dataSource.options;
  return options.type === 'sqlite' && options.database !== ':memory:'
    ? String(options.database)
    : undefined;
}

/**
 * Whether this process must run its transactions one at a time. TypeORM's SQLite driver shares
 * one connection between all callers, so two transactions begun at once would merge into one;
 * PostgreSQL gives each transaction its own pooled connection.
 */
export function needsSerialTransactions(dataSource: DataSource): boolean {
  return kindOf(dataSource) === 'sqlite';
}

/** Driver errors that mean "the database cannot answer now", not "a bug". */
const UNAVAILABLE_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: shutting down, starting up, too many connections, connection failures.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  // Canceled by statement_timeout: the database did not answer in time.
  '57014',
]);

/** node-postgres reports these without a code. */
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connect ECONNREFUSED|Client has encountered a connection error/i;

/** True when the error says the database is unreachable, busy or read-only for now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const candidate = error as {
    code?: unknown;
    message?: unknown;
    driverError?: { code?: unknown; message?: unknown };
  } | null;
  const code = candidate?.driverError?.code ?? candidate?.code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  const message = candidate?.driverError?.message ?? candidate?.message;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
}

/** True when an insert or update broke a unique constraint (another writer got there first). */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const code = (error.driverError as { code?: unknown } | undefined)?.code;
  return code === '23505' || /UNIQUE constraint failed/i.test(error.message);
}

/** Timestamp column type of a migration. */
export function timestampType(queryRunner: QueryRunner): string {
  return queryRunner.connection.driver.options.type === 'postgres' ? 'timestamptz' : 'datetime';
}

/**
 * Appended to a SELECT inside a transaction that claims rows for this instance: PostgreSQL locks
 * them and skips those another instance's transaction holds; SQLite has one writer at a time.
 */
export function claimLockClause(dataSource: DataSource): string {
  return kindOf(dataSource) === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
}

/** Any number: instances of this service agree on it to migrate one at a time. */
const MIGRATION_LOCK = 7_340_513_291;

/**
 * Runs pending migrations. On PostgreSQL, instances started together take turns under an advisory
 * lock, so each migration runs once and every instance comes up; SQLite has one process.
 */
export async function runMigrationsOnce(dataSource: DataSource): Promise<void> {
  if (kindOf(dataSource) !== 'postgres') {
    await dataSource.runMigrations({ transaction: 'each' });
    return;
  }
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
  }
}

/**
 * Takes, inside the query runner's transaction and until it ends, the lock runMigrationsOnce
 * takes: migrations run in a transaction of their own (the seed script's) wait for instances
 * starting up, and the other way round. Nothing to take on SQLite (one writer).
 */
export async function lockMigrations(queryRunner: QueryRunner): Promise<void> {
  if (queryRunner.connection.options.type !== 'postgres') return;
  await queryRunner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
}

/** Reads on the hot path as prepared statements; the SQL is written with `?` placeholders. */
export interface PreparedStatements {
  first<T>(sql: string, parameters: unknown[]): Promise<T | undefined>;
  all<T>(sql: string, parameters: unknown[]): Promise<T[]>;
  /** A condition true when `column` is one of the keys given as the one parameter `keysParameter` makes. */
  inKeys(column: string): string;
  keysParameter(keys: readonly string[]): unknown;
  /** Statements worth running at once: one on SQLite's single connection, some of PostgreSQL's pool. */
  readonly concurrency: number;
  close(): Promise<void>;
}

export function preparedStatementsFor(dataSource: DataSource): PreparedStatements {
  return kindOf(dataSource) === 'postgres'
    ? new PostgresStatements(dataSource)
    : new SqliteStatements(dataSource);
}

/**
 * Statements prepared once on SQLite's connection: building each query through TypeORM costs
 * several times the query itself.
 */
class SqliteStatements implements PreparedStatements {
  private readonly statements = new Map<string, Statement>();
  readonly concurrency = 1;

  constructor(private readonly dataSource: DataSource) {}

  async first<T>(sql: string, parameters: unknown[]): Promise<T | undefined> {
    return (await this.all<T>(sql, parameters))[0];
  }

  all<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    // `all` resets the statement first and steps it to the end, so no read snapshot stays open
    // between calls (`get` leaves the statement active, and a new commit by another process
    // would stay invisible to this connection).
    const statement = this.statement(sql);
    return new Promise((resolve, reject) =>
      statement.all(parameters, (error: Error | null, rows: T[]) =>
        error ? reject(error) : resolve(rows),
      ),
    );
  }

  inKeys(column: string): string {
    return `${column} IN (SELECT value FROM json_each(?))`;
  }

  keysParameter(keys: readonly string[]): unknown {
    return JSON.stringify(keys);
  }

  /** Finalizes every statement; SQLite cannot close a connection while one is open. */
  async close(): Promise<void> {
    const statements = [...this.statements.values()];
    this.statements.clear();
    await Promise.all(
      statements.map((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))),
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
 * Named statements on PostgreSQL: each pooled connection parses and plans a statement once, then
 * only binds and executes it.
 */
class PostgresStatements implements PreparedStatements {
  private readonly names = new Map<string, { name: string; text: string }>();
  readonly concurrency: number;

  constructor(private readonly dataSource: DataSource) {
    // Half the pool: the other half stays for writes and the rest of the service's reads.
    this.concurrency = Math.max(1, Math.floor((this.pool.options.max ?? 10) / 2));
  }

  private get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  async first<T>(sql: string, parameters: unknown[]): Promise<T | undefined> {
    return (await this.all<T>(sql, parameters))[0];
  }

  async all<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    const result = await this.pool.query<T & object>({ ...this.named(sql), values: parameters });
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
  }

  private named(sql: string): { name: string; text: string } {
    let statement = this.names.get(sql);
    if (!statement) {
      let position = 0;
      const text = sql.replace(/\?/g, () => `$${++position}`);
      statement = { name: `hot_${this.names.size + 1}`, text };
      this.names.set(sql, statement);
    }
    return statement;
  }
}

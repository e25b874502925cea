import { Logger } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import sqlite3 from 'sqlite3';
import {
  DataSource,
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
  type DataSourceOptions,
  type QueryRunner,
} from 'typeorm';
import { databaseKindOf, type DatabaseKind } from '../config/app-config.js';
import { ConnectionClosing, type SqliteConnection } from './sqlite-connection.js';
import type pg from 'pg';

/**
 * Everything that differs between the databases this service runs on: SQLite (the embedded
 * default, one process) and PostgreSQL (several instances). The rest of the code is written once.
 */

/** How long to wait for a connection, and for a query, before answering 503. */
export const CONNECT_TIMEOUT_MS = 1500;
export const QUERY_TIMEOUT_MS = 5000;

/**
 * Connections of the read pool on PostgreSQL (see ReadConnection), out of DATABASE_POOL_SIZE;
 * TypeORM's pool, for transactions, has the rest.
 */
export function readPoolSize(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 2));
}

/**
 * Connection options for TypeORM, without entities and migrations. On SQLite, `sqlite` (when
 * given) holds the connection TypeORM opens (see SqliteConnection).
 */
export function connectionOptions(
  databaseUrl: string,
  poolSize: number,
  sqlite?: SqliteConnection,
): DataSourceOptions {
  if (databaseKindOf(databaseUrl) === 'postgres') {
    const logger = new Logger('Database');
    return {
      type: 'postgres',
      url: databaseUrl,
      poolSize: Math.max(1, poolSize - readPoolSize(poolSize)),
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
      driver: recordingPgModule(),
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
    driver: sqlite?.driverModule() ?? { ...sqlite3, verbose: () => sqlite3 },
  };
}

/** The pool TypeORM made with each `pg` module given as its `driver` option. */
const PG_POOLS = new WeakMap<object, pg.Pool>();

/**
 * The `pg` module for TypeORM's documented `driver` option, with a `Pool` that records the pool
 * TypeORM creates with it (as SqliteConnection does for sqlite3's `Database`): its counts are
 * read by poolOf without reaching into TypeORM's driver. Loaded on PostgreSQL only.
 *
 * Its connections also keep an `error` listener of their own from the moment the pool makes
 * them (pg-pool's documented `connect` event, emitted before the connection is handed over).
 * TypeORM 0.3.31 attaches its listener a microtask after the pool hands a connection over; a new
 * connection is handed over while pg parses the server's ReadyForQuery, and a FATAL message read
 * in the same chunk (an administrator's `pg_terminate_backend`, a failover) was emitted with no
 * listener and ended the process. Nothing is lost by ignoring it here: TypeORM's first statement
 * on that connection fails (503), and the pool drops a connection that cannot be queried when it
 * is released (docs/decisions.md, "A terminated connection that TypeORM has not taken yet").
 */
function recordingPgModule(): object {
  const pgModule = createRequire(import.meta.url)('pg') as typeof pg;
  const module = { ...pgModule };
  class RecordedPool extends pgModule.Pool {
    constructor(config?: pg.PoolConfig) {
      super(config);
      PG_POOLS.set(module, this);
      this.on('connect', (client) => client.on('error', reportedByTheNextStatement));
    }
  }
  module.Pool = RecordedPool;
  return module;
}

/** A connection's error between the pool and TypeORM: the next statement on it fails and says so. */
function reportedByTheNextStatement(): void {}

/** The `pg` Pool of a PostgreSQL data source (undefined before TypeORM made it). */
export function poolOf(dataSource: DataSource): pg.Pool | undefined {
  const driver = (dataSource.options as { driver?: unknown }).driver;
  return typeof driver === 'object' && driver !== null ? PG_POOLS.get(driver) : undefined;
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
 * Driver errors that mean "the database does not take writes now": a full disk, a read-only
 * file or database (a standby after a failover), an I/O error.
 */
const WRITE_REFUSAL_CODES: readonly string[] = [
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  // PostgreSQL: disk full, read-only transaction, I/O error.
  '53100',
  '25006',
  '58030',
];

/** True when the error says the database refuses writes for now (see WRITE_REFUSAL_CODES). */
export function isWriteRefusal(error: unknown): boolean {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = candidate?.driverError?.code ?? candidate?.code;
  return typeof code === 'string' && WRITE_REFUSAL_CODES.includes(code);
}

/** Driver errors that mean "the database cannot answer now", not "a bug". */
const UNAVAILABLE_CODES = new Set([
  ...WRITE_REFUSAL_CODES,
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
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

/**
 * True when the error says the database is unreachable, busy or read-only for now. TypeORM's
 * PostgreSQL runner releases itself when its connection fails, and its next query then throws
 * QueryRunnerAlreadyReleasedError (QueryRunnerProviderAlreadyReleasedError through an entity
 * manager): this service never uses a runner it released itself, so those errors always mean a
 * connection lost in the middle of a transaction. On SQLite a statement asked for while the
 * application closes its connection is refused (ConnectionClosing): unavailable too.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (
    error instanceof QueryRunnerAlreadyReleasedError ||
    error instanceof QueryRunnerProviderAlreadyReleasedError ||
    error instanceof ConnectionClosing
  ) {
    return true;
  }
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

/**
 * The driver's error: through TypeORM a QueryFailedError wraps it; a prepared statement run on the
 * held SQLite connection (see SqliteConnection) reports it itself.
 */
function driverErrorOf(error: unknown): { code?: unknown; message?: unknown } {
  const driverError = error instanceof QueryFailedError ? error.driverError : error;
  return (driverError ?? {}) as { code?: unknown; message?: unknown };
}

/** True when an insert or update broke a unique constraint (another writer got there first). */
export function isUniqueViolation(error: unknown): boolean {
  const { code, message } = driverErrorOf(error);
  return (
    code === '23505' ||
    (code === 'SQLITE_CONSTRAINT' && /UNIQUE constraint failed/i.test(String(message)))
  );
}

/**
 * True when a write lost to a concurrent one: a unique constraint another writer took first, or on
 * PostgreSQL a deadlock or serialization failure the database made it lose. Run again, it is
 * judged against the winner's state.
 */
export function isLostRace(error: unknown): boolean {
  if (isUniqueViolation(error)) return true;
  const { code } = driverErrorOf(error);
  return code === '40P01' || code === '40001';
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

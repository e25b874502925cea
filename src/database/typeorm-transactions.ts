import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  EntityManager,
  EntityTarget,
  InsertResult,
  ObjectLiteral,
  QueryDeepPartialEntity,
} from 'typeorm';
import { DatabaseFileMonitor } from './database-file-monitor.js';
import { isDatabaseUnavailable, isUniqueViolation, kindOf } from './dialect.js';
import { SqliteConnection } from './sqlite-connection.js';
import { GroupConnection, SqliteGroupCommit } from './sqlite-group-commit.js';
import { TransactionMemo } from './transaction-memo.js';
import { RunOptions, Transactions, Tx } from './transactions.js';
import { WriteHealth } from './write-health.js';

/** A transaction of TypeOrmTransactions: its entity manager, on SQLite its connection. */
export class TypeOrmTx implements Tx {
  readonly inTransaction = true;
  constructor(
    readonly manager: EntityManager,
    /** SQLite: the connection of the transaction, for prepared statements (see SqliteConnection). */
    readonly sqlite?: SqliteConnection,
    /** SQLite's grouped transactions: what their units learned (see TransactionMemo). */
    readonly memo?: TransactionMemo,
  ) {}
}

function typeOrmTx(tx: Tx): TypeOrmTx {
  if (!(tx instanceof TypeOrmTx)) throw new Error('Not a transaction of this data source');
  return tx;
}

/** The entity manager of a transaction begun by TypeOrmTransactions. */
export function managerOf(tx: Tx): EntityManager {
  return typeOrmTx(tx).manager;
}

/** SQLite: the connection the transaction runs on, when the application holds it. */
export function sqliteConnectionOf(tx: Tx): SqliteConnection | undefined {
  const sqlite = typeOrmTx(tx).sqlite;
  return sqlite?.isOpen ? sqlite : undefined;
}

/**
 * What the units of the transaction learned and keep for the units after them: SQLite's grouped
 * transactions only (see TransactionMemo); undefined on PostgreSQL, where each transaction is a
 * unit of its own.
 */
export function memoOf(tx: Tx): TransactionMemo | undefined {
  return typeOrmTx(tx).memo;
}

/**
 * Transactions on the application's data source. SQLite: grouped on its one connection (see
 * SqliteGroupCommit). PostgreSQL: each on a pooled connection of its own. Correctness across
 * processes and instances does not rest on that: it comes from the database (unique constraints,
 * conditional updates on a version column, SQLite's file lock, PostgreSQL's row locks).
 *
 * Either way a unit's promise settles after COMMIT, and a failure the database reports for a
 * write (a full disk, a read-only file, an I/O error) marks the instance as refusing writes until
 * a commit succeeds again (WriteHealth).
 */
@Injectable()
export class TypeOrmTransactions
  extends Transactions
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly group?: SqliteGroupCommit;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly file: DatabaseFileMonitor,
    private readonly health: WriteHealth,
    private readonly sqlite: SqliteConnection,
  ) {
    super();
    if (kindOf(dataSource) === 'sqlite') {
      // TypeORM's SQLite driver runs every query on its one connection, whichever runner sends it.
      let connection: GroupConnection | undefined;
      this.group = new SqliteGroupCommit(
        () => {
          if (!connection) {
            const runner = dataSource.createQueryRunner();
            const held = sqlite?.isOpen ? sqlite : undefined;
            const memo = new TransactionMemo();
            connection = {
              control: held ? (sql) => held.run(sql) : (sql) => runner.query(sql),
              controls: held && ((statements) => held.exec(statements)),
              tx: new TypeOrmTx(runner.manager, held, memo),
              memo,
            };
          }
          return connection;
        },
        {
          assertWritable: (stage) => file.assertPresent(stage),
          committed: () => health.committed(),
          refused: (error) => health.refused(error),
        },
      );
      file.checkpointWith(() => this.outside('PRAGMA wal_checkpoint(TRUNCATE)'));
    }
  }

  /**
   * SQLite: every COMMIT waits until the log is on disk (`synchronous = FULL`, SQLite's own default
   * for this build, set explicitly so that no build or setting can weaken it): an acknowledged
   * write survives a crash or a power cut, not only a killed process.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.group) await this.outside('PRAGMA synchronous = FULL');
  }

  /** Before TypeORM closes the connection, which it cannot while a statement is prepared. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.sqlite.finalize();
  }

  run<T>(work: (tx: Tx) => Promise<T>, options: RunOptions = {}): Promise<T> {
    return this.group ? this.group.run(work, options) : this.pooled(work);
  }

  outside(sql: string): Promise<void> {
    return this.group ? this.group.outside(sql) : this.dataSource.query(sql);
  }

  /** PostgreSQL: a transaction on a connection of its own, released whatever happens. */
  private async pooled<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      let value: T;
      try {
        value = await work(new TypeOrmTx(runner.manager));
        await runner.commitTransaction();
      } catch (error) {
        // A connection that broke cannot roll back; the pool drops it when it is released.
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      }
      this.health.committed();
      return value;
    } catch (error) {
      if (isDatabaseUnavailable(error)) this.health.refused(error);
      throw error;
    } finally {
      await runner.release();
    }
  }
}

/**
 * Inserts rows inside the transaction without reading their generated columns back: one
 * statement, where TypeORM's `insert` follows it with a SELECT of the defaults. For the rows of
 * the write path whose generated values nobody reads (a transition, a callback, an attempt).
 */
export async function insertRows<Entity extends ObjectLiteral>(
  tx: Tx,
  target: EntityTarget<Entity>,
  values: QueryDeepPartialEntity<Entity> | QueryDeepPartialEntity<Entity>[],
): Promise<void> {
  await managerOf(tx)
    .createQueryBuilder()
    .insert()
    .into(target)
    .values(values)
    .updateEntity(false)
    .execute();
}

/** Inserts a row inside the transaction; undefined when a unique constraint refuses it. */
export async function insertUnlessDuplicate<Entity extends ObjectLiteral>(
  tx: Tx,
  target: EntityTarget<Entity>,
  values: Parameters<EntityManager['insert']>[1],
): Promise<InsertResult | undefined> {
  try {
    return await managerOf(tx).insert(target, values);
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

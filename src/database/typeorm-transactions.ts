import { Injectable } from '@nestjs/common';
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
import { isUniqueViolation, needsSerialTransactions } from './dialect.js';
import { RunOptions, Transactions, Tx } from './transactions.js';

class TypeOrmTx implements Tx {
  readonly inTransaction = true;
  constructor(readonly manager: EntityManager) {}
}

/** The entity manager of a transaction begun by TypeOrmTransactions. */
export function managerOf(tx: Tx): EntityManager {
  if (!(tx instanceof TypeOrmTx)) throw new Error('Not a transaction of this data source');
  return tx.manager;
}

/**
 * Transactions on the application's data source; on SQLite one after another within this
 * process (see needsSerialTransactions). Correctness across processes and instances does not rest
 * on that order: it comes from the database (unique constraints, conditional updates on a
 * version column, SQLite's file lock, PostgreSQL's row locks).
 */
@Injectable()
export class TypeOrmTransactions extends Transactions {
  private readonly serial: boolean;
  /** Units waiting their turn (serial only): those run `ahead` first, each lane in order. */
  private readonly waitingAhead: (() => void)[] = [];
  private readonly waitingInTurn: (() => void)[] = [];
  private busy = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly file: DatabaseFileMonitor,
  ) {
    super();
    this.serial = needsSerialTransactions(dataSource);
  }

  run<T>(work: (tx: Tx) => Promise<T>, options: RunOptions = {}): Promise<T> {
    if (!this.serial) return this.transaction(work);
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.transaction(work)
          .then(resolve, reject)
          .finally(() => this.startNext());
      };
      (options.ahead ? this.waitingAhead : this.waitingInTurn).push(start);
      if (!this.busy) this.startNext();
    });
  }

  private startNext(): void {
    const start = this.waitingAhead.shift() ?? this.waitingInTurn.shift();
    this.busy = start !== undefined;
    start?.();
  }

  private async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const value = await this.dataSource.transaction(async (manager) => {
      const done = await work(new TypeOrmTx(manager));
      this.file.assertPresent(); // before COMMIT: a gone file rolls the work back
      return done;
    });
    this.file.assertPresent(); // after COMMIT: a write into a gone file is never acknowledged
    return value;
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

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityTarget, InsertResult, ObjectLiteral } from 'typeorm';
import { DatabaseFileMonitor } from './database-file-monitor.js';
import { isUniqueViolation } from './dialect.js';
import { Transactions, Tx } from './transactions.js';

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
 * Transactions on the application's data source, run one after another within this process.
 * TypeORM's SQLite driver shares one connection between all callers, so two transactions begun
 * at once would silently merge into one. Correctness across processes does not rest on this
 * order: it comes from the database (unique constraints, conditional updates on a version
 * column, SQLite's file lock).
 */
@Injectable()
export class TypeOrmTransactions extends Transactions {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly file: DatabaseFileMonitor,
  ) {
    super();
  }

  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const result = this.tail.then(async () => {
      const value = await this.dataSource.transaction(async (manager) => {
        const done = await work(new TypeOrmTx(manager));
        this.file.assertPresent(); // before COMMIT: a gone file rolls the work back
        return done;
      });
      this.file.assertPresent(); // after COMMIT: a write into a gone file is never acknowledged
      return value;
    });
    this.tail = result.catch(() => undefined);
    return result;
  }
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

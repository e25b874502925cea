import type { DataSource } from 'typeorm';
import { poolOf } from '../database/dialect.js';

export type PoolState = 'total' | 'idle' | 'waiting';

/**
 * The database connections as far as they can be known. PostgreSQL: the counts of the `pg` Pool
 * TypeORM made (pg's documented `totalCount`, `idleCount`, `waitingCount`), known through the
 * `pg` module given to TypeORM as its documented `driver` option (see connectionOptions).
 * SQLite: TypeORM shares one connection between all callers and does not say whether it is busy
 * (sqlite3 queues statements internally), so only `total` is reported: 1 while connected.
 */
export function poolConnections(dataSource: DataSource): Partial<Record<PoolState, number>> {
  if (dataSource.options.type === 'postgres') {
    const pool = poolOf(dataSource);
    if (!pool) return { total: 0, idle: 0, waiting: 0 };
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }
  return { total: dataSource.isInitialized ? 1 : 0 };
}

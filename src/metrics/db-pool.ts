import type { DataSource } from 'typeorm';

export type PoolState = 'total' | 'idle' | 'waiting';

/** The counters of a `pg` Pool, which TypeORM's PostgreSQL driver keeps as `driver.master`. */
interface PgPoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The database connections as far as they can be known. PostgreSQL: the pool's own counts.
 * SQLite: TypeORM shares one connection between all callers and does not say whether it is busy
 * (sqlite3 queues statements internally), so only `total` is reported: 1 while connected.
 */
export function poolConnections(dataSource: DataSource): Partial<Record<PoolState, number>> {
  if (dataSource.options.type === 'postgres') {
    const pool = (dataSource.driver as unknown as { master?: PgPoolCounts }).master;
    if (!pool) return { total: 0, idle: 0, waiting: 0 };
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }
  return { total: dataSource.isInitialized ? 1 : 0 };
}

import type { DatabaseKind } from '../config/app-config.js';
import { kindOf } from './dialect.js';
import type { Tx } from './transactions.js';
import { managerOf, sqliteConnectionOf } from './typeorm-transactions.js';

/** Statements written with `?`, numbered for PostgreSQL: each text converted once. */
const NUMBERED = new Map<string, string>();

/**
 * A statement written with `?` placeholders, as the database takes it: unchanged for SQLite,
 * numbered (`$1`, `$2`…) for PostgreSQL.
 */
export function forDatabase(kind: DatabaseKind, sql: string): string {
  if (kind !== 'postgres') return sql;
  let text = NUMBERED.get(sql);
  if (text === undefined) {
    let position = 0;
    text = sql.replace(/\?/g, () => `$${++position}`);
    NUMBERED.set(sql, text);
  }
  return text;
}

/**
 * Runs one statement inside the transaction, written once for both databases with `?`
 * placeholders: on SQLite as a statement prepared once on the transaction's connection (see
 * SqliteConnection), on PostgreSQL through the transaction's query runner. For the statements of
 * the write path, which are few and fixed: building each through TypeORM's query builder cost more
 * than running it (docs/decisions.md, "The write path's statements").
 */
export async function execute<T = unknown>(
  tx: Tx,
  sql: string,
  parameters: readonly unknown[] = [],
): Promise<{ rows: T[]; affected: number }> {
  const sqlite = sqliteConnectionOf(tx);
  if (sqlite) return sqlite.run<T>(sql, parameters);
  const manager = managerOf(tx);
  const text = forDatabase(kindOf(manager.connection), sql);
  const result = await manager.queryRunner!.query(text, [...parameters], true);
  return { rows: (result.records ?? []) as T[], affected: result.affected ?? 0 };
}

import { kindOf } from './dialect.js';
import type { Tx } from './transactions.js';
import { managerOf, sqliteConnectionOf } from './typeorm-transactions.js';

/** `?` placeholders numbered for PostgreSQL (`$1`, `$2`…), once per statement text. */
const NUMBERED = new Map<string, string>();

function numbered(sql: string): string {
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
  const text = kindOf(manager.connection) === 'postgres' ? numbered(sql) : sql;
  const result = await manager.queryRunner!.query(text, [...parameters], true);
  return { rows: (result.records ?? []) as T[], affected: result.affected ?? 0 };
}

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
  const runner = manager.queryRunner!;
  const text = kindOf(manager.connection) === 'postgres' ? numbered(sql) : sql;
  // One after the other on the transaction's connection: a unit may send several statements
  // together (allStatements), and pg 8 deprecates queueing a query on a client that is already
  // running one (pg 9 removes it); it ran them one at a time all the same.
  const previous = lastStatement.get(runner);
  const sent = previous
    ? previous.then(() => runner.query(text, [...parameters], true))
    : runner.query(text, [...parameters], true);
  const settled = sent.then(
    () => undefined,
    () => undefined,
  );
  lastStatement.set(runner, settled);
  const result = await sent;
  if (lastStatement.get(runner) === settled) lastStatement.delete(runner);
  return { rows: (result.records ?? []) as T[], affected: result.affected ?? 0 };
}

/** The last statement sent on each query runner, settled or not (see execute). */
const lastStatement = new WeakMap<object, Promise<void>>();

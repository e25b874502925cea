import { kindOf } from './dialect.js';
import { execute } from './sql.js';
import type { Tx } from './transactions.js';
import { managerOf } from './typeorm-transactions.js';

/** A column written in batches, and its SQL type on PostgreSQL. */
export interface BatchColumn {
  name: string;
  type: 'text' | 'integer' | 'bigint' | 'boolean';
}

/** Rows per statement. */
export const BATCH_ROWS = 1000;

/**
 * The statements of the bulk paths (seed files, the reports of a batch) take their rows as one
 * JSON parameter, which the database turns back into rows (SQLite's json_each, PostgreSQL's
 * jsonb_array_elements): the driver converts one string per statement instead of every field of
 * every row, one by one, and the statement's text is the same whatever the number of rows, so it
 * is prepared once (src/database/sql.ts).
 */
function rowsParameter(rows: readonly unknown[][]): string {
  const json = JSON.stringify(rows);
  // A lone surrogate is escaped as \udXXX; bound as text it becomes U+FFFD, as it does here.
  if (!json.includes('\\ud')) return json;
  return JSON.stringify(rows, (_key, value: unknown) =>
    typeof value === 'string' ? Buffer.from(value, 'utf8').toString('utf8') : value,
  );
}

/** The SELECT list that reads `columns` out of the JSON rows, as `<alias>`-qualified values. */
function fromJson(tx: Tx, columns: readonly BatchColumn[], alias = 'v'): string {
  const postgres = kindOf(managerOf(tx).connection) === 'postgres';
  const values = columns.map((column, i) =>
    postgres
      ? `(r ->> ${i})::${column.type} AS ${column.name}`
      : `r.value ->> ${i} AS ${column.name}`,
  );
  // jsonb is parsed once; json would be parsed again by each ->>.
  const rows = postgres ? 'jsonb_array_elements(?::jsonb) AS r' : 'json_each(?) AS r';
  return `(SELECT ${values.join(', ')} FROM ${rows}) AS ${alias}`;
}

/** How insertBatch treats rows it must not insert. */
export interface InsertOptions {
  /** A row whose value of this column is taken is left out, not an error (ON CONFLICT DO NOTHING). */
  unique?: string;
  /**
   * A condition the statement checks itself (`?` placeholders, `parameters` their values): while
   * it does not hold, no row is inserted.
   */
  onlyIf?: { sql: string; parameters: readonly unknown[] };
}

/**
 * Inserts many rows, a statement per BATCH_ROWS, inside the transaction, and returns how many were
 * inserted. Columns left out take their defaults, as with a row inserted alone.
 */
export async function insertBatch(
  tx: Tx,
  table: string,
  columns: readonly BatchColumn[],
  rows: readonly unknown[][],
  { unique, onlyIf }: InsertOptions = {},
): Promise<number> {
  const names = columns.map((c) => c.name).join(', ');
  // Always a WHERE: SQLite's grammar needs one before ON CONFLICT after a SELECT.
  const sql =
    `INSERT INTO ${table} (${names}) SELECT ${names} FROM ${fromJson(tx, columns)} ` +
    `WHERE ${onlyIf?.sql ?? 'true'}${unique ? ` ON CONFLICT (${unique}) DO NOTHING` : ''}`;
  let inserted = 0;
  for (let from = 0; from < rows.length; from += BATCH_ROWS) {
    const parameter = rowsParameter(rows.slice(from, from + BATCH_ROWS));
    inserted += (await execute(tx, sql, [parameter, ...(onlyIf?.parameters ?? [])])).affected;
  }
  return inserted;
}

/**
 * Applies one UPDATE to many rows, each matched on its key columns and given its own values.
 * `set` and `where` name the given values `v.<column>`. Returns how many rows were updated.
 */
export async function updateBatch(
  tx: Tx,
  table: string,
  columns: readonly BatchColumn[],
  rows: readonly unknown[][],
  set: string,
  where: string,
): Promise<number> {
  const sql = `UPDATE ${table} SET ${set} FROM ${fromJson(tx, columns)} WHERE ${where}`;
  let updated = 0;
  for (let from = 0; from < rows.length; from += BATCH_ROWS) {
    const parameter = rowsParameter(rows.slice(from, from + BATCH_ROWS));
    updated += (await execute(tx, sql, [parameter])).affected;
  }
  return updated;
}

/** The rows whose `columns` hold one of the `keys` (one text value per column). */
export async function selectByKeys<T>(
  tx: Tx,
  select: string,
  columns: readonly string[],
  keys: readonly string[][],
): Promise<T[]> {
  const given = columns.map((name) => ({ name: `key_${name}`, type: 'text' as const }));
  const tuple = (names: readonly string[]) =>
    names.length === 1 ? names[0] : `(${names.join(', ')})`;
  const sql =
    `${select} WHERE ${tuple(columns)} IN ` +
    `(SELECT ${given.map((g) => `k.${g.name}`).join(', ')} FROM ${fromJson(tx, given, 'k')})`;
  const rows: T[] = [];
  for (let from = 0; from < keys.length; from += BATCH_ROWS) {
    const parameter = rowsParameter(keys.slice(from, from + BATCH_ROWS));
    rows.push(...(await execute<T>(tx, sql, [parameter])).rows);
  }
  return rows;
}

/** Marks a point of the transaction that `rollbackToSavepoint` returns to. */
export async function savepoint(tx: Tx, name: string): Promise<void> {
  await managerOf(tx).query(`SAVEPOINT ${name}`);
}

/** Undoes what the transaction did since the savepoint, which stays set. */
export async function rollbackToSavepoint(tx: Tx, name: string): Promise<void> {
  await managerOf(tx).query(`ROLLBACK TO SAVEPOINT ${name}`);
}

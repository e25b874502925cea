/**
 * A transaction in progress. Services pass it from one repository call to the next; only the
 * repositories know what is inside.
 */
export interface Tx {
  readonly inTransaction: true;
}

/** How a unit of work waits where transactions are grouped (SQLite). */
export interface RunOptions {
  /**
   * Runs before the waiting units that were not given `ahead`. For short bookkeeping that must
   * not queue behind a burst of writes (the callback dispatcher's claims and attempt records); the
   * order of independent transactions changes nothing of what they decide.
   */
  ahead?: boolean;
}

/**
 * Runs units of work in transactions: all of a unit is committed, or none of it, and a unit's
 * promise settles only once its transaction has committed (or is known not to have). A value is
 * never handed back for a change that is not on disk.
 */
export abstract class Transactions {
  abstract run<T>(work: (tx: Tx) => Promise<T>, options?: RunOptions): Promise<T>;

  /**
   * Runs a statement outside any transaction, on the connection that writes (SQLite's checkpoint
   * of its log, which cannot run inside one).
   */
  abstract outside(sql: string): Promise<void>;
}

/**
 * The results of statements a unit of work sent together, in order, once every one of them has
 * run; then the first error, if any. Promise.all rejects at the first error while the others may
 * still be to run: the unit would end, and be rolled back to its savepoint (SQLite: see
 * SqliteGroupCommit), before they ran, and they would be written outside what was undone.
 */
export async function allStatements<T>(statements: readonly (T | Promise<T>)[]): Promise<T[]> {
  const settled = await Promise.allSettled(statements);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}

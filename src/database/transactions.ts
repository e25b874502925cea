/**
 * A transaction in progress. Services pass it from one repository call to the next; only the
 * repositories know what is inside.
 */
export interface Tx {
  readonly inTransaction: true;
}

/** How a unit of work waits where transactions run one at a time (SQLite). */
export interface RunOptions {
  /**
   * Runs before the waiting units that were not given `ahead`. For short bookkeeping that must
   * not queue behind a burst of writes (the callback dispatcher's claims and attempt records); the
   * order of independent transactions changes nothing of what they decide.
   */
  ahead?: boolean;
}

/** Runs units of work in transactions: all of a unit is committed, or none of it. */
export abstract class Transactions {
  abstract run<T>(work: (tx: Tx) => Promise<T>, options?: RunOptions): Promise<T>;
}

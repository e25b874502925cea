/**
 * A transaction in progress. Services pass it from one repository call to the next; only the
 * repositories know what is inside.
 */
export interface Tx {
  readonly inTransaction: true;
}

/** Runs units of work in transactions: all of a unit is committed, or none of it. */
export abstract class Transactions {
  abstract run<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

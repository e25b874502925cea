import type { Transactions, Tx } from './transactions.js';

/** How a batch is formed. */
export interface BatchOptions<I> {
  /** Items in one batch at most. */
  maxItems: number;
  /**
   * Whether `item` may join the open batch. When not (it conflicts with an item there), it opens
   * a new batch that is handed over only once the open one's unit has ended: items that would
   * contend for the same rows are done one batch after the other, not in transactions that wait
   * for each other's locks (and each hold a connection meanwhile).
   */
  joins?(batch: readonly I[], item: I): boolean;
}

/** A batch: its items, and the results of its unit of work, one per item. */
interface Batch<I, R> {
  items: I[];
  done: Promise<R[]>;
}

/**
 * Work submitted one item at a time and done for many in one unit of work (a transaction; on
 * SQLite a unit of a group, see SqliteGroupCommit). The first item submitted opens a batch, handed
 * to Transactions.run at once; every item submitted until that unit begins joins it (unless it
 * is full: a new batch opens at once; or `joins` refuses it: a new batch opens, handed over once
 * the refusing one's unit has ended). So the items that arrive while the writes
 * before them are under way are done together, with a statement per kind of row instead of a
 * statement per row each (docs/decisions.md, "What bounds writes on SQLite"), while an item
 * submitted to an idle system starts at once.
 *
 * Each item gets the result `work` answers at its place. If the unit fails, each item of the batch
 * fails with its error and nothing of the batch was written; a batch closes when its unit begins,
 * and also when it fails without beginning. Results are handed over once the
 * unit's transaction has committed, as Transactions.run hands over a unit's value.
 *
 * Not DataLoader: its batches are dispatched on a schedule of their own and settle when the batch
 * function returns, before the transaction has committed; a batch here closes when its turn in the
 * transactions comes, and settles after COMMIT.
 */
export class BatchedUnits<I, R> {
  private open?: Batch<I, R>;

  constructor(
    private readonly transactions: Transactions,
    private readonly work: (tx: Tx, items: readonly I[]) => Promise<R[]>,
    private readonly options: BatchOptions<I>,
  ) {}

  submit(item: I): Promise<R> {
    const batch = this.open;
    let after: Promise<unknown> | undefined;
    if (batch) {
      if (!(this.options.joins?.(batch.items, item) ?? true)) after = batch.done;
      else if (batch.items.length < this.options.maxItems) {
        const index = batch.items.push(item) - 1;
        return batch.done.then((results) => results[index]);
      }
    }
    return this.begin(item, after).then((results) => results[0]);
  }

  /**
   * Opens a batch with its first item; it closes when its unit begins. With `after`, its unit is
   * handed over once that has settled (meanwhile the batch takes the items that may join it).
   */
  private begin(first: I, after?: Promise<unknown>): Promise<R[]> {
    const batch = { items: [first] } as Batch<I, R>;
    // Open before the unit is handed over: a unit begun within the call closes it at once.
    this.open = batch;
    const close = () => {
      if (this.open === batch) this.open = undefined;
    };
    const run = () =>
      this.transactions.run((tx) => {
        close();
        return this.work(tx, batch.items);
      });
    batch.done = after ? after.then(run, run) : run();
    // A unit refused before it began (its transaction could not be begun) closes its batch too:
    // what is submitted later is tried, not answered with that refusal.
    batch.done.then(close, close);
    return batch.done;
  }
}

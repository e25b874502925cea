import { BatchedUnits } from './batched-units.js';
import { Transactions, type Tx } from './transactions.js';

/** Transactions whose units begin only when the test says so, one at a time, in order. */
class HeldTransactions extends Transactions {
  readonly waiting: { begin(): Promise<void>; refuse(error: Error): void }[] = [];
  /** What each unit that ran was given, and whether it committed. */
  readonly log: string[] = [];

  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        begin: async () => {
          try {
            const value = await work({ inTransaction: true });
            this.log.push('committed');
            resolve(value);
          } catch (error) {
            this.log.push('rolled back');
            reject(error as Error);
          }
        },
        refuse: reject,
      });
    });
  }

  /** Begins the next waiting unit and waits for it to end. */
  async next(): Promise<void> {
    const unit = this.waiting.shift();
    if (!unit) throw new Error('no unit is waiting');
    await unit.begin();
  }

  /** Fails the next waiting unit without beginning it (its transaction could not be begun). */
  refuseNext(error: Error): void {
    const unit = this.waiting.shift();
    if (!unit) throw new Error('no unit is waiting');
    unit.refuse(error);
  }

  async outside(): Promise<void> {}
}

/** Transactions that begin a unit within the call to run(). */
class ImmediateTransactions extends Transactions {
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return work({ inTransaction: true });
  }

  async outside(): Promise<void> {}
}

describe('BatchedUnits', () => {
  let transactions: HeldTransactions;
  let batches: string[][];

  /** Doubles each item; an item named 'refused' is answered with an error value at its place. */
  const units = (maxItems = 8, fails?: (items: readonly string[]) => boolean) =>
    new BatchedUnits<string, string | Error>(
      transactions,
      async (_tx, items) => {
        batches.push([...items]);
        if (fails?.(items)) throw new Error(`batch ${items.join(',')} failed`);
        return items.map((item) => (item === 'refused' ? new Error('refused') : item + item));
      },
      { maxItems, joins: (batch, item) => !batch.includes(item) },
    );

  beforeEach(() => {
    transactions = new HeldTransactions();
    batches = [];
  });

  it('does the items submitted before its unit begins in one unit, each with its own result', async () => {
    const batched = units();
    const results = ['a', 'refused', 'b'].map((item) => batched.submit(item));
    expect(transactions.waiting).toHaveLength(1);
    await transactions.next();
    expect(batches).toEqual([['a', 'refused', 'b']]);
    expect(await results[0]).toBe('aa');
    expect(await results[1]).toEqual(new Error('refused'));
    expect(await results[2]).toBe('bb');
    expect(transactions.log).toEqual(['committed']);
  });

  it('opens a new batch for what arrives once the unit has begun', async () => {
    const batched = units();
    const first = batched.submit('a');
    const begun = transactions.next();
    const second = batched.submit('b');
    await begun;
    expect(await first).toBe('aa');
    expect(transactions.waiting).toHaveLength(1);
    await transactions.next();
    expect(await second).toBe('bb');
    expect(batches).toEqual([['a'], ['b']]);
  });

  it('opens a new batch at once when the open one is full', async () => {
    const batched = units(2);
    const results = ['a', 'b', 'c'].map((item) => batched.submit(item));
    expect(transactions.waiting).toHaveLength(2);
    await transactions.next();
    await transactions.next();
    expect(batches).toEqual([['a', 'b'], ['c']]);
    expect(await Promise.all(results)).toEqual(['aa', 'bb', 'cc']);
  });

  it('hands over a batch the open one refused an item to only once that one has ended', async () => {
    const batched = units();
    // a,c | c,d: the second c may not join the batch that holds one; d joins the next batch.
    const results = ['a', 'c', 'c', 'd'].map((item) => batched.submit(item));
    expect(transactions.waiting).toHaveLength(1);
    await transactions.next();
    expect(batches).toEqual([['a', 'c']]);
    await Promise.resolve();
    expect(transactions.waiting).toHaveLength(1);
    await transactions.next();
    expect(batches).toEqual([
      ['a', 'c'],
      ['c', 'd'],
    ]);
    expect(await Promise.all(results)).toEqual(['aa', 'cc', 'cc', 'dd']);
  });

  it('hands over the waiting batch also when the one before it failed', async () => {
    const batched = units(8, (items) => items.includes('x'));
    const failed = batched.submit('x');
    const later = batched.submit('x');
    transactions.refuseNext(new Error('the database is unavailable'));
    await expect(failed).rejects.toThrow('the database is unavailable');
    await Promise.resolve();
    expect(transactions.waiting).toHaveLength(1);
    await transactions.next();
    await expect(later).rejects.toThrow('batch x failed');
  });

  it('fails every item of a batch whose unit fails, and only those', async () => {
    const batched = units(2, (items) => items.includes('x'));
    const failed = ['a', 'x'].map((item) => batched.submit(item));
    const kept = batched.submit('b');
    await transactions.next();
    await transactions.next();
    for (const result of failed) await expect(result).rejects.toThrow('batch a,x failed');
    expect(await kept).toBe('bb');
    expect(transactions.log).toEqual(['rolled back', 'committed']);
  });

  it('closes a batch whose unit failed before it began: what comes later is tried', async () => {
    const batched = units();
    const refused = batched.submit('a');
    transactions.refuseNext(new Error('the database is unavailable'));
    await expect(refused).rejects.toThrow('the database is unavailable');
    const later = batched.submit('b');
    expect(transactions.waiting).toHaveLength(1);
    await transactions.next();
    expect(await later).toBe('bb');
    expect(batches).toEqual([['b']]);
  });

  it('does not keep open a batch whose unit began within the call', async () => {
    const seen: string[][] = [];
    const batched = new BatchedUnits<string, string>(
      new ImmediateTransactions(),
      async (_tx, items) => {
        seen.push([...items]);
        return items.map((item) => item.toUpperCase());
      },
      { maxItems: 8 },
    );
    expect(await Promise.all([batched.submit('a'), batched.submit('b')])).toEqual(['A', 'B']);
    expect(seen).toEqual([['a'], ['b']]);
  });
});

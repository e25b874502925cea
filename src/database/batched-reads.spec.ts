import { BatchedReads, type BatchOptions } from './batched-reads.js';

/** Reads whose completion the test controls; each answers `<key>@<batch number>`. */
function controlledReads(options: BatchOptions = { maxBatch: 100, concurrency: 1 }) {
  const started: {
    keys: readonly string[];
    resolve: () => void;
    reject: (error: Error) => void;
  }[] = [];
  const reads = new BatchedReads<string>(
    (keys) =>
      new Promise((resolve, reject) => {
        const batch = started.length + 1;
        started.push({
          keys,
          resolve: () =>
            resolve(new Map(keys.filter((k) => k !== 'none').map((k) => [k, `${k}@${batch}`]))),
          reject,
        });
      }),
    options,
  );
  return { started, reads };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('BatchedReads', () => {
  it('reads the lookups of one turn of the event loop with one statement', async () => {
    const { started, reads } = controlledReads();
    const values = [reads.read('a'), reads.read('b'), reads.read('none'), reads.read('a')];
    expect(started).toHaveLength(0);
    await turn();
    expect(started.map((s) => s.keys)).toEqual([['a', 'b', 'none', 'a']]);
    started[0].resolve();
    expect(await Promise.all(values)).toEqual(['a@1', 'b@1', undefined, 'a@1']);
  });

  it('never puts a lookup in a batch under way: later ones wait and go together in the next', async () => {
    const { started, reads } = controlledReads();
    const early = reads.read('a');
    await turn();
    const late = [reads.read('a'), reads.read('b')];
    await turn();
    const later = reads.read('c');
    await turn();
    // One statement at a time: the second batch waits for the first, gathering keys meanwhile.
    expect(started.map((s) => s.keys)).toEqual([['a']]);
    started[0].resolve();
    expect(await early).toBe('a@1');
    expect(started.map((s) => s.keys)).toEqual([['a'], ['a', 'b', 'c']]);
    started[1].resolve();
    expect(await Promise.all([...late, later])).toEqual(['a@2', 'b@2', 'c@2']);
  });

  it('runs up to `concurrency` statements at once, and at most `maxBatch` keys in each', async () => {
    const { started, reads } = controlledReads({ maxBatch: 2, concurrency: 2 });
    const values = ['a', 'b', 'c', 'd', 'e'].map((key) => reads.read(key));
    await turn();
    expect(started.map((s) => s.keys)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    started[1].resolve();
    await turn();
    expect(started.map((s) => s.keys)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    started[0].resolve();
    started[2].resolve();
    expect(await Promise.all(values)).toEqual(['a@1', 'b@1', 'c@2', 'd@2', 'e@3']);
  });

  it('fails the lookups of a failed statement only, and goes on with the next batch', async () => {
    const { started, reads } = controlledReads();
    const failing = reads.read('a');
    await turn();
    const waiting = reads.read('b');
    started[0].reject(new Error('database gone'));
    await expect(failing).rejects.toThrow('database gone');
    await turn();
    expect(started.map((s) => s.keys)).toEqual([['a'], ['b']]);
    started[1].resolve();
    expect(await waiting).toBe('b@2');
    const later = reads.read('c');
    await turn();
    started[2].resolve();
    expect(await later).toBe('c@3');
  });
});

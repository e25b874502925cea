import { firstBlockAtOrAfter } from './start-block.js';

/** A chain whose block n has timestamps[n], with the reads counted. */
function chain(timestamps: number[]) {
  const reads: bigint[] = [];
  const timestampOf = async (n: bigint) => {
    reads.push(n);
    return BigInt(timestamps[Number(n)]);
  };
  return { reads, timestampOf, head: BigInt(timestamps.length - 1) };
}

describe('firstBlockAtOrAfter', () => {
  const timestamps = [100, 112, 124, 124, 136, 148, 160];

  it.each([
    [0, 0n],
    [100, 0n],
    [101, 1n],
    [124, 2n],
    [125, 4n],
    [160, 6n],
  ])('finds the first block at or after %i: block %i', async (time, expected) => {
    const { timestampOf, head } = chain(timestamps);
    expect(await firstBlockAtOrAfter(BigInt(time), head, timestampOf)).toBe(expected);
  });

  it('answers the block after the head when no block is that recent', async () => {
    const { timestampOf, head } = chain(timestamps);
    expect(await firstBlockAtOrAfter(161n, head, timestampOf)).toBe(7n);
  });

  it('reads about log2(head) blocks', async () => {
    const { timestampOf, reads, head } = chain(Array.from({ length: 1_000_001 }, (_, i) => i * 12));
    expect(await firstBlockAtOrAfter(12n * 654_321n - 5n, head, timestampOf)).toBe(654_321n);
    expect(reads.length).toBeLessThanOrEqual(22);
  });
});

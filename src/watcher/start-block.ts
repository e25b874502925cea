/**
 * The first block whose timestamp is at or after `timestamp` (seconds), among blocks 0..head, by
 * binary search on block timestamps (they never decrease along a chain): about log2(head) header
 * reads. head + 1 when no block is that recent yet.
 */
export async function firstBlockAtOrAfter(
  timestamp: bigint,
  head: bigint,
  timestampOf: (blockNumber: bigint) => Promise<bigint>,
): Promise<bigint> {
  if ((await timestampOf(head)) < timestamp) return head + 1n;
  let low = 0n;
  let high = head; // timestampOf(high) >= timestamp throughout
  while (low < high) {
    const middle = (low + high) / 2n;
    if ((await timestampOf(middle)) >= timestamp) high = middle;
    else low = middle + 1n;
  }
  return low;
}

import { OTHER_ADDRESSES, RefusalCounts } from './refusal-counts.js';

const limits = { windowMs: 60_000, perAddress: 3, inAll: 5, addresses: 2 };
const T0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);

describe('RefusalCounts', () => {
  it('records the first refusals of an address one by one, then counts the rest of the window', () => {
    const counts = new RefusalCounts(limits);
    const taken = Array.from({ length: 10 }, (_, i) =>
      counts.take('ip:203.0.113.7', i < 5 ? 401 : 429, 'missing_token', T0 + i),
    );
    expect(taken).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(counts.takeEnded(T0 + 59_999)).toEqual([]);
    expect(counts.pendingUntil).toBe(T0 + 60_000);
    expect(counts.takeEnded(T0 + 60_000)).toEqual([
      {
        address: 'ip:203.0.113.7',
        from: T0,
        to: T0 + 60_000,
        count: 7,
        byOutcome: { 401: 2, 429: 5 },
        byReason: { missing_token: 7 },
      },
    ]);
    expect(counts.pendingUntil).toBeUndefined();
    // A new window records the address's first refusals again.
    expect(counts.take('ip:203.0.113.7', 401, 'missing_token', T0 + 60_001)).toBe(true);
  });

  it('bounds the events of all addresses together, and the addresses it tells apart', () => {
    const counts = new RefusalCounts(limits);
    const recorded = ['a', 'b', 'c', 'd'].flatMap((address) =>
      Array.from({ length: 3 }, (_, i) =>
        counts.take(`ip:${address}`, 401, 'unknown_token', T0 + i),
      ),
    );
    // Five one by one in all (three of a, two of b); c and d share one count past two addresses.
    expect(recorded.filter(Boolean)).toHaveLength(5);
    const ended = counts.takeEnded(T0, true);
    expect(ended.map((c) => [c.address, c.count])).toEqual([
      ['ip:b', 1],
      [OTHER_ADDRESSES, 6],
    ]);
  });

  it('gives every count it took once, and the current window only when asked for all', () => {
    const counts = new RefusalCounts(limits);
    for (let i = 0; i < 5; i++) counts.take('ip:x', 403, 'insufficient_role', T0 + i);
    expect(counts.takeEnded(T0 + 10)).toEqual([]);
    expect(counts.takeEnded(T0 + 10, true).map((c) => c.count)).toEqual([2]);
    expect(counts.takeEnded(T0 + 120_000, true)).toEqual([]);
  });
});

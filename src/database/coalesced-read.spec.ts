import { CoalescedRead, CoalescedReads } from './coalesced-read.js';

/** A read whose completion the test controls. */
function controlledReads() {
  const started: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  const read = () => new Promise<number>((resolve, reject) => started.push({ resolve, reject }));
  return { started, read };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescedRead', () => {
  it('starts a read for the first caller', async () => {
    const { started, read } = controlledReads();
    const coalesced = new CoalescedRead(read);
    const first = coalesced.get();
    expect(started).toHaveLength(1);
    started[0].resolve(1);
    await expect(first).resolves.toBe(1);
  });

  it('never gives a caller a read that started before it: later callers share the next read', async () => {
    const { started, read } = controlledReads();
    const coalesced = new CoalescedRead(read);
    const first = coalesced.get();
    const second = coalesced.get();
    const third = coalesced.get();
    expect(started).toHaveLength(1);
    started[0].resolve(1);
    await expect(first).resolves.toBe(1);
    await tick();
    expect(started).toHaveLength(2);
    started[1].resolve(2);
    await expect(second).resolves.toBe(2);
    await expect(third).resolves.toBe(2);
  });

  it('starts afresh once nothing is pending, and survives a failed read', async () => {
    const { started, read } = controlledReads();
    const coalesced = new CoalescedRead(read);
    const failing = coalesced.get();
    const waiting = coalesced.get();
    started[0].reject(new Error('busy'));
    await expect(failing).rejects.toThrow('busy');
    await tick();
    started[1].resolve(5);
    await expect(waiting).resolves.toBe(5);
    const later = coalesced.get();
    expect(started).toHaveLength(3);
    started[2].resolve(6);
    await expect(later).resolves.toBe(6);
  });
});

describe('CoalescedReads', () => {
  it('coalesces per key, and forgets a key once nothing is pending for it', async () => {
    const started: { key: string; resolve: (value: string) => void }[] = [];
    const reads = new CoalescedReads(
      (key: string) => new Promise<string>((resolve) => started.push({ key, resolve })),
    );
    const a1 = reads.get('a');
    const b1 = reads.get('b');
    const a2 = reads.get('a');
    expect(started.map((s) => s.key)).toEqual(['a', 'b']);
    expect(reads.size).toBe(2);
    started[0].resolve('a-1');
    started[1].resolve('b-1');
    await expect(a1).resolves.toBe('a-1');
    await expect(b1).resolves.toBe('b-1');
    await tick();
    // The second lookup of `a` arrived while the first read was pending: it gets a read of its own.
    expect(started.map((s) => s.key)).toEqual(['a', 'b', 'a']);
    expect(reads.size).toBe(1);
    started[2].resolve('a-2');
    await expect(a2).resolves.toBe('a-2');
    await tick();
    expect(reads.size).toBe(0);
  });

  it('forgets a key whose read failed, and reads it afresh on the next lookup', async () => {
    let calls = 0;
    const reads = new CoalescedReads(async (key: string) => {
      calls++;
      if (calls === 1) throw new Error('busy');
      return key;
    });
    await expect(reads.get('a')).rejects.toThrow('busy');
    await tick();
    expect(reads.size).toBe(0);
    await expect(reads.get('a')).resolves.toBe('a');
    expect(calls).toBe(2);
  });
});

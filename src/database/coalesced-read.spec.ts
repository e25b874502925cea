import { CoalescedRead } from './coalesced-read.js';

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

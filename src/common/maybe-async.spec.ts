import { andThen } from './maybe-async.js';

describe('andThen', () => {
  it('continues at once with a value', () => {
    const seen: number[] = [];
    const result = andThen(2, (value) => {
      seen.push(value);
      return value * 10;
    });
    expect(result).toBe(20);
    expect(seen).toEqual([2]);
  });

  it('continues after a promise settles, and passes its rejection on', async () => {
    const later = andThen(Promise.resolve(3), (value) => value + 1);
    expect(later).toBeInstanceOf(Promise);
    await expect(later).resolves.toBe(4);
    await expect(andThen(Promise.reject(new Error('gone')), () => 1)).rejects.toThrow('gone');
  });

  it('lets a step that continues at once wait for the next one', async () => {
    await expect(andThen(1, (value) => Promise.resolve(value + 1))).resolves.toBe(2);
  });
});

import { approximateBytes, boundedCache } from './bounded-cache.js';
import { boundedMemoryStore } from './memory-store.js';

describe('boundedCache', () => {
  it('keeps its entries within the byte budget however many unique keys arrive', () => {
    const cache = boundedCache<{ body: string }>({ maxBytes: 64 * 1024 });
    for (let i = 0; i < 10_000; i++) cache.set(`key-${i}`, { body: 'x'.repeat(500) });
    expect(cache.calculatedSize).toBeLessThanOrEqual(64 * 1024);
    expect(cache.size).toBeLessThan(70);
    expect(cache.get('key-9999')).toEqual({ body: 'x'.repeat(500) });
    expect(cache.get('key-0')).toBeUndefined();
  });

  it('counts large values by their size, not as one entry each', () => {
    const cache = boundedCache<{ body: string }>({ maxBytes: 1024 * 1024 });
    for (let i = 0; i < 100; i++) cache.set(`page-${i}`, { body: 'y'.repeat(100_000) });
    expect(cache.size).toBeLessThanOrEqual(5);
  });

  it("takes the caller's estimate of an entry instead of walking its value", () => {
    const cache = boundedCache<{ bytes: number; body: string }>({
      maxBytes: 10_000,
      sizeOf: (value) => value.bytes,
    });
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, { bytes: 1_000, body: 'z' });
    expect(cache.size).toBe(10);
    expect(cache.calculatedSize).toBe(10_000);
  });

  it('forgets entries older than the age limit', async () => {
    const cache = boundedCache<{ id: number }>({ maxBytes: 1024, ttlMs: 20 });
    cache.set('a', { id: 1 });
    expect(cache.get('a')).toEqual({ id: 1 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.get('a')).toBeUndefined();
  });

  it('estimates strings at two bytes a character, nested fields included', () => {
    expect(approximateBytes('abcd')).toBe(8);
    expect(approximateBytes({ body: 'abcd' })).toBeGreaterThan(16);
    expect(approximateBytes({ a: { b: 'x'.repeat(100) } })).toBeGreaterThan(200);
  });
});

describe('boundedMemoryStore (the cache-manager store)', () => {
  it('stores, answers and clears through Keyv', async () => {
    const store = boundedMemoryStore(1024 * 1024);
    await store.set('k', { body: 'b' }, 10_000);
    expect(await store.get('k')).toEqual({ body: 'b' });
    await store.clear();
    expect(await store.get('k')).toBeUndefined();
  });
});

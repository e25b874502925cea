import { Keyv } from 'keyv';
import { boundedCache } from './bounded-cache.js';

/**
 * An in-memory store for @nestjs/cache-manager bounded in bytes (see boundedCache), so the
 * variety of requests (every page of every filter) cannot grow the cache without bound. Values
 * are kept as they are, neither serialised nor cloned: callers store immutable values.
 */
export function boundedMemoryStore(maxBytes: number): Keyv {
  const cache = boundedCache<object>({ maxBytes });
  // Keyv keeps expiry times itself and passes them as a third argument this cache reads otherwise.
  const store = {
    get: (key: string) => cache.get(key),
    set: (key: string, value: object) => Boolean(cache.set(key, value)),
    delete: (key: string) => cache.delete(key),
    clear: () => cache.clear(),
    has: (key: string) => cache.has(key),
  };
  return new Keyv({
    store,
    serialize: undefined,
    deserialize: undefined,
  });
}

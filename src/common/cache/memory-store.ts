import { CacheableMemory } from '@cacheable/memory';
import { Keyv } from 'keyv';

/**
 * An in-memory store for @nestjs/cache-manager that holds at most `lruSize` entries, so the
 * variety of requests (every page of every filter) cannot grow the cache without bound. Values
 * are kept as they are, neither serialised nor cloned: callers store immutable values.
 */
export function boundedMemoryStore(lruSize: number): Keyv {
  return new Keyv({
    store: new CacheableMemory({ lruSize, useClone: false }),
    serialize: undefined,
    deserialize: undefined,
  });
}

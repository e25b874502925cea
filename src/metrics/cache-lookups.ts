/** The caches whose lookups are counted. */
export type CacheName = 'catalog' | 'final_status';

/**
 * Counts cache lookups. Services take it as an optional dependency with a no-op default, so they
 * work (and are unit-tested) without the metrics module.
 */
export abstract class CacheLookups {
  abstract cacheLookup(cache: CacheName, hit: boolean): void;
}

export const UNCOUNTED_CACHE_LOOKUPS: CacheLookups = { cacheLookup: () => undefined };

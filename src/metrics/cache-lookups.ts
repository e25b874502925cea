/** The caches whose lookups are counted. */
export type CacheName = 'catalog' | 'final_status';

/** Counts cache lookups (provided by MetricsService, src/metrics/metrics.module.ts). */
export abstract class CacheLookups {
  abstract cacheLookup(cache: CacheName, hit: boolean): void;
}

/** The limits whose refusals are counted (`rate_limit_refusals_total{limit}`). */
export type RefusedLimit = 'general' | 'status_not_found' | 'checkout_refusals';

/**
 * Counts the requests a rate limit refuses with 429. Declared beside the limits and provided by
 * MetricsService (src/metrics/metrics.module.ts).
 */
export abstract class RateLimitRefusals {
  abstract rateLimited(limit: RefusedLimit): void;
}

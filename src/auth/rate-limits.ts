import { Inject, Injectable, Optional } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { andThen, type MaybePromise } from '../common/maybe-async.js';
import { RateLimitRecord, RateLimitStore } from './rate-limit-store.js';

/** The headers a counted request answers with, and the refusal when over the limit. */
export interface LimitVerdict {
  headers: Record<string, string>;
  refusal?: ApiError;
}

/**
 * The service's rate limits, counted in one store (this process's memory, or Redis shared by all
 * instances). A caller is its API key when valid, else its address, so guessing keys is limited
 * like any other traffic.
 *
 * - general: every request of a caller, whatever the route;
 * - status-not-found: payment-status lookups that end in 404. Past this limit the caller is
 *   blocked from every status lookup, found or not, for the window: a found key can no longer be
 *   told from a missing one while someone is enumerating.
 */
@Injectable()
export class RateLimits {
  private readonly general: { limit: number; windowMs: number };
  private readonly notFound: { limit: number; windowMs: number };
  /** False only while the benchmark measures the service without its limits. */
  private readonly counting: boolean;
  private readonly generalLimitText: string;

  constructor(
    private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.counting = !config.layersOff.has('rate-limit');
    const limits = config.rateLimit;
    this.general = { limit: limits.generalLimit, windowMs: limits.generalWindowSeconds * 1000 };
    this.notFound = { limit: limits.notFoundLimit, windowMs: limits.notFoundWindowSeconds * 1000 };
    this.generalLimitText = String(limits.generalLimit);
  }

  /**
   * Counts one request of the caller against the general limit: at once when the store counts
   * in memory, else when the shared store answers.
   */
  countRequest(tracker: string): MaybePromise<LimitVerdict> {
    if (!this.counting) return NOT_COUNTED;
    const { limit, windowMs } = this.general;
    const key = `general:${tracker}`;
    const record =
      this.store.incrementNow(key, windowMs, limit, windowMs, 'general') ??
      this.store.increment(key, windowMs, limit, windowMs, 'general');
    return andThen(record, (counted) => this.generalVerdict(counted));
  }

  /** The refusal while the caller is blocked from status lookups; undefined when it is not. */
  async statusLookupRefusal(tracker: string): Promise<ApiError | undefined> {
    if (!this.counting) return undefined;
    const seconds = await this.store.blockedFor(this.notFoundKey(tracker), 'status-not-found');
    if (seconds <= 0) return undefined;
    this.metrics?.rateLimited('status_not_found');
    return rateLimited(seconds);
  }

  /** Counts a status lookup that missed; the refusal when it goes over the limit. */
  async countMiss(tracker: string): Promise<ApiError | undefined> {
    if (!this.counting) return undefined;
    const { limit, windowMs } = this.notFound;
    const record = await this.store.increment(
      this.notFoundKey(tracker),
      windowMs,
      limit,
      windowMs,
      'status-not-found',
    );
    if (!record.isBlocked) return undefined;
    this.metrics?.rateLimited('status_not_found');
    return rateLimited(record.timeToBlockExpire);
  }

  private generalVerdict(record: RateLimitRecord): LimitVerdict {
    const { limit } = this.general;
    const headers = {
      'X-RateLimit-Limit': this.generalLimitText,
      'X-RateLimit-Remaining': String(Math.max(0, limit - record.totalHits)),
      'X-RateLimit-Reset': String(record.timeToExpire),
    };
    if (!record.isBlocked) return { headers };
    this.metrics?.rateLimited('general');
    return { headers, refusal: rateLimited(record.timeToBlockExpire) };
  }

  private notFoundKey(tracker: string): string {
    return `status-not-found:${tracker}`;
  }
}

const NOT_COUNTED: LimitVerdict = { headers: {} };

function rateLimited(seconds: number): ApiError {
  return new ApiError('RATE_LIMITED', { headers: { 'Retry-After': String(Math.max(1, seconds)) } });
}

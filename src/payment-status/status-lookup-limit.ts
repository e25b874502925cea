import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { RateLimitRefusals } from '../rate-limits/rate-limit-refusals.js';
import { rateLimited } from '../rate-limits/general-rate-limit.js';
import { RateLimitStore } from '../rate-limits/rate-limit-store.js';

/**
 * Status lookups that end in 404, per caller. Past this limit the caller is blocked from every
 * status lookup, found or not, for the window: while someone enumerates keys, a found key can no
 * longer be told from a missing one.
 */
@Injectable()
export class StatusLookupLimit {
  private readonly limit: number;
  private readonly windowMs: number;

  constructor(
    private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly refusals: RateLimitRefusals,
  ) {
    this.limit = config.rateLimit.notFoundLimit;
    this.windowMs = config.rateLimit.notFoundWindowSeconds * 1000;
  }

  /** The refusal while the caller is blocked from status lookups; undefined when it is not. */
  async refusal(tracker: string): Promise<ApiError | undefined> {
    const seconds = await this.store.blockedFor(keyOf(tracker), 'status-not-found');
    if (seconds <= 0) return undefined;
    this.refusals.rateLimited('status_not_found');
    return rateLimited(seconds);
  }

  /** Counts a lookup that missed: the 404 to answer, or the 429 when it goes over the limit. */
  async miss(tracker: string): Promise<ApiError> {
    const record = await this.store.increment(
      keyOf(tracker),
      this.windowMs,
      this.limit,
      this.windowMs,
      'status-not-found',
    );
    if (!record.isBlocked) return new ApiError('TRANSACTION_FAILED', { field: 'validationKey' });
    this.refusals.rateLimited('status_not_found');
    return rateLimited(record.timeToBlockExpire);
  }
}

function keyOf(tracker: string): string {
  return `status-not-found:${tracker}`;
}

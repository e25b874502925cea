import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { andThen, type MaybePromise } from '../common/maybe-async.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { RateLimitRefusals } from './rate-limit-refusals.js';
import { RateLimitRecord, RateLimitStore } from './rate-limit-store.js';

/** The headers a counted request answers with, and the refusal when over the limit. */
export interface LimitVerdict {
  headers: Record<string, string>;
  refusal?: ApiError;
}

/**
 * The general limit: every request of a caller, whatever the route, counted in one store (this
 * process's memory, or Redis shared by all instances). A caller is its API key when valid, else
 * its address, so guessing keys is limited like any other traffic.
 *
 * Applied by the access policy, in the one global guard, rather than by @nestjs/throttler's
 * ThrottlerGuard: the caller is known only once its key is checked, and a caller without a valid
 * key is counted by its address before it is refused. The counters keep the library's storage
 * interface (no ThrottlerModule is used), so its Redis storage serves several instances.
 */
@Injectable()
export class GeneralRateLimit {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly limitText: string;

  constructor(
    private readonly store: RateLimitStore,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly refusals: RateLimitRefusals,
  ) {
    this.limit = config.rateLimit.generalLimit;
    this.windowMs = config.rateLimit.generalWindowSeconds * 1000;
    this.limitText = String(this.limit);
  }

  /**
   * Counts one request of the caller: at once when the store counts in memory, else when the
   * shared store answers.
   */
  countRequest(tracker: string): MaybePromise<LimitVerdict> {
    const { limit, windowMs } = this;
    const key = `general:${tracker}`;
    const record =
      this.store.incrementNow(key, windowMs, limit, windowMs, 'general') ??
      this.store.increment(key, windowMs, limit, windowMs, 'general');
    return andThen(record, (counted) => this.verdict(counted));
  }

  private verdict(record: RateLimitRecord): LimitVerdict {
    const headers = {
      'X-RateLimit-Limit': this.limitText,
      'X-RateLimit-Remaining': String(Math.max(0, this.limit - record.totalHits)),
      'X-RateLimit-Reset': String(record.timeToExpire),
    };
    if (!record.isBlocked) return { headers };
    this.refusals.rateLimited('general');
    return { headers, refusal: rateLimited(record.timeToBlockExpire) };
  }
}

/** 429 RATE_LIMITED with the seconds to wait. */
export function rateLimited(seconds: number): ApiError {
  return new ApiError('RATE_LIMITED', { headers: { 'Retry-After': String(Math.max(1, seconds)) } });
}

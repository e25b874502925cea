import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiError } from '../common/errors/api-error.js';
import { FixedWindowStorage } from './fixed-window-storage.js';

const THROTTLER_NAME = 'status-not-found';

/**
 * The strict limit on payment-status lookups that end in 404, counted in the same storage as
 * @nestjs/throttler's general limit. Past the limit the caller is blocked for the window from
 * every status lookup, found or not, so a 200 can no longer be told from a miss while guessing.
 */
@Injectable()
export class NotFoundLimiter {
  private readonly ttlMs: number;
  private readonly limit: number;

  constructor(
    private readonly storage: FixedWindowStorage,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.ttlMs = config.rateLimit.notFoundWindowSeconds * 1000;
    this.limit = config.rateLimit.notFoundLimit;
  }

  /** Throws 429 while the tracker is blocked. */
  assertAllowed(tracker: string): void {
    const seconds = this.blockedForSeconds(tracker);
    if (seconds > 0) throw rateLimited(seconds);
  }

  /** Counts one miss; throws 429 when it goes over the limit. */
  async recordMiss(tracker: string): Promise<void> {
    const record = await this.storage.increment(
      this.key(tracker),
      this.ttlMs,
      this.limit,
      this.ttlMs,
      THROTTLER_NAME,
    );
    if (record.isBlocked) throw rateLimited(record.timeToBlockExpire);
  }

  private blockedForSeconds(tracker: string): number {
    return this.storage.blockedFor(this.key(tracker), THROTTLER_NAME);
  }

  private key(tracker: string): string {
    return `${THROTTLER_NAME}:${tracker}`;
  }
}

function rateLimited(seconds: number): ApiError {
  return new ApiError('RATE_LIMITED', { headers: { 'Retry-After': String(Math.max(1, seconds)) } });
}

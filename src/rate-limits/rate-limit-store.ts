import type { ThrottlerStorage } from '@nestjs/throttler';

/** One caller's counter after a hit, as @nestjs/throttler's storages report it. */
export interface RateLimitRecord {
  totalHits: number;
  /** Seconds until the window starts over. */
  timeToExpire: number;
  isBlocked: boolean;
  /** Seconds the caller stays blocked. */
  timeToBlockExpire: number;
}

/**
 * Where the rate-limit counters live: this process's memory, or a store shared by every
 * instance. A @nestjs/throttler storage, plus a look at a block without counting a hit.
 */
export abstract class RateLimitStore implements ThrottlerStorage {
  abstract increment(
    key: string,
    ttlMs: number,
    limit: number,
    blockDurationMs: number,
    throttlerName: string,
  ): Promise<RateLimitRecord>;

  /**
   * The counter after a hit, when the store can count without waiting (in this process's
   * memory); undefined when the hit must go through increment().
   */
  incrementNow(
    _key: string,
    _ttlMs: number,
    _limit: number,
    _blockDurationMs: number,
    _throttlerName: string,
  ): RateLimitRecord | undefined {
    return undefined;
  }

  /** Seconds the key stays blocked, without counting a hit; 0 when it is not blocked. */
  abstract blockedFor(key: string, throttlerName: string): Promise<number>;
}

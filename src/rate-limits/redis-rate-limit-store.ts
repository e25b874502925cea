import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Redis } from 'ioredis';
import { FixedWindowStorage } from './fixed-window-storage.js';
import { RateLimitRecord, RateLimitStore } from './rate-limit-store.js';

/** A Redis answer later than this counts as Redis being unreachable for that request. */
const REDIS_TIMEOUT_MS = 250;

/** At most one warning this often while the counters are local. */
const WARNING_INTERVAL_MS = 30_000;

/**
 * Rate-limit counters shared by every instance through Redis, with @nest-lab/throttler-storage-
 * redis (the Redis storage of @nestjs/throttler). While Redis does not answer, each instance
 * counts alone in its memory and logs a warning: a request is never refused or failed because
 * Redis is down. Counting is shared again as soon as Redis answers (ioredis reconnects by itself).
 */
export class RedisRateLimitStore extends RateLimitStore implements OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private readonly redis: Redis;
  private readonly shared: ThrottlerStorageRedisService;
  private readonly local = new FixedWindowStorage();
  private lastWarning = 0;
  /** An outage was warned of, and no answer of Redis has been logged since. */
  private outage = false;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    super();
    this.redis = new Redis(url, {
      // Fail at once while disconnected instead of queueing requests behind a dead server.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      commandTimeout: REDIS_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: false,
    });
    this.redis.on('error', () => undefined); // reported through warn() when a request needs it
    this.redis.on('ready', () => {
      this.reachable();
      this.lastWarning = 0;
    });
    this.shared = new ThrottlerStorageRedisService(this.redis);
  }

  async increment(
    key: string,
    ttlMs: number,
    limit: number,
    blockDurationMs: number,
    throttlerName: string,
  ): Promise<RateLimitRecord> {
    if (this.redis.status === 'ready') {
      try {
        const record = await this.shared.increment(
          this.prefix + key,
          ttlMs,
          limit,
          blockDurationMs,
          throttlerName,
        );
        // Redis that hung answers again on the same connection: no 'ready' says so.
        if (this.outage) this.reachable();
        return record;
      } catch (error) {
        this.warn(error);
      }
    } else {
      this.warn(new Error(`Redis is ${this.redis.status}`));
    }
    return this.local.increment(key, ttlMs, limit, blockDurationMs, throttlerName);
  }

  async blockedFor(key: string, throttlerName: string): Promise<number> {
    const local = await this.local.blockedFor(key, throttlerName);
    if (this.redis.status !== 'ready') return local;
    try {
      // The storage keeps a block as its own key with a time to live.
      const ms = await this.redis.pttl(`{${this.prefix}${key}:${throttlerName}}:blocked`);
      return Math.max(local, ms > 0 ? Math.ceil(ms / 1000) : 0);
    } catch (error) {
      this.warn(error);
      return local;
    }
  }

  onApplicationShutdown(): void {
    this.local.onApplicationShutdown();
    this.redis.disconnect(false);
  }

  /**
   * Redis answers (connected, or answering again): counting is shared. After a warned outage the
   * return is worth a warning too: the two frame the degraded time. A Redis that answers only now
   * and then logs at most one such pair every WARNING_INTERVAL_MS.
   */
  private reachable(): void {
    const message = 'Redis reachable: rate limits are shared by every instance';
    if (this.outage) this.logger.warn(message);
    else this.logger.log(message);
    this.outage = false;
  }

  private warn(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < WARNING_INTERVAL_MS) return;
    this.lastWarning = now;
    this.outage = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(
      `Redis unreachable (${reason}): rate limits are counted by this instance alone until it returns`,
    );
  }
}

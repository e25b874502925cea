import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { RateLimitRecord, RateLimitStore } from './rate-limit-store.js';

interface Window {
  hits: number;
  resetsAt: number;
  blockedUntil: number;
}

const SWEEP_INTERVAL_MS = 60_000;

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/**
 * Fixed-window counters for @nestjs/throttler: O(1) per request and one small record per
 * caller. The library's default storage keeps every hit's timestamp and filters the list on each
 * request, which costs time and memory in proportion to the traffic of the window: measured at
 * 174 µs per request with 10,000 requests of one caller in a window, against 0.15 µs here
 * (bench/README.md, "Removed micro-benchmarks and scripts").
 */
@Injectable()
export class FixedWindowStorage extends RateLimitStore implements OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<RateLimitRecord> {
    return this.incrementNow(key, ttl, limit, blockDuration, throttlerName);
  }

  override incrementNow(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): RateLimitRecord {
    const now = Date.now();
    const id = `${throttlerName}\u0000${key}`;
    let window = this.windows.get(id);
    if (!window || (window.resetsAt <= now && window.blockedUntil <= now)) {
      window = { hits: 0, resetsAt: now + ttl, blockedUntil: 0 };
      this.windows.set(id, window);
    }
    if (window.blockedUntil > now) return blocked(window, now);
    window.hits++;
    if (window.hits > limit) {
      window.blockedUntil = now + Math.max(blockDuration, 1);
      return blocked(window, now);
    }
    return {
      totalHits: window.hits,
      timeToExpire: seconds(window.resetsAt - now),
      isBlocked: false,
      timeToBlockExpire: 0,
    };
  }

  async blockedFor(key: string, throttlerName: string): Promise<number> {
    const window = this.windows.get(`${throttlerName}\u0000${key}`);
    return window ? seconds(window.blockedUntil - Date.now()) : 0;
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
    this.windows.clear();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, window] of this.windows) {
      if (window.resetsAt <= now && window.blockedUntil <= now) this.windows.delete(id);
    }
  }
}

function blocked(window: Window, now: number): RateLimitRecord {
  return {
    totalHits: window.hits,
    timeToExpire: seconds(window.resetsAt - now),
    isBlocked: true,
    timeToBlockExpire: seconds(window.blockedUntil - now),
  };
}

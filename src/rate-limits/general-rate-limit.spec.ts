import { ApiError } from '../common/errors/api-error.js';
import { loadConfig } from '../config/app-config.js';
import { FixedWindowStorage } from './fixed-window-storage.js';
import { RateLimitRecord, RateLimitStore } from './rate-limit-store.js';
import { GeneralRateLimit } from './general-rate-limit.js';
import { UNCOUNTED_REFUSALS } from '../../test/fakes/no-op-ports.js';

const config = loadConfig({ RATE_LIMIT_PER_MINUTE: '2' });

/** A store that, like Redis, can only count by waiting for its answer. */
class WaitingStore extends RateLimitStore {
  private readonly memory = new FixedWindowStorage();
  increment(...args: Parameters<RateLimitStore['increment']>): Promise<RateLimitRecord> {
    return new Promise((resolve) => setImmediate(() => resolve(this.memory.incrementNow(...args))));
  }
  blockedFor(key: string, name: string): Promise<number> {
    return this.memory.blockedFor(key, name);
  }
  close(): void {
    this.memory.onApplicationShutdown();
  }
}

describe('GeneralRateLimit.countRequest', () => {
  it('answers at once from memory, with the headers, and refuses past the limit', () => {
    const store = new FixedWindowStorage();
    const limits = new GeneralRateLimit(store, config, UNCOUNTED_REFUSALS);
    const first = limits.countRequest('key:a');
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toEqual({
      headers: {
        'X-RateLimit-Limit': '2',
        'X-RateLimit-Remaining': '1',
        'X-RateLimit-Reset': '60',
      },
    });
    limits.countRequest('key:a');
    const third = limits.countRequest('key:a') as Awaited<
      ReturnType<GeneralRateLimit['countRequest']>
    >;
    expect(third.headers['X-RateLimit-Remaining']).toBe('0');
    expect(third.refusal).toBeInstanceOf(ApiError);
    expect(third.refusal?.code).toBe('RATE_LIMITED');
    expect(limits.countRequest('key:b')).not.toHaveProperty('refusal');
    store.onApplicationShutdown();
  });

  it('waits for a store that cannot count at once, with the same verdicts', async () => {
    const store = new WaitingStore();
    const limits = new GeneralRateLimit(store, config, UNCOUNTED_REFUSALS);
    const first = limits.countRequest('key:a');
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ headers: { 'X-RateLimit-Remaining': '1' } });
    await limits.countRequest('key:a');
    expect((await limits.countRequest('key:a')).refusal?.code).toBe('RATE_LIMITED');
    store.close();
  });
});

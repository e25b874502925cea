import type { ChangeFeed, Subscription } from './change-feed.js';
import { RevocableCache } from './revocable-cache.js';

/** A change feed the test drives: announcements, gaps and reliability. */
class DrivenFeed implements ChangeFeed {
  reliable = true;
  readonly subscriptions = new Map<string, Subscription>();
  subscribe(kind: string, subscription: Subscription): void {
    this.subscriptions.set(kind, subscription);
  }
  async announce(): Promise<void> {}
  revoke(hash: string): void {
    this.subscriptions.get('revoked')?.onChange(hash);
  }
  gap(): void {
    this.subscriptions.get('revoked')?.onGap();
  }
}

interface Credential {
  owner: string;
}

function setUp() {
  const feed = new DrivenFeed();
  const stored = new Map<string, Credential>([
    ['h1', { owner: 'acme' }],
    ['h2', { owner: 'globex' }],
  ]);
  let loads = 0;
  const load = async (hash: string) => {
    loads++;
    return stored.get(hash);
  };
  const cache = new RevocableCache<Credential>(feed, 'revoked', { maxBytes: 64 * 1024 }, load);
  return { feed, cache, stored, loads: () => loads };
}

describe('RevocableCache', () => {
  it('answers a kept credential at once, without a promise and without loading it again', async () => {
    const { cache, loads } = setUp();
    expect(await cache.resolve('h1')).toEqual({ owner: 'acme' });
    expect(cache.resolve('h1')).toEqual({ owner: 'acme' });
    expect(loads()).toBe(1);
  });

  it('keeps nothing for an unknown hash', async () => {
    const { cache, loads } = setUp();
    expect(await cache.resolve('nope')).toBeUndefined();
    expect(await cache.resolve('nope')).toBeUndefined();
    expect(loads()).toBe(2);
  });

  it('drops a credential revoked on the feed: the next lookup asks the store', async () => {
    const { feed, cache, stored } = setUp();
    await cache.resolve('h1');
    stored.delete('h1');
    feed.revoke('h1');
    expect(await cache.resolve('h1')).toBeUndefined();
  });

  it('does not keep what a lookup begun before a revocation found', async () => {
    const { feed, cache, stored } = setUp();
    const under = cache.resolve('h1');
    feed.revoke('h1');
    stored.delete('h1');
    expect(await under).toEqual({ owner: 'acme' });
    expect(await cache.resolve('h1')).toBeUndefined();
  });

  it('forgets everything on a gap in the feed', async () => {
    const { feed, cache, loads } = setUp();
    await cache.resolve('h1');
    await cache.resolve('h2');
    feed.gap();
    await cache.resolve('h1');
    await cache.resolve('h2');
    expect(loads()).toBe(4);
  });

  it('trusts nothing kept while the feed is unreliable, and keeps nothing found then', async () => {
    const { feed, cache, loads } = setUp();
    await cache.resolve('h1');
    feed.reliable = false;
    expect(await cache.resolve('h1')).toEqual({ owner: 'acme' });
    expect(await cache.resolve('h2')).toEqual({ owner: 'globex' });
    expect(loads()).toBe(3);
    feed.reliable = true;
    expect(cache.resolve('h2')).toBeInstanceOf(Promise);
  });

  it('forgets a credential revoked on this instance at once', async () => {
    const { cache, stored } = setUp();
    await cache.resolve('h1');
    stored.delete('h1');
    cache.forget('h1');
    expect(await cache.resolve('h1')).toBeUndefined();
  });
});

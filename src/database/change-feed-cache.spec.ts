import type { ChangeFeed, Subscription } from './change-feed.js';
import { ChangeFeedCache, EVERY_KEY } from './change-feed-cache.js';

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
  const cache = new ChangeFeedCache<Credential>(feed, 'revoked', { maxBytes: 64 * 1024 }, load);
  return { feed, cache, stored, loads: () => loads };
}

describe('ChangeFeedCache', () => {
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

  it('never keeps what a read begun before a change found, whenever the read ends', async () => {
    const feed = new DrivenFeed();
    let value = 'before';
    const reads: (() => void)[] = [];
    const cache = new ChangeFeedCache<Credential>(feed, 'revoked', { maxBytes: 64 * 1024 }, () => {
      const seen = value;
      return new Promise((resolve) => reads.push(() => resolve({ owner: seen })));
    });
    const stale = cache.read('h1');
    // The change commits and is heard of while the read is under way.
    value = 'after';
    feed.revoke('h1');
    reads.shift()!();
    expect(await stale).toEqual({ owner: 'before' });
    expect(cache.kept('h1')).toBeUndefined();
    const fresh = cache.resolve('h1');
    reads.shift()!();
    expect(await fresh).toEqual({ owner: 'after' });
    expect(cache.kept('h1')).toEqual({ owner: 'after' });
  });

  it('does not keep a read begun before a gap, nor one begun before a change on this instance', async () => {
    const { feed, cache, loads } = setUp();
    const beforeGap = cache.resolve('h1');
    feed.gap();
    await beforeGap;
    const beforeForget = cache.resolve('h2');
    cache.forget('h2');
    await beforeForget;
    expect([cache.kept('h1'), cache.kept('h2')]).toEqual([undefined, undefined]);
    expect(loads()).toBe(2);
  });

  it(`drops every kept value when the feed's payload is ${EVERY_KEY}`, async () => {
    const { feed, cache, loads } = setUp();
    await cache.resolve('h1');
    await cache.resolve('h2');
    feed.revoke(EVERY_KEY);
    expect([cache.kept('h1'), cache.kept('h2')]).toEqual([undefined, undefined]);
    await cache.resolve('h1');
    expect(loads()).toBe(3);
  });

  it('keeps only the values its rule allows', async () => {
    const feed = new DrivenFeed();
    let loads = 0;
    const cache = new ChangeFeedCache<Credential>(
      feed,
      'revoked',
      { maxBytes: 64 * 1024 },
      async (key) => (loads++, { owner: key }),
      (value) => value.owner === 'final',
    );
    await cache.resolve('pending');
    await cache.resolve('pending');
    await cache.resolve('final');
    expect(cache.resolve('final')).toEqual({ owner: 'final' });
    expect(loads).toBe(3);
  });
});

import type { LRUCache } from 'lru-cache';
import { boundedCache, type CacheBudget } from '../common/cache/bounded-cache.js';
import type { MaybePromise } from '../common/maybe-async.js';
import type { ChangeFeed } from './change-feed.js';

/**
 * Credentials (API keys, operator tokens) kept in memory by hash, so that a working one costs no
 * database round trip, and dropped as soon as a revocation is heard of on the change feed, on this
 * instance or another. While revocations could be missed (the feed is down) nothing kept is
 * trusted and every lookup asks the database; a lookup that began before a revocation was heard
 * of is answered but not kept.
 */
export class RevocableCache<V extends object> {
  private readonly entries: LRUCache<string, V>;
  /** Moves on with every revocation heard of. */
  private generation = 0;

  constructor(
    private readonly changes: ChangeFeed,
    /** The change-feed kind whose payload is the hash of a revoked credential. */
    revocationKind: string,
    budget: CacheBudget,
    /** Reads the working credential of a hash from the database; undefined when there is none. */
    private readonly load: (hash: string) => Promise<V | undefined>,
  ) {
    this.entries = boundedCache<V>(budget);
    changes.subscribe(revocationKind, {
      onChange: (hash) => this.forget(hash),
      onGap: () => this.forget(),
    });
  }

  /** The credential of `hash`: a kept one at once, without a promise; else what `load` finds. */
  resolve(hash: string): MaybePromise<V | undefined> {
    const reliable = this.changes.reliable;
    if (reliable) {
      const kept = this.entries.get(hash);
      if (kept) return kept;
    }
    return this.loadAndKeep(hash, reliable);
  }

  /** Drops a kept credential (or all of them) and makes lookups under way not keep theirs. */
  forget(hash?: string): void {
    this.generation++;
    if (hash === undefined) this.entries.clear();
    else this.entries.delete(hash);
  }

  private async loadAndKeep(hash: string, reliable: boolean): Promise<V | undefined> {
    const generation = this.generation;
    const found = await this.load(hash);
    if (found && reliable && generation === this.generation && this.changes.reliable) {
      this.entries.set(hash, found);
    }
    return found;
  }
}

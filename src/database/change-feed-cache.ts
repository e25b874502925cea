import type { LRUCache } from 'lru-cache';
import {
  boundedCache,
  type CacheBudget,
  type SizedCacheBudget,
} from '../common/cache/bounded-cache.js';
import type { MaybePromise } from '../common/maybe-async.js';
import type { ChangeFeed } from './change-feed.js';

/** The payload of an announcement that drops every kept value of its kind. */
export const EVERY_KEY = '*';

/**
 * Values read from the database and kept in memory by key, dropped as soon as a change that makes
 * one stale is heard of on the change feed, on this instance or another: the one cache of that
 * kind (API keys and operator tokens, dropped when revoked; callback secrets, when rotated; final
 * status answers, when their personal data is erased).
 *
 * - The feed's payload is the key of the value that changed (EVERY_KEY: all of them); a gap in
 *   the feed drops everything.
 * - While changes could be missed (the feed is down) nothing kept is trusted and every lookup
 *   reads the database, keeping nothing.
 * - The generation guard: a read that began before a change was heard of is answered but never
 *   kept, so it cannot put back what the change dropped.
 */
export class ChangeFeedCache<V extends object> {
  private readonly entries: LRUCache<string, V>;
  /** Moves on with every change heard of. */
  private generation = 0;

  constructor(
    private readonly changes: ChangeFeed,
    /** The change-feed kind whose payload is the key of a changed value. */
    kind: string,
    budget: CacheBudget | SizedCacheBudget<V>,
    /** Reads the value of a key from the database; undefined when there is none. */
    private readonly load: (key: string) => Promise<V | undefined>,
    /** Whether a value read may be kept (all of them when absent). */
    private readonly keeps: (value: V) => boolean = () => true,
  ) {
    this.entries = boundedCache<V>(budget);
    changes.subscribe(kind, {
      onChange: (key) => this.forget(key === EVERY_KEY ? undefined : key),
      onGap: () => this.forget(),
    });
  }

  /** The value kept for `key`, when there is one and the feed can be trusted. */
  kept(key: string): V | undefined {
    return this.changes.reliable ? this.entries.get(key) : undefined;
  }

  /** The value of `key`: a kept one at once, without a promise; else what `read` finds. */
  resolve(key: string): MaybePromise<V | undefined> {
    return this.kept(key) ?? this.read(key);
  }

  /** Reads the value of `key` from the database, and keeps it unless a change came meanwhile. */
  async read(key: string): Promise<V | undefined> {
    const generation = this.generation;
    const reliable = this.changes.reliable;
    const found = await this.load(key);
    if (
      found &&
      reliable &&
      generation === this.generation &&
      this.changes.reliable &&
      this.keeps(found)
    ) {
      this.entries.set(key, found);
    }
    return found;
  }

  /** Drops the value of `key` (or every value) and makes reads under way not keep theirs. */
  forget(key?: string): void {
    this.generation++;
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}

import { LRUCache } from 'lru-cache';

/** What a bounded cache may hold: a budget in bytes, and optionally an age limit. */
export interface CacheBudget {
  /** Approximate bytes of keys and values kept at most (least recently used go first). */
  maxBytes: number;
  /** Entries older than this are not returned; none when absent. */
  ttlMs?: number;
}

/** A budget with the caller's own estimate of an entry's bytes (key and overhead included). */
export interface SizedCacheBudget<V> extends CacheBudget {
  sizeOf(value: V, key: string): number;
}

/**
 * An in-memory LRU cache bounded in bytes, not only in entries: the variety of requests (unique
 * query strings, unknown validation keys, random API keys) cannot grow the process past its
 * budget, however large each entry is. Values are kept as they are (callers store immutable
 * values). Sizes are estimated: two bytes per character of strings, a fixed overhead per entry.
 */
export function boundedCache<V extends object>(
  budget: CacheBudget | SizedCacheBudget<V>,
): LRUCache<string, V> {
  return new LRUCache<string, V>({
    maxSize: budget.maxBytes,
    sizeCalculation:
      'sizeOf' in budget
        ? (value, key) => Math.max(1, budget.sizeOf(value, key))
        : (value, key) => ENTRY_OVERHEAD_BYTES + 2 * key.length + approximateBytes(value),
    ...(budget.ttlMs ? { ttl: budget.ttlMs, ttlAutopurge: false } : {}),
  });
}

/** What an entry costs beyond its characters (LRU bookkeeping, object headers), roughly. */
export const ENTRY_OVERHEAD_BYTES = 160;

/** Rough size of a value: strings at two bytes per character, objects by their own fields. */
export function approximateBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return 2 * value.length;
  if (typeof value !== 'object' || value === null || depth > 4) return 8;
  let bytes = 16;
  for (const [key, field] of Object.entries(value)) {
    bytes += 2 * key.length + approximateBytes(field, depth + 1);
  }
  return bytes;
}

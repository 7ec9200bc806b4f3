import { LRUCache } from 'lru-cache';

/**
 * A least-recently-used cache of at most `entries` entries, optionally each for `ttlMs`, that takes
 * memory as it fills. Given `max`, lru-cache allocates its arrays for every entry up front (about
 * 4 MB for 100,000 with a TTL, whether one entry is held or none); bounded by `maxSize` with each
 * entry of size 1 it grows them instead: the same bound, and memory for what is held
 * (docs/decisions.md § Embedded mode).
 */
export function boundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  entries: number,
  ttlMs?: number,
): LRUCache<K, V> {
  return new LRUCache<K, V>({
    maxSize: entries,
    sizeCalculation: () => 1,
    ...(ttlMs !== undefined ? { ttl: ttlMs } : {}),
  });
}

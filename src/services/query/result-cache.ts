import { LRUCache } from "lru-cache";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import { estimatedJsonBytes } from "../../util/json-size.ts";

const MINUTE = 60_000;
/**
 * How old a cached answer of a query without a date range may be: the real service's staleness thresholds
 * for its `minute` interval, 5 minutes, 15 for `lazy_async` (posthog/caching/utils.py, staleness_threshold_map).
 */
export const STALE_AFTER_MS = { default: 5 * MINUTE, lazy: 15 * MINUTE } as const;
const MAX_RESULTS = 200;
/**
 * Bound on the bytes the cached answers hold together, weighed as their JSON: rows alone let five answers of
 * 40 MB each (50,000 wide rows) pin 400 MB. An answer larger than the whole budget is answered, not kept.
 */
export const MAX_CACHED_BYTES = 64 * 1024 ** 2;
/** Bound on the rows the background queries' statuses hold together (a single answer may hold 50,000): about 100 MB at 1 kB a row. */
export const MAX_CACHED_ROWS = 100_000;

/** An answer's weight among the statuses: its rows, at least 1. */
export const rowsOf = (response: Loose | null): number => 1 + (Array.isArray(response?.results) ? response.results.length : 0);

interface Cached {
  response: Loose;
  revision: number;
  computedAt: number;
}

/**
 * Answers of the SQL, events and actors kinds by cache key. An answer is served only while the store's
 * revision is the one it was computed at, so any write (capture, merge, delete, reset) makes the next query
 * compute again: reads see their writes.
 */
export function createResultCache(maxBytes = MAX_CACHED_BYTES) {
  const entries = new LRUCache<string, Cached>({ max: MAX_RESULTS, maxSize: maxBytes });
  return {
    /** The cached answer if it was computed at this revision and is younger than `maxAge`. */
    get(key: string, revision: number, now: number, maxAge: number): Cached | undefined {
      const cached = entries.get(key);
      return cached && cached.revision === revision && now - cached.computedAt < maxAge ? cached : undefined;
    },
    /** Kept within the byte budget, the least recently read answers forgotten first; one larger than the budget is not kept. */
    set(key: string, cached: Cached): void {
      const size = Math.max(1, estimatedJsonBytes(cached.response));
      if (size <= maxBytes) entries.set(key, cached, { size });
      else entries.delete(key);
    },
    /** The bytes the kept answers weigh together (as estimated when they were kept). */
    bytes: () => entries.calculatedSize,
    clear: () => entries.clear(),
  };
}

export type ResultCache = ReturnType<typeof createResultCache>;

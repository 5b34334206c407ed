import { reject } from "../../core/analysis-errors.ts";
import { MS, type Interval } from "./context.ts";
import type { QueryWindow } from "./date-range.ts";
import { bucketKey, bucketLabel } from "./labels.ts";
import { plus, startOf } from "../../core/time-zones.ts";

/**
 * The x-axis of a time series: every bucket from the truncated start to the end, empty ones included
 * (reference: analytics §1.2, §11 item 2). Boundaries are computed once; events find their bucket by
 * a cursor plus binary search, never through luxon.
 */
export interface Buckets {
  interval: Interval;
  /** edges[i] is the start of bucket i; edges[length] the end of the last one. */
  edges: number[];
  length: number;
  /** Counted range, inclusive: events outside it belong to no bucket. */
  from: number;
  to: number;
  /** Bucket of an instant, or -1 outside the counted range. */
  indexOf(ts: number): number;
}

/** Most buckets a time series may have (hourly: about 2.3 years): a wider range is refused before it is built. */
export const MAX_BUCKETS = 20_000;

/** The shortest an interval can be in any time zone (a day across a DST change is 23 hours). */
const SHORTEST: Record<Interval, number> = {
  minute: MS.minute,
  hour: MS.hour,
  day: MS.day - MS.hour,
  week: MS.week - MS.hour,
  month: 28 * MS.day - MS.hour,
};

export function buildBuckets(window: Pick<QueryWindow, "from" | "to" | "interval">, timezone: string, weekStartDay: 0 | 1): Buckets {
  if ((window.to - window.from) / SHORTEST[window.interval] > MAX_BUCKETS) {
    throw reject.invalid(
      "date_from",
      `From date_from to date_to there are more than ${MAX_BUCKETS} ${window.interval} intervals: narrow the range or choose a longer interval.`,
    );
  }
  const edges: number[] = [];
  let start = startOf(window.from, window.interval, timezone, weekStartDay);
  while (start <= window.to) {
    edges.push(start);
    start = plus(start, 1, window.interval, timezone);
  }
  edges.push(start);
  return makeBuckets(window.interval, edges, window.from, window.to);
}

/** One bucket spanning the whole range: total-value displays (reference §2.4). */
export function singleBucket(window: Pick<QueryWindow, "from" | "to" | "interval">): Buckets {
  return makeBuckets(window.interval, [window.from, window.to + 1], window.from, window.to);
}

/** Buckets over given edges (a scan worker rebuilds the query's buckets from them). */
export function makeBuckets(interval: Interval, edges: number[], from: number, to: number): Buckets {
  const length = Math.max(0, edges.length - 1);
  let cursor = 0;
  const indexOf = (ts: number): number => {
    if (ts < from || ts > to || length === 0) return -1;
    if (ts >= edges[cursor]! && ts < edges[cursor + 1]!) return cursor;
    const i = upperBound(edges, ts) - 1;
    if (i < 0 || i >= length) return -1;
    cursor = i;
    return i;
  };
  return { interval, edges, length, from, to, indexOf };
}

/** First index whose value is > x (edges are ascending). */
export function upperBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const bucketKeys = (buckets: Buckets, timezone: string): string[] =>
  buckets.edges.slice(0, buckets.length).map((start) => bucketKey(start, buckets.interval, timezone));

export const bucketLabels = (buckets: Buckets, timezone: string): string[] =>
  buckets.edges.slice(0, buckets.length).map((start) => bucketLabel(start, buckets.interval, timezone, buckets));

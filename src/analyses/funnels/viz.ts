import { buildBuckets, bucketKeys, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { legacyLabel } from "../shared/labels.ts";
import { maximum, meanSeconds, minimum } from "../shared/math.ts";
import type { Attempt, ReachedSteps } from "./attempts.ts";
import type { FunnelSpec } from "./filter.ts";

/** Funnel trends item (legacy shape, reference: analytics §5.6). */
export interface FunnelTrendItem {
  count: number;
  data: number[];
  days: string[];
  labels: string[];
  breakdown_value?: unknown;
}

export interface TimeToConvert {
  bins: [number, number][];
  average_conversion_time: number | null;
}

/** Per entrance period, the actors entering and, of those, the actors converting. */
export interface TrendTally {
  entered: Float64Array;
  converted: Float64Array;
}

export const newTrendTally = (periods: number): TrendTally => ({ entered: new Float64Array(periods), converted: new Float64Array(periods) });

/** Calls `visit` with the level and start time of each of one actor's attempts. */
export type AttemptStarts = (visit: (level: number, startedAt: number) => void) => void;

const seen = new Map<number, boolean>();

/**
 * One actor into the tally: it enters each period where an attempt that passed funnel_from_step started, and
 * converts there if any such attempt went past funnel_to_step; it counts once per period.
 */
export function tallyActor(starts: AttemptStarts, buckets: Pick<Buckets, "indexOf">, spec: Pick<FunnelSpec, "fromStep" | "toStep">, tally: TrendTally): void {
  seen.clear();
  starts((level, startedAt) => {
    const b = buckets.indexOf(startedAt);
    if (b < 0 || level <= spec.fromStep) return;
    seen.set(b, (seen.get(b) ?? false) || level > spec.toStep);
  });
  for (const [b, didConvert] of seen) {
    tally.entered[b]!++;
    if (didConvert) tally.converted[b]!++;
  }
}

/**
 * Conversion per entrance period: actors bucketed by the step-1 event of each attempt; one actor counts
 * once per bucket, converted if any of its entries there converted; rate = 100·to/from to 2 decimals.
 */
export function funnelTrend(attemptsByActor: Iterable<Attempt[]>, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext): FunnelTrendItem {
  const buckets = trendBuckets(window, ctx);
  const tally = newTrendTally(buckets.length);
  for (const attempts of attemptsByActor) tallyActor((visit) => attempts.forEach((a) => visit(a.level, a.times[0]!)), buckets, spec, tally);
  return trendItem(tally, buckets, ctx);
}

export const trendBuckets = (window: QueryWindow, ctx: AnalysisContext): Buckets => buildBuckets(window, ctx.timezone, ctx.weekStartDay);

/** The trends item of a tally over `buckets`. */
export function trendItem(tally: TrendTally, buckets: Buckets, ctx: AnalysisContext): FunnelTrendItem {
  return {
    count: buckets.length,
    data: Array.from(tally.entered, (from, b) => (from === 0 ? 0 : Math.round((10_000 * tally.converted[b]!) / from) / 100)),
    days: bucketKeys(buckets, ctx.timezone),
    labels: buckets.edges.slice(0, buckets.length).map((start) => legacyLabel(start, buckets.interval, ctx.timezone)),
  };
}

/**
 * Time to convert (§5.7): per converting actor the seconds from funnel_from_step to funnel_to_step;
 * bin_count bins (default ceil(cbrt(n))) of width ceil((max−min)/bins) (60 for a single value), plus one
 * extra row that catches the maximum.
 */
export function timeToConvert(attempts: Iterable<ReachedSteps>, spec: FunnelSpec): TimeToConvert {
  const ms = [...attempts].filter((a) => a.level > spec.toStep).map((a) => a.times[spec.toStep]! - a.times[spec.fromStep]!);
  const seconds = ms.map((t) => t / 1000);
  if (seconds.length === 0) return { bins: [], average_conversion_time: null };
  const min = minimum(seconds);
  const max = maximum(seconds);
  const binCount = Math.max(1, Math.floor(spec.binCount ?? Math.ceil(Math.cbrt(seconds.length))));
  const width = max === min ? 60 : Math.max(1, Math.ceil((max - min) / binCount));
  const counts = new Array<number>(binCount + 1).fill(0);
  for (const t of seconds) counts[Math.min(binCount, Math.floor((t - min) / width))]!++;
  return { bins: counts.map((count, i) => [min + i * width, count]), average_conversion_time: meanSeconds(ms) };
}

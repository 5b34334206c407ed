import { buildBuckets, bucketKeys } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { legacyLabel } from "../shared/labels.ts";
import { maximum, mean, minimum } from "../shared/math.ts";
import type { Attempt } from "./attempts.ts";
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

/**
 * Conversion per entrance period: actors bucketed by the step-1 event of each attempt; one actor counts
 * once per bucket, converted if any of its entries there converted; rate = 100·to/from to 2 decimals.
 */
export function funnelTrend(attemptsByActor: Iterable<Attempt[]>, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext): FunnelTrendItem {
  const buckets = buildBuckets(window, ctx.timezone, ctx.weekStartDay);
  const entered = new Array<number>(buckets.length).fill(0);
  const converted = new Array<number>(buckets.length).fill(0);
  for (const attempts of attemptsByActor) {
    const seen = new Map<number, boolean>();
    for (const attempt of attempts) {
      const b = buckets.indexOf(attempt.times[0]!);
      if (b < 0 || attempt.level <= spec.fromStep) continue;
      seen.set(b, (seen.get(b) ?? false) || attempt.level > spec.toStep);
    }
    for (const [b, didConvert] of seen) {
      entered[b]!++;
      if (didConvert) converted[b]!++;
    }
  }
  return {
    count: buckets.length,
    data: entered.map((from, b) => (from === 0 ? 0 : Math.round((10_000 * converted[b]!) / from) / 100)),
    days: bucketKeys(buckets, ctx.timezone),
    labels: buckets.edges.slice(0, buckets.length).map((start) => legacyLabel(start, buckets.interval, ctx.timezone)),
  };
}

/**
 * Time to convert (§5.7): per converting actor the seconds from funnel_from_step to funnel_to_step;
 * bin_count bins (default ceil(cbrt(n))) of width ceil((max−min)/bins) (60 for a single value), plus one
 * extra row that catches the maximum.
 */
export function timeToConvert(attempts: Iterable<Attempt>, spec: FunnelSpec): TimeToConvert {
  const seconds = [...attempts].filter((a) => a.level > spec.toStep).map((a) => (a.times[spec.toStep]! - a.times[spec.fromStep]!) / 1000);
  if (seconds.length === 0) return { bins: [], average_conversion_time: null };
  const min = minimum(seconds);
  const max = maximum(seconds);
  const binCount = Math.max(1, Math.floor(spec.binCount ?? Math.ceil(Math.cbrt(seconds.length))));
  const width = max === min ? 60 : Math.max(1, Math.ceil((max - min) / binCount));
  const counts = new Array<number>(binCount + 1).fill(0);
  for (const t of seconds) counts[Math.min(binCount, Math.floor((t - min) / width))]!++;
  return { bins: counts.map((count, i) => [min + i * width, count]), average_conversion_time: mean(seconds) };
}

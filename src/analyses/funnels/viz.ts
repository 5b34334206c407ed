import { buildBuckets, bucketKeys, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { legacyLabel } from "../shared/labels.ts";
import { maximum, meanSeconds, minimum } from "../shared/math.ts";
import type { ReachedSteps } from "./attempts.ts";
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

/**
 * Calls `visit` with the level and start time of each of one actor's valid attempts; returns true when an exclusion
 * voided an attempt it then went past (forEachAttemptStart), which leaves the actor only its converted periods.
 */
export type AttemptStarts = (visit: (level: number, startedAt: number) => void) => boolean;

const seen = new Map<number, boolean>();

/**
 * The periods one actor enters (bucket → converted there): each period where an attempt that passed
 * funnel_from_step started, converted if any such attempt went past funnel_to_step. The tally counts these, and
 * the funnel-trends actor lists list them, so the two always agree.
 */
export function actorPeriods(
  starts: AttemptStarts,
  buckets: Pick<Buckets, "indexOf">,
  spec: Pick<FunnelSpec, "fromStep" | "toStep">,
  into: Map<number, boolean> = new Map(),
): Map<number, boolean> {
  into.clear();
  const fullyExcluded = starts((level, startedAt) => {
    const b = buckets.indexOf(startedAt);
    if (b < 0 || level <= spec.fromStep) return;
    into.set(b, (into.get(b) ?? false) || level > spec.toStep);
  });
  if (fullyExcluded) for (const [b, converted] of into) if (!converted) into.delete(b);
  return into;
}

/** One actor into the tally: it counts once in each period it enters (actorPeriods), and as converted there if it converted. */
export function tallyActor(starts: AttemptStarts, buckets: Pick<Buckets, "indexOf">, spec: Pick<FunnelSpec, "fromStep" | "toStep">, tally: TrendTally): void {
  for (const [b, didConvert] of actorPeriods(starts, buckets, spec, seen)) {
    tally.entered[b]!++;
    if (didConvert) tally.converted[b]!++;
  }
}

/**
 * Conversion per entrance period: actors bucketed by the step-1 event of each attempt; one actor counts
 * once per bucket, converted if any of its entries there converted; rate = 100·to/from to 2 decimals.
 */
export function funnelTrend(startsByActor: Iterable<AttemptStarts>, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext): FunnelTrendItem {
  const buckets = trendBuckets(window, ctx);
  const tally = newTrendTally(buckets.length);
  for (const starts of startsByActor) tallyActor(starts, buckets, spec, tally);
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

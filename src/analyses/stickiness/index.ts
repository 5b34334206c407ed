import type { EventList } from "../../store/schema.ts";
import { actorResolver, type ActorOf } from "../shared/actors.ts";
import { buildBuckets, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext, Interval } from "../shared/context.ts";
import { resolveDateRange, type QueryWindow } from "../shared/date-range.ts";
import { compileEntityMatcher, compileGlobalFilter, NEVER } from "../shared/entity-match.ts";
import type { RowPredicate } from "../shared/property-filter.ts";
import { forEachMatch } from "../shared/scan.ts";
import { seriesLabel, type SeriesEntity } from "../shared/series.ts";
import { readTrendFilter, type TrendFilter, type TrendSpec } from "../trends/filter.ts";
import { activeBucketsOfActors } from "../trends/column-counts.ts";
import { comparePeriods } from "../trends/index.ts";
import { seriesAction } from "../trends/items.ts";
import type { ActorKey } from "../trends/maths.ts";
import { actorKeyOf } from "../trends/run.ts";

/** One element of a stickiness `result` (reference: analytics §3). */
export interface StickinessItem {
  action: Record<string, unknown>;
  label: string;
  count: number;
  data: number[];
  days: number[];
  labels: string[];
  compare?: boolean;
  compare_label?: "current" | "previous";
}

/** One series in one period: for every actor, on how many buckets it performed the series. */
export interface StickinessSeries {
  entity: SeriesEntity;
  buckets: Buckets;
  compareLabel: "current" | "previous" | undefined;
  activeBuckets: Map<ActorKey, number>;
}

/**
 * Stickiness (reference: analytics §3, §11 item 14): per series, position k (1 … buckets + 1) counts the actors
 * that performed it on exactly k buckets of the range (same bucketing as trends). Actors are persons, or
 * `$group_N` values with unique_group / aggregation_group_type_index; every other math counts persons.
 */
export function computeStickiness(events: EventList, filter: TrendFilter, ctx: AnalysisContext): StickinessItem[] {
  return stickinessSeries(events, filter, ctx).map((series) => stickinessItem(series, ctx));
}

/**
 * The active-bucket count of every actor, per series and compare period: the items count them, the actors endpoint
 * lists them (in an order of its own, so the columns may count them in any).
 */
export function stickinessSeries(events: EventList, filter: TrendFilter, ctx: AnalysisContext): StickinessSeries[] {
  const spec = readTrendFilter(filter, ctx);
  const window = resolveDateRange(filter, spec.interval, ctx, events.at(0)?.timestamp);
  const shared = { events, spec, ctx, actorOf: actorResolver(ctx), global: compileGlobalFilter(filter, ctx) };
  return comparePeriods(window, spec, ctx).flatMap((period) =>
    spec.series.flatMap((entity) => {
      const activeBuckets = countActiveBuckets(entity, period.window, shared);
      if (!activeBuckets) return [];
      return [{ entity, buckets: activeBuckets.buckets, compareLabel: period.compareLabel, activeBuckets: activeBuckets.counts }];
    }),
  );
}

interface Shared {
  events: EventList;
  spec: TrendSpec;
  ctx: AnalysisContext;
  actorOf: ActorOf;
  global: RowPredicate;
}

/** Events come in time order, so an actor's bucket index never decreases: a new bucket is a change of index. */
function countActiveBuckets(entity: SeriesEntity, window: QueryWindow, shared: Shared): { buckets: Buckets; counts: Map<ActorKey, number> } | undefined {
  const buckets = buildBuckets(window, shared.ctx.timezone, shared.ctx.weekStartDay);
  const matcher = compileEntityMatcher(entity, shared.ctx, shared.global, `${entity.type}__${entity.position}`);
  if (matcher === NEVER) return undefined;
  const personsAreActors = entity.math !== "unique_group" && shared.spec.groupIndex === undefined;
  const fromColumns = personsAreActors ? activeBucketsOfActors(shared.events, matcher, buckets, shared.ctx) : undefined;
  if (fromColumns) return { buckets, counts: new Map(Array.from(fromColumns, ([actor, active]) => [actor.id, active.length])) };
  const keyOf = actorKeyOf(entity, shared.spec, shared.ctx);
  const counts = new Map<ActorKey, number>();
  const lastBucket = new Map<ActorKey, number>();
  forEachMatch(shared.events, buckets, matcher, shared.actorOf, (event, actor) => {
    const key = keyOf(event, actor);
    const bucket = buckets.indexOf(event.timestamp);
    if (key === undefined || bucket < 0 || lastBucket.get(key) === bucket) return;
    lastBucket.set(key, bucket);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  return { buckets, counts };
}

function stickinessItem(series: StickinessSeries, ctx: AnalysisContext): StickinessItem {
  const positions = series.buckets.length + 1;
  const data = new Array<number>(positions).fill(0);
  for (const k of series.activeBuckets.values()) data[k - 1]!++;
  const label = seriesLabel(series.entity, ctx);
  const item: StickinessItem = {
    action: seriesAction(series.entity, series.buckets, label, ctx),
    label,
    count: series.activeBuckets.size,
    data,
    days: data.map((_, i) => i + 1),
    labels: data.map((_, i) => positionLabel(i + 1, series.buckets.interval)),
  };
  if (series.compareLabel) Object.assign(item, { compare: true, compare_label: series.compareLabel });
  return item;
}

/** "1 day", "2 days", "1 week" … (reference §3). */
export const positionLabel = (k: number, interval: Interval): string => `${k} ${interval}${k === 1 ? "" : "s"}`;

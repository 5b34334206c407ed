import type { EventList, EventRecord } from "../../store/schema.ts";
import { actorResolver, type Actor, type ActorOf } from "../shared/actors.ts";
import { buildBuckets, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { readString } from "../shared/filter-read.ts";
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
import { hogqlActorReader } from "./hogql-actor.ts";
import { meetsCriteria, periodOf, positionLabel, readStickinessOptions, type StickinessOptions } from "./options.ts";

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
  /** Number of positions: the buckets of the range, or its periods of intervalCount intervals. */
  positions: number;
  compareLabel: "current" | "previous" | undefined;
  activeBuckets: Map<ActorKey, number>;
}

/**
 * Stickiness (reference: analytics §3, §11 item 14): per series, position k (1 … N, N the buckets of the range, or
 * the periods of intervalCount intervals) counts the actors that performed it on exactly k of them (k or more when
 * cumulative). Actors are persons, `$group_N` values with unique_group / aggregation_group_type_index, or the values
 * of math_hogql; every other math counts persons. As the real service's current runner (its tests:
 * posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py).
 */
export function computeStickiness(events: EventList, filter: TrendFilter, ctx: AnalysisContext): StickinessItem[] {
  const options = readStickinessOptions(filter);
  return stickinessSeries(events, filter, ctx).map((series) => stickinessItem(series, options, ctx));
}

/**
 * The active-bucket count of every actor, per series and compare period: the items count them, the actors endpoint
 * lists them (in an order of its own, so the columns may count them in any).
 */
export function stickinessSeries(events: EventList, filter: TrendFilter, ctx: AnalysisContext): StickinessSeries[] {
  const spec = readTrendFilter(filter, ctx);
  const options = readStickinessOptions(filter);
  const window = resolveDateRange(filter, spec.interval, ctx, events.at(0)?.timestamp);
  const shared = { events, spec, options, ctx, actorOf: actorResolver(ctx), global: compileGlobalFilter(filter, ctx) };
  return comparePeriods(window, spec, ctx).flatMap((period) =>
    spec.series.flatMap((entity) => {
      const activeBuckets = countActiveBuckets(entity, period.window, shared);
      if (!activeBuckets) return [];
      const positions = options.intervalCount ? Math.ceil(activeBuckets.buckets.length / options.intervalCount) : activeBuckets.buckets.length;
      return [{ entity, buckets: activeBuckets.buckets, positions, compareLabel: period.compareLabel, activeBuckets: activeBuckets.counts }];
    }),
  );
}

interface Shared {
  events: EventList;
  spec: TrendSpec;
  options: StickinessOptions;
  ctx: AnalysisContext;
  actorOf: ActorOf;
  global: RowPredicate;
}

/** One actor's scan state: the period it was last seen in, its events there, and its active periods before it. */
interface ActorState {
  period: number;
  events: number;
  active: number;
}

/**
 * Events come in time order, so an actor's period never goes back: a new period is a change of index. An interval
 * counts once the actor leaves it, if its events there meet the criteria (every interval with an event without).
 */
function countActiveBuckets(entity: SeriesEntity, window: QueryWindow, shared: Shared): { buckets: Buckets; counts: Map<ActorKey, number> } | undefined {
  const { ctx, options } = shared;
  const buckets = buildBuckets(window, ctx.timezone, ctx.weekStartDay);
  const matcher = compileEntityMatcher(entity, ctx, shared.global, `${entity.type}__${entity.position}`);
  if (matcher === NEVER) return undefined;
  const personsAreActors = entity.math !== "unique_group" && entity.math !== "hogql" && shared.spec.groupIndex === undefined;
  const plain = options.intervalCount === undefined && options.criteria === undefined;
  const fromColumns = personsAreActors && plain ? activeBucketsOfActors(shared.events, matcher, buckets, ctx) : undefined;
  if (fromColumns) return { buckets, counts: new Map(Array.from(fromColumns, ([actor, active]) => [actor.id, active.length])) };
  const keyOf = stickinessActorKeyOf(entity, shared);
  const periodOfMs = options.intervalCount === undefined ? undefined : periodOf(buckets.interval, options.intervalCount, window.to, ctx.timezone);
  const { criteria } = options;
  const counted = (state: ActorState) => (criteria === undefined || meetsCriteria(criteria, state.events) ? 1 : 0);
  const states = new Map<ActorKey, ActorState>();
  forEachMatch(shared.events, buckets, matcher, shared.actorOf, (event, actor) => {
    const key = keyOf(event, actor);
    const bucket = buckets.indexOf(event.timestamp);
    if (key === undefined || bucket < 0) return;
    const period = periodOfMs ? periodOfMs(event.timestamp) : bucket;
    const state = states.get(key);
    if (!state) return void states.set(key, { period, events: 1, active: 0 });
    if (state.period === period) return void state.events++;
    state.active += counted(state);
    Object.assign(state, { period, events: 1 });
  });
  const result = new Map<ActorKey, number>();
  for (const [key, state] of states) {
    const active = state.active + counted(state);
    if (active > 0) result.set(key, active);
  }
  return { buckets, counts: result };
}

/** The actor of an event: persons, a group with unique_group or aggregation_group_type_index, the value of math_hogql. */
function stickinessActorKeyOf(entity: SeriesEntity, shared: Shared): (event: EventRecord, actor: Actor) => ActorKey | undefined {
  if (entity.math !== "hogql") return actorKeyOf(entity, shared.spec, shared.ctx);
  const { ctx } = shared;
  const env = { now: ctx.now, timezone: ctx.timezone, propertyTypes: ctx.propertyTypes?.(), timeLimitMs: ctx.queryTimeLimitMs };
  const read = hogqlActorReader(readString(entity.raw, "math_hogql") ?? "", `${entity.type}__${entity.position}__math_hogql`, env);
  return (event, actor) => read(event, actor.person);
}

function stickinessItem(series: StickinessSeries, options: StickinessOptions, ctx: AnalysisContext): StickinessItem {
  const exact = new Array<number>(series.positions).fill(0);
  for (const k of series.activeBuckets.values()) if (k >= 1 && k <= series.positions) exact[k - 1]!++;
  const data = options.cumulative ? exact.map((_, i) => exact.slice(i).reduce((a, b) => a + b, 0)) : exact;
  const label = seriesLabel(series.entity, ctx);
  const item: StickinessItem = {
    action: seriesAction(series.entity, series.buckets, label, ctx),
    label,
    count: exact.reduce((a, b) => a + b, 0),
    data,
    days: data.map((_, i) => i + 1),
    labels: data.map((_, i) => positionLabel(i + 1, series.buckets.interval, options.cumulative)),
  };
  if (series.compareLabel) Object.assign(item, { compare: true, compare_label: series.compareLabel });
  return item;
}

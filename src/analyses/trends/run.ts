import type { EventList, EventRecord } from "../../store/schema.ts";
import type { Actor, ActorOf } from "../shared/actors.ts";
import { buildBuckets, singleBucket, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { compileEntityMatcher, matchesEvent, NEVER, type EventMatcher } from "../shared/entity-match.ts";
import { ALWAYS, type RowPredicate } from "../shared/property-filter.ts";
import { groupLookup } from "../shared/groups.ts";
import { columnFirstTimes } from "./column-first-time.ts";
import { startColumnCounts, type KeyedCounts } from "./column-counts.ts";
import { forEachMatch, indexRange } from "../shared/scan.ts";
import type { SeriesEntity } from "../shared/series.ts";
import { BREAKDOWN_OTHER, keyingFor, rankKeys, type BreakdownKey, type Keying } from "./breakdown-values.ts";
import type { TrendSpec } from "./filter.ts";
import { mathHogqlPlan } from "./math-hogql.ts";
import { cumulate } from "../shared/math.ts";
import { SESSION_PROPERTY_NAMES, sessionPropertyReader, UNDERIVED_SESSION_PROPERTIES } from "../shared/session-properties.ts";
import { eventProperty } from "../../core/event-read.ts";
import { planMath, SESSION_PROPERTY, sessionText, type Accumulator, type ActorKey, type BucketActors, type MathPlan } from "./maths.ts";

/** One series in one period: a row per breakdown value (a single row without breakdown). */
export interface Row {
  key: string;
  breakdown?: { value: string | number | string[]; label: string };
  data: number[];
  /** With `collectActors`: per bucket, the actors behind `data` and their event counts. */
  actors?: BucketActors;
}

export interface SeriesRun {
  entity: SeriesEntity;
  buckets: Buckets;
  rows: Row[];
}

export interface RunShared {
  events: EventList;
  spec: TrendSpec;
  ctx: AnalysisContext;
  actorOf: ActorOf;
  global: RowPredicate;
  /** Keep, per bucket, who was counted (the actors endpoints list them; the numbers stay the same). */
  collectActors?: boolean;
}

/** Computes one series over one window; undefined when the series' action does not exist (PostHog skips it). */
export function runSeries(entity: SeriesEntity, window: QueryWindow, shared: RunShared): SeriesRun | undefined {
  const { spec, ctx } = shared;
  const buckets = seriesBuckets(spec, window, ctx);
  const matcher = seriesMatcher(entity, shared);
  if (matcher === NEVER) return undefined;
  const hogql = entity.math === "hogql" ? { plan: mathHogqlPlan(entity, ctx), personOf: ctx.personOf } : undefined;
  const readProperty = mathPropertyReader(entity, ctx);
  const onceBy = readProperty && isSessionProperty(entity) ? (event: EventRecord) => sessionText(eventProperty(event, SESSION_PROPERTY)) : undefined;
  const planned = planMath(buckets, { math: entity.math, mathProperty: entity.math_property, readProperty, onceBy, cumulative: spec.cumulative, totalValue: spec.totalValue, timezone: ctx.timezone, hogql });
  const plan = shared.collectActors ? collecting(planned, buckets.length) : planned;
  const scan: Scan = { shared, entity, matcher, plan, buckets, actorKey: actorKeyOf(entity, spec, ctx) };
  if (!spec.breakdown) {
    const acc = accumulate(scan).get("");
    return { entity, buckets, rows: [{ key: "", data: acc?.values() ?? zeros(buckets), actors: acc?.actors?.() }] };
  }
  const keying = keyingFor(spec.breakdown, { events: shared.events, range: buckets, matcher, actorOf: shared.actorOf });
  return { entity, buckets, rows: breakdownRows(scan, keying) };
}

/**
 * Where a property math reads its property, when not from the event: the person's (math_property_type
 * person_properties, PostHog test_trends_aggregation_property_avg_person_property) or the event's session's
 * (`$session_duration`…, PostHog test_trends.py::test_trends_with_session_property_single_aggregate_math).
 */
export function mathPropertyReader(entity: SeriesEntity, ctx: Pick<AnalysisContext, "personOf" | "sessions">): ((event: EventRecord) => unknown) | undefined {
  const property = entity.math_property;
  if (property === undefined) return undefined;
  if (entity.raw.math_property_type === "person_properties") return (event) => ctx.personOf(event.distinct_id)?.properties[property];
  return ctx.sessions && isSessionProperty(entity) ? sessionPropertyReader(property, ctx.sessions) : undefined;
}

/** A property math over a session property: each session's value counts once (its median is over sessions, not events). */
const isSessionProperty = (entity: SeriesEntity): boolean =>
  entity.raw.math_property_type !== "person_properties" && SESSION_PROPERTY_NAMES.includes(entity.math_property ?? "") && !UNDERIVED_SESSION_PROPERTIES.has(entity.math_property ?? "");

/** A series' buckets over a window: one for a total-value display. */
export const seriesBuckets = (spec: Pick<TrendSpec, "totalValue">, window: QueryWindow, ctx: Pick<AnalysisContext, "timezone" | "weekStartDay">): Buckets =>
  spec.totalValue ? singleBucket(window) : buildBuckets(window, ctx.timezone, ctx.weekStartDay);

/** What a series counts: its event or action under its own and the insight's conditions. */
export const seriesMatcher = (entity: SeriesEntity, shared: Pick<RunShared, "ctx" | "global">): EventMatcher =>
  compileEntityMatcher(entity, shared.ctx, shared.global, `${entity.type}__${entity.position}`);

interface Scan {
  shared: RunShared;
  entity: SeriesEntity;
  matcher: EventMatcher;
  plan: MathPlan;
  buckets: Buckets;
  actorKey: (event: EventRecord, actor: Actor) => ActorKey | undefined;
  /** Counts per key read straight from the columns (null: this series needs the general scan); see countedSeries. */
  counted?: KeyedCounts | null;
}

const zeros = (buckets: Buckets): number[] => new Array<number>(buckets.length).fill(0);
const total = (data: number[]): number => data.reduce((a, b) => a + b, 0);

function breakdownRows(scan: Scan, keying: Keying): Row[] {
  const { spec } = scan.shared;
  const inRange = looksBack(scan) ? new Set<string>() : undefined;
  let accumulators = accumulate(scan, keying, same, inRange);
  // A cumulative line ranks its values by the cumulated data (PostHog test_trends.py::test_trends_breakdown_cumulative).
  const totals = new Map([...accumulators].map(([key, acc]) => [key, total(spec.cumulative ? cumulate(acc.values()) : acc.values())]));
  const hidden = new Set([...totals].filter(([key, t]) => t === 0 && inRange !== undefined && !inRange.has(key)).map(([key]) => key));
  const { keep, other } = rankKeys(new Map([...totals].filter(([key]) => !hidden.has(key))), keying, spec.breakdownLimit);
  if (other) {
    const kept = new Set([...keep, ...hidden]);
    accumulators = accumulate(scan, keying, (key) => (kept.has(key) ? key : BREAKDOWN_OTHER));
  }
  const rows: Row[] = keep.map((key) => ({ key, breakdown: keying.present(key), data: accumulators.get(key)!.values(), actors: accumulators.get(key)!.actors?.() }));
  const otherAcc = accumulators.get(BREAKDOWN_OTHER);
  if (other && otherAcc && !spec.hideOther) {
    rows.push({ key: BREAKDOWN_OTHER, breakdown: keying.other, data: otherAcc.values(), actors: otherAcc.actors?.() });
  }
  return rows;
}

/** The same plan whose accumulators also remember, per bucket, each actor they counted and its events there. */
function collecting(plan: MathPlan, length: number): MathPlan {
  return {
    ...plan,
    create() {
      const inner = plan.create();
      const actors: BucketActors = Array.from({ length }, () => new Map());
      return {
        add(event, key) {
          inner.add(event, key);
          const [first, last] = plan.reach(event.timestamp);
          for (let b = Math.max(0, first); b <= last; b++) actors[b]!.set(key, (actors[b]!.get(key) ?? 0) + 1);
        },
        values: () => inner.values(),
        actors: () => actors,
      };
    },
  };
}

/**
 * Actors are persons, or the events' group keys of one type with unique_group / aggregation_group_type_index
 * (§1.1): an event outside any group of that type counts for nobody.
 */
export function actorKeyOf(entity: SeriesEntity, spec: Pick<TrendSpec, "groupIndex">, ctx: Pick<AnalysisContext, "groups">): (event: EventRecord, actor: Actor) => ActorKey | undefined {
  const group = entity.math === "unique_group" ? entity.math_group_type_index : spec.groupIndex;
  if (group === undefined) return (_event, actor) => actor.id;
  const keyOf = groupLookup(ctx.groups).keyOf(group);
  return (event) => keyOf(event);
}

const same = (key: string): string => key;

/** The scan visits events before the range (weekly, monthly actives' trailing windows), not only those it shows. */
const looksBack = (scan: Scan): boolean => scan.plan.firstTime === undefined && scan.plan.scanFrom < scan.buckets.from;

/**
 * Each key's accumulator. `inRange` (given when the scan looks back) collects the keys counted from an event inside
 * the range: a value seen only in a look-back is not shown, while one whose math is 0 in range is (PostHog groups
 * the range's rows by value: test_trends_query_runner.py::test_trends_breakdowns_session_duration_histogram).
 */
function accumulate(scan: Scan, keying?: Keying, mapKey: (key: string) => string = same, inRange?: Set<string>): Map<string, Accumulator> {
  const counted = countedSeries(scan);
  if (counted) {
    // The columns count only rows inside the range (no look-back): every key they give was seen there.
    const accumulators = countedAccumulators(counted(mapKey));
    for (const key of accumulators.keys()) inRange?.add(key);
    return accumulators;
  }
  const accumulators = new Map<string, Accumulator>();
  // Consecutive events mostly share their key (always, without a breakdown): the last one is kept at hand.
  let lastKey: string | undefined;
  let lastAcc: Accumulator | undefined;
  const add = (key: string, event: EventRecord, actorKey: ActorKey, seen = false) => {
    let acc = key === lastKey ? lastAcc : accumulators.get(key);
    if (!acc) accumulators.set(key, (acc = scan.plan.create()));
    lastKey = key;
    lastAcc = acc;
    acc.add(event, actorKey);
    if (seen) inRange!.add(key);
  };
  const visit = (event: EventRecord, actor: Actor) => {
    const actorKey = scan.actorKey(event, actor);
    if (actorKey === undefined) return;
    if (!keying) return add("", event, actorKey);
    const key: BreakdownKey = keying.keyOf(event, actor);
    if (key === null) return;
    const seen = inRange !== undefined && event.timestamp >= scan.buckets.from && event.timestamp <= scan.buckets.to;
    if (typeof key === "string") add(mapKey(key), event, actorKey, seen);
    else for (const k of key) add(mapKey(k), event, actorKey, seen);
  };
  const { spec, collectActors } = scan.shared;
  if (scan.plan.firstTime && !keying && spec.groupIndex === undefined && !collectActors) {
    const counts = columnFirstTimes(scan.shared.events, scan.matcher, scan.plan.firstTime, scan.buckets, scan.shared.ctx);
    if (counts) return countedAccumulators(new Map([["", counts]]));
  }
  if (scan.plan.firstTime) firstTimeScan(scan, visit);
  // Accumulators and keyings read values from the event and keep none of it: one moving row serves.
  else forEachMatch(scan.shared.events, { from: scan.plan.scanFrom, to: scan.buckets.to }, scan.matcher, scan.shared.actorOf, visit, true);
  return accumulators;
}

/** The series' counts from the columns when its shape allows (counted once: the "other" pass reuses them). */
function countedSeries(scan: Scan): KeyedCounts | undefined {
  if (scan.counted === undefined) {
    const { events, spec, ctx, collectActors } = scan.shared;
    scan.counted = startColumnCounts(events, { entity: scan.entity, spec, matcher: scan.matcher, buckets: scan.buckets, windows: scan.plan.windows, ctx, collectActors: Boolean(collectActors) })?.finish() ?? null;
  }
  return scan.counted ?? undefined;
}

/** Finished numbers as accumulators. */
function countedAccumulators(counted: Map<string, number[]>): Map<string, Accumulator> {
  const finished = (data: number[]): Accumulator => ({
    add() {
      throw new Error("a series counted from the columns takes no more events");
    },
    values: () => data,
  });
  return new Map([...counted].map(([key, data]) => [key, finished(data)]));
}

/**
 * first_time_for_user: the actor's first-ever event of this event/action, counted only if it also passes
 * the filters (every event at that first instant is a first event: PostHog
 * test_trends_math_first_time_for_user_prioritizes_first_event); first_matching_event_for_user: the first event
 * passing everything. Either way once per actor, and only when it falls inside the range (reference §2.3).
 */
function firstTimeScan(scan: Scan, visit: (event: EventRecord, actor: Actor) => void): void {
  const { shared, entity, matcher, buckets } = scan;
  const base = scan.plan.firstTime === "event" ? compileEntityMatcher({ ...entity, properties: undefined }, shared.ctx, ALWAYS, "events") : matcher;
  const firstAt = new Map<ActorKey, number>();
  const counted = new Set<ActorKey>();
  const [, end] = indexRange(shared.events, -Infinity, buckets.to);
  for (let i = 0; i < end; i++) {
    const event = shared.events.at(i)!;
    if (base.names !== null && !base.names.has(event.event)) continue;
    const actor = shared.actorOf(event.distinct_id);
    if (!base.rest(event, actor.person)) continue;
    const key = scan.actorKey(event, actor);
    if (key === undefined || counted.has(key)) continue;
    const first = firstAt.get(key);
    if (first === undefined) firstAt.set(key, event.timestamp);
    else if (first !== event.timestamp) continue;
    if (event.timestamp < buckets.from || (base !== matcher && !matchesEvent(matcher, event, actor.person))) continue;
    counted.add(key);
    visit(event, actor);
  }
}

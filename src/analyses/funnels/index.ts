import type { EventList, EventRecord } from "../../store/schema.ts";
import { actorResolver, type Actor } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { Buckets } from "../shared/buckets.ts";
import { resolveDateRange, type QueryWindow } from "../shared/date-range.ts";
import { compileEntityMatcher, compileGlobalFilter } from "../shared/entity-match.ts";
import { groupActorResolver, groupLookup, type GroupActorOf } from "../shared/groups.ts";
import { ALWAYS } from "../shared/property-filter.ts";
import { attemptsOf, bestAttempt, bestAttemptOf, forEachAttemptStart, reachesStep, type Attempt, type AttemptRules, type ReachedSteps } from "./attempts.ts";
import { FUNNEL_OTHER, funnelKeying, limitValues, type Assignment, type Presented } from "./attribution.ts";
import { keepsEveryEvent, readFunnelFilter, type FunnelFilter, type FunnelSpec } from "./filter.ts";
import { columnFunnelBest, columnFunnelTrend, type CountedActors } from "./column-funnel.ts";
import { firstTimeMatcher, isFirstTimeStep } from "./first-time.ts";
import { hogqlActorResolver } from "./hogql-actors.ts";
import { collectJourneys, type Journey } from "./journeys.ts";
import { stepObjects, type FunnelStep } from "./steps.ts";
import { funnelTrend, timeToConvert, trendBuckets, trendItem, type AttemptStarts, type FunnelTrendItem, type TimeToConvert } from "./viz.ts";

export type { FunnelFilter, FunnelSpec } from "./filter.ts";
export type { Attempt } from "./attempts.ts";
export type { FunnelStep } from "./steps.ts";
export type { FunnelTrendItem, TimeToConvert } from "./viz.ts";

export type FunnelResult = FunnelStep[] | FunnelStep[][] | FunnelTrendItem[] | TimeToConvert;

/**
 * Funnels (reference: analytics §5): per actor the furthest step of its best valid attempt inside the date
 * range and the conversion window; as steps (a list per breakdown value), conversion trends, or time to
 * convert. Nobody in the funnel ⇒ `[]`.
 */
export function computeFunnel(events: EventList, filter: FunnelFilter, ctx: AnalysisContext): FunnelResult {
  const spec = readFunnelFilter(filter, ctx);
  const window = resolveDateRange(filter, spec.interval, ctx, events.at(0)?.timestamp);
  const stepCount = attemptStepCount(spec);
  const rules = rulesOf(spec, stepCount);
  if (spec.viz === "trends") {
    const periods = trendBuckets(window, ctx);
    const tally = columnFunnelTrend(events, spec, window, ctx, rules, periods);
    if (tally) return [trendItem(tally, periods, ctx)];
  }
  if (spec.viz === "time_to_convert") {
    // Time to convert has no breakdown: it counts every actor once whatever the filter asks.
    const counted = columnFunnelBest(events, { ...spec, breakdown: undefined }, window, ctx, rules);
    if (counted) return timeToConvert(counted.attempts, spec);
  } else if (spec.viz === "steps") {
    const counted = columnFunnelBest(events, spec, window, ctx, rules);
    if (counted) return spec.breakdown ? breakdownSteps(countedByKey(counted, spec), spec, ctx) : stepsWithoutBreakdown(counted.attempts, spec, ctx);
  }
  const journeys = collect(events, spec, window, ctx, stepCount);
  const assign = assigner(spec);
  if (spec.viz === "time_to_convert") {
    return timeToConvert(journeys.flatMap((j) => bestAttemptOf(j, rules) ?? []), spec);
  }
  if (spec.viz === "trends") return trendsResult(journeys, assign, rules, spec, window, ctx);
  return stepsResult(journeys, assign, rules, spec, ctx);
}

/**
 * Trends and time to convert stop at funnel_to_step (PostHog max_steps_override), except unordered funnels, where
 * any step may come first (test_funnel_time_to_convert.py::test_basic_unordered).
 */
const attemptStepCount = (spec: FunnelSpec): number => (spec.viz === "steps" || spec.orderType === "unordered" ? spec.steps.length : spec.toStep + 1);

/** How an actor's attempts are walked, for the first `stepCount` steps. */
const rulesOf = (spec: FunnelSpec, stepCount: number): AttemptRules => ({
  stepCount,
  windowMs: spec.windowMs,
  orderType: spec.orderType,
  exclusions: spec.exclusions,
  optional: spec.optional,
});

/** Of two attempts of one actor, the one its funnel counts. */
const betterOf = (spec: FunnelSpec) => (a: Attempt, b: Attempt) => bestAttempt([a, b], spec.orderType)!;

/** A funnel's steps without breakdown from the attempt counted per actor; nobody in it ⇒ `[]`. */
function stepsWithoutBreakdown(attempts: Iterable<ReachedSteps>, spec: FunnelSpec, ctx: AnalysisContext): FunnelStep[] {
  const steps = stepObjects(attempts, spec, ctx);
  return steps[0]!.count === 0 ? [] : steps;
}

/** A steps list per breakdown key, in the order of the actors entering (see orderedKeys). */
function breakdownSteps(byKey: Map<string, Map<number, ReachedSteps>>, spec: FunnelSpec, ctx: AnalysisContext): FunnelStep[][] {
  const keying = funnelKeying(spec.breakdown!, spec);
  return orderedKeys(byKey, spec.steps.length, reachesStep).map((key) => stepObjects(byKey.get(key)!.values(), spec, ctx, keying.present(key)));
}

/**
 * Per breakdown key, each actor's counted attempt from the columns, in actor slot order; with a breakdown, the top
 * values and "Other" (first and last touch give an actor one key, so no actor is merged).
 */
function countedByKey(counted: CountedActors, spec: FunnelSpec): Map<string, Map<number, ReachedSteps>> {
  const byKey = new Map<string, Map<number, ReachedSteps>>();
  counted.slots.forEach((slot, k) => {
    const key = counted.keys?.[k] ?? "";
    let actors = byKey.get(key);
    if (!actors) byKey.set(key, (actors = new Map()));
    actors.set(counted.table.actors[slot]!.id, counted.attempts[k]!);
  });
  return spec.breakdown ? limitValues(byKey, spec.breakdownLimit, (a) => a) : byKey;
}

/** The actor of an event when persons are not the funnel's actors: `position` is the event's in `events` when known. */
type AggregateOf = (event: EventRecord, position: number | undefined, person: Actor) => Actor | undefined;

/**
 * The actors of a funnel aggregated otherwise than by persons: a group type's groups (aggregation_group_type_index
 * 0–4) or a HogQL expression's values (funnel_aggregate_by_hogql); undefined when persons are the actors.
 */
function aggregationOf(spec: FunnelSpec, ctx: AnalysisContext, events: EventList): { of: AggregateOf; readsPerson: boolean } | undefined {
  if (spec.groupIndex !== undefined) {
    const groups: GroupActorOf = groupActorResolver(groupLookup(ctx.groups), spec.groupIndex, events);
    return { of: (event, position) => groups(event, position), readsPerson: false };
  }
  return spec.hogqlActor === undefined ? undefined : { of: hogqlActorResolver(spec.hogqlActor, ctx), readsPerson: true };
}

/** Persons are the funnel's actors: the column kernels and the actor lists read persons only. */
const personsAreActors = (spec: FunnelSpec): boolean => spec.groupIndex === undefined && spec.hogqlActor === undefined;

function collect(
  events: EventList,
  spec: FunnelSpec,
  window: QueryWindow,
  ctx: AnalysisContext,
  stepCount: number,
  actorOf = actorResolver(ctx),
  aggregation = aggregationOf(spec, ctx, events),
): Journey[] {
  const steps = spec.steps.slice(0, stepCount).map((entity) => {
    const attr = `${entity.type}__${entity.position}`;
    const matcher = compileEntityMatcher(entity, ctx, ALWAYS, attr);
    if (!isFirstTimeStep(entity)) return matcher;
    // A resolver of its own: this pass over every event must not number the funnel's actors.
    return firstTimeMatcher(entity, matcher, compileEntityMatcher({ ...entity, properties: [] }, ctx, ALWAYS, attr), events, actorResolver(ctx));
  });
  const exclusions = spec.exclusions.map((x, i) => compileEntityMatcher(x.entity, ctx, ALWAYS, `exclusions__${i}`));
  return collectJourneys({
    events,
    range: window,
    steps,
    exclusions,
    global: compileGlobalFilter(spec.raw, ctx),
    keepAll: keepsEveryEvent(spec),
    actorOf,
    aggregate: aggregation?.of,
    aggregateReadsPerson: aggregation?.readsPerson,
  });
}

function assigner(spec: FunnelSpec): (journey: Journey) => Assignment[] {
  if (!spec.breakdown) return (journey) => [{ key: "", journey }];
  return funnelKeying(spec.breakdown, spec).assign;
}

/** key → actor → value, keeping per actor the better of two values for the same key. */
function groupByKey<T>(journeys: Journey[], assign: (j: Journey) => Assignment[], valueOf: (j: Journey) => T | undefined, merge: (a: T, b: T) => T) {
  const byKey = new Map<string, Map<number, T>>();
  for (const journey of journeys) {
    for (const { key, journey: assigned } of assign(journey)) {
      const value = valueOf(assigned);
      if (value === undefined) continue;
      let actors = byKey.get(key);
      if (!actors) byKey.set(key, (actors = new Map()));
      const current = actors.get(journey.actor.id);
      actors.set(journey.actor.id, current === undefined ? value : merge(current, value));
    }
  }
  return byKey;
}

function stepsResult(journeys: Journey[], assign: (j: Journey) => Assignment[], rules: AttemptRules, spec: FunnelSpec, ctx: AnalysisContext): FunnelStep[] | FunnelStep[][] {
  const byKey = countedAttempts(journeys, assign, rules, spec);
  return spec.breakdown ? breakdownSteps(byKey, spec, ctx) : stepsWithoutBreakdown(byKey.get("")?.values() ?? [], spec, ctx);
}

/** Per breakdown key ("" without one), each actor's counted attempt; with a breakdown, the top values and "Other". */
function countedAttempts(journeys: Journey[], assign: (j: Journey) => Assignment[], rules: AttemptRules, spec: FunnelSpec): Map<string, Map<number, Attempt>> {
  const better = betterOf(spec);
  const byKey = groupByKey(journeys, assign, (j) => bestAttemptOf(j, rules), better);
  return spec.breakdown ? limitValues(byKey, spec.breakdownLimit, better) : byKey;
}

export interface FunnelPopulation {
  spec: FunnelSpec;
  window: QueryWindow;
  /** Breakdown key → actor id → the attempt the steps funnel counts for that actor. */
  byKey: Map<string, Map<number, ReachedSteps>>;
  /** The breakdown_value a key is shown as (undefined without a breakdown). */
  present(key: string): Presented | undefined;
  /** The actor the funnel counts an event for (its person, or its group with group aggregation), and its actors. */
  actorOfEvent: (event: EventRecord) => Actor | undefined;
  actors: Map<number, Actor>;
  /** Read from the columns (persons as actors): the actor table, and each counted actor's slot. */
  columns?: Pick<CountedActors, "table" | "slots">;
}

/**
 * The actors behind a steps funnel, through the same code as computeFunnel's steps: step k counts the actors
 * whose attempt reached k. The persons endpoint and funnel correlation list and split them.
 */
export function funnelPopulation(events: EventList, filter: FunnelFilter, ctx: AnalysisContext): FunnelPopulation {
  const spec = readFunnelFilter(filter, ctx);
  const window = resolveDateRange(filter, spec.interval, ctx, events.at(0)?.timestamp);
  const rules = rulesOf(spec, spec.steps.length);
  const keying = spec.breakdown ? funnelKeying(spec.breakdown, spec) : undefined;
  // The actors endpoint and correlation need each actor: persons only (a group's actor is made by journeys.ts).
  const counted = personsAreActors(spec) ? columnFunnelBest(events, spec, window, ctx, rules) : undefined;
  if (counted) {
    const actors = counted.slots.map((slot) => counted.table.actors[slot]!);
    const actorOfEvent = (event: EventRecord) => counted.actorOf(event.distinct_id);
    const present = (key: string) => keying?.present(key);
    return { spec, window, byKey: countedByKey(counted, spec), present, actorOfEvent, actors: new Map(actors.map((a) => [a.id, a])), columns: counted };
  }
  const actorOf = actorResolver(ctx);
  const aggregation = aggregationOf(spec, ctx, events);
  const journeys = collect(events, spec, window, ctx, spec.steps.length, actorOf, aggregation);
  const byKey = countedAttempts(journeys, assigner(spec), rules, spec);
  const actors = new Map(journeys.map((j) => [j.actor.id, j.actor]));
  const actorOfEvent = (event: EventRecord) => (aggregation ? aggregation.of(event, undefined, actorOf(event.distinct_id)) : actorOf(event.distinct_id));
  return { spec, window, byKey, present: (key) => keying?.present(key), actorOfEvent, actors };
}

/**
 * Breakdown funnels (steps) by the actors reaching each step from the last to the first, descending, as PostHog's
 * funnel_udf.py orders its rows (`ORDER BY step_N DESC, …, step_1 DESC`;
 * test_funnel_strict.py::test_strict_breakdown_events_with_multiple_properties); ties by actors entering, then by
 * value; "Other" last.
 */
function orderedKeys<T>(byKey: Map<string, Map<number, T>>, stepCount: number, reaches: (value: T, k: number) => boolean): string[] {
  const reached = new Map([...byKey].map(([key, actors]) => {
    const counts = new Array<number>(stepCount).fill(0);
    for (const value of actors.values()) for (let k = 0; k < stepCount; k++) if (reaches(value, k)) counts[k]!++;
    return [key, counts] as const;
  }));
  const byLaterSteps = (a: string, b: string) => {
    const [ca, cb] = [reached.get(a)!, reached.get(b)!];
    for (let k = stepCount - 1; k > 0; k--) if (ca[k] !== cb[k]) return cb[k]! - ca[k]!;
    return 0;
  };
  return [...byKey.keys()]
    .filter((key) => byKey.get(key)!.size > 0)
    .sort((a, b) => Number(a === FUNNEL_OTHER) - Number(b === FUNNEL_OTHER) || byLaterSteps(a, b) || byKey.get(b)!.size - byKey.get(a)!.size || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Per breakdown key ("" without one), each actor's journeys that hold a valid attempt, as conversion trends count
 * them (an actor with none enters no period).
 */
function trendJourneys(journeys: Journey[], assign: (j: Journey) => Assignment[], rules: AttemptRules, spec: FunnelSpec): Map<string, Map<number, Journey[]>> {
  const byKey = groupByKey(journeys, assign, (j) => (attemptsOf(j, rules).length > 0 ? [j] : undefined), (a, b) => [...a, ...b]);
  // Conversion trends keep the top breakdown_limit values and drop the rest, without an "Other" series
  // (test_funnel_trends.py::test_funnel_step_breakdown_event_with_breakdown_limit).
  return spec.breakdown ? limitValues(byKey, spec.breakdownLimit, (a, b) => [...a, ...b], false) : byKey;
}

/** The attempt starts of one actor's journeys, as the trend tally and its actor lists read them. */
const startsOf = (journeys: readonly Journey[], rules: AttemptRules): AttemptStarts => (visit) =>
  journeys.map((j) => forEachAttemptStart(j, rules, visit)).some(Boolean);

function trendsResult(journeys: Journey[], assign: (j: Journey) => Assignment[], rules: AttemptRules, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext): FunnelTrendItem[] {
  const byKey = trendJourneys(journeys, assign, rules, spec);
  const startsByActor = (key: string) => [...(byKey.get(key)?.values() ?? [])].map((list) => startsOf(list, rules));
  if (!spec.breakdown) return [funnelTrend(startsByActor(""), spec, window, ctx)];
  const keying = funnelKeying(spec.breakdown, spec);
  const shown = (key: string) => keying.present(key).breakdown_value;
  const keys = [...byKey.keys()].filter((key) => byKey.get(key)!.size > 0);
  return byShownValue(keys, shown).map((key) => ({ ...funnelTrend(startsByActor(key), spec, window, ctx), breakdown_value: shown(key) }));
}

/**
 * Conversion trends list their values (the top ones by actors entering: trendJourneys) sorted by the value shown, as
 * the real service sorts its summary (funnel_trends.py _format_summarized_results, `sorted(summary, key=breakdown_value)`:
 * lists item by item; test_funnel_trends.py::test_funnel_step_breakdown_empty lists [""] before ["foo"]).
 */
function byShownValue(keys: readonly string[], shown: (key: string) => unknown): string[] {
  const items = (key: string) => [shown(key)].flat().map(String);
  const compare = (a: string[], b: string[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length - b.length;
  };
  return [...keys].sort((a, b) => compare(items(a), items(b)));
}

export interface FunnelTrendPopulation {
  spec: FunnelSpec;
  /** The entrance periods of the conversion trend. */
  periods: Buckets;
  /** Breakdown key → actor id → the attempt starts the trend counts for that actor. */
  byKey: Map<string, Map<number, AttemptStarts>>;
  present(key: string): Presented | undefined;
  actors: Map<number, Actor>;
}

/**
 * The actors behind a conversion trend, through the general scan computeFunnel's trends fall back to: the
 * funnel-trends actor lists (who entered in a period, converted or not) read the periods of each actor from them.
 */
export function funnelTrendPopulation(events: EventList, filter: FunnelFilter, ctx: AnalysisContext): FunnelTrendPopulation {
  const spec = readFunnelFilter(filter, ctx);
  const window = resolveDateRange(filter, spec.interval, ctx, events.at(0)?.timestamp);
  const rules = rulesOf(spec, attemptStepCount(spec));
  const journeys = collect(events, spec, window, ctx, rules.stepCount);
  const keying = spec.breakdown ? funnelKeying(spec.breakdown, spec) : undefined;
  const actors = new Map(journeys.map((j) => [j.actor.id, j.actor]));
  const byKey = new Map([...trendJourneys(journeys, assigner(spec), rules, spec)].map(([key, byActor]) => [key, new Map([...byActor].map(([id, list]) => [id, startsOf(list, rules)]))]));
  return { spec, periods: trendBuckets(window, ctx), byKey, present: (key) => keying?.present(key), actors };
}

import type { EventList, EventRecord } from "../../store/schema.ts";
import type { Actor } from "../shared/actors.ts";
import { actorResolver } from "../shared/actors.ts";
import { BREAKDOWN_OTHER, cohortHas, partValue, type BreakdownDef } from "../shared/breakdown.ts";
import { readNumber } from "../shared/filter-read.ts";
import { buildBuckets, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { isoInZone } from "../../core/date-parse.ts";
import { compileEntityMatcher, compileGlobalFilter, matchesEvent, type EventMatcher } from "../shared/entity-match.ts";
import { groupLookup } from "../shared/groups.ts";
import { peopleUrl } from "../shared/people-url.ts";
import { all, ALWAYS, type RowPredicate } from "../shared/property-filter.ts";
import { forEachMatch } from "../shared/scan.ts";
import { activeBucketsOfActors } from "../trends/column-counts.ts";
import { actorTableOf } from "../shared/actor-table.ts";
import { hasSnapshots } from "../shared/event-read.ts";
import { toWallClock } from "../../core/time-zones.ts";
import { firstSeenByActor } from "../shared/first-seen.ts";
import type { ActorKey } from "../trends/maths.ts";
import { addPeriodValue, aggregateCell, cellValue, mergePeriodValues, periodValues, propertyValueReader, returnsAreOtherEvents, type PeriodValues } from "./aggregation.ts";
import { bracketLabels, bracketReturns } from "./brackets.ts";
import { readRetentionFilter, type RetentionFilter, type RetentionSpec } from "./filter.ts";
import { rollingActivities } from "./rolling.ts";

export type { RetentionFilter } from "./filter.ts";

/** One row of a retention `result` (reference: analytics §7.3, current engine: every row has total_intervals values). */
export interface RetentionCohort {
  values: { count: number; aggregation_value?: number; people: never[]; label: string }[];
  label: string;
  date: string;
  people_url: string;
  breakdown_value?: string | number;
}

/** One actor (under one breakdown value): the cohorts it belongs to and the periods it returned in. */
export interface RetentionActivity {
  key: ActorKey;
  cohorts: Uint8Array;
  returns: Uint8Array;
  /** With custom brackets: value j (0, then each bracket) is set when the actor counts in it. */
  brackets?: Uint8Array;
  /** With a property aggregation: the actor's values per period. */
  values?: PeriodValues;
}

export interface RetentionGroup {
  /** Breakdown key ("" without a breakdown). */
  key: string;
  breakdownValue: string | number | undefined;
  activities: RetentionActivity[];
}

/**
 * Cell (cohort i, period i + j): the cohort's actors for j = 0, those of them who did the returning event in period
 * i + j otherwise (with custom brackets: in bracket j); periods after the window count nobody. The table counts
 * the cell, the actors endpoint lists it.
 */
export const inCell = (a: RetentionActivity, i: number, j: number): boolean =>
  a.cohorts[i] === 1 && (j === 0 || (a.brackets ? a.brackets[j] === 1 : i + j < a.returns.length && a.returns[i + j] === 1));

/**
 * Retention (reference: analytics §7): one cohort per period from date_from's to date_to's, or without date_from
 * total_intervals cohorts ending with the period of date_to; each has total_intervals values. Recurring: an
 * actor is in the cohort of every period with a target event (§11 item 15); first time: only in the cohort of its
 * first-ever target event, if inside the window. Value j counts the cohort (j = 0), then its actors that did the
 * returning event j periods later, inside the window.
 */
export function computeRetention(events: EventList, filter: RetentionFilter, ctx: AnalysisContext): RetentionCohort[] {
  const { spec, groups } = retentionActivity(events, filter, ctx);
  const labels = valueLabels(spec);
  return groups.flatMap((group) =>
    Array.from({ length: spec.periods }, (_, i) => {
      const values = labels.map((label, j) => ({ ...cellOf(group.activities, spec, i, j), people: [] as never[], label }));
      const point = { selected_interval: i, ...(group.breakdownValue === undefined ? {} : { breakdown_value: group.breakdownValue }) };
      const row: RetentionCohort = { values, label: `${spec.period} ${i}`, date: isoInZone(spec.edges[i]!, ctx.timezone), people_url: peopleUrl(ctx, "retention", spec.raw, point) };
      if (group.breakdownValue !== undefined) row.breakdown_value = group.breakdownValue;
      return row;
    }),
  );
}

/** Each value's label: "Day 0", "Day 1", …, or with custom brackets one per bracket ("Day 1-4"). */
const valueLabels = (spec: RetentionSpec): string[] =>
  spec.brackets ? bracketLabels(spec.period, spec.brackets) : Array.from({ length: spec.columns }, (_, j) => `${spec.period} ${j}`);

/** A cell's actors, and with a property aggregation their values' sum or average (PostHog's `aggregation_value`). */
function cellOf(activities: readonly RetentionActivity[], spec: RetentionSpec, i: number, j: number): { count: number; aggregation_value?: number } {
  let count = 0;
  let sum = 0;
  const otherReturns = spec.aggregation !== undefined && returnsAreOtherEvents(spec);
  for (const a of activities) {
    if (!inCell(a, i, j)) continue;
    count++;
    if (a.values) sum += cellValue(a.values, i, j, otherReturns);
  }
  return spec.aggregation ? { count, aggregation_value: aggregateCell(spec.aggregation.type, sum, count) } : { count };
}

/**
 * Every actor's cohorts and returns, per breakdown value: the table counts them, the actors endpoint lists them
 * (in an order of its own, so the columns may find them in any).
 */
export function retentionActivity(events: EventList, filter: RetentionFilter, ctx: AnalysisContext): { spec: RetentionSpec; groups: RetentionGroup[] } {
  const spec = readRetentionFilter(filter, ctx);
  const n = spec.periods;
  const buckets = retentionBuckets(spec, ctx);
  const matchers = matchersOf(spec, filter, ctx);
  const actorKeyOf = actorKeying(spec, ctx);
  const limit = readNumber(filter, "breakdown_limit");
  if (spec.windowMode === "24_hour_windows") {
    const keysOf = (event: EventRecord, actor: Actor) => breakdownKeys(spec.breakdown, event, actor, true);
    return { spec, groups: groupsOf(rollingActivities(events, spec, matchers, ctx, actorKeyOf, keysOf), spec.breakdown, limit) };
  }
  // The columns mark a period's returns, they do not count them, nor read property values.
  const fromColumns = spec.minimumOccurrences > 1 || spec.aggregation ? undefined : (columnRecurring(events, spec, buckets, matchers, ctx) ?? columnFirstTime(events, spec, buckets, matchers, ctx));
  if (fromColumns) return { spec, groups: [{ key: "", breakdownValue: undefined, activities: rolling(bracketed(fromColumns, spec), spec) }] };
  // Found by actor, then breakdown value.
  const activities: GroupedActivity[] = [];
  const byActor = new Map<ActorKey, Map<string, GroupedActivity>>();
  const valueOf = spec.aggregation && propertyValueReader(spec.aggregation);
  // First-time retention needs every earlier target event; returns and recurring cohorts only the window's.
  const range = { from: spec.type === "retention_recurring" ? buckets.from : -Infinity, to: buckets.to };
  // First-time retention: an actor's first target event puts it in one cohort, under that event's breakdown values.
  const firstSeen = new Set<ActorKey>();
  const names = matchers.cohorting.names && matchers.returning.names ? new Set([...matchers.cohorting.names, ...matchers.returning.names]) : null;
  // Transient rows: only values read from the event are kept.
  forEachMatch(events, range, { names, rest: matchers.global }, actorResolver(ctx), (event, actor) => {
    const cohorting = matchesEvent(matchers.cohorting, event, actor.person);
    const returned = matchesEvent(matchers.returning, event, actor.person);
    if (!cohorting && !returned) return;
    const key = actorKeyOf(event, actor);
    if (key === undefined) return;
    const period = buckets.indexOf(event.timestamp);
    const first = cohorting && spec.type !== "retention_recurring" && !firstSeen.has(key);
    if (first) firstSeen.add(key);
    let groups = byActor.get(key);
    if (!groups) byActor.set(key, (groups = new Map()));
    for (const group of breakdownKeys(spec.breakdown, event, actor)) {
      let a = groups.get(group);
      if (!a) {
        activities.push((a = { key, group, cohorts: new Uint8Array(n), returns: new Uint8Array(n), ...(spec.minimumOccurrences > 1 ? { occurrences: new Uint32Array(n) } : {}), ...(valueOf ? { values: periodValues(n) } : {}) }));
        groups.set(group, a);
      }
      if (returned && period >= 0 && (!a.occurrences || ++a.occurrences[period]! >= spec.minimumOccurrences)) a.returns[period] = 1;
      if (cohorting) cohort(a, period, spec, first, () => matchesEvent(matchers.target, event, actor.person));
      // Values: every target event of the window (with its properties, also for first-ever cohorts) and every return.
      if (valueOf && a.values && period >= 0) {
        const asTarget = cohorting && (matchers.cohorting === matchers.target || matchesEvent(matchers.target, event, actor.person));
        addPeriodValue(a.values, period, event.timestamp, valueOf(event, actor), asTarget, returned);
      }
    }
  }, true);
  return { spec, groups: groupsOf(rolling(bracketed(activities, spec), spec), spec.breakdown, limit) };
}

/**
 * The periods events are counted in. Hours are PostHog's local hours of the window read as UTC: a US/Pacific
 * project's window 06:00–16:00 counts the events of 06:00–16:00 UTC, its rows dated 06:00–16:00 local
 * (test_retention_query_runner.py::test_hour_interval_team_timezone). Days and longer are the project's own.
 */
function retentionBuckets(spec: RetentionSpec, ctx: AnalysisContext): Buckets {
  const n = spec.periods;
  if (spec.interval !== "hour") return buildBuckets({ from: spec.edges[0]!, to: spec.edges[n]! - 1, interval: spec.interval }, ctx.timezone, ctx.weekStartDay);
  const [from, to] = [toWallClock(spec.edges[0]!, ctx.timezone), toWallClock(spec.edges[n]!, ctx.timezone)];
  return buildBuckets({ from, to: to - 1, interval: "hour" }, "UTC", ctx.weekStartDay);
}

/** Per period, the actor's returning events so far (only with minimum_occurrences above 1). */
type GroupedActivity = RetentionActivity & { group: string; occurrences?: Uint32Array };

/**
 * Custom brackets over calendar periods: each actor's brackets, read from its returns. PostHog's property-sum and
 * 24-hour-window queries read no brackets: their rows keep the first periods, under the brackets' labels.
 */
function bracketed<T extends RetentionActivity>(activities: T[], spec: RetentionSpec): T[] {
  if (!spec.brackets || spec.aggregation) return activities;
  for (const a of activities) a.brackets = bracketReturns(a.cohorts, a.returns, spec.brackets);
  return activities;
}

/**
 * Rolling (cumulative) retention: an actor who returns in a period (or bracket) has returned "in or after" every
 * earlier one, so each one up to its last return is marked (PostHog: `max(intervals_from_base)`, then every value
 * up to it); cells then read as before.
 */
function rolling<T extends RetentionActivity>(activities: T[], spec: RetentionSpec): T[] {
  if (!spec.cumulative) return activities;
  for (const a of activities) {
    const marks = a.brackets ?? a.returns;
    const last = marks.lastIndexOf(1);
    if (last > 0) marks.fill(1, 0, last);
  }
  return activities;
}

/**
 * Recurring retention of persons without breakdown or property condition, read from the columns over every core:
 * the periods of each person's target events are its cohorts, those of its returning events its returns.
 */
function columnRecurring(events: EventList, spec: RetentionSpec, buckets: Buckets, matchers: ReturnType<typeof matchersOf>, ctx: AnalysisContext): RetentionActivity[] | undefined {
  if (spec.type !== "retention_recurring" || spec.breakdown || spec.groupIndex !== undefined) return undefined;
  const [cohorting, returning] = [underGlobal(matchers.cohorting, matchers.global), underGlobal(matchers.returning, matchers.global)];
  const cohorts = activeBucketsOfActors(events, cohorting, buckets, ctx);
  const returns = cohorts && sameEvents(cohorting, returning) ? cohorts : cohorts && activeBucketsOfActors(events, returning, buckets, ctx);
  if (!cohorts || !returns) return undefined;
  const flags = (periods: readonly number[] | undefined) => {
    const set = new Uint8Array(spec.periods);
    for (const p of periods ?? []) set[p] = 1;
    return set;
  };
  const returnsOf = new Map(Array.from(returns, ([actor, periods]) => [actor.id, periods]));
  return Array.from(cohorts, ([actor, periods]) => ({ key: actor.id, cohorts: flags(periods), returns: flags(returnsOf.get(actor.id)) }));
}

/**
 * First-time retention of persons without breakdown or property condition, read from the columns over every core:
 * each person's cohort is the period of its first-ever target event (../retention/first-seen.ts), if in the window.
 */
function columnFirstTime(events: EventList, spec: RetentionSpec, buckets: Buckets, matchers: ReturnType<typeof matchersOf>, ctx: AnalysisContext): RetentionActivity[] | undefined {
  if (spec.type === "retention_recurring" || spec.breakdown || spec.groupIndex !== undefined || !hasSnapshots(events)) return undefined;
  // First-ever occurrence cohorts on the first event whatever its properties, which must then match: the general scan.
  if (spec.type === "retention_first_ever_occurrence" && matchers.target.rest !== ALWAYS) return undefined;
  const returns = activeBucketsOfActors(events, underGlobal(matchers.returning, matchers.global), buckets, ctx);
  if (!returns) return undefined;
  const table = actorTableOf(ctx, events, events.scanSnapshot().distinctIds);
  const first = firstSeenByActor(events, underGlobal(matchers.cohorting, matchers.global), buckets.to + 1, table);
  if (!first) return undefined;
  const returnsOf = new Map(Array.from(returns, ([actor, periods]) => [actor.id, periods]));
  const activities: RetentionActivity[] = [];
  first.forEach((at, slot) => {
    const period = at === Infinity ? -1 : buckets.indexOf(at);
    if (period < 0) return;
    const actor = table.actors[slot]!;
    const cohorts = new Uint8Array(spec.periods);
    cohorts[period] = 1;
    const returned = new Uint8Array(spec.periods);
    for (const p of returnsOf.get(actor.id) ?? []) returned[p] = 1;
    activities.push({ key: actor.id, cohorts, returns: returned });
  });
  return activities;
}

/** The matcher's events among those the insight's own filter keeps. */
const underGlobal = (m: EventMatcher, global: RowPredicate): EventMatcher => ({ names: m.names, rest: all([global, m.rest]) });

/** Whether two matchers accept the same events: the same names, and the same condition (none, or one object). */
const sameEvents = (a: EventMatcher, b: EventMatcher): boolean =>
  a.rest === b.rest && (a.names === null ? b.names === null : b.names !== null && a.names.size === b.names.size && [...a.names].every((n) => b.names!.has(n)));

/** first_ever cohorts on the first target event whatever its properties, which must then match (PostHog). */
function matchersOf(spec: RetentionSpec, filter: RetentionFilter, ctx: AnalysisContext) {
  const target = compileEntityMatcher(spec.target, ctx, ALWAYS, "target_entity");
  const firstEver = compileEntityMatcher({ ...spec.target, properties: undefined }, ctx, ALWAYS, "target_entity");
  return {
    global: compileGlobalFilter(filter, ctx),
    target,
    cohorting: spec.type === "retention_first_ever_occurrence" ? firstEver : target,
    returning: compileEntityMatcher(spec.returning, ctx, ALWAYS, "returning_entity"),
  };
}

/** Recurring: every target period is a cohort; first time: only the first target event's, if it is in the window. */
function cohort(a: RetentionActivity, period: number, spec: RetentionSpec, first: boolean, matchesTarget: () => boolean): void {
  if (spec.type === "retention_recurring") {
    if (period >= 0) a.cohorts[period] = 1;
    return;
  }
  if (!first) return;
  const counts = spec.type === "retention_first_time" || matchesTarget();
  if (counts && period >= 0) a.cohorts[period] = 1;
}

/** Persons, or with aggregation_group_type_index the event's group key of that type (no group: the event drops out). */
function actorKeying(spec: RetentionSpec, ctx: AnalysisContext): (event: EventRecord, actor: Actor) => ActorKey | undefined {
  if (spec.groupIndex === undefined) return (_event, actor) => actor.id;
  const keyOf = groupLookup(ctx.groups).keyOf(spec.groupIndex);
  return (event) => keyOf(event);
}

/**
 * The breakdown values an event counts under: a property's string form ("" when missing), or the person's cohorts.
 * PostHog's 24-hour-window query adds no cohort condition (retention_base_query_rolling.py, unlike the fixed one):
 * there every actor counts under every cohort asked.
 */
function breakdownKeys(def: BreakdownDef | undefined, event: EventRecord, actor: Actor, everyCohort = false): string[] {
  if (!def) return [""];
  if (def.kind === "cohort") return def.cohorts.filter((c) => everyCohort || cohortHas(c, actor.person)).map((c) => String(c.value));
  return [partValue(def.parts[0]!, event, actor.person) ?? ""];
}

/**
 * Breakdown values by the number of actors in any cohort, descending, then by value; with breakdown_limit, the values
 * after the first `limit` are one "other" row (each actor once). Cohorts in the order asked; all users is "0".
 */
function groupsOf(activities: GroupedActivity[], def: BreakdownDef | undefined, limit: number | undefined): RetentionGroup[] {
  const byGroup = new Map<string, RetentionActivity[]>();
  for (const a of activities) {
    if (!a.cohorts.includes(1)) continue;
    const list = byGroup.get(a.group) ?? [];
    if (list.length === 0) byGroup.set(a.group, list);
    list.push(a);
  }
  if (!def) return [{ key: "", breakdownValue: undefined, activities: byGroup.get("") ?? [] }];
  if (def.kind === "cohort") {
    return def.cohorts
      .filter((c) => byGroup.has(String(c.value)))
      .map((c) => ({ key: String(c.value), breakdownValue: c.value === "all" ? "0" : c.value, activities: byGroup.get(String(c.value))! }));
  }
  const ranked = [...byGroup]
    .sort(([a, la], [b, lb]) => lb.length - la.length || (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, list]): RetentionGroup => ({ key, breakdownValue: key, activities: list }));
  if (limit === undefined || limit < 1 || ranked.length <= limit) return ranked;
  const other = mergedByActor(ranked.slice(limit).flatMap((g) => g.activities));
  return [...ranked.slice(0, limit), { key: BREAKDOWN_OTHER, breakdownValue: BREAKDOWN_OTHER, activities: other }];
}

/** One activity per actor: its cohorts and returns under any of the merged values. */
function mergedByActor(activities: RetentionActivity[]): RetentionActivity[] {
  const byKey = new Map<ActorKey, RetentionActivity>();
  for (const a of activities) {
    const merged = byKey.get(a.key);
    if (!merged) byKey.set(a.key, { key: a.key, cohorts: a.cohorts.slice(), returns: a.returns.slice(), ...(a.brackets ? { brackets: a.brackets.slice() } : {}), ...(a.values ? { values: copyValues(a.values) } : {}) });
    else {
      a.cohorts.forEach((v, i) => (merged.cohorts[i]! |= v));
      a.returns.forEach((v, i) => (merged.returns[i]! |= v));
      a.brackets?.forEach((v, j) => (merged.brackets![j]! |= v));
      if (merged.values && a.values) mergePeriodValues(merged.values, a.values);
    }
  }
  return [...byKey.values()];
}

const copyValues = (values: PeriodValues): PeriodValues => ({
  start: values.start.slice(),
  returned: values.returned.slice(),
  afterStart: values.afterStart.slice(),
  firstStart: values.firstStart.slice(),
});

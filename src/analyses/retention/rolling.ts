import type { EventList, EventRecord } from "../../store/schema.ts";
import type { Actor } from "../shared/actors.ts";
import { actorResolver } from "../shared/actors.ts";
import type { AnalysisContext, Interval } from "../shared/context.ts";
import { matchesEvent, type EventMatcher } from "../shared/entity-match.ts";
import { toWallClock } from "../../core/time-zones.ts";
import type { RowPredicate } from "../shared/property-filter.ts";
import { forEachMatch } from "../shared/scan.ts";
import type { ActorKey } from "../trends/maths.ts";
import type { RetentionSpec } from "./filter.ts";

/** The matchers retention reads events with (index.ts `matchersOf`). */
export interface RetentionMatchers {
  global: RowPredicate;
  target: EventMatcher;
  cohorting: EventMatcher;
  returning: EventMatcher;
}

/** One actor under one breakdown value, as index.ts counts it. */
export interface RollingActivity {
  key: ActorKey;
  group: string;
  cohorts: Uint8Array;
  returns: Uint8Array;
}

/**
 * The window of each period (PostHog retention_base_query_rolling.py): an hour for hours, 24 hours for days, 7 days
 * for weeks and 30 days for months, counted as ClickHouse's dateDiff counts.
 */
const WINDOWS: Readonly<Record<Interval, { unit: "hour" | "day"; count: number }>> = {
  minute: { unit: "hour", count: 1 },
  hour: { unit: "hour", count: 1 },
  day: { unit: "hour", count: 24 },
  week: { unit: "day", count: 7 },
  month: { unit: "day", count: 30 },
};

/** ClickHouse `dateDiff(unit, a, b)`: the unit boundaries between a and b on the project's clock, not elapsed time. */
function boundariesBetween(unit: "hour" | "day", a: number, b: number, timezone: string): number {
  const size = unit === "hour" ? 3_600_000 : 86_400_000;
  return Math.floor(toWallClock(b, timezone) / size) - Math.floor(toWallClock(a, timezone) / size);
}

/**
 * 24-hour-window retention (PostHog retention_base_query_rolling.py): each actor has one anchor t0, its first target
 * event (recurring: inside the window; first-time: ever; first-ever occurrence: its first target event whatever its
 * properties, kept only when it matches them). Its cohort is the window period of t0 from the window's start, and
 * value j counts it when a returning event falls j windows after t0. Minimum occurrences are not read. Each breakdown
 * value of its events from t0 on is a row of its own, with that cohort. First-time modes read no end date: a return
 * after the window counts too.
 */
export function rollingActivities(
  events: EventList,
  spec: RetentionSpec,
  matchers: RetentionMatchers,
  ctx: AnalysisContext,
  actorKeyOf: (event: EventRecord, actor: Actor) => ActorKey | undefined,
  keysOf: (event: EventRecord, actor: Actor) => string[],
): RollingActivity[] {
  const window = WINDOWS[spec.interval];
  const range = spec.type === "retention_recurring" ? { from: spec.edges[0]!, to: spec.edges[spec.periods]! - 1 } : { from: -Infinity, to: Infinity };
  const scan = { names: matchers.cohorting.names && matchers.returning.names ? new Set([...matchers.cohorting.names, ...matchers.returning.names]) : null, rest: matchers.global };
  const anchors = anchorsOf(events, spec, matchers, ctx, actorKeyOf, range, scan);
  const length = spec.periods + spec.columns;
  const activities: RollingActivity[] = [];
  const byActor = new Map<ActorKey, Map<string, RollingActivity>>();
  forEachMatch(events, range, scan, actorResolver(ctx), (event, actor) => {
    const cohorting = matchesEvent(matchers.cohorting, event, actor.person);
    const returned = matchesEvent(matchers.returning, event, actor.person);
    const key = cohorting || returned ? actorKeyOf(event, actor) : undefined;
    const t0 = key === undefined ? undefined : anchors.get(key);
    if (t0 === undefined || event.timestamp < t0) return;
    const cohort = Math.floor(boundariesBetween(window.unit, spec.edges[0]!, t0, ctx.timezone) / window.count);
    if (cohort < 0 || cohort >= spec.periods) return;
    let groups = byActor.get(key!);
    if (!groups) byActor.set(key!, (groups = new Map()));
    for (const group of keysOf(event, actor)) {
      let a = groups.get(group);
      if (!a) {
        activities.push((a = { key: key!, group, cohorts: new Uint8Array(spec.periods), returns: new Uint8Array(length) }));
        a.cohorts[cohort] = 1;
        groups.set(group, a);
      }
      const later = Math.floor(boundariesBetween(window.unit, t0, event.timestamp, ctx.timezone) / window.count);
      if (returned && cohort + later < length) a.returns[cohort + later] = 1;
    }
  }, true);
  return activities;
}

/** Each actor's t0: its first target event, or for first-ever occurrence its first cohorting event if that matches the target. */
function anchorsOf(
  events: EventList,
  spec: RetentionSpec,
  matchers: RetentionMatchers,
  ctx: AnalysisContext,
  actorKeyOf: (event: EventRecord, actor: Actor) => ActorKey | undefined,
  range: { from: number; to: number },
  scan: EventMatcher,
): Map<ActorKey, number> {
  const firstTarget = new Map<ActorKey, number>();
  const firstCohorting = new Map<ActorKey, number>();
  forEachMatch(events, range, scan, actorResolver(ctx), (event, actor) => {
    if (!matchesEvent(matchers.cohorting, event, actor.person)) return;
    const key = actorKeyOf(event, actor);
    if (key === undefined) return;
    if (!firstCohorting.has(key)) firstCohorting.set(key, event.timestamp);
    if (!firstTarget.has(key) && matchesEvent(matchers.target, event, actor.person)) firstTarget.set(key, event.timestamp);
  }, true);
  if (spec.type !== "retention_first_ever_occurrence") return firstTarget;
  return new Map([...firstTarget].filter(([key, at]) => firstCohorting.get(key) === at));
}

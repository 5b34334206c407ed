import type { EventRecord } from "../../store/schema.ts";
import { actorResolver } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { resolveDateRange, type QueryWindow } from "../shared/date-range.ts";
import { compileEntityMatcher, compileGlobalFilter } from "../shared/entity-match.ts";
import { ALWAYS } from "../shared/property-filter.ts";
import { attemptsOf, bestAttempt, bestAttemptOf, type Attempt, type AttemptRules } from "./attempts.ts";
import { FUNNEL_OTHER, funnelKeying, limitValues, type Assignment } from "./attribution.ts";
import { readFunnelFilter, type FunnelFilter, type FunnelSpec } from "./filter.ts";
import { collectJourneys, type Journey } from "./journeys.ts";
import { stepObjects, type FunnelStep } from "./steps.ts";
import { funnelTrend, timeToConvert, type FunnelTrendItem, type TimeToConvert } from "./viz.ts";

export type { FunnelFilter } from "./filter.ts";
export type { FunnelStep } from "./steps.ts";
export type { FunnelTrendItem, TimeToConvert } from "./viz.ts";

export type FunnelResult = FunnelStep[] | FunnelStep[][] | FunnelTrendItem[] | TimeToConvert;

/**
 * Funnels (reference: analytics §5): per actor the furthest step of its best valid attempt inside the date
 * range and the conversion window; as steps (a list per breakdown value), conversion trends, or time to
 * convert. Nobody in the funnel ⇒ `[]`.
 */
export function computeFunnel(events: readonly EventRecord[], filter: FunnelFilter, ctx: AnalysisContext): FunnelResult {
  const spec = readFunnelFilter(filter, ctx);
  const window = resolveDateRange(filter, spec.interval, ctx, events[0]?.timestamp);
  // Trends and time to convert stop at funnel_to_step (PostHog max_steps_override).
  const stepCount = spec.viz === "steps" ? spec.steps.length : spec.toStep + 1;
  const rules: AttemptRules = { stepCount, windowMs: spec.windowMs, orderType: spec.orderType, exclusions: spec.exclusions };
  const journeys = collect(events, spec, window, ctx, stepCount);
  const assign = assigner(spec);
  if (spec.viz === "time_to_convert") {
    return timeToConvert(journeys.flatMap((j) => bestAttemptOf(j, rules) ?? []), spec);
  }
  if (spec.viz === "trends") return trendsResult(journeys, assign, rules, spec, window, ctx);
  return stepsResult(journeys, assign, rules, spec, ctx);
}

function collect(events: readonly EventRecord[], spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext, stepCount: number): Journey[] {
  const steps = spec.steps.slice(0, stepCount).map((entity) => compileEntityMatcher(entity, ctx, ALWAYS, `${entity.type}__${entity.position}`));
  const exclusions = spec.exclusions.map((x, i) => compileEntityMatcher(x.entity, ctx, ALWAYS, `exclusions__${i}`));
  return collectJourneys({
    events,
    range: window,
    steps,
    exclusions,
    global: compileGlobalFilter(spec.raw, ctx),
    keepAll: spec.orderType === "strict",
    actorOf: actorResolver(ctx),
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
  const better = (a: Attempt, b: Attempt) => bestAttempt([a, b], spec.orderType)!;
  const byKey = groupByKey(journeys, assign, (j) => bestAttemptOf(j, rules), better);
  if (!spec.breakdown) {
    const steps = stepObjects(byKey.get("")?.values() ?? [], spec, ctx);
    return steps[0]!.count === 0 ? [] : steps;
  }
  const keying = funnelKeying(spec.breakdown, spec);
  const limited = limitValues(byKey, spec.breakdownLimit, better);
  return orderedKeys(limited).map((key) => stepObjects(limited.get(key)!.values(), spec, ctx, keying.present(key)));
}

/** Breakdown funnels by actors entering, descending, ties by value; "Other" last. */
function orderedKeys<T>(byKey: Map<string, Map<number, T>>): string[] {
  return [...byKey.keys()]
    .filter((key) => byKey.get(key)!.size > 0)
    .sort((a, b) => Number(a === FUNNEL_OTHER) - Number(b === FUNNEL_OTHER) || byKey.get(b)!.size - byKey.get(a)!.size || (a < b ? -1 : a > b ? 1 : 0));
}

function trendsResult(journeys: Journey[], assign: (j: Journey) => Assignment[], rules: AttemptRules, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext): FunnelTrendItem[] {
  const attempts = (j: Journey) => {
    const list = attemptsOf(j, rules);
    return list.length > 0 ? list : undefined;
  };
  const byKey = groupByKey(journeys, assign, attempts, (a, b) => [...a, ...b]);
  if (!spec.breakdown) return [funnelTrend(byKey.get("")?.values() ?? [], spec, window, ctx)];
  const keying = funnelKeying(spec.breakdown, spec);
  const limited = limitValues(byKey, spec.breakdownLimit, (a, b) => [...a, ...b]);
  return orderedKeys(limited).map((key) => ({ ...funnelTrend(limited.get(key)!.values(), spec, window, ctx), breakdown_value: keying.present(key).breakdown_value }));
}

import { cohortHas, partValue, type BreakdownDef } from "../shared/breakdown.ts";
import { eventAt, subJourney, type Journey } from "./journeys.ts";
import type { FunnelSpec } from "./filter.ts";
import { touchTakes } from "./touch.ts";

/**
 * Funnel breakdowns (reference: analytics §5.4): which breakdown value(s) an actor's journey counts under —
 * first_touch (default), last_touch, all_events, or step k — missing values as "", the top
 * breakdown_limit values kept and the rest merged into the literal "Other" (§11 item 11).
 */
export const FUNNEL_OTHER = "Other";

export interface Assignment {
  key: string;
  journey: Journey;
}

export interface Presented {
  breakdown: unknown;
  breakdown_value: unknown;
}

export interface FunnelKeying {
  assign(journey: Journey): Assignment[];
  present(key: string): Presented;
}

export function funnelKeying(def: BreakdownDef, spec: FunnelSpec): FunnelKeying {
  if (def.kind === "cohort") {
    const byKey = new Map(def.cohorts.map((c) => [String(c.value), c]));
    return {
      assign: (journey) => def.cohorts.filter((c) => cohortHas(c, journey.actor.person)).map((c) => ({ key: String(c.value), journey })),
      present: (key) => (key === FUNNEL_OTHER ? other(false) : { breakdown: byKey.get(key)!.label, breakdown_value: byKey.get(key)!.value }),
    };
  }
  const keyAt = (journey: Journey, i: number): string | null => {
    const values = def.parts.map((p) => partValue(p, eventAt(journey, i), journey.actor.person));
    if (values.every((v) => v === null)) return null;
    return def.multi ? JSON.stringify(values.map((v) => v ?? "")) : values[0]!;
  };
  const empty = def.multi ? JSON.stringify(def.parts.map(() => "")) : "";
  return {
    assign: (journey) => attribute(journey, spec, (i) => keyAt(journey, i), empty),
    present: (key) => {
      const boxed = boxesValue(def);
      if (key === FUNNEL_OTHER) return other(boxed);
      const value = def.multi ? (JSON.parse(key) as string[]) : boxed ? [key] : key;
      return { breakdown: value, breakdown_value: value };
    },
  };
}

/**
 * Whether a property breakdown's value is a list even for one property: PostHog's funnels box the breakdown of an
 * event, person, event_metadata or HogQL breakdown (FunnelQueryContext.breakdown; test_funnel.py::test_parses_breakdowns_correctly:
 * ["test'123"]), not a group's or a session's (breakdown_cases.py::test_funnel_breakdown_group: "finance").
 */
const boxesValue = (def: Extract<BreakdownDef, { kind: "property" }>): boolean => def.multi || !def.parts.every((p) => p.source === "group" || p.source === "session");

const other = (multi: boolean): Presented => (multi ? { breakdown: [FUNNEL_OTHER], breakdown_value: [FUNNEL_OTHER] } : { breakdown: FUNNEL_OTHER, breakdown_value: FUNNEL_OTHER });

function attribute(journey: Journey, spec: FunnelSpec, keyAt: (i: number) => string | null, empty: string): Assignment[] {
  const stepIndexes = [...journey.steps.keys()].filter((i) => journey.steps[i] !== 0);
  switch (spec.attribution) {
    case "last_touch":
      return [{ key: touchValue(stepIndexes, keyAt, true) ?? empty, journey }];
    case "all_events": {
      const keys = [...new Set(stepIndexes.map((i) => keyAt(i) ?? empty))];
      return keys.map((key) => ({ key, journey: subJourney(journey, (i) => (keyAt(i) ?? empty) === key) }));
    }
    case "step": {
      if (spec.orderType === "unordered") return unorderedFirstStepKeys(journey, stepIndexes, (i) => keyAt(i) ?? empty);
      const bit = 1 << spec.attributionStep;
      const keys = [...new Set(stepIndexes.filter((i) => (journey.steps[i]! & bit) !== 0).map((i) => keyAt(i) ?? empty))];
      // An actor who never does the attributed step has no value to count under: PostHog leaves it out.
      if (keys.length === 0) return [];
      return keys.map((key) => ({ key, journey: onlyStepValue(journey, bit, (i) => (keyAt(i) ?? empty) === key) }));
    }
    default:
      return [{ key: touchValue(stepIndexes, keyAt, false) ?? empty, journey }];
  }
}

/** The first- or last-touch value over the step events at `indexes`, in time order (touch.ts: the column path's rule too). */
function touchValue(indexes: number[], keyAt: (i: number) => string | null, last: boolean): string | undefined {
  let kept: string | undefined;
  for (const i of indexes) {
    const key = keyAt(i);
    if (touchTakes(last, kept !== undefined, key !== null)) kept = key!;
  }
  return kept;
}

/**
 * An unordered funnel's step attribution (step 0 only: validation.ts) is to the first event of an attempt, whichever
 * step it fills: per value of any of the actor's step events, the attempts that start with an event carrying it, the
 * later events carrying any (funnel-udf/src/unordered_steps.rs: an event is taken while no step is completed only
 * when it carries the value; funnel_udf.py reads the values of every event, `prop_basic`;
 * test_funnel_unordered.py::test_funnel_step_breakdown_with_step_attribution: six values from four persons).
 */
function unorderedFirstStepKeys(journey: Journey, stepIndexes: number[], keyAt: (i: number) => string): Assignment[] {
  const keys = [...new Set(stepIndexes.map(keyAt))];
  return keys.map((key) => ({ key, journey: { ...journey, starts: Uint8Array.from(journey.steps, (_, i) => (keyAt(i) === key ? 1 : 0)) } }));
}

/** Step attribution: the attributed step may only be filled by an event carrying the value. */
function onlyStepValue(journey: Journey, bit: number, carries: (i: number) => boolean): Journey {
  return { ...journey, steps: journey.steps.map((mask, i) => (carries(i) ? mask : mask & ~bit)) };
}

/** Keeps the top `limit` values by actors entering the funnel; the others merge into "Other" (or, without `other`, are dropped). */
export function limitValues<T>(results: Map<string, Map<number, T>>, limit: number, merge: (a: T, b: T) => T, other = true): Map<string, Map<number, T>> {
  const ranked = [...results.keys()].sort((a, b) => results.get(b)!.size - results.get(a)!.size || (a < b ? -1 : a > b ? 1 : 0));
  if (ranked.length <= limit) return new Map(ranked.map((key) => [key, results.get(key)!]));
  const kept = new Map(ranked.slice(0, limit).map((key) => [key, results.get(key)!]));
  if (!other) return kept;
  const merged = new Map<number, T>();
  for (const key of ranked.slice(limit)) {
    for (const [actor, value] of results.get(key)!) {
      const current = merged.get(actor);
      merged.set(actor, current === undefined ? value : merge(current, value));
    }
  }
  kept.set(FUNNEL_OTHER, merged);
  return kept;
}

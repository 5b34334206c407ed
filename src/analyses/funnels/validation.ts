import { reject } from "../../core/analysis-errors.ts";
import type { Loose } from "../shared/filter-read.ts";
import type { SeriesEntity } from "../shared/series.ts";

/** Funnel rules the JSON Schema cannot express (reference: analytics §5.1; PostHog funnel_validation_rules.py). */

/** An excluded event between two steps of the funnel (0-based step indexes). */
export interface Exclusion {
  entity: SeriesEntity;
  fromStep: number;
  toStep: number;
}

/** Steps are bits of an int32 mask. */
const MAX_STEPS = 30;

/** Messages and codes are PostHog's (funnel_validation_rules.py; test_funnel_validation_rules.py). */
export function requireTwoSteps(steps: readonly SeriesEntity[]): void {
  if (steps.length < 2) throw reject.invalid("events", "Funnels require at least two steps.", "funnels_require_at_least_two_steps");
  if (steps.length > MAX_STEPS) throw reject.invalid("events", `Funnels support at most ${MAX_STEPS} steps.`);
}

/**
 * The funnel's actors: absent or null mean persons, 0–4 the groups of that group type, as the real service reads it
 * (test_funnel.py::test_funnel_aggregation_with_groups aggregates by group type 0). undefined = persons.
 */
export function readFunnelAggregation(filter: Loose): number | undefined {
  const raw = filter.aggregation_group_type_index;
  if (raw === undefined || raw === null || raw === "" || raw === "null") return undefined;
  const index = Number(raw);
  if (!Number.isInteger(index) || index < 0 || index > 4) {
    throw reject.invalid("aggregation_group_type_index", "aggregation_group_type_index must be a group type index from 0 to 4, or null.");
  }
  return index;
}

/**
 * funnel_aggregate_by_hogql: the HogQL expression whose non-empty values are the funnel's actors. Absent, null, empty
 * or `person_id` mean persons, and a group type index wins over it, as the real service reads it
 * (funnel_event_query.py _aggregation_target_expr).
 */
export function readHogqlAggregation(filter: Loose): string | undefined {
  if (readFunnelAggregation(filter) !== undefined) return undefined;
  const raw = filter.funnel_aggregate_by_hogql;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "string") throw reject.invalid("funnel_aggregate_by_hogql", "funnel_aggregate_by_hogql must be a HogQL expression.");
  return raw.trim() === "" || raw.trim() === "person_id" ? undefined : raw;
}

export function rejectUnknownStepRange(fromStep: number, toStep: number, stepCount: number): void {
  const code = "funnel_step_range_invalid";
  if (!Number.isInteger(fromStep) || fromStep < 0 || fromStep >= stepCount - 1) {
    throw reject.invalid("funnel_from_step", `funnelFromStep is out of bounds. It must be between 0 and ${stepCount - 2}.`, code);
  }
  if (!Number.isInteger(toStep) || toStep < 1 || toStep >= stepCount) {
    throw reject.invalid("funnel_to_step", `funnelToStep is out of bounds. It must be between 1 and ${stepCount - 1}.`, code);
  }
  if (toStep <= fromStep) throw reject.invalid("funnel_to_step", "Funnel step range is invalid. funnelToStep should be greater than funnelFromStep.", code);
}

/**
 * Exclusion ranges must be forward, inside the funnel, and must not repeat a step of their range; an unordered
 * funnel's exclusions span the whole funnel (test_funnel_unordered.py::test_funnel_exclusions_invalid_params).
 */
export function checkExclusions(exclusions: readonly Exclusion[], steps: readonly SeriesEntity[], orderType = "ordered"): void {
  const code = "funnel_exclusions_invalid";
  exclusions.forEach(({ entity, fromStep, toStep }, i) => {
    const attr = `exclusions__${i}`;
    const invalid = "Exclusion event range is invalid.";
    if (!Number.isInteger(toStep) || !Number.isInteger(fromStep) || toStep <= fromStep) {
      throw reject.invalid(`${attr}__funnel_to_step`, `${invalid} End of range should be greater than start.`, code);
    }
    if (fromStep < 0 || fromStep > steps.length - 2) throw reject.invalid(`${attr}__funnel_from_step`, `${invalid} Start of range is greater than number of steps.`, code);
    if (toStep > steps.length - 1) throw reject.invalid(`${attr}__funnel_to_step`, `${invalid} End of range is greater than number of steps.`, code);
    if (orderType === "unordered" && (fromStep !== 0 || toStep !== steps.length - 1)) {
      throw reject.invalid(`${attr}__funnel_from_step`, "Partial exclusions are not supported in unordered funnels: exclude from step 0 to the last step.");
    }
    if (steps.slice(fromStep, toStep + 1).some((step) => sameEntity(step, entity))) {
      throw reject.invalid(`${attr}__id`, "Exclusion steps cannot contain an event that's part of funnel steps.", code);
    }
  });
}

const normalizedProps = (props: unknown): string => JSON.stringify(props ?? []) === "{}" ? "[]" : JSON.stringify(props ?? []);

function sameEntity(a: SeriesEntity, b: SeriesEntity): boolean {
  return a.type === b.type && String(a.id) === String(b.id) && normalizedProps(a.properties) === normalizedProps(b.properties);
}

/**
 * Optional steps (a series node's `optionalInFunnel`) only in ordered or strict steps funnels, never the first step,
 * and never right before a required step that matches the same events or more: that step would take the event and
 * the optional one could never convert (PostHog funnel_validation_rules.py ValidateOptionalFunnelSteps;
 * test_funnel_validation_rules.py::test_validates_optional_funnel_steps). Exclusions with optional steps are not
 * modelled (openapi/differences.yaml).
 */
export function checkOptionalSteps(steps: readonly SeriesEntity[], optional: readonly boolean[], viz: string, orderType: string, exclusions: number): void {
  if (!optional.some(Boolean)) return;
  const code = "funnel_optional_steps_invalid";
  const attrOf = (k: number) => `${steps[k]!.type}__${steps[k]!.position}__optionalInFunnel`;
  const first = optional.indexOf(true);
  if (viz !== "steps" || orderType === "unordered") {
    throw reject.invalid(attrOf(first), 'Optional funnel steps are only supported in funnels with step order Sequential or Strict and the graph type "Conversion Steps".', code);
  }
  if (optional[0]) throw reject.invalid(attrOf(0), "The first step of a funnel cannot be optional.", code);
  optional.forEach((isOptional, k) => {
    const next = steps[k + 1];
    if (isOptional && next && !optional[k + 1] && matchesAtLeast(next, steps[k]!)) {
      throw reject.invalid(attrOf(k), "An optional step cannot be the same as the following required step.", code);
    }
  });
  if (exclusions > 0) throw reject.invalid("exclusions", "Exclusions are not supported in funnels with optional steps.");
}

/**
 * `broad` matches every event `narrow` does: the same event or action, its property filters a subset of narrow's
 * (PostHog insights/utils/entities.py is_equal / is_superset).
 */
function matchesAtLeast(broad: SeriesEntity, narrow: SeriesEntity): boolean {
  if (broad.type !== narrow.type || String(broad.id) !== String(narrow.id)) return false;
  const left = [...propertyReprs(narrow.properties)];
  return propertyReprs(broad.properties).every((repr) => {
    const at = left.indexOf(repr);
    if (at >= 0) left.splice(at, 1);
    return at >= 0;
  });
}

/** One text per property filter of a list (a group counts as one filter), as is_equal compares them. */
function propertyReprs(props: unknown): string[] {
  if (props === undefined || props === null || JSON.stringify(props) === "{}") return [];
  if (!Array.isArray(props)) return (props as { values?: unknown[] }).values?.length === 0 ? [] : [JSON.stringify(props)];
  return props.map((p: Record<string, unknown>) => `${String(p.type)}: ${String(p.key)} ${String(p.operator ?? "")} ${JSON.stringify(p.value)}`);
}

/** Step attribution names a step of the funnel. */
export function rejectUnknownAttributionStep(attribution: string, step: number, stepCount: number, orderType = "ordered"): void {
  if (attribution === "step" && (!Number.isInteger(step) || step < 0 || step >= stepCount)) {
    throw reject.invalid("breakdown_attribution_value", `breakdown_attribution_value must be a step between 0 and ${stepCount - 1}.`);
  }
  // An unordered funnel has no step but the first to attribute to (test_funnel_unordered.py::test_funnel_step_breakdown_with_step_one_attribution).
  if (attribution === "step" && orderType === "unordered" && step !== 0) {
    throw reject.invalid("breakdown_attribution_value", "Unordered funnels attribute a breakdown to step 0 only.");
  }
}

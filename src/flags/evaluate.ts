/**
 * Feature-flag evaluation for one person (or group), as the flags service answers `/flags?v=2`
 * (reference: flags service `flags/flag_matching.rs` `get_match`, `is_condition_match`, `check_rollout`,
 * `get_matching_variant`, `hashed_identifier`).
 */
import { cohortFilterHolds, UnknownCohort } from "./cohort.ts";
import { planDependencies, withDependencies, type DependencyPlan } from "./dependencies.ts";
import { flagHash } from "./hash.ts";
import { matchProperty } from "./property-match.ts";
import { GROUPS_NOT_EVALUATED, reason, REASON_SCORE, type ConditionOutcome } from "./reasons.ts";
import type { EvaluationSubject, FeatureFlagDefinition, FlagCondition, FlagEvaluation, PropertyFilter } from "./types.ts";

/** A flag's value as dependants see it: false, true or the variant key. */
type FlagValue = boolean | string;

interface Run {
  subject: EvaluationSubject;
  now: Date;
  plan: DependencyPlan;
  /** Values by flag id of flags already evaluated; a known flag without one (inactive, deleted, not selected) counts as false. */
  values: Map<number, FlagValue>;
  /** Flags whose evaluation errored: no value at all, so no dependant's filter on them matches. */
  errored: Set<number>;
}

/**
 * Evaluate active, undeleted flags (the service leaves inactive and deleted ones out of its answer). With `onlyKeys`,
 * those flags and the flags they depend on are evaluated and returned. `now` anchors relative date filters.
 */
export function evaluateFlags(
  flags: FeatureFlagDefinition[],
  subject: EvaluationSubject,
  onlyKeys: string[] | undefined,
  now: Date,
): Map<string, FlagEvaluation> {
  const plan = planFor(flags);
  const selected = onlyKeys ? withDependencies(plan, flags, onlyKeys) : undefined;
  const run: Run = { subject, now, plan, values: new Map(), errored: new Set() };
  const results = new Map<number, FlagEvaluation>();
  for (const flag of plan.order) {
    if (!flag.active || flag.deleted || (selected && !selected.has(flag.id))) continue;
    const result = plan.broken.has(flag.id) ? missingDependency(flag) : evaluateFlag(flag, run);
    if (!result.errored) run.values.set(flag.id, result.enabled ? (result.variant ?? true) : false);
    else run.errored.add(flag.id);
    results.set(flag.id, result);
  }
  // In the list's order, not the evaluation's.
  const byKey = new Map<string, FlagEvaluation>();
  for (const flag of flags) {
    const result = results.get(flag.id);
    if (result) byKey.set(flag.key, result);
  }
  return byKey;
}

/** Plans per flag list: a caller that keeps its list between requests (the server does, per data revision) plans once. */
const plans = new WeakMap<FeatureFlagDefinition[], DependencyPlan>();
function planFor(flags: FeatureFlagDefinition[]): DependencyPlan {
  let plan = plans.get(flags);
  if (!plan) plans.set(flags, (plan = planDependencies(flags)));
  return plan;
}

function base(flag: FeatureFlagDefinition): Pick<FlagEvaluation, "key" | "id" | "version"> {
  return { key: flag.key, id: flag.id, version: flag.version ?? 0 };
}

function missingDependency(flag: FeatureFlagDefinition): FlagEvaluation {
  return { ...base(flag), enabled: false, variant: null, reason: reason("missing_dependency", null), payload: undefined, errored: false };
}

/** An unknown cohort makes the service answer an error for the flag: disabled, no description. */
function cohortNotFound(flag: FeatureFlagDefinition): FlagEvaluation {
  return { ...base(flag), enabled: false, variant: null, reason: reason("dependency_not_found", null), payload: undefined, errored: true };
}

/** Conditions in order; the first that matches decides. Otherwise the most telling non-match is reported. */
export function evaluateFlag(flag: FeatureFlagDefinition, run: Run): FlagEvaluation {
  let enrolment: FlagEvaluation | undefined;
  try {
    enrolment = superConditionResult(flag, run);
  } catch (error) {
    if (error instanceof UnknownCohort) return cohortNotFound(flag);
    throw error;
  }
  if (enrolment) return enrolment;
  let best: { outcome: ConditionOutcome; index: number | null } = { outcome: "no_group_type", index: null };
  let skippedGroupCondition = false;
  const conditions = flag.filters.groups ?? [];
  for (let index = 0; index < conditions.length; index++) {
    const condition = conditions[index]!;
    const aggregation = conditionAggregation(flag, condition);
    const hashKey = hashKeyFor(flag, aggregation, run.subject);
    let outcome: ConditionOutcome;
    if (hashKey === undefined) {
      skippedGroupCondition = true;
      outcome = "no_group_type";
    } else {
      try {
        outcome = conditionOutcome(flag, condition, aggregation, hashKey, run);
      } catch (error) {
        if (error instanceof UnknownCohort) return cohortNotFound(flag);
        throw error;
      }
    }
    if (REASON_SCORE[best.outcome] <= REASON_SCORE[outcome]) best = { outcome, index };
    if (outcome === "condition_match") return matched(flag, condition, hashKey!, index);
  }
  const result: FlagEvaluation = { key: flag.key, id: flag.id, version: flag.version ?? 0, enabled: false, variant: null, reason: reason(best.outcome, best.index), payload: undefined, errored: false };
  if (best.outcome === "no_condition_match" && skippedGroupCondition) result.reason.description = GROUPS_NOT_EVALUATED;
  return result;
}

/**
 * Early access enrolment: once the person has any property the first super condition reads (set to anything,
 * false included), that condition alone decides, hashed on the person, with no variant; otherwise `groups` do
 * (reference: flags service `flag_matching.rs` `get_match`, `is_super_condition_match`).
 */
function superConditionResult(flag: FeatureFlagDefinition, run: Run): FlagEvaluation | undefined {
  const condition = flag.filters.super_groups?.[0];
  const filters = condition?.properties ?? [];
  const properties = run.subject.personProperties;
  if (!condition || !filters.some((f) => Object.hasOwn(properties, f.key))) return undefined;
  const enabled = conditionOutcome(flag, condition, null, hashKeyFor(flag, null, run.subject)!, run) === "condition_match";
  const payload = enabled ? payloadFor(flag, null) : undefined;
  return { ...base(flag), enabled, variant: null, reason: reason("super_condition_value", 0), payload, errored: false };
}

/** A condition's own aggregation wins when the key is present (null = persons); otherwise the flag's. */
function conditionAggregation(flag: FeatureFlagDefinition, condition: FlagCondition): number | null {
  if ("aggregation_group_type_index" in condition) return condition.aggregation_group_type_index ?? null;
  return flag.filters.aggregation_group_type_index ?? null;
}

/** The group key for group aggregation (undefined when the request has none), else the override for continuity flags, else the distinct id. */
function hashKeyFor(flag: FeatureFlagDefinition, aggregation: number | null, subject: EvaluationSubject): string | undefined {
  if (aggregation !== null) {
    const name = subject.groupTypeName(aggregation);
    const key = name === undefined ? undefined : subject.groups[name];
    return typeof key === "number" ? String(key) : typeof key === "string" && key !== "" ? key : undefined;
  }
  const override = flag.ensure_experience_continuity ? subject.hashKeyOverrides?.get(flag.key) : undefined;
  if (override) return override;
  return subject.distinctId;
}

/** Flag and property filters first, short-circuiting; cohort filters last, all looked up before any is applied (as the service batches them). */
function conditionOutcome(
  flag: FeatureFlagDefinition,
  condition: FlagCondition,
  aggregation: number | null,
  hashKey: string,
  run: Run,
): ConditionOutcome {
  const filters = condition.properties ?? [];
  const cohortFilters: PropertyFilter[] = [];
  for (const filter of filters) {
    if (filter.type === "cohort") cohortFilters.push(filter);
    else if (!filterHolds(filter, aggregation, run)) return "no_condition_match";
  }
  if (cohortFilters.length > 0) {
    const verdicts = cohortFilters.map((filter) => cohortFilterHolds(filter, (id) => run.subject.inCohort(id)));
    if (verdicts.includes(false)) return "no_condition_match";
  }
  return inRollout(flag, condition.rollout_percentage, hashKey) ? "condition_match" : "out_of_rollout_bound";
}

function filterHolds(filter: PropertyFilter, aggregation: number | null, run: Run): boolean {
  if (filter.type === "flag") return flagDependencyHolds(filter, run);
  return matchProperty(filter, propertiesFor(filter, aggregation, run.subject), run.now);
}

/** Group filters read their group type (or the condition's aggregation); everything else, untyped included (the service's default type), reads the person. */
function propertiesFor(filter: PropertyFilter, aggregation: number | null, subject: EvaluationSubject): Record<string, unknown> {
  if (filter.type === "group") return groupPropertiesAt(filter.group_type_index ?? aggregation, subject);
  return subject.personProperties;
}

/** A group filter without a group type to read matches against no properties at all. */
function groupPropertiesAt(index: number | null, subject: EvaluationSubject): Record<string, unknown> {
  const name = index === null ? undefined : subject.groupTypeName(index);
  return (name === undefined ? undefined : subject.groupProperties[name]) ?? {};
}

/** `flag_evaluates_to`: true = any enabled value, false = disabled, a string = that variant. Unevaluated flags match nothing. */
function flagDependencyHolds(filter: PropertyFilter, run: Run): boolean {
  if (filter.operator !== "flag_evaluates_to") return false;
  const target = run.plan.resolve(filter);
  const value = target === undefined || run.errored.has(target.id) ? undefined : (run.values.get(target.id) ?? false);
  if (value === undefined) return false;
  if (filter.value === true) return value !== false;
  if (filter.value === false) return value === false;
  return typeof filter.value === "string" && value === filter.value;
}

/** No rollout (or 100) admits everyone without hashing; otherwise the bucket must not exceed the percentage. */
function inRollout(flag: FeatureFlagDefinition, rolloutPercentage: number | null | undefined, hashKey: string): boolean {
  const rollout = rolloutPercentage ?? 100;
  if (rollout === 100) return true;
  return flagHash(flag.key, hashKey, "") <= rollout / 100;
}

function matched(flag: FeatureFlagDefinition, condition: FlagCondition, hashKey: string, index: number): FlagEvaluation {
  const variants = flag.filters.multivariate?.variants ?? [];
  const override = condition.variant;
  const variant = override && variants.some((v) => v.key === override) ? override : variantFor(flag, hashKey);
  return {
    key: flag.key,
    id: flag.id,
    version: flag.version ?? 0,
    enabled: true,
    variant,
    reason: reason("condition_match", index),
    payload: payloadFor(flag, variant),
    errored: false,
  };
}

/** The first variant whose cumulative share exceeds the variant bucket; none (null) when the shares fall short. */
export function variantFor(flag: FeatureFlagDefinition, hashKey: string): string | null {
  const variants = flag.filters.multivariate?.variants;
  if (!variants?.length) return null;
  const bucket = flagHash(flag.key, hashKey, "variant");
  let cumulative = 0;
  for (const variant of variants) {
    cumulative += variant.rollout_percentage / 100;
    if (bucket < cumulative) return variant.key;
  }
  return null;
}

/** Parsed payload texts (shared: callers must not change them), so that a hot flag's payload is parsed once. */
const parsedPayloads = new Map<string, unknown>();
const PARSED_PAYLOADS_KEPT = 10_000;

/** `payloads[variant ?? "true"]`, parsed from its JSON text (kept as text when it is not JSON). */
export function payloadFor(flag: FeatureFlagDefinition, variant: string | null): unknown {
  const raw = flag.filters.payloads?.[variant ?? "true"];
  if (typeof raw !== "string") return raw ?? undefined;
  if (parsedPayloads.has(raw)) return parsedPayloads.get(raw);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = raw;
  }
  if (parsedPayloads.size >= PARSED_PAYLOADS_KEPT) parsedPayloads.clear();
  parsedPayloads.set(raw, parsed);
  return parsed;
}

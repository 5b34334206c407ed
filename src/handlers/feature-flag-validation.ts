/**
 * The real service's checks of a flag write, with its messages (its feature flag serializer): the key, the
 * condition sets, variants, payloads, cohort and flag references. Each failure is a 400 naming `key` or `filters`.
 */
import { fail } from "../core/errors.ts";
import { behavioralCohortWithin } from "./cohort-validation.ts";
import type { FeatureFlagRecord, ResolvedCohort } from "../store/schema.ts";

type Loose = Record<string, unknown>;

export interface FlagWriteContext {
  /** The project's flags that are not deleted. */
  flags: readonly FeatureFlagRecord[];
  cohorts: readonly ResolvedCohort[];
  /** The flag being updated; undefined on create. */
  current?: FeatureFlagRecord;
  /** Parses a date condition's value as the evaluator does; undefined when it is no date. */
  parseDate: (value: unknown) => Date | undefined;
}

const KEY = /^[a-zA-Z0-9_-]+$/;
/** Operators whose value the real service requires to be a string. */
const STRING_OPERATORS = new Set(["regex", "icontains", "not_regex", "not_icontains", "gte", "lte", "gt", "lt"]);
const MAX_PROPERTY_VALUES = 1000;

export function requireValidKey(key: string, ctx: FlagWriteContext): void {
  if (ctx.flags.some((f) => f.key === key && f.id !== ctx.current?.id)) throw fail.invalid("key", "There is already a feature flag with this key.", "unique");
  if (!KEY.test(key)) throw fail.invalid("key", "Only letters, numbers, hyphens (-) & underscores (_) are allowed.", "invalid_key");
}

const invalidFilters = (detail: string, code = "invalid_input") => fail.invalid("filters", detail, code);

const conditionProperties = (filters: Loose): Loose[] =>
  ((filters.groups as Loose[] | undefined) ?? []).flatMap((g) => (Array.isArray(g.properties) ? (g.properties as Loose[]) : []));

/** Flag ids a flag's conditions depend on (`type: flag`, key = the other flag's id). */
export const flagDependencies = (filters: Loose): number[] =>
  conditionProperties(filters)
    .filter((p) => p.type === "flag")
    .map((p) => Number(p.key));

/** Checks and normalises `filters` (JSON object payloads become their text); returns what to store. */
export function validFilters(filters: Loose, key: string, ctx: FlagWriteContext, creating: boolean): Loose {
  const groups = (filters.groups as Loose[] | undefined) ?? [];
  if (creating && groups.length === 0) throw invalidFilters("Feature flags must have at least one condition set (group).");
  const groupIndex = filters.aggregation_group_type_index ?? null;
  const properties = conditionProperties(filters);
  if (groupIndex === null) {
    if (!properties.every((p) => ["person", "cohort", "flag"].includes(String(p.type)))) {
      throw invalidFilters("Filters are not valid (can only use person, cohort, and flag properties)");
    }
    if (!properties.every((p) => p.type !== "flag" || p.operator === "flag_evaluates_to")) {
      throw invalidFilters("Flag properties must use the 'flag_evaluates_to' operator");
    }
    requireNoDependencyCycle(key, filters, ctx);
  } else if (!properties.every((p) => p.type === "group" && p.group_type_index === groupIndex)) {
    throw invalidFilters("Filters are not valid (can only use group properties)");
  }
  const variants = ((filters.multivariate as Loose | null | undefined)?.variants as Loose[] | undefined) ?? [];
  if (variants.length && variants.reduce((sum, v) => sum + Number(v.rollout_percentage ?? 0), 0) !== 100) {
    throw invalidFilters("Invalid variant definitions: Variant rollout percentages must sum to 100.");
  }
  const variantKeys = new Set(variants.map((v) => String(v.key)));
  for (const group of groups) {
    if (group.variant && !variantKeys.has(String(group.variant))) throw invalidFilters("Filters are not valid (variant override does not exist)");
  }
  properties.forEach((p) => requireValidProperty(p, ctx));
  return { ...filters, payloads: validPayloads(filters.payloads, variants.length > 0, variantKeys) };
}

function requireValidProperty(p: Loose, ctx: FlagWriteContext): void {
  if (Array.isArray(p.value) && p.value.length > MAX_PROPERTY_VALUES) {
    throw invalidFilters(`Property group expressions of type ${String(p.key)} cannot contain more than ${MAX_PROPERTY_VALUES} values.`);
  }
  if (p.type === "cohort" && !ctx.cohorts.some((c) => c.id === Number(p.value))) {
    throw invalidFilters(`Cohort with id ${String(p.value)} does not exist`, "cohort_does_not_exist");
  }
  const behavioral = p.type === "cohort" ? behavioralCohortWithin(Number(p.value), ctx.cohorts) : undefined;
  if (behavioral) throw invalidFilters(`Cohort '${behavioral.name}' with filters on events cannot be used in feature flags.`, "behavioral_cohort_found");
  if ((p.operator === "is_date_before" || p.operator === "is_date_after") && !ctx.parseDate(p.value)) {
    throw invalidFilters(`Invalid date value: ${String(p.value)}`, "invalid_date");
  }
  if (STRING_OPERATORS.has(String(p.operator)) && typeof p.value !== "string") {
    throw invalidFilters(`Invalid value for operator ${String(p.operator)}: ${JSON.stringify(p.value)}`, "invalid_value");
  }
  if ((p.operator === "in" || p.operator === "not_in") && p.type !== "cohort") {
    throw invalidFilters(`The '${String(p.operator)}' operator is only valid for cohort properties, not '${String(p.type)}' properties.`, "invalid_operator");
  }
}

/** Payloads are JSON texts keyed by variant (or "true" for a boolean flag); an object is stored as its text. */
function validPayloads(payloads: unknown, multivariate: boolean, variantKeys: ReadonlySet<string>): Record<string, string> {
  if (payloads === undefined || payloads === null) return {};
  if (typeof payloads !== "object" || Array.isArray(payloads)) throw invalidFilters("Payloads must be passed as a dictionary");
  const stored: Record<string, string> = {};
  for (const [key, value] of Object.entries(payloads)) {
    if (typeof value === "string") {
      try {
        JSON.parse(value);
      } catch {
        throw invalidFilters("Payload value is not valid JSON");
      }
      stored[key] = value;
    } else stored[key] = JSON.stringify(value);
  }
  const keys = Object.keys(stored);
  if (multivariate && !keys.every((k) => variantKeys.has(k))) throw invalidFilters("Payload keys must match a variant key for multivariate flags");
  if (!multivariate && (keys.length > 1 || keys.some((k) => k !== "true"))) throw invalidFilters("Payload keys must be 'true' for boolean flags");
  return stored;
}

/** A flag condition names an active flag by id, never itself, and never closes a cycle. */
function requireNoDependencyCycle(key: string, filters: Loose, ctx: FlagWriteContext): void {
  const byId = new Map(ctx.flags.map((f) => [f.id, f]));
  const dependencyKeys = (f: Loose): string[] =>
    conditionProperties(f)
      .filter((p) => p.type === "flag")
      .map((p) => {
        const id = Number(p.key);
        if (!Number.isInteger(id) || !/^\d+$/.test(String(p.key))) {
          throw invalidFilters(`Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${String(p.key)}'`);
        }
        const target = byId.get(id);
        if (!target) throw invalidFilters(`Flag dependency references non-existent flag with ID ${id}`);
        if (!target.active) throw invalidFilters(`Cannot create dependency on disabled flag '${target.key}' (ID: ${id}). Flag dependencies must reference active flags only.`);
        return target.key;
      });
  const direct = dependencyKeys(filters);
  if (direct.includes(key)) throw invalidFilters(`Feature flag '${key}' cannot depend on itself`);
  const byKey = new Map(ctx.flags.map((f) => [f.key, f]));
  const visit = (flagKey: string, path: string[]): void => {
    if (path.includes(flagKey)) throw invalidFilters(`Circular dependency detected: ${[...path.slice(path.indexOf(flagKey)), flagKey].join(" → ")}`);
    const flag = byKey.get(flagKey);
    if (!flag || flag.key === key) return;
    for (const next of dependencyKeys(flag.filters)) visit(next, [...path, flagKey]);
  };
  for (const dep of direct) visit(dep, [key]);
}

/** Active flags whose conditions name this flag (they block deleting or disabling it). */
export function dependentFlags(flag: FeatureFlagRecord, flags: readonly FeatureFlagRecord[]): FeatureFlagRecord[] {
  return flags.filter((f) => f.id !== flag.id && f.active && flagDependencies(f.filters).includes(flag.id)).sort((a, b) => a.key.localeCompare(b.key));
}

const namesOf = (flags: readonly FeatureFlagRecord[]) => {
  const names = flags.slice(0, 5).map((f) => `${f.key} (ID: ${f.id})`);
  if (flags.length > 5) names.push(`and ${flags.length - 5} more`);
  return names.join(", ");
};

/** Deleting or disabling a flag others depend on, or enabling one that depends on disabled flags, is refused. */
export function requireDependenciesAllow(flag: FeatureFlagRecord, change: { deleted?: boolean; active?: boolean }, flags: readonly FeatureFlagRecord[]): void {
  const dependents = dependentFlags(flag, flags);
  if (change.deleted === true && dependents.length) {
    throw fail.invalid(null, `Cannot delete this feature flag because other flags depend on it: ${namesOf(dependents)}. Please update or delete the dependent flags first.`);
  }
  if (change.active === false && flag.active && dependents.length) {
    throw fail.invalid(null, `Cannot disable this feature flag because other flags depend on it: ${namesOf(dependents)}. Please update or disable the dependent flags first.`);
  }
  if (change.active === true && !flag.active) {
    const ids = new Set(flagDependencies(flag.filters));
    const disabled = flags.filter((f) => ids.has(f.id) && !f.active).sort((a, b) => a.key.localeCompare(b.key));
    if (disabled.length) {
      throw fail.invalid(null, `Cannot enable this feature flag because it depends on disabled flags: ${namesOf(disabled)}. Please enable the dependency flags first.`);
    }
  }
}

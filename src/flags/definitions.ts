/**
 * The body of `GET /api/feature_flag/local_evaluation?send_cohorts` and `/flags/definitions?send_cohorts`
 * (reference: PostHog `posthog/models/feature_flag/local_evaluation.py`, `MinimalFeatureFlagSerializer`).
 */
import type { CohortFilters, CohortPropertyGroup } from "./cohort.ts";
import { flagResolver } from "./dependencies.ts";
import type { FeatureFlagDefinition, FlagFilters, PropertyFilter } from "./types.ts";

export type CohortDefinition = { id: number; filters: CohortFilters } | { id: number; person_ids: Array<string | number> };

export interface LocalEvaluationInput {
  flags: FeatureFlagDefinition[];
  projectId: number;
  /** group_type_index -> group type name. */
  groupTypes: Record<number, string>;
  cohorts: CohortDefinition[];
}

export interface LocalEvaluationFlag {
  id: number;
  team_id: number;
  name: string;
  key: string;
  filters: FlagFilters;
  deleted: boolean;
  active: boolean;
  ensure_experience_continuity: boolean;
  has_encrypted_payloads: boolean;
  version: number;
  evaluation_runtime: "all";
  evaluation_tags: string[];
}

export interface LocalEvaluationBody {
  flags: LocalEvaluationFlag[];
  group_type_mapping: Record<string, string>;
  cohorts: Record<string, CohortPropertyGroup>;
}

/**
 * Undeleted flags (inactive ones included) in the serializer's fields; `flag` filters rewritten to the target's key with
 * its `dependency_chain` (empty for a missing or circular dependency); the dynamic cohorts the flags reference, directly
 * or through other cohorts. Static cohorts are left out, so SDKs defer such flags to the server.
 */
export function buildLocalEvaluationBody(input: LocalEvaluationInput): LocalEvaluationBody {
  const flags = input.flags.filter((flag) => !flag.deleted);
  const serialized = flags.map((flag) => serializeFlag(flag, input.projectId));
  addDependencyChains(serialized, flags);
  return {
    flags: serialized,
    group_type_mapping: Object.fromEntries(Object.entries(input.groupTypes).map(([index, name]) => [String(index), name])),
    cohorts: referencedDynamicCohorts(flags, input.cohorts),
  };
}

function serializeFlag(flag: FeatureFlagDefinition, projectId: number): LocalEvaluationFlag {
  return {
    id: flag.id,
    team_id: projectId,
    name: flag.name,
    key: flag.key,
    filters: structuredClone(flag.filters),
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    has_encrypted_payloads: false,
    version: flag.version ?? 0,
    evaluation_runtime: "all",
    evaluation_tags: [],
  };
}

const flagPropertiesOf = (flag: LocalEvaluationFlag): PropertyFilter[] =>
  (flag.filters.groups ?? []).flatMap((condition) => (condition.properties ?? []).filter((p) => p.type === "flag"));

/** Ids become keys first; then each chain lists the target and its dependencies, dependencies first. */
function addDependencyChains(serialized: LocalEvaluationFlag[], flags: FeatureFlagDefinition[]): void {
  const resolve = flagResolver(flags);
  for (const flag of serialized) {
    for (const property of flagPropertiesOf(flag)) property.key = resolve(property)?.key ?? String(property.key);
  }
  const byKey = new Map(serialized.map((flag) => [flag.key, flag]));
  const chains = new Map<string, string[]>();
  for (const flag of serialized) {
    for (const property of flagPropertiesOf(flag)) property.dependency_chain = chainFor(property.key, byKey, chains);
  }
}

function chainFor(key: string, byKey: Map<string, LocalEvaluationFlag>, memo: Map<string, string[]>): string[] {
  const known = memo.get(key);
  if (known) return known;
  const chain: string[] = [];
  const complete = visit(key, byKey, new Set(), new Set(), chain);
  const result = complete && !dependsOnItself(key, byKey) ? chain : [];
  memo.set(key, result);
  return result;
}

/** A flag naming itself gets an empty chain, although the walk below skips such self-references. */
function dependsOnItself(key: string, byKey: Map<string, LocalEvaluationFlag>): boolean {
  const flag = byKey.get(key);
  return flag !== undefined && flagPropertiesOf(flag).some((p) => p.key === key);
}

/** Depth-first, dependencies appended before the flag; false on a cycle or a flag that does not exist. */
function visit(key: string, byKey: Map<string, LocalEvaluationFlag>, done: Set<string>, onPath: Set<string>, chain: string[]): boolean {
  if (onPath.has(key)) return false;
  if (done.has(key)) return true;
  const flag = byKey.get(key);
  if (!flag) return false;
  onPath.add(key);
  for (const property of flagPropertiesOf(flag)) {
    if (property.key !== key && !visit(property.key, byKey, done, onPath, chain)) return false;
  }
  onPath.delete(key);
  done.add(key);
  chain.push(key);
  return true;
}

/** Cohort ids in flag conditions, then the cohorts those cohorts name, kept only when dynamic. */
function referencedDynamicCohorts(flags: FeatureFlagDefinition[], cohorts: CohortDefinition[]): Record<string, CohortPropertyGroup> {
  const byId = new Map(cohorts.map((cohort) => [cohort.id, cohort]));
  const pending = flags.flatMap((flag) =>
    (flag.filters.groups ?? []).flatMap((c) => (c.properties ?? []).filter((p) => p.type === "cohort").map((p) => Number(p.value))),
  );
  const result: Record<string, CohortPropertyGroup> = {};
  const seen = new Set<number>();
  while (pending.length > 0) {
    const id = pending.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const cohort = byId.get(id);
    if (!cohort || !("filters" in cohort)) continue;
    result[String(id)] = structuredClone(cohort.filters.properties);
    pending.push(...nestedCohortIds(cohort.filters.properties));
  }
  return result;
}

function nestedCohortIds(group: CohortPropertyGroup): number[] {
  return group.values.flatMap((value) =>
    "values" in value && Array.isArray(value.values)
      ? nestedCohortIds(value as CohortPropertyGroup)
      : (value as PropertyFilter).type === "cohort"
        ? [Number((value as PropertyFilter).value)]
        : [],
  );
}


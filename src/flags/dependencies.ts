/**
 * Flag-on-flag dependencies: which flag a `flag` filter names, the order that evaluates dependencies first, and which
 * flags can never be evaluated (reference: PostHog `_compute_flag_dependencies` and the flags service's
 * `PrecomputedDependencyGraph`: a missing dependency, a cycle, or depending on either makes a flag fail closed).
 */
import type { FeatureFlagDefinition, PropertyFilter } from "./types.ts";

export interface DependencyPlan {
  /** Every flag, dependencies before their dependents (cycle members last, in list order). */
  order: FeatureFlagDefinition[];
  /** Ids of flags answered as `missing_dependency`. */
  broken: Set<number>;
  /** The flag a `flag` filter refers to, or undefined when no such (undeleted) flag exists. */
  resolve(filter: PropertyFilter): FeatureFlagDefinition | undefined;
  /** Direct dependencies of a flag that can be resolved. */
  dependenciesOf(flag: FeatureFlagDefinition): FeatureFlagDefinition[];
}

export const isFlagFilter = (filter: PropertyFilter): boolean => filter.type === "flag";

/** `flag` filters written by the real UI hold the flag's id as the key; a flag key is accepted too (as local evaluation rewrites it). */
export function flagResolver(flags: FeatureFlagDefinition[]): (filter: PropertyFilter) => FeatureFlagDefinition | undefined {
  const live = flags.filter((flag) => !flag.deleted);
  const byId = new Map(live.map((flag) => [String(flag.id), flag]));
  const byKey = new Map(live.map((flag) => [flag.key, flag]));
  return (filter) => byId.get(String(filter.key)) ?? byKey.get(String(filter.key));
}

export function flagFilters(flag: FeatureFlagDefinition): PropertyFilter[] {
  return (flag.filters.groups ?? []).flatMap((condition) => (condition.properties ?? []).filter(isFlagFilter));
}

/** Plan evaluation for a flag list. Inactive and deleted flags evaluate to false, so their own dependencies are not followed. */
export function planDependencies(flags: FeatureFlagDefinition[]): DependencyPlan {
  const resolve = flagResolver(flags);
  const followed = (flag: FeatureFlagDefinition) => flag.active && !flag.deleted;
  const broken = new Set<number>();
  const direct = new Map<number, FeatureFlagDefinition[]>();
  for (const flag of flags) {
    const targets = followed(flag) ? flagFilters(flag).map(resolve) : [];
    if (targets.some((target) => target === undefined)) broken.add(flag.id);
    direct.set(flag.id, unique(targets.filter((t): t is FeatureFlagDefinition => t !== undefined)));
  }
  const sorted = dependenciesFirst(flags, direct);
  const reached = new Set(sorted);
  const caught = flags.filter((flag) => !reached.has(flag));
  for (const flag of caught) broken.add(flag.id);
  for (const flag of sorted) if ((direct.get(flag.id) ?? []).some((dep) => broken.has(dep.id))) broken.add(flag.id);
  const order = [...sorted, ...caught];
  return { order, broken, resolve, dependenciesOf: (flag) => direct.get(flag.id) ?? [] };
}

const unique = <T>(items: T[]): T[] => [...new Set(items)];

/** Kahn's algorithm: flags caught in (or behind) a cycle never reach zero and are left out. */
function dependenciesFirst(flags: FeatureFlagDefinition[], direct: Map<number, FeatureFlagDefinition[]>): FeatureFlagDefinition[] {
  const remaining = new Map(flags.map((flag) => [flag.id, (direct.get(flag.id) ?? []).length]));
  const dependents = new Map<number, FeatureFlagDefinition[]>();
  for (const flag of flags) for (const dep of direct.get(flag.id) ?? []) dependents.set(dep.id, [...(dependents.get(dep.id) ?? []), flag]);
  const ready = flags.filter((flag) => remaining.get(flag.id) === 0);
  const sorted: FeatureFlagDefinition[] = [];
  while (ready.length > 0) {
    const flag = ready.shift()!;
    sorted.push(flag);
    for (const dependent of dependents.get(flag.id) ?? []) {
      const left = remaining.get(dependent.id)! - 1;
      remaining.set(dependent.id, left);
      if (left === 0) ready.push(dependent);
    }
  }
  return sorted;
}

/** The requested flags and everything they depend on, transitively. */
export function withDependencies(plan: DependencyPlan, flags: FeatureFlagDefinition[], keys: string[]): Set<number> {
  const wanted = new Set(keys);
  const selected = new Set<number>();
  const visit = (flag: FeatureFlagDefinition) => {
    if (selected.has(flag.id)) return;
    selected.add(flag.id);
    plan.dependenciesOf(flag).forEach(visit);
  };
  flags.filter((flag) => wanted.has(flag.key)).forEach(visit);
  return selected;
}

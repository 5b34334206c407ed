import { matchProperty } from "../flags/property-match.ts";
import type { PropertyFilter } from "../flags/types.ts";
import type { CohortRecord, PersonRecord, Properties, ResolvedCohort } from "./schema.ts";

/**
 * Cohort membership, computed at once (the real service computes it in the background; here nothing is ever
 * "calculating"). Static cohorts list their persons; dynamic ones are evaluated over persons and events.
 */

/** `time_interval` units of a behavioural condition (the document lists the conditions evaluated: CohortFilter). */
export const TIME_INTERVALS = ["hour", "day", "week", "month", "year"] as const;

export interface CohortInputs {
  persons: ReadonlyMap<number, PersonRecord>;
  /** How many events of this name each person performed in [sinceMs, untilMs]. */
  eventCounts: (event: string, sinceMs: number, untilMs: number) => ReadonlyMap<number, number>;
  now: Date;
}

type Group = { type?: string; values?: unknown[] };
type Filter = Properties & { type?: string; negation?: boolean };

export const isStaticCohort = (c: Pick<CohortRecord, "is_static" | "filters">): boolean => c.is_static ?? c.filters === undefined;

/** Every filter of a property group tree, depth first. */
export function flatFilters(group: unknown): Filter[] {
  if (!group || typeof group !== "object") return [];
  const values = (group as Group).values;
  if (!Array.isArray(values)) return [group as Filter];
  return values.flatMap(flatFilters);
}

export const hasBehavioralFilter = (filters: { properties: Properties } | undefined): boolean =>
  flatFilters(filters?.properties).some((f) => f.type === "behavioral");

/** Cohort ids a filter tree names. */
export const referencedCohorts = (filters: { properties?: unknown } | undefined): number[] =>
  flatFilters(filters?.properties)
    .filter((f) => f.type === "cohort")
    .map((f) => Number(f.value));

type CohortLinks = { id: number; filters?: { properties?: unknown } };

/**
 * A loop of cohort references as ids, the first repeated at the end (`[3, 4, 3]`), or null. Membership of a
 * cohort in a loop has no answer, so every door cohorts enter by (the API, fixture files, PUT /_mock/state/)
 * refuses one with this rule. `from`: only loops reachable from that cohort (the one being written).
 * Depth first without recursion: a long chain of cohorts must not overflow the stack.
 */
export function findCohortCycle(cohorts: readonly CohortLinks[], from?: number): number[] | null {
  const refs = new Map(cohorts.map((c) => [c.id, referencedCohorts(c.filters)]));
  const done = new Set<number>();
  for (const start of from === undefined ? refs.keys() : [from]) {
    if (done.has(start)) continue;
    const path = [start];
    const onPath = new Set(path);
    const nextRef = [0];
    while (path.length > 0) {
      const top = path.length - 1;
      const target = refs.get(path[top]!)?.[nextRef[top]!++];
      if (target === undefined) {
        const finished = path.pop()!;
        onPath.delete(finished);
        done.add(finished);
        nextRef.pop();
      } else if (onPath.has(target)) {
        return [...path.slice(path.indexOf(target)), target];
      } else if (!done.has(target) && refs.has(target)) {
        path.push(target);
        onPath.add(target);
        nextRef.push(0);
      }
    }
  }
  return null;
}

/** Start of a behavioural window: `value` calendar units before now (months and years by the UTC calendar). */
export function windowStart(now: Date, value: number, interval: (typeof TIME_INTERVALS)[number]): number {
  const d = new Date(now.getTime());
  if (interval === "hour") d.setUTCHours(d.getUTCHours() - value);
  else if (interval === "day") d.setUTCDate(d.getUTCDate() - value);
  else if (interval === "week") d.setUTCDate(d.getUTCDate() - 7 * value);
  else if (interval === "month") d.setUTCMonth(d.getUTCMonth() - value);
  else d.setUTCFullYear(d.getUTCFullYear() - value);
  return d.getTime();
}

function countHolds(count: number, operator: unknown, target: number): boolean {
  if (operator === "gt") return count > target;
  if (operator === "lte") return count <= target;
  if (operator === "lt") return count < target;
  if (operator === "eq" || operator === "exact") return count === target;
  return count >= target;
}

/** A behavioural condition for one person; an unsupported one holds for nobody. */
function behavioralHolds(f: Filter, personId: number, inputs: CohortInputs): boolean {
  const interval = f.time_interval as (typeof TIME_INTERVALS)[number];
  if (f.event_type !== "events" || typeof f.time_value !== "number" || !TIME_INTERVALS.includes(interval)) return false;
  const counts = inputs.eventCounts(String(f.key), windowStart(inputs.now, f.time_value, interval), inputs.now.getTime());
  const count = counts.get(personId) ?? 0;
  if (f.value === "performed_event") return count >= 1;
  if (f.value === "performed_event_multiple") return countHolds(count, f.operator, Number(f.operator_value ?? 1));
  return false;
}

type MembersOf = (id: number) => ReadonlySet<number> | undefined;

/**
 * A filter's verdict with `negation` applied ("did not perform", "not in"). As the flags matcher, negation on a
 * cohort filter inside an OR group is ignored (only `not_in` inverts there).
 */
function filterHolds(f: Filter, person: PersonRecord, inOr: boolean, inputs: CohortInputs, membersOf: MembersOf): boolean {
  const negated = f.negation === true;
  if (f.type === "cohort") {
    const member = membersOf(Number(f.value))?.has(person.id) ?? false;
    const holds = f.operator === "not_in" ? !member : member;
    return inOr ? holds : holds !== negated;
  }
  if (f.type === "behavioral") return behavioralHolds(f, person.id, inputs) !== negated;
  if (f.type !== undefined && f.type !== "person") return false;
  return matchProperty(f as unknown as PropertyFilter, person.properties, inputs.now) !== negated;
}

/** "property" is an AND (its legacy name); an empty AND holds, an empty OR does not; other combinators match nobody. */
function groupHolds(group: Group, person: PersonRecord, inputs: CohortInputs, membersOf: MembersOf): boolean {
  if (group.type !== "AND" && group.type !== "OR" && group.type !== "property") return false;
  const isOr = group.type === "OR";
  for (const value of group.values ?? []) {
    const v = value as Group & Filter;
    const holds = Array.isArray(v.values) ? groupHolds(v, person, inputs, membersOf) : filterHolds(v, person, isOr, inputs, membersOf);
    if (isOr && holds) return true;
    if (!isOr && !holds) return false;
  }
  return !isOr;
}

/**
 * A project's live cohorts with their members: a static cohort's `person_ids` that still exist, a dynamic
 * cohort's conditions evaluated over the current persons and events. A cohort naming another resolves that one
 * first; a reference loop or an unknown or deleted cohort has no members.
 */
export function resolveCohorts(cohorts: readonly CohortRecord[], inputs: CohortInputs): ResolvedCohort[] {
  const live = new Map(cohorts.filter((c) => !c.deleted).map((c) => [c.id, c]));
  const memo = new Map<number, Set<number>>();
  const onPath = new Set<number>();
  const membersOf: MembersOf = (id) => {
    const cohort = live.get(id);
    if (!cohort) return undefined;
    const known = memo.get(id);
    if (known) return known;
    if (onPath.has(id)) return new Set();
    onPath.add(id);
    const members = new Set<number>();
    if (isStaticCohort(cohort)) for (const p of cohort.person_ids ?? []) if (inputs.persons.has(p)) members.add(p);
    if (!isStaticCohort(cohort)) for (const person of inputs.persons.values()) if (groupHolds(cohort.filters!.properties as Group, person, inputs, membersOf)) members.add(person.id);
    onPath.delete(id);
    memo.set(id, members);
    return members;
  };
  const calculated_at = inputs.now.toISOString();
  return [...live.values()].map((c) => ({
    project_id: c.project_id,
    id: c.id,
    name: c.name,
    person_ids: [...membersOf(c.id)!].sort((a, b) => a - b),
    ...(isStaticCohort(c) ? {} : { filters: c.filters }),
    calculated_at,
  }));
}

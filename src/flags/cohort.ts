/**
 * Dynamic cohort membership from a cohort's property groups, as the flags service computes it in memory
 * (reference: flags service `cohorts/cohort_operations.rs`, `InnerCohortProperty::evaluate`, `evaluate_cohort_values`).
 * The service reads two levels (an AND/OR of AND/OR/"property" groups of filters); deeper nesting is read the same way.
 */
import { matchProperty } from "./property-match.ts";
import type { PropertyFilter } from "./types.ts";

export interface CohortPropertyGroup {
  type: "AND" | "OR" | "property" | string;
  values: Array<CohortPropertyGroup | PropertyFilter>;
}

export interface CohortFilters {
  properties: CohortPropertyGroup;
}

/** Membership of another cohort: undefined when that cohort is unknown. */
export type CohortLookup = (cohortId: number) => boolean | undefined;

class UnknownCohort extends Error {}

const isGroup = (value: CohortPropertyGroup | PropertyFilter): value is CohortPropertyGroup =>
  Array.isArray((value as CohortPropertyGroup).values);

/** Whether a person with these properties is in the cohort; undefined when the definition refers to an unknown cohort. */
export function cohortMembership(
  filters: CohortFilters,
  personProperties: Record<string, unknown>,
  inCohort: CohortLookup,
  now: Date,
): boolean | undefined {
  try {
    return groupMatches(filters.properties, { personProperties, inCohort, now });
  } catch (error) {
    if (error instanceof UnknownCohort) return undefined;
    throw error;
  }
}

/** {@link cohortMembership}, with a reference to an unknown cohort counting as not a member. */
export function cohortMatches(
  filters: CohortFilters,
  personProperties: Record<string, unknown>,
  inCohort: CohortLookup,
  now: Date,
): boolean {
  return cohortMembership(filters, personProperties, inCohort, now) ?? false;
}

interface Context {
  personProperties: Record<string, unknown>;
  inCohort: CohortLookup;
  now: Date;
}

/** "property" is an AND (its legacy name); an unknown combinator matches nobody. An empty AND holds, an empty OR does not. */
function groupMatches(group: CohortPropertyGroup, ctx: Context): boolean {
  if (group.type !== "AND" && group.type !== "OR" && group.type !== "property") return false;
  const isOr = group.type === "OR";
  for (const value of group.values ?? []) {
    const holds = isGroup(value) ? groupMatches(value, ctx) : filterHolds(value, isOr, ctx);
    if (isOr && holds) return true;
    if (!isOr && !holds) return false;
  }
  return !isOr;
}

/**
 * A filter's verdict with its `negation` applied. The service ignores `negation` on a cohort filter inside an OR group
 * (only `not_in` inverts there), and applies it inside AND groups; this follows it.
 */
function filterHolds(filter: PropertyFilter, inOrGroup: boolean, ctx: Context): boolean {
  const negated = filter.negation === true;
  if (filter.type === "cohort") {
    const member = cohortFilterHolds(filter, ctx.inCohort);
    return inOrGroup ? member : member !== negated;
  }
  if (filter.type !== undefined && filter.type !== "person") return false;
  return matchProperty(filter, ctx.personProperties, ctx.now) !== negated;
}

/** `in` (the default) or `not_in` one cohort; any other operator matches nobody. */
export function cohortFilterHolds(filter: PropertyFilter, inCohort: CohortLookup): boolean {
  const cohortId = Number(filter.value);
  const member = Number.isInteger(cohortId) ? inCohort(cohortId) : undefined;
  if (member === undefined) throw new UnknownCohort(String(filter.value));
  const operator = filter.operator ?? "in";
  if (operator === "in") return member;
  if (operator === "not_in") return !member;
  return false;
}

export { UnknownCohort };

import type { CohortRecord, PersonRecord, Properties, ResolvedCohort } from "./schema.ts";

/** Whether a person's properties meet a dynamic cohort's conditions (the flags matcher: src/flags/). */
export type CohortConditionMatcher = (filters: { properties: Properties }, personProperties: Properties, now: Date) => boolean;

/**
 * A project's cohorts with their members: a static cohort's `person_ids` as stored, a dynamic cohort's evaluated against the current persons, as the real service recalculates them.
 */
export function resolveCohorts(
  cohorts: readonly CohortRecord[],
  persons: ReadonlyMap<number, PersonRecord>,
  matches: CohortConditionMatcher,
  now: Date,
): ResolvedCohort[] {
  return cohorts.map((c) => {
    const { person_ids, filters, ...rest } = c;
    if (filters === undefined) return { ...rest, person_ids: person_ids ?? [] };
    const members: number[] = [];
    for (const person of persons.values()) if (matches(filters, person.properties, now)) members.push(person.id);
    return { ...rest, filters, person_ids: members.sort((a, b) => a - b) };
  });
}

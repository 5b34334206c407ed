import { cohortMatches, type CohortDefinition, type CohortFilters, type EvaluationSubject, type FeatureFlagDefinition } from "../../../src/flags/index.ts";

export const NOW = new Date("2026-11-20T12:00:00.000Z");
export const GROUP_TYPES: Record<number, string> = { 0: "company" };

let nextId = 1;
/** A flag definition with the fields the store keeps; ids are assigned in order of declaration. */
export function flag(key: string, filters: FeatureFlagDefinition["filters"], extra: Partial<FeatureFlagDefinition> = {}): FeatureFlagDefinition {
  return { id: nextId++, key, name: key, active: true, deleted: false, ensure_experience_continuity: false, version: 1, filters, ...extra };
}

export interface Person {
  distinctId: string;
  properties: Record<string, unknown>;
  groups: Record<string, string>;
  groupProperties: Record<string, Record<string, unknown>>;
}

/** The cohort lookup a caller would build: dynamic cohorts through `cohortMatches`, static ones by member list. */
export function cohortLookup(cohorts: CohortDefinition[], person: Person, now: Date): (id: number) => boolean | undefined {
  const byId = new Map(cohorts.map((cohort) => [cohort.id, cohort]));
  const lookup = (id: number): boolean | undefined => {
    const cohort = byId.get(id);
    if (!cohort) return undefined;
    if ("person_ids" in cohort) return cohort.person_ids.map(String).includes(person.distinctId);
    return cohortMatches(cohort.filters as CohortFilters, person.properties, lookup, now);
  };
  return lookup;
}

export function subjectFor(person: Person, cohorts: CohortDefinition[] = [], now = NOW, hashKeyOverrides?: ReadonlyMap<string, string>): EvaluationSubject {
  return {
    distinctId: person.distinctId,
    hashKeyOverrides,
    personProperties: person.properties,
    groups: person.groups,
    groupProperties: person.groupProperties,
    groupTypeName: (index) => GROUP_TYPES[index],
    inCohort: cohortLookup(cohorts, person, now),
  };
}

export const person = (distinctId: string, properties: Record<string, unknown> = {}, groups: Record<string, string> = {}, groupProperties: Record<string, Record<string, unknown>> = {}): Person => ({
  distinctId,
  properties,
  groups,
  groupProperties,
});

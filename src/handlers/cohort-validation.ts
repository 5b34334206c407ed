import { fail } from "../core/errors.ts";
import { findCohortCycle, flatFilters, hasBehavioralFilter, referencedCohorts } from "../store/cohorts.ts";
import type { CohortRecord, Properties } from "../store/schema.ts";

/**
 * The rules of a cohort's `filters` the document cannot express, with the real service's messages where it has
 * them (reference: the cohorts API's filter validation and its loop check). Each is a 400 with attr `filters`.
 * Which behavioural conditions are evaluated is the document's rule (CohortFilter).
 */
type Filters = { properties: Properties };

const SET_OPERATORS: ReadonlySet<unknown> = new Set(["is_set", "is_not_set"]);

function requirePersonKeys(f: Properties): void {
  const missing = [...(f.value === undefined || f.value === null ? (SET_OPERATORS.has(f.operator) ? [] : ["value"]) : []), ...(f.operator == null ? ["operator"] : [])];
  if (missing.length) throw fail.invalid("filters", `Missing required keys for person filter: ${missing.join(", ")}`);
}

/** Whether the cohort, with its new filters, reaches a loop of references (the real service's loop check). */
const reachesLoop = (selfId: number, filters: Filters, cohorts: readonly CohortRecord[]): boolean =>
  findCohortCycle([...cohorts.filter((c) => c.id !== selfId), { id: selfId, filters }], selfId) !== null;

/** Checks a dynamic cohort's filters against the project's live cohorts; `selfId` is the cohort being updated. */
export function requireValidFilters(filters: Filters, cohorts: readonly CohortRecord[], selfId: number | null): void {
  for (const f of flatFilters(filters.properties)) {
    if (f.type === "person") requirePersonKeys(f);
    if (f.type === "cohort" && !cohorts.some((c) => c.id === Number(f.value))) throw fail.invalid("filters", "Invalid Cohort ID in filter");
  }
  if (selfId !== null && reachesLoop(selfId, filters, cohorts)) throw fail.invalid("filters", "Cohorts cannot reference other cohorts in a loop.");
}

/** The cohort, or one it depends on, with a behavioural condition: flags cannot use it (reference: flag checks). */
export function behavioralCohortWithin(cohortId: number, cohorts: readonly { id: number; name: string; filters?: Filters }[]): { name: string } | undefined {
  const seen = new Set<number>();
  const stack = [cohortId];
  while (stack.length) {
    const id = stack.pop();
    const cohort = cohorts.find((c) => c.id === id);
    if (!cohort || seen.has(cohort.id)) continue;
    seen.add(cohort.id);
    if (hasBehavioralFilter(cohort.filters)) return cohort;
    stack.push(...referencedCohorts(cohort.filters));
  }
  return undefined;
}

import { hasBehavioralFilter, isStaticCohort } from "../store/cohorts.ts";
import type { CohortRecord, ResolvedCohort } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { toUserJson } from "./user-json.ts";

/** What kind of cohort it is, as the real service's `cohort_type` names it. */
const cohortType = (c: CohortRecord) => (isStaticCohort(c) ? "static" : hasBehavioralFilter(c.filters) ? "behavioral" : "person_property");

/**
 * A cohort as the real cohorts API shows it. Members are computed at once, so it is never calculating; `count`
 * and `last_calculation` come from the computation analyses read (null for a deleted cohort).
 */
export function toCohortJson(cohort: CohortRecord, store: Store) {
  const resolved: ResolvedCohort | undefined = cohort.deleted ? undefined : store.cohorts.resolved(cohort.project_id).find((c) => c.id === cohort.id);
  return {
    id: cohort.id,
    name: cohort.name,
    description: cohort.description ?? "",
    groups: [],
    deleted: cohort.deleted ?? false,
    filters: cohort.filters ?? { properties: {} },
    query: null,
    is_calculating: false,
    created_by: toUserJson(store.users.get(cohort.created_by ?? null)),
    created_at: cohort.created_at ?? null,
    last_calculation: resolved?.calculated_at ?? null,
    errors_calculating: 0,
    count: resolved ? resolved.person_ids.length : null,
    is_static: isStaticCohort(cohort),
    cohort_type: cohortType(cohort),
    experiment_set: [],
  };
}

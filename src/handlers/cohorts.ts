import { fail } from "../core/errors.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { writableFields } from "../http/writable-fields.ts";
import { COHORT_WRITABLE, type CohortInput } from "../store/cohorts-repo.ts";
import { hasBehavioralFilter, isStaticCohort, referencedCohorts } from "../store/cohorts.ts";
import type { CohortRecord, PersonRecord, Properties } from "../store/schema.ts";
import { activityPage } from "./activity-json.ts";
import { idsFromCsv } from "./cohort-csv.ts";
import { toCohortJson } from "./cohort-json.ts";
import { behavioralCohortWithin, requireValidFilters } from "./cohort-validation.ts";
import { lastSeenOf } from "./person-last-seen.ts";
import { toPersonJson } from "./person-json.ts";
import { listPage } from "./list-page.ts";

type Q = Record<string, unknown>;
type Filters = { properties: Properties };
const queryOf = (args: HandlerArgs) => args.c.request.query as Q;
const bodyOf = (args: HandlerArgs) => (args.c.request.requestBody ?? {}) as Q;

function findCohort(args: HandlerArgs): CohortRecord {
  const cohort = args.deps.store.cohorts.get(args.project.id, Number((args.c.request.params as Q).id));
  if (!cohort) throw fail.notFound();
  return cohort;
}

function requireStatic(cohort: CohortRecord, verb: "add users to" | "remove users from"): void {
  if (!isStaticCohort(cohort)) throw fail.invalid(null, `Can only ${verb} static cohorts`);
}

/** The persons these uuids name in the project (unknown ones are skipped, as the real service skips them). */
const personsByUuid = (args: HandlerArgs, uuids: readonly string[]): PersonRecord[] =>
  uuids.map((u) => args.deps.store.persons.find(args.project.id, u)).filter((p): p is PersonRecord => p !== undefined);

/** The persons a CSV upload names (by uuid or id, distinct id, or email); unknown ones are skipped. */
function personsFromCsv(args: HandlerArgs, text: string): PersonRecord[] {
  const { idType, ids } = idsFromCsv(text);
  const { persons } = args.deps.store;
  if (idType === "person_id") return ids.map((id) => persons.find(args.project.id, id)).filter((p): p is PersonRecord => p !== undefined);
  if (idType === "distinct_id") return ids.map((id) => persons.byDistinctId(args.project.id, id)).filter((p): p is PersonRecord => p !== undefined);
  const emails = new Set(ids);
  return [...args.deps.store.analysisData.index(args.project.id).personsById.values()].filter((p) => emails.has(String(p.properties.email)));
}

/** The uploaded CSV's persons, for a static cohort; none when no file came. */
const csvMembers = (args: HandlerArgs, isStatic: boolean): number[] => {
  const csv = bodyOf(args).csv;
  return isStatic && typeof csv === "string" ? personsFromCsv(args, csv).map((p) => p.id) : [];
};

/** The list filters of the real service: search (name), type, created_by_id, hide_behavioral_cohorts. */
function cohortMatcher(q: Q): (c: CohortRecord) => boolean {
  const search = typeof q.search === "string" ? q.search.toLowerCase() : null;
  return (c) => {
    if (search !== null && !c.name.toLowerCase().includes(search)) return false;
    if (q.type === "static" && !isStaticCohort(c)) return false;
    if (q.type === "dynamic" && isStaticCohort(c)) return false;
    if (q.created_by_id !== undefined && c.created_by !== q.created_by_id) return false;
    return !(q.hide_behavioral_cohorts === true && hasBehavioralFilter(c.filters));
  };
}

/** Active flags whose conditions name the cohort (reference: a cohort they use cannot be deleted). */
function flagsUsing(args: HandlerArgs, cohortId: number) {
  const names = (groups: unknown) => ((groups ?? []) as { properties?: Properties[] }[]).some((g) => (g.properties ?? []).some((p) => p.type === "cohort" && Number(p.value) === cohortId));
  return args.deps.store.flags.list(args.project.id).filter((f) => f.active && names(f.filters.groups));
}

function requireDeletable(args: HandlerArgs, cohort: CohortRecord): void {
  const flags = flagsUsing(args, cohort.id);
  if (!flags.length) return;
  throw fail.invalid(
    null,
    `This cohort is used in ${flags.length} active feature flag(s): ${flags.map((f) => f.name || f.key).join(", ")}. Please remove the cohort from these feature flags before deleting it.`,
  );
}

/** A cohort flags use may not gain a behavioural condition, directly or through a cohort it names. */
function requireNoBehavior(filters: Filters, others: readonly CohortRecord[]): void {
  if (hasBehavioralFilter(filters)) throw fail.invalid("filters", "Behavioral filters cannot be added to cohorts used in feature flags.", "behavioral_cohort_found");
  for (const id of referencedCohorts(filters)) {
    const found = behavioralCohortWithin(id, others);
    if (found) throw fail.invalid("filters", `A cohort dependency (${found.name}) has filters based on events. These cohorts can't be used in feature flags.`, "behavioral_cohort_found");
  }
}

/** A dynamic cohort's filters, checked; a static cohort's are kept as sent (the real service skips their checks). */
function checkedFilters(args: HandlerArgs, filters: Filters | undefined, isStatic: boolean, selfId: number | null): Filters | undefined {
  if (isStatic) return filters;
  if (filters === undefined) throw fail.required("filters");
  const others = args.deps.store.cohorts.list(args.project.id).filter((c) => c.id !== selfId);
  requireValidFilters(filters, others, selfId);
  if (selfId !== null && flagsUsing(args, selfId).length) requireNoBehavior(filters, others);
  return filters;
}

export const cohortHandlers = {
  cohorts_list: (args) => {
    const q = queryOf(args);
    const matches = args.deps.store.cohorts.list(args.project.id).filter(cohortMatcher(q));
    const page = listPage(args, matches);
    return reply(200, { ...page, results: page.results.map((c) => toCohortJson(c, args.deps.store)) });
  },

  cohorts_create: async (args) => {
    const input = writableFields<CohortInput & { name: string }>(args.c.request.requestBody, COHORT_WRITABLE);
    const isStatic = input.is_static ?? false;
    const filters = checkedFilters(args, input.filters, isStatic, null);
    const byUuid = personsByUuid(args, (bodyOf(args)._create_static_person_ids as string[] | undefined) ?? []).map((p) => p.id);
    const members = [...byUuid, ...csvMembers(args, isStatic)];
    const cohort = await args.deps.store.cohorts.create(args.project.id, { ...input, filters }, members, args.caller.user.id);
    return reply(201, toCohortJson(cohort, args.deps.store));
  },

  cohorts_retrieve: (args) => reply(200, toCohortJson(findCohort(args), args.deps.store)),

  cohorts_partial_update: async (args) => {
    const input = writableFields<CohortInput>(args.c.request.requestBody, COHORT_WRITABLE);
    const cohort = findCohort(args);
    if (input.deleted === true) requireDeletable(args, cohort);
    const isStatic = input.is_static ?? isStaticCohort(cohort);
    if (input.filters !== undefined || input.is_static === false) input.filters = checkedFilters(args, input.filters ?? cohort.filters, isStatic, cohort.id);
    const uploaded = input.deleted === true ? [] : csvMembers(args, isStatic);
    const members = args.deps.store.cohorts.resolved(args.project.id).find((c) => c.id === cohort.id)?.person_ids ?? [];
    const updated = await args.deps.store.cohorts.update(cohort, input, members, args.caller.user.id);
    if (uploaded.length) await args.deps.store.cohorts.addPersons(updated, uploaded, args.caller.user.id, "persons_added_from_csv");
    return reply(200, toCohortJson(updated, args.deps.store));
  },

  /** Hard deletes are refused with a bodiless 405, as the real service refuses them; soft delete is a PATCH. */
  cohorts_destroy: (args) => {
    findCohort(args);
    return reply(405);
  },

  cohorts_persons_retrieve: (args) => {
    const cohort = findCohort(args);
    const ids = args.deps.store.cohorts.resolved(args.project.id).find((c) => c.id === cohort.id)?.person_ids ?? [];
    const page = listPage(args, ids);
    const index = args.deps.store.analysisData.index(args.project.id);
    const lastSeen = lastSeenOf(args.deps.store, args.project.id);
    // The real endpoint's envelope has no count.
    return reply(200, { results: page.results.map((id) => toPersonJson(index.personsById.get(id)!, lastSeen)), next: page.next, previous: page.previous });
  },

  /** A cohort's log; a soft-deleted cohort keeps its log (the real service answers it too). */
  cohorts_activity_retrieve: (args) => {
    const id = Number((args.c.request.params as Q).id);
    if (!args.deps.store.cohorts.get(args.project.id, id, { includeDeleted: true })) throw fail.notFound();
    const entries = args.deps.store.activity.list(args.project.id, "Cohort", String(id));
    return reply(200, activityPage(entries, args.deps.store, args.url, Number(queryOf(args).limit ?? 10), Number(queryOf(args).page ?? 1)));
  },

  cohorts_all_activity_retrieve: (args) => {
    const entries = args.deps.store.activity.list(args.project.id, "Cohort");
    return reply(200, activityPage(entries, args.deps.store, args.url, Number(queryOf(args).limit ?? 10), Number(queryOf(args).page ?? 1)));
  },

  cohorts_add_persons_to_static_cohort_partial_update: async (args) => {
    const cohort = findCohort(args);
    requireStatic(cohort, "add users to");
    const persons = personsByUuid(args, bodyOf(args).person_ids as string[]);
    if (!persons.length) throw fail.invalid("person_ids", "No valid users to add to cohort");
    await args.deps.store.cohorts.addPersons(cohort, persons.map((p) => p.id), args.caller.user.id);
    return reply(200, { success: true });
  },

  cohorts_remove_person_from_static_cohort_partial_update: async (args) => {
    const cohort = findCohort(args);
    requireStatic(cohort, "remove users from");
    const [person] = personsByUuid(args, [String(bodyOf(args).person_id)]);
    if (!person) throw fail.notFound("Person with this UUID does not exist in the cohort's team");
    if (!(await args.deps.store.cohorts.removePerson(cohort, person.id, args.caller.user.id))) throw fail.notFound("Person is not part of the cohort");
    return reply(200, { success: true });
  },
} satisfies Record<string, Handler>;

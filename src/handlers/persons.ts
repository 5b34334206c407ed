import { fail } from "../core/errors.ts";
import { parseCallerJson } from "../http/json-depth.ts";
import { propertiesParam } from "../http/property-filters.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { recordProperties } from "../services/definitions.ts";
import { isPersonId } from "../store/persons-repo.ts";
import type { PersonRecord } from "../store/schema.ts";
import { activityPage } from "./activity-json.ts";
import { lastSeenOf } from "./person-last-seen.ts";
import { toPersonJson } from "./person-json.ts";
import { personTimeline } from "./person-timeline.ts";
import { listPage } from "./list-page.ts";

type Q = Record<string, unknown>;
const PERSON_FILTER_TYPES: ReadonlySet<string> = new Set(["person", "cohort"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const queryOf = (args: HandlerArgs) => args.c.request.query as Q;
const bodyOf = (args: HandlerArgs) => (args.c.request.requestBody ?? {}) as Q;
/** The Person JSON with `last_seen_at` from the project's events. */
const personJson = (args: HandlerArgs, person: PersonRecord) => toPersonJson(person, lastSeenOf(args.deps.store, args.project.id));

/** `$unset` as one key or a list of keys (as the real service's clients send it); empty is 400. */
function keysToUnset(raw: unknown): string[] {
  const keys = Array.isArray(raw) ? raw : [raw];
  if (keys.length === 0 || keys.some((k) => typeof k !== "string" || k === "")) throw fail.required("$unset");
  return keys as string[];
}

/** The persons a bulk delete names: by uuid or integer id, and by distinct id; unknown ones skipped, each once. */
function bulkTargets(args: HandlerArgs, body: { ids?: string[]; distinct_ids?: string[] }): PersonRecord[] {
  const { persons } = args.deps.store;
  const found = [
    ...(body.ids ?? []).map((id) => (isPersonId(id) ? persons.find(args.project.id, id) : undefined)),
    ...(body.distinct_ids ?? []).map((d) => persons.byDistinctId(args.project.id, d)),
  ];
  return [...new Set(found.filter((p): p is PersonRecord => p !== undefined))];
}

/** The person of the path: integer id or uuid; anything else is a 400 naming `id` (reference §4.2). */
function findPerson(args: HandlerArgs): PersonRecord {
  const id = String((args.c.request.params as Q).id);
  if (!isPersonId(id)) {
    throw fail.invalid("id", "The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=<value> instead.");
  }
  const person = args.deps.store.persons.find(args.project.id, id);
  if (!person) throw fail.notFound();
  return person;
}

function filterContext(args: HandlerArgs) {
  return { cohorts: args.deps.store.analysisData.cohorts(args.project.id), now: args.deps.clock.now(), timezone: args.project.timezone };
}

/** The list filters of reference §4.1: distinct_id and email exact, search, properties (person and cohort only), cohort. */
function personMatcher(args: HandlerArgs): (p: PersonRecord) => boolean {
  const q = queryOf(args);
  const matchesProperties = propertiesParam(q.properties, args.deps.schemas, filterContext(args), PERSON_FILTER_TYPES);
  const cohort = q.cohort === undefined ? null : args.deps.store.analysisData.cohorts(args.project.id).find((c) => c.id === q.cohort);
  if (q.cohort !== undefined && !cohort) throw fail.invalid("cohort", `Cohort ${String(q.cohort)} does not exist in this project.`);
  const term = typeof q.search === "string" ? q.search : null;
  return (p) => {
    if (typeof q.distinct_id === "string" && !p.distinct_ids.includes(q.distinct_id)) return false;
    if (typeof q.email === "string" && p.properties.email !== q.email) return false;
    if (cohort && !cohort.person_ids.includes(p.id)) return false;
    if (term !== null && !matchesSearch(p, term)) return false;
    return matchesProperties ? matchesProperties({ person: p }) : true;
  };
}

/** Email contains (case-insensitive), or a distinct id equals, or the uuid equals (reference §4.1). */
function matchesSearch(p: PersonRecord, term: string): boolean {
  const email = p.properties.email;
  if (typeof email === "string" && email.toLowerCase().includes(term.toLowerCase())) return true;
  if (p.distinct_ids.includes(term)) return true;
  return UUID.test(term) && p.uuid === term.toLowerCase();
}

/** A query-string value that looks like JSON keeps its type (`5`, `true`, `{"a":1}`); anything else is a string. */
function typedValue(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  try {
    return parseCallerJson(raw, "value");
  } catch (err) {
    if (err instanceof SyntaxError) return raw;
    throw err;
  }
}

const activityArgs = (q: Q) => [Number(q.limit ?? 10), Number(q.page ?? 1)] as const;

export const personHandlers = {
  persons_list: (args) => {
    const matches = args.deps.store.persons.list(args.project.id).filter(personMatcher(args));
    const page = listPage(args, matches);
    const lastSeen = lastSeenOf(args.deps.store, args.project.id);
    return reply(200, { ...page, results: page.results.map((p) => toPersonJson(p, lastSeen)) });
  },

  persons_retrieve: (args) => reply(200, personJson(args, findPerson(args))),

  /** Merges keys, never removes (reference §4.4); applied at once. */
  persons_partial_update: async (args) => {
    const person = findPerson(args);
    const { properties } = bodyOf(args) as { properties: Q };
    return reply(200, personJson(args, await args.deps.store.persons.edit(person, { set: properties }, "updated", args.caller.user.id)));
  },

  persons_update_property_create: async (args) => {
    const person = findPerson(args);
    const q = queryOf(args);
    const body = bodyOf(args);
    const key = q.key ?? body.key;
    if (typeof key !== "string" || key === "") throw fail.required("key");
    const hasValue = q.value !== undefined || Object.hasOwn(body, "value");
    if (!hasValue) throw fail.required("value");
    const value = q.value !== undefined ? typedValue(q.value) : body.value;
    return reply(200, personJson(args, await args.deps.store.persons.edit(person, { set: { [key]: value } }, "updated", args.caller.user.id)));
  },

  persons_delete_property_create: async (args) => {
    const person = findPerson(args);
    const keys = keysToUnset(queryOf(args).$unset ?? bodyOf(args).$unset);
    return reply(200, personJson(args, await args.deps.store.persons.edit(person, { unset: keys }, "delete_property", args.caller.user.id)));
  },

  persons_destroy: async (args) => {
    const person = findPerson(args);
    await args.deps.store.persons.remove(person, { deleteEvents: queryOf(args).delete_events === true, userId: args.caller.user.id });
    return reply(204);
  },

  /** Each named person deleted as by persons_destroy; with keep_person only its events' deletion is queued. */
  persons_bulk_delete_create: async (args) => {
    const body = bodyOf(args) as { ids?: string[]; distinct_ids?: string[]; delete_events?: boolean; keep_person?: boolean };
    if (!body.ids?.length && !body.distinct_ids?.length) throw fail.invalid("ids", "Either ids or distinct_ids must be given.");
    const deleteEvents = body.delete_events === true;
    for (const person of bulkTargets(args, body)) {
      if (body.keep_person === true) {
        if (deleteEvents) await args.deps.store.persons.queueEventDeletion(person);
      } else {
        await args.deps.store.persons.remove(person, { deleteEvents, userId: args.caller.user.id });
      }
    }
    return reply(202);
  },

  persons_split_create: async (args) => {
    const person = findPerson(args);
    const main = bodyOf(args).main_distinct_id;
    if (main !== undefined && !person.distinct_ids.includes(String(main))) {
      throw fail.invalid("main_distinct_id", `"${String(main)}" is not a distinct id of this person.`);
    }
    const keep = main === undefined ? person.distinct_ids[0]! : String(main);
    return reply(200, personJson(args, await args.deps.store.persons.split(person, keep, args.caller.user.id)));
  },

  persons_activity_retrieve: (args) => {
    const person = findPerson(args);
    const entries = args.deps.store.activity.list(args.project.id, "Person", String(person.id));
    return reply(200, activityPage(entries, args.deps.store, args.url, ...activityArgs(queryOf(args))));
  },

  persons_all_activity_retrieve: (args) => {
    const entries = args.deps.store.activity.list(args.project.id, "Person");
    return reply(200, activityPage(entries, args.deps.store, args.url, ...activityArgs(queryOf(args))));
  },

  /** Distinct values of one person property with the number of persons having each, most frequent first (reference §4.8). */
  /** The real service's `persons/properties/`: each key with the number of persons having it. */
  persons_properties_list: ({ deps, project }) =>
    reply(200, recordProperties(deps.store.persons.list(project.id).map((p) => p.properties)).map(({ name, count }) => ({ name, count }))),

  persons_values_retrieve: (args) => {
    const q = queryOf(args);
    const key = String(q.key);
    const term = typeof q.value === "string" ? q.value.toLowerCase() : null;
    const counts = new Map<string, number>();
    for (const person of args.deps.store.persons.list(args.project.id)) {
      const value = person.properties[key];
      if (value === undefined || value === null) continue;
      const name = typeof value === "object" ? JSON.stringify(value) : String(value);
      if (term !== null && !name.toLowerCase().includes(term)) continue;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    const values = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    return reply(200, values.map(([name, count]) => ({ name, count })));
  },

  /** Static cohorts (from the fixtures) containing the person; none is an empty list. */
  persons_cohorts_retrieve: (args) => {
    const personId = String(queryOf(args).person_id);
    if (!isPersonId(personId)) throw fail.invalid("person_id", "person_id must be an integer id or a uuid.");
    const person = args.deps.store.persons.find(args.project.id, personId);
    if (!person) throw fail.notFound();
    const cohorts = args.deps.store.analysisData.cohorts(args.project.id).filter((c) => c.person_ids.includes(person.id));
    return reply(200, { results: cohorts.map((c) => ({ id: c.id, name: c.name, count: c.person_ids.length })) });
  },

  persons_properties_timeline_retrieve: (args) => {
    const person = findPerson(args);
    return reply(200, personTimeline(person, args));
  },
} satisfies Record<string, Handler>;

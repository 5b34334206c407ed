import { randomUUID } from "node:crypto";
import { personUuid, stableUuid } from "../util/ids.ts";
import type { StoreCore } from "./core.ts";
import { nextDeletionRun, type DeletionSchedule } from "./deletion-schedule.ts";
import { indexPerson, unindexPerson, type ProjectIndex } from "./indexes.ts";
import type { ActivityChange, ActivityRecord, PersonRecord, Properties } from "./schema.ts";

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const normaliseUuid = (id: string) => id.toLowerCase().replace(/^(.{8})-?(.{4})-?(.{4})-?(.{4})-?(.{12})$/, "$1-$2-$3-$4-$5");

/** Persons: reads through the project index, writes to the persons file and the activity log. */
export function createPersonsRepo(core: StoreCore, schedule: DeletionSchedule) {
  const { dbs, meta, nowIso } = core;

  const activity = (person: PersonRecord, kind: string, userId: number, changes: ActivityChange[] | null): ActivityRecord => ({
    id: randomUUID(),
    project_id: person.project_id,
    scope: "Person",
    item_id: String(person.id),
    activity: kind,
    user_id: userId,
    detail: { name: person.uuid, short_id: null, changes, trigger: null, type: null },
    created_at: nowIso(),
  });

  async function saved(projectId: string, entries: ActivityRecord[], alsoMeta = false) {
    core.bump(projectId);
    await Promise.all([dbs.persons.write(), core.logActivity(entries), alsoMeta ? dbs.meta.write() : undefined]);
  }

  /** Capture's changes are journaled (src/store/persons-journal.ts): a batch does not rewrite the persons file. */
  function savedCapture(projectId: string, changed: PersonRecord[], removed: PersonRecord[] = [], alsoMeta = false): Promise<void> {
    core.bump(projectId);
    const journaled = dbs.journalPersons(changed, removed.map((p) => p.id));
    return Promise.all([journaled, alsoMeta ? dbs.meta.write() : undefined]).then(() => undefined);
  }

  /** Queues the deletion of all the person's events (all its distinct ids) for the next scheduled run. */
  function queueDeletion(person: PersonRecord) {
    const now = core.clock.now();
    meta().pending_deletions.push({
      project_id: person.project_id,
      person_uuid: person.uuid,
      distinct_ids: [...person.distinct_ids],
      requested_at: new Date(now).toISOString(),
      run_at: new Date(nextDeletionRun(now, schedule)).toISOString(),
    });
  }

  return {
    /** `created_at` descending, ties by uuid descending (reference: ingestion-persons-events §4.1). */
    list(projectId: string): PersonRecord[] {
      return [...core.indexOf(projectId).personsById.values()].sort(
        (a, b) => b.created_at.localeCompare(a.created_at) || b.uuid.localeCompare(a.uuid),
      );
    },
    /** By integer id or uuid; undefined when unknown. Callers check the shape of `id` first (isPersonId). */
    find(projectId: string, id: string): PersonRecord | undefined {
      const index = core.indexOf(projectId);
      return /^\d+$/.test(id) ? index.personsById.get(Number(id)) : index.personsByUuid.get(normaliseUuid(id));
    },
    byDistinctId: (projectId: string, distinctId: string) => core.indexOf(projectId).personsByDistinctId.get(distinctId),

    /** Sets keys (merging) and removes keys; one activity entry of `kind`. Returns the person. */
    async edit(person: PersonRecord, change: { set?: Properties; unset?: string[] }, kind: "updated" | "delete_property", userId: number) {
      const before = { ...person.properties };
      const next: Properties = { ...person.properties, ...change.set };
      for (const key of change.unset ?? []) delete next[key];
      person.properties = next;
      const changes: ActivityChange[] = [{ type: "Person", action: "changed", field: "properties", before, after: next }];
      await saved(person.project_id, [activity(person, kind, userId, changes)]);
      return person;
    },

    /** Removes the person and its distinct ids at once; queues its events' deletion for the next scheduled run. */
    async remove(person: PersonRecord, opts: { deleteEvents: boolean; userId: number }) {
      dbs.persons.data.persons = dbs.persons.data.persons.filter((p) => p !== person);
      unindexPerson(core.indexOf(person.project_id), person);
      if (opts.deleteEvents) queueDeletion(person);
      await saved(person.project_id, [activity(person, "deleted", opts.userId, null)], opts.deleteEvents);
    },

    /** Queues the deletion of the person's events (bulk delete with keep_person); the person stays. */
    async queueEventDeletion(person: PersonRecord) {
      queueDeletion(person);
      await dbs.meta.write();
    },

    /**
     * Capture's person writes (reference: ingestion-persons-events §3). Each changes the state at once, so the
     * rest of a capture request reads it synchronously, and resolves once written (the persons file's group
     * commit serves every write of one turn with one write). No activity entry: ingestion is not a user edit.
     */
    create(projectId: string, init: Pick<PersonRecord, "distinct_ids" | "properties" | "created_at" | "is_identified">, uuidFrom: string) {
      const index = core.indexFor(projectId);
      const person: PersonRecord = { id: ++meta().counters.person, project_id: projectId, uuid: freeUuid(index, projectId, uuidFrom), ...init };
      dbs.persons.data.persons.push(person);
      indexPerson(index, person);
      return { person, written: savedCapture(projectId, [person], [], true) };
    },
    /** New properties (already computed) and identification state. */
    update(person: PersonRecord, properties: Properties, isIdentified: boolean): Promise<void> {
      person.properties = properties;
      person.is_identified = isIdentified;
      return savedCapture(person.project_id, [person]);
    },
    /** Gives the person one more distinct id (a distinct id belongs to one person at a time). */
    addDistinctId(person: PersonRecord, distinctId: string): Promise<void> {
      if (!person.distinct_ids.includes(distinctId)) person.distinct_ids.push(distinctId);
      indexPerson(core.indexFor(person.project_id), person);
      return savedCapture(person.project_id, [person]);
    },
    /** `from` disappears into `into`, which takes the given distinct ids, properties and creation time and keeps its id and uuid. */
    merge(from: PersonRecord, into: PersonRecord, result: Pick<PersonRecord, "distinct_ids" | "properties" | "created_at">): Promise<void> {
      const index = core.indexFor(into.project_id);
      dbs.persons.data.persons = dbs.persons.data.persons.filter((p) => p !== from);
      unindexPerson(index, from);
      Object.assign(into, result, { is_identified: true });
      indexPerson(index, into);
      return savedCapture(into.project_id, [into], [from]);
    },

    /** Every distinct id but the kept one becomes a new person without properties (reference §4.6). */
    async split(person: PersonRecord, keep: string, userId: number) {
      const before = [...person.distinct_ids];
      const others = before.filter((d) => d !== keep);
      const index = core.indexOf(person.project_id);
      person.distinct_ids = [keep];
      for (const distinctId of others) {
        const created: PersonRecord = {
          id: ++meta().counters.person,
          project_id: person.project_id,
          uuid: freeUuid(index, person.project_id, distinctId),
          distinct_ids: [distinctId],
          properties: {},
          created_at: nowIso(),
          is_identified: false,
        };
        dbs.persons.data.persons.push(created);
        indexPerson(index, created);
      }
      indexPerson(index, person);
      // As the real service logs it: every distinct id the person had before the split (posthog/api/person.py, split).
      const changes: ActivityChange[] = [{ type: "Person", action: "split", field: null, before: null, after: { distinct_ids: before } }];
      await saved(person.project_id, [activity(person, "split_person", userId, changes)], true);
      return person;
    },
  };
}

/** The uuid derived from the distinct id, unless a person already has it (the original may have been created from it). */
function freeUuid(index: ProjectIndex, projectId: string, distinctId: string): string {
  const derived = personUuid(projectId, distinctId);
  return index.personsByUuid.has(derived) ? stableUuid(`split:${projectId}:${distinctId}`) : derived;
}

export const isPersonId = (id: string) => /^\d{1,15}$/.test(id) || UUID.test(id);

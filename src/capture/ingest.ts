/**
 * The write step of capture: groups, persons, then the events themselves (reference: ingestion-persons-events
 * §2.3, §3, §3.9). Every change is made synchronously, so concurrent requests never interleave inside one
 * batch; the caller is answered once everything is written.
 */
import type { EventRecord, ProjectRecord, Properties } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import type { NormalisedEvent } from "./normalise.ts";
import { planPerson, type PersonPlan } from "./persons-merge.ts";
import { isoUtc } from "../core/iso-time.ts";

const MAX_GROUP_KEY = 400;

const isObject = (v: unknown): v is Properties => v !== null && typeof v === "object" && !Array.isArray(v);

/** A group type's index, giving an unknown name the next free one (ensureType changes the state before it awaits). */
function groupIndex(store: Store, projectId: string, groupType: string, writes: Promise<unknown>[]): number | undefined {
  const known = store.groups.indexOf(projectId, groupType);
  if (known !== undefined) return known;
  writes.push(store.groups.ensureType(projectId, groupType));
  return store.groups.indexOf(projectId, groupType);
}

/** `$groupidentify` upserts the group; `$groups` on any event becomes `$group_N` (reference §2.3). */
function applyGroups(store: Store, projectId: string, e: NormalisedEvent, writes: Promise<unknown>[]): void {
  const p = e.properties;
  if (e.event === "$groupidentify" && typeof p.$group_type === "string" && typeof p.$group_key === "string" && p.$group_key.length <= MAX_GROUP_KEY) {
    const index = groupIndex(store, projectId, p.$group_type, writes);
    if (index !== undefined) writes.push(store.groups.upsert(projectId, index, p.$group_key, isObject(p.$group_set) ? p.$group_set : {}, new Date(e.timestamp).toISOString()));
  }
  if (!isObject(p.$groups)) return;
  for (const [groupType, key] of Object.entries(p.$groups)) {
    if (key === null || key === undefined || key === "") continue;
    const index = groupIndex(store, projectId, groupType, writes);
    if (index !== undefined) p[`$group_${index}`] = typeof key === "string" ? key : JSON.stringify(key);
  }
}

function applyPersonPlan(store: Store, projectId: string, plan: PersonPlan, writes: Promise<unknown>[]): void {
  const persons = store.persons;
  switch (plan.kind) {
    case "none":
      return;
    case "create": {
      const init = { distinct_ids: plan.distinct_ids, properties: plan.properties, created_at: plan.created_at, is_identified: plan.is_identified };
      writes.push(persons.create(projectId, init, plan.uuidFrom).written);
      return;
    }
    case "update":
      writes.push(persons.update(persons.find(projectId, String(plan.person.id))!, plan.properties, plan.is_identified));
      return;
    case "add_distinct_id": {
      const person = persons.find(projectId, String(plan.person.id))!;
      writes.push(persons.addDistinctId(person, plan.distinct_id), persons.update(person, plan.properties, true));
      return;
    }
    case "merge": {
      const from = persons.find(projectId, String(plan.from.id))!;
      const into = persons.find(projectId, String(plan.into.id))!;
      writes.push(persons.merge(from, into, { distinct_ids: plan.distinct_ids, properties: plan.properties, created_at: plan.created_at }));
      // The merged person's flag hash keys follow it (reference §5: overrides are re-pointed).
      writes.push(store.flags.moveHashKeyOverrides(projectId, from.uuid, into.uuid));
    }
  }
}

const toRecord = (projectId: string, e: NormalisedEvent): EventRecord => ({
  uuid: e.uuid,
  project_id: projectId,
  event: e.event,
  distinct_id: e.distinct_id,
  timestamp: e.timestamp,
  properties: e.properties,
  elements_chain: e.elements_chain,
});

/** Stores a validated batch in the token's project; resolves once on disk with the number of new events. */
export async function ingest(store: Store, project: ProjectRecord, events: readonly NormalisedEvent[]): Promise<number> {
  const projectId = project.id;
  const writes: Promise<unknown>[] = [];
  const records: EventRecord[] = [];
  const seen = new Set<string>();
  for (const e of events) {
    // SDK retries resend the same uuid: the second insert is the same event (reference §3.9).
    if (seen.has(e.uuid) || store.events.get(projectId, e.uuid)) continue;
    seen.add(e.uuid);
    applyGroups(store, projectId, e, writes);
    if (e.processPerson && e.event !== "$groupidentify") {
      const plan = planPerson((id) => store.persons.byDistinctId(projectId, id), { ...e, timestamp: isoUtc(e.timestamp) });
      applyPersonPlan(store, projectId, plan, writes);
    }
    records.push(toRecord(projectId, e));
  }
  writes.push(store.events.append(projectId, records));
  await Promise.all(writes);
  return records.length;
}

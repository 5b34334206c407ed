/**
 * Person processing as the real service's ingestion does it (reference: ingestion-persons-events §3.2–§3.5):
 * pure functions from (the persons the event's ids belong to, the event) to the one change to apply.
 */
import type { Properties } from "../store/schema.ts";

/** What the rules need to know about a stored person. */
export interface PersonView {
  id: number;
  distinct_ids: readonly string[];
  properties: Properties;
  /** ISO 8601 UTC. */
  created_at: string;
  is_identified: boolean;
}

export interface PropertyOps {
  set: Properties;
  setOnce: Properties;
  unset: string[];
}

/** The event as person processing sees it (after normalisation). */
export interface PersonEvent {
  event: string;
  distinct_id: string;
  uuid: string;
  /** ISO 8601 UTC, the corrected timestamp. */
  timestamp: string;
  properties: Properties;
  ops: PropertyOps;
}

export type PersonPlan =
  | { kind: "none"; warning?: string }
  | { kind: "create"; distinct_ids: string[]; uuidFrom: string; properties: Properties; created_at: string; is_identified: boolean; warning?: string }
  | { kind: "update"; person: PersonView; properties: Properties; is_identified: boolean; warning?: string }
  | { kind: "add_distinct_id"; person: PersonView; distinct_id: string; properties: Properties }
  | { kind: "merge"; from: PersonView; into: PersonView; distinct_ids: string[]; properties: Properties; created_at: string };

const BLOCKED_ANY_CASE = new Set(["anonymous", "guest", "distinctid", "distinct_id", "id", "not_authenticated", "email", "undefined", "true", "false"]);
const BLOCKED_EXACT = new Set(["[object Object]", "NaN", "None", "none", "null", "0", "undefined"]);

/** Ids that never take part in a merge, though they still get persons (reference §3.5). */
export function isIllegalMergeId(distinctId: string): boolean {
  const trimmed = distinctId.trim();
  if (trimmed === "") return true;
  const unquoted = /^(["'])(.*)\1$/.exec(trimmed)?.[2] ?? trimmed;
  return [trimmed, unquoted].some((id) => BLOCKED_ANY_CASE.has(id.toLowerCase()) || BLOCKED_EXACT.has(id));
}

/** Property values compare by value, except objects and arrays, which always count as changed (reference §3.3). */
const sameValue = (a: unknown, b: unknown) => a === b && (a === null || typeof a !== "object");

/**
 * `$set_once` only where the key is absent (a stored null is present), then `$set`, then `$unset`
 * (reference §3.3). `changed` is false when the result equals the input.
 */
export function applyPropertyOps(properties: Properties, ops: PropertyOps): { properties: Properties; changed: boolean } {
  const next: Properties = { ...properties };
  let changed = false;
  for (const [key, value] of Object.entries(ops.setOnce)) {
    if (Object.hasOwn(next, key)) continue;
    next[key] = value;
    changed = true;
  }
  for (const [key, value] of Object.entries(ops.set)) {
    if (Object.hasOwn(next, key) && sameValue(next[key], value)) continue;
    next[key] = value;
    changed = true;
  }
  for (const key of ops.unset) {
    if (!Object.hasOwn(next, key)) continue;
    delete next[key];
    changed = true;
  }
  return { properties: next, changed };
}

/** The id an identity event merges into the event's distinct id, if any (reference §3.4 table). */
export function mergeSource(event: Pick<PersonEvent, "event" | "properties">): { other: string; dangerous: boolean } | null {
  const p = event.properties;
  if (event.event === "$identify" && typeof p.$anon_distinct_id === "string") return { other: p.$anon_distinct_id, dangerous: false };
  if (event.event === "$create_alias" && typeof p.alias === "string") return { other: p.alias, dangerous: false };
  if (event.event === "$merge_dangerously" && typeof p.alias === "string") return { other: p.alias, dangerous: true };
  return null;
}

/** `$exception` and heatmap events never change person properties (reference §3.3). */
const NO_PROPERTY_UPDATES = new Set(["$exception", "$$heatmap"]);

/** A new person: `$set` beats `$set_once`; remembers the creating event (reference §3.2). */
function createPlan(event: PersonEvent, distinctIds: string[], uuidFrom: string, identified: boolean, warning?: string): PersonPlan {
  const { properties } = applyPropertyOps({}, event.ops);
  return { kind: "create", distinct_ids: distinctIds, uuidFrom, properties: { ...properties, $creator_event_uuid: event.uuid }, created_at: event.timestamp, is_identified: identified, ...(warning ? { warning } : {}) };
}

/** The event's property operations (and identification) on an existing person; "none" when nothing changes. */
function updatePlan(person: PersonView, event: PersonEvent, identify: boolean, warning?: string): PersonPlan {
  const ops = NO_PROPERTY_UPDATES.has(event.event) ? { set: {}, setOnce: {}, unset: [] } : event.ops;
  const { properties, changed } = applyPropertyOps(person.properties, ops);
  const isIdentified = person.is_identified || identify;
  if (!changed && isIdentified === person.is_identified) return warning ? { kind: "none", warning } : { kind: "none" };
  return { kind: "update", person, properties, is_identified: isIdentified, ...(warning ? { warning } : {}) };
}

/** Ids in the order they were first seen: the older person's first (the real service lists them by row id). */
const mergedIds = (a: PersonView, b: PersonView) => {
  const [first, second] = a.created_at <= b.created_at ? [a, b] : [b, a];
  return [...new Set([...first.distinct_ids, ...second.distinct_ids])];
};

/**
 * The change one event makes to persons (reference §3.2–§3.4). `lookup` finds the person a distinct id
 * belongs to. Personless events (`$process_person_profile: false`) never reach this function.
 */
export function planPerson(lookup: (distinctId: string) => PersonView | undefined, event: PersonEvent): PersonPlan {
  const into = event.distinct_id;
  const source = mergeSource(event);
  const target = lookup(into);
  if (!source || source.other === into) return target ? updatePlan(target, event, false) : createPlan(event, [into], into, false);
  const { other } = source;
  if (isIllegalMergeId(other) || isIllegalMergeId(into)) {
    const warning = "cannot_merge_with_illegal_distinct_id";
    return target ? updatePlan(target, event, false, warning) : createPlan(event, [into], into, false, warning);
  }
  const from = lookup(other);
  if (!from && !target) return createPlan(event, [into, other], into, true);
  if (from && !target) return withProperties({ kind: "add_distinct_id", person: from, distinct_id: into, properties: {} }, event);
  if (!from && target) return withProperties({ kind: "add_distinct_id", person: target, distinct_id: other, properties: {} }, event);
  if (from!.id === target!.id) return updatePlan(target!, event, true);
  if (from!.is_identified && !source.dangerous) return updatePlan(target!, event, false, "cannot_merge_already_identified");
  const base = { ...from!.properties, ...target!.properties };
  return {
    kind: "merge",
    from: from!,
    into: target!,
    distinct_ids: mergedIds(from!, target!),
    properties: applyPropertyOps(base, event.ops).properties,
    created_at: from!.created_at < target!.created_at ? from!.created_at : target!.created_at,
  };
}

function withProperties(plan: Extract<PersonPlan, { kind: "add_distinct_id" }>, event: PersonEvent): PersonPlan {
  return { ...plan, properties: applyPropertyOps(plan.person.properties, event.ops).properties };
}

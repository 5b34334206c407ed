import type { EventList, EventRecord, GroupRecord, GroupTypeRecord, Properties } from "../../store/schema.ts";
import type { Actor } from "./actors.ts";
import { reject } from "../../core/analysis-errors.ts";
import { isObject } from "./filter-read.ts";
import { eventProperty } from "../../core/event-read.ts";

/**
 * Group analytics (reference: analytics §1.1; ingestion-persons-events §2 item 3): an event belongs to the group
 * `properties.$groups[<group type name>]`, the name mapped to an index 0–4 by the project's group types. The real
 * service stores it as `$group_N`; an event that carries `$group_N` itself (written that way by hand) is read
 * too, `$groups` winning.
 */
export interface GroupData {
  types: readonly GroupTypeRecord[];
  groups: readonly GroupRecord[];
}

/** The group key of an event for one group type: undefined when the event is in no group of that type (empty = none). */
export type GroupKeyOf = (event: EventRecord) => string | undefined;

/** Each event's group of one type as a dense id (-1: in none), aligned with the events array it was built for. */
export interface GroupIds {
  events: EventList;
  ids: Int32Array;
  keys: string[];
  idOfKey: ReadonlyMap<string, number>;
}

export interface GroupLookup {
  keyOf(groupTypeIndex: number): GroupKeyOf;
  /** The dense group ids of `events` for one type, built once per lookup (that is, per data version). */
  idsOf(groupTypeIndex: number, events: EventList): GroupIds;
  /** The stored group, undefined when no group record exists (an event may name a group never identified). */
  record(groupTypeIndex: number, groupKey: string): GroupRecord | undefined;
}

const NO_GROUPS: GroupData = { types: [], groups: [] };
const lookups = new WeakMap<GroupData, GroupLookup>();

/** One lookup per group data (per analysis context): the name of each index and the records by key, built once. */
export function groupLookup(data: GroupData | undefined): GroupLookup {
  const source = data ?? NO_GROUPS;
  let lookup = lookups.get(source);
  if (!lookup) lookups.set(source, (lookup = buildLookup(source)));
  return lookup;
}

function buildLookup(data: GroupData): GroupLookup {
  const readers = new Map<number, GroupKeyOf>();
  const idTables = new Map<number, GroupIds>();
  let byKey: Map<string, GroupRecord> | undefined;
  const keyOf = (index: number) => {
    let reader = readers.get(index);
    if (!reader) readers.set(index, (reader = keyReader(data.types.find((t) => t.group_type_index === index)?.group_type, index)));
    return reader;
  };
  return {
    keyOf,
    idsOf(index, events) {
      let table = idTables.get(index);
      if (!table || table.events !== events || table.ids.length !== events.length) idTables.set(index, (table = denseIds(events, keyOf(index))));
      return table;
    },
    record(index, key) {
      byKey ??= new Map(data.groups.map((g) => [`${g.group_type_index}\u0001${g.group_key}`, g]));
      return byKey.get(`${index}\u0001${key}`);
    },
  };
}

/** Two property reads per event, no allocation: this runs once per scanned event of a group-aggregated analysis. */
function keyReader(name: string | undefined, index: number): GroupKeyOf {
  const column = `$group_${index}`;
  return (event) => {
    const groups = eventProperty(event, "$groups");
    let value = name !== undefined && isObject(groups) ? groups[name] : undefined;
    if (value === undefined || value === null) value = eventProperty(event, column);
    return value === undefined || value === null || value === "" ? undefined : String(value);
  };
}

/** One pass: the group key of every event, as dense ids (reading `$groups` per event per analysis was a group funnel's main cost). */
function denseIds(events: EventList, keyOf: GroupKeyOf): GroupIds {
  // In shared memory: scan workers read it in place (group-aggregated counts).
  const ids = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, events.length)), 0, events.length);
  const keys: string[] = [];
  const idOfKey = new Map<string, number>();
  for (let i = 0; i < events.length; i++) {
    const key = keyOf(events.at(i)!);
    if (key === undefined) {
      ids[i] = -1;
      continue;
    }
    let id = idOfKey.get(key);
    if (id === undefined) idOfKey.set(key, (id = keys.push(key) - 1));
    ids[i] = id;
  }
  return { events, ids, keys, idOfKey };
}

export type GroupPropertiesOf = (event: EventRecord | undefined) => Properties | undefined;

/** The properties of the event's group of one type: the group's current properties, undefined when it has none. */
export function groupPropertiesOf(lookup: GroupLookup, index: number): GroupPropertiesOf {
  const keyOf = lookup.keyOf(index);
  return (event) => {
    const key = event ? keyOf(event) : undefined;
    return key === undefined ? undefined : lookup.record(index, key)?.properties;
  };
}

/**
 * Group actors of one type: each group key is one actor with a dense slot; `person` stays undefined (person filters
 * use the event's person, not the actor), `group` names it. Events outside any group of the type have no actor
 * and drop out, as in the real service.
 */
export interface GroupActorOf {
  /** The actor of an event: read from the dense ids when `position` (in the events the resolver was made for) is given. */
  (event: EventRecord, position?: number): Actor | undefined;
  count(): number;
}

export function groupActorResolver(lookup: GroupLookup, index: number, events: EventList): GroupActorOf {
  const { ids, keys, idOfKey } = lookup.idsOf(index, events);
  const keyOf = lookup.keyOf(index);
  const byId: (Actor | undefined)[] = [];
  let count = 0;
  const idOf = (event: EventRecord, position: number | undefined): number => {
    if (position !== undefined) return ids[position]!;
    const key = keyOf(event);
    return key === undefined ? -1 : (idOfKey.get(key) ?? -1);
  };
  const resolve = (event: EventRecord, position?: number): Actor | undefined => {
    const id = idOf(event, position);
    if (id < 0) return undefined;
    let actor = byId[id];
    if (!actor) byId[id] = actor = { id: count + 1, person: undefined, slot: count++, group: { index, key: keys[id]! } };
    return actor;
  };
  return Object.assign(resolve, { count: () => count });
}

/** A group type index as filters carry it (number or numeric string); undefined when absent or not one of 0–4. */
export function groupTypeIndexOf(value: unknown): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const index = Number(value);
  return Number.isInteger(index) && index >= 0 && index <= 4 ? index : undefined;
}

/**
 * `breakdown_type: "group"`: the value is a property of the event's group of `breakdown_group_type_index`, read from
 * the group record (its current properties); an event outside such a group, or a group without the property, has
 * the null value. The index is required (400 naming it).
 */
export function groupBreakdownSource(value: unknown, attr: string, ctx: { groups?: GroupData }): GroupPropertiesOf {
  const index = groupTypeIndexOf(value);
  if (index === undefined) throw reject.invalid(attr, "A group breakdown needs a group type index from 0 to 4.");
  return groupPropertiesOf(groupLookup(ctx.groups), index);
}

import type { PersonRecord } from "../../store/schema.ts";
import type { Actor } from "./actors.ts";

/**
 * Every distinct id of an event table resolved to its actor once per data version: `slotOfDid[d]` is the actor
 * slot of distinct-id id `d`, in shared memory so that scan workers read it in place, and `actors[slot]` the actor.
 * Slots follow distinct-id ids, not the order a scan meets the actors: callers that need that order keep it.
 */
export interface ActorTable {
  slotOfDid: Int32Array;
  actors: Actor[];
}

export interface DistinctIds {
  distinctIdOfId(id: number): string;
}

/** Resolves the first `count` distinct ids of `ids` (merged ids share one actor; an unknown id is its own actor). */
export function buildActorTable(ids: DistinctIds, count: number, personOf: (distinctId: string) => PersonRecord | undefined): ActorTable {
  const slotOfDid = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, count)));
  const actors: Actor[] = [];
  const slotOfPerson = new Map<number, number>();
  for (let d = 0; d < count; d++) {
    const person = personOf(ids.distinctIdOfId(d));
    let slot = person ? slotOfPerson.get(person.id) : undefined;
    if (slot === undefined) {
      slot = actors.length;
      actors.push({ id: person ? person.id : -1 - d, person, slot });
      if (person) slotOfPerson.set(person.id, slot);
    }
    slotOfDid[d] = slot;
  }
  return { slotOfDid, actors };
}

/** What an analysis context offers for the table (context.ts): its cached table, and who owns a distinct id. */
export interface ActorTableSource {
  actorTable?: (ids: DistinctIds, count: number) => ActorTable;
  personOf(distinctId: string): PersonRecord | undefined;
}

/** The context's cached table when it covers `count` ids, else one built now. */
export function actorTableOf(ctx: ActorTableSource, ids: DistinctIds, count: number): ActorTable {
  const cached = ctx.actorTable?.(ids, count);
  return cached && cached.slotOfDid.length >= count ? cached : buildActorTable(ids, count, ctx.personOf);
}

const partTables = new WeakMap<ActorTable, Map<number, Uint8Array>>();

/**
 * Per distinct id, the part of `parts` its actor falls in (slot mod parts), one byte each in shared memory: a part's
 * scan tests it on every row it might keep, and a table a quarter the size of the slots' stays in the cache.
 */
export function partOfDid(table: ActorTable, parts: number): Uint8Array {
  let byParts = partTables.get(table);
  if (!byParts) partTables.set(table, (byParts = new Map()));
  let part = byParts.get(parts);
  if (!part) {
    part = new Uint8Array(new SharedArrayBuffer(Math.max(1, table.slotOfDid.length)));
    for (let d = 0; d < table.slotOfDid.length; d++) part[d] = table.slotOfDid[d]! % parts;
    byParts.set(parts, part);
  }
  return part;
}

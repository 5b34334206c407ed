import type { EventList, EventRecord } from "../../store/schema.ts";
import type { Actor, ActorOf } from "./actors.ts";
import type { EventMatcher } from "./entity-match.ts";
import { ALWAYS } from "./property-filter.ts";
import { isColumnar, timestampAt, type EventColumns } from "./event-read.ts";

/** Index of the first event with timestamp ≥ ts (events are sorted ascending). */
export function firstAtOrAfter(events: EventList, ts: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timestampAt(events, mid) < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Half-open index range [start, end) of the events with from ≤ timestamp ≤ to: a binary search, no scan. */
export function indexRange(events: EventList, from: number, to: number): [number, number] {
  const start = firstAtOrAfter(events, from);
  const end = Number.isFinite(to) ? firstAtOrAfter(events, to + 1) : events.length;
  return [start, Math.max(start, end)];
}

/**
 * Visits the events in [from, to] that the matcher accepts, with their actor: the event-name test runs
 * before the actor lookup and the compiled property filters. Shared by every analysis. `transient`: the
 * visitor keeps nothing of the event after its call (no reference, only values read from it), so a column
 * table may hand it one moving row instead of an object per event.
 */
export function forEachMatch(
  events: EventList,
  range: { from: number; to: number },
  matcher: EventMatcher,
  actorOf: ActorOf,
  visit: (event: EventRecord, actor: Actor) => void,
  transient = false,
): void {
  const [start, end] = indexRange(events, range.from, range.to);
  if (isColumnar(events)) return forEachColumnMatch(events, start, end, matcher, actorOf, visit, transient);
  const { names, rest } = matcher;
  for (let i = start; i < end; i++) {
    const event = events.at(i)!;
    if (names !== null && !names.has(event.event)) continue;
    const actor = actorOf(event.distinct_id);
    if (rest(event, actor.person)) visit(event, actor);
  }
}

/**
 * The same over a column table: the name is tested on its id and the actor looked up once per distinct id,
 * so an event that fails the name test costs two array reads and no object.
 */
function forEachColumnMatch(
  events: EventColumns,
  start: number,
  end: number,
  matcher: EventMatcher,
  actorOf: ActorOf,
  visit: (event: EventRecord, actor: Actor) => void,
  transient: boolean,
): void {
  const { names, rest } = matcher;
  const cols = events.scanColumns();
  const wanted = names === null ? null : new Uint8Array(cols.names);
  if (wanted) for (const name of names!) {
    const id = events.nameIdOf(name);
    if (id !== undefined) wanted[id] = 1;
  }
  const actors: (Actor | undefined)[] = new Array(cols.distinctIds).fill(undefined);
  const { name, did } = cols;
  const cursor = transient ? events.cursor() : null;
  for (let i = start; i < end; i++) {
    if (wanted !== null && wanted[name[i]!] === 0) continue;
    const d = did[i]!;
    const actor = (actors[d] ??= actorOf(events.distinctIdOfId(d)));
    let event: EventRecord;
    if (cursor) {
      cursor.position = i;
      event = cursor;
    } else event = events.at(i)!;
    if (rest === ALWAYS || rest(event, actor.person)) visit(event, actor);
  }
}

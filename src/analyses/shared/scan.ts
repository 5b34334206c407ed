import type { EventRecord } from "../../store/schema.ts";
import type { Actor, ActorOf } from "./actors.ts";
import type { EventMatcher } from "./entity-match.ts";

/** Index of the first event with timestamp ≥ ts (events are sorted ascending). */
export function firstAtOrAfter(events: readonly EventRecord[], ts: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid]!.timestamp < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Half-open index range [start, end) of the events with from ≤ timestamp ≤ to: a binary search, no scan. */
export function indexRange(events: readonly EventRecord[], from: number, to: number): [number, number] {
  const start = firstAtOrAfter(events, from);
  const end = Number.isFinite(to) ? firstAtOrAfter(events, to + 1) : events.length;
  return [start, Math.max(start, end)];
}

/**
 * Visits the events in [from, to] that the matcher accepts, with their actor: the event-name test runs
 * before the actor lookup and the compiled property filters. Shared by every analysis.
 */
export function forEachMatch(
  events: readonly EventRecord[],
  range: { from: number; to: number },
  matcher: EventMatcher,
  actorOf: ActorOf,
  visit: (event: EventRecord, actor: Actor) => void,
): void {
  const [start, end] = indexRange(events, range.from, range.to);
  const { names, rest } = matcher;
  for (let i = start; i < end; i++) {
    const event = events[i]!;
    if (names !== null && !names.has(event.event)) continue;
    const actor = actorOf(event.distinct_id);
    if (rest(event, actor.person)) visit(event, actor);
  }
}

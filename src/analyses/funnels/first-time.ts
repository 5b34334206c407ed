import type { EventList, EventRecord, PersonRecord } from "../../store/schema.ts";
import type { ActorOf } from "../shared/actors.ts";
import type { EventMatcher } from "../shared/entity-match.ts";
import type { SeriesEntity } from "../shared/series.ts";

/** Step maths that let a step match one event per person: its first (PostHog BaseMathType / FunnelMathType). */
const FIRST_TIME_MATHS: ReadonlySet<string> = new Set(["first_time_for_user", "first_matching_event_for_user"]);

export const isFirstTimeStep = (entity: Pick<SeriesEntity, "math">): boolean => entity.math !== undefined && FIRST_TIME_MATHS.has(entity.math);

/** A person's key: its id, or the distinct id of an event without a person. */
const keyOf = (event: EventRecord, person: PersonRecord | undefined): string => (person ? `p${person.id}` : `d${event.distinct_id}`);

/**
 * A first-time step (test_funnel.py::test_first_time_for_user_funnel_*): first_time_for_user matches only the
 * person's first event ever (every distinct id, before the date range too) of the step's event or action, and
 * only if that event passes the step's properties; first_matching_event_for_user the person's first event that
 * passes them. `matcher` is the step's, `bare` the same without the step's own properties.
 */
export function firstTimeMatcher(entity: SeriesEntity, matcher: EventMatcher, bare: EventMatcher, events: EventList, actorOf: ActorOf): EventMatcher {
  const criterion = entity.math === "first_time_for_user" ? bare : matcher;
  const first = new Map<string, string>();
  // Events are stored in time order: the first one found is the earliest.
  for (let i = 0; i < events.length; i++) {
    const event = events.at(i)!;
    if (criterion.names !== null && !criterion.names.has(event.event)) continue;
    const person = actorOf(event.distinct_id)?.person;
    const key = keyOf(event, person);
    if (first.has(key) || !criterion.rest(event, person)) continue;
    first.set(key, event.uuid);
  }
  return { names: matcher.names, rest: (event, person) => event !== undefined && first.get(keyOf(event, person)) === event.uuid && matcher.rest(event, person) };
}

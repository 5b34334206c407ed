import type { EventRecord, PersonRecord } from "../store/schema.ts";
import { parseElementsChain } from "../util/elements-chain.ts";
import { sortedDistinctIds } from "./person-json.ts";

const PERSON_KEYS_ON_EVENTS = ["email", "name", "username"] as const;

/** The person summary on an event: only its first distinct id and its email/name/username (reference §5.1). */
function eventPerson(person: PersonRecord | undefined) {
  if (!person) return null;
  const properties: Record<string, unknown> = {};
  for (const key of PERSON_KEYS_ON_EVENTS) if (person.properties[key] !== undefined) properties[key] = person.properties[key];
  return { is_identified: person.is_identified, distinct_ids: sortedDistinctIds(person.distinct_ids).slice(0, 1), properties };
}

/** The Event representation: properties as an object, ISO UTC timestamp, elements parsed from the chain. */
export function toEventJson(event: EventRecord, person: PersonRecord | undefined) {
  return {
    id: event.uuid,
    distinct_id: event.distinct_id,
    properties: event.properties,
    event: event.event,
    timestamp: new Date(event.timestamp).toISOString(),
    person: eventPerson(person),
    elements: parseElementsChain(event.elements_chain),
    elements_chain: event.elements_chain,
  };
}

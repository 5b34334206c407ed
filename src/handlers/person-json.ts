import { looksAnonymous } from "../util/ids.ts";
import type { PersonRecord } from "../store/schema.ts";

/** Display-name properties, in the real service's default order (reference: ingestion-persons-events §4.3). */
const NAME_PROPERTIES = ["email", "Email", "$email", "name", "Name", "username", "Username", "UserName"] as const;

/** Distinct ids with the non-anonymous-looking ones first, otherwise stable. */
export const sortedDistinctIds = (ids: readonly string[]): string[] =>
  [...ids].sort((a, b) => Number(looksAnonymous(a)) - Number(looksAnonymous(b)));

/** First non-empty name property, else the first distinct id (anonymous-looking last), else the id. */
export function personName(person: PersonRecord): string {
  for (const key of NAME_PROPERTIES) {
    const value = person.properties[key];
    if (value !== undefined && value !== null && String(value) !== "") return String(value);
  }
  return sortedDistinctIds(person.distinct_ids)[0] ?? String(person.id);
}

/** The Person representation of the spec (integer id), plus is_identified and last_seen_at (from `lastSeen`). */
export function toPersonJson(person: PersonRecord, lastSeen: (person: PersonRecord) => string | null) {
  return {
    id: person.id,
    uuid: person.uuid,
    name: personName(person),
    distinct_ids: sortedDistinctIds(person.distinct_ids),
    properties: person.properties,
    created_at: person.created_at,
    is_identified: person.is_identified,
    last_seen_at: lastSeen(person),
  };
}

/** The actor shape of the persons analysis endpoints (reference: ingestion-persons-events §4.9). */
export function toActorJson(person: PersonRecord) {
  return {
    type: "person" as const,
    id: person.uuid,
    uuid: person.uuid,
    name: personName(person),
    distinct_ids: sortedDistinctIds(person.distinct_ids),
    properties: person.properties,
    created_at: person.created_at,
    is_identified: person.is_identified,
    matched_recordings: [],
    value_at_data_point: null,
  };
}

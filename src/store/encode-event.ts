import type { EncodedEvent } from "./columns/column-arrays.ts";
import type { EventDictionaries } from "./columns/dictionaries.ts";
import type { EventRecord } from "./schema.ts";

/** An event as the ids a table's row holds, its strings and values added to the dictionaries when new. `seq`: the log number of its batch. */
export function encodeEvent(dict: EventDictionaries, event: EventRecord, seq: number): EncodedEvent {
  const keyIds: number[] = [];
  const values: number[] = [];
  const props = event.properties;
  for (const key in props) {
    const value = props[key];
    if (value === undefined) continue;
    keyIds.push(dict.keys.id(key));
    values.push(dict.values.id(value));
  }
  return {
    ts: event.timestamp,
    name: dict.names.id(event.event),
    did: dict.distinctIds.id(event.distinct_id),
    uuid: dict.uuidWords(event.uuid),
    chain: dict.chains.id(event.elements_chain ?? ""),
    shape: dict.shapeId(keyIds),
    values,
    seq,
  };
}

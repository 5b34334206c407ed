import { eventProperty } from "../core/event-read.ts";
import { parseAbsolute } from "../core/date-parse.ts";
import { isVirtualPersonProperty, personPropertyValue } from "../core/person-property-read.ts";
import { reject } from "../core/analysis-errors.ts";
import { MATERIALIZED_PROPERTIES, rawText } from "../core/property-text.ts";
import type { Compiled, HogqlEnv } from "./evaluate.ts";
import type { Value } from "./values.ts";

const MATERIALIZED = new Set<string>(MATERIALIZED_PROPERTIES);
const FLOAT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A property as HogQL reads it (printer.py; our printer's scope.ts `propertySql`): the raw JSON text of the value,
 * one pair of quotes removed, where a missing key and JSON null are NULL. A materialised property (`$browser`…)
 * is read from its column, where "" and "null" are NULL too. Deeper keys (`properties.a.b`) dig into objects, a
 * number into a list (1-based).
 */
function propertyText(value: unknown, path: readonly string[], materialized: boolean): string | null {
  let v = value;
  for (const key of path) {
    if (Array.isArray(v) && /^\d+$/.test(key)) v = v[Number(key) - 1];
    else v = v !== null && typeof v === "object" && !Array.isArray(v) && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
  }
  if (v === undefined || v === null) return null;
  const text = rawText(v);
  return materialized && (text === "" || text === "null") ? null : text;
}

/** Property definitions' types (PostHog `transforms/property_types.py`): Numeric, Boolean, DateTime; String as read. */
export function typedProperty(text: string | null, type: string | undefined, timezone: string): Value {
  if (text === null || type === undefined || type === "String") return text;
  if (type === "Numeric") return toFloat64OrNull(text);
  if (type === "Boolean") return text === "true" ? true : text === "false" ? false : null;
  if (type === "DateTime") return parseDateTime(text, timezone);
  return text;
}

/** ClickHouse's `accurateCastOrNull(text, 'Float64')`: a decimal number written in full, else NULL. */
export const toFloat64OrNull = (text: string): number | null => (FLOAT_TEXT.test(text) ? Number(text) : null);

/** `parseDateTime64BestEffortOrNull(text, 6, zone)` for the forms ingestion sees: ISO 8601 dates and date-times. */
export function parseDateTime(text: string, timezone: string): Date | null {
  const parsed = parseAbsolute(text, timezone);
  return parsed ? new Date(parsed.ms) : null;
}

/** The events table's fields, with property reads typed by the project's property definitions. */
export function eventFields(env: HogqlEnv): (chain: string[], attr: string) => Compiled {
  const timezone = env.timezone ?? "UTC";
  const eventTypes = env.propertyTypes?.event ?? {};
  const personTypes = env.propertyTypes?.person ?? {};
  const typed = (path: string[], types: Record<string, string>) => (path.length === 1 && Object.hasOwn(types, path[0]!) ? types[path[0]!] : undefined);
  return (chain, attr) => {
    const [head, ...rest] = chain;
    switch (head) {
      case "event":
      case "distinct_id":
      case "uuid":
      case "elements_chain":
        if (rest.length === 0) return ({ event }) => event[head];
        break;
      case "timestamp":
        if (rest.length === 0) return ({ event }) => new Date(event.timestamp);
        break;
      case "properties": {
        // The whole column is the JSON text the store's mirror holds.
        if (rest.length === 0) return ({ event }) => JSON.stringify(event.properties);
        const [key, ...deeper] = rest as [string, ...string[]];
        const type = typed(rest, eventTypes);
        const materialized = MATERIALIZED.has(key);
        return ({ event }) => typedProperty(propertyText(eventProperty(event, key), deeper, materialized && deeper.length === 0), type, timezone);
      }
      case "person_id":
        if (rest.length === 0) return ({ person }) => person?.uuid ?? null;
        break;
      case "person":
        return personField(rest, chain, attr, (path) => typed(path, personTypes), timezone);
    }
    throw reject.invalid(attr, `Unknown HogQL field "${chain.join(".")}" for events.`);
  };
}

function personField(rest: string[], chain: string[], attr: string, typeOf: (path: string[]) => string | undefined, timezone: string): Compiled {
  if (rest[0] === "properties" && rest.length === 1) return ({ person }) => (person ? JSON.stringify(person.properties) : null);
  if (rest[0] === "properties" && rest.length > 1) {
    const path = rest.slice(1);
    const type = typeOf(path);
    return ({ person }) => typedProperty(person ? propertyText(person.properties, path, false) : null, type, timezone);
  }
  if (rest[0] === "created_at" && rest.length === 1) return ({ person }) => (person ? new Date(person.created_at) : null);
  if (rest[0] === "id" && rest.length === 1) return ({ person }) => person?.uuid ?? null;
  // A virtual field of persons (`person.$virt_initial_channel_type`), derived as the breakdowns and filters derive it.
  if (rest.length === 1 && isVirtualPersonProperty(rest[0]!)) {
    const key = rest[0]!;
    return ({ person }) => (person ? (personPropertyValue(person, key) as Value) : null);
  }
  throw reject.invalid(attr, `Unknown HogQL field "${chain.join(".")}" for events.`);
}

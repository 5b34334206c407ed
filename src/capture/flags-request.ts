/**
 * A `/flags` or `/decide` request as the client libraries send it: a JSON (or base64/gzip, as capture) body
 * `{token, distinct_id, groups, person_properties, group_properties, $anon_distinct_id, flag_keys_to_evaluate}`,
 * or the same fields in the query string of the GET form.
 */
import type { Properties } from "../store/schema.ts";
import type { FlagsRequest } from "../services/feature-flags.ts";
import { fail } from "../core/errors.ts";

type Loose = Record<string, unknown>;

const isObject = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v);

/** A request field: the body's when the body has it, else the query string's. */
type FieldReader = (name: string) => unknown;

/** A value that may come JSON-encoded (query strings) or as JSON already (bodies). */
function objectField(field: FieldReader, name: string): Loose {
  let value = field(name);
  if (typeof value === "string" && value !== "") {
    try {
      value = JSON.parse(value);
    } catch {
      throw fail.invalid(name, `${name} must be a JSON object.`);
    }
  }
  if (value === undefined || value === null || value === "") return {};
  if (!isObject(value)) throw fail.invalid(name, `${name} must be a JSON object.`);
  return value;
}

const scalarText = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined);

/** The request's fields; a missing distinct id is a 400, as the real flags service answers it. */
export function flagsRequestOf(body: unknown, query: Record<string, string | undefined>): FlagsRequest {
  // Read field by field: a merged copy of body and query cost more than reading the few fields.
  const fromBody = isObject(body) ? body : {};
  const field: FieldReader = (name) => (Object.prototype.hasOwnProperty.call(fromBody, name) ? fromBody[name] : query[name]);
  const distinctId = scalarText(field("distinct_id"));
  if (distinctId === undefined || distinctId === "") throw fail.invalid("distinct_id", "The distinct_id field is missing");
  const groups: Record<string, string> = {};
  for (const [type, key] of Object.entries(objectField(field, "groups"))) {
    const text = scalarText(key);
    if (text !== undefined) groups[type] = text;
  }
  const groupProperties: Record<string, Properties> = {};
  for (const [type, props] of Object.entries(objectField(field, "group_properties"))) if (isObject(props)) groupProperties[type] = props;
  const anon = scalarText(field("$anon_distinct_id"));
  const keys = field("flag_keys_to_evaluate");
  return {
    distinctId,
    anonDistinctId: anon === "" ? undefined : anon,
    groups,
    personProperties: objectField(field, "person_properties"),
    groupProperties,
    flagKeys: Array.isArray(keys) ? keys.map(String) : undefined,
  };
}

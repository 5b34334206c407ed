/**
 * An event property as ClickHouse holds it: the raw JSON text the real service reads a property as, and the
 * properties it materialises into columns of their own. The mirror writes with these (src/sql-engine/mirror/)
 * and HogQL's in-process evaluation reads with them (src/hogql/event-fields.ts), so both read a value alike.
 */

/**
 * Event properties that get a column of their own (`mat_<key>`), as the real service materialises hot
 * properties: the same expression (`replaceRegexpAll(JSONExtractRaw(properties, key), '^"|"$', '')`), so a read
 * prints as `nullIf(nullIf(events.\`mat_$browser\`, ''), 'null')` there and here. A breakdown reads the column many
 * times faster than JSONExtractRaw (bench/sql-engine.ts).
 */
export const MATERIALIZED_PROPERTIES = ["$browser", "$os", "$device_type", "$current_url", "$pathname", "$host", "$referring_domain", "$lib", "$screen_name"] as const;

/** What ClickHouse escapes when it writes a JSON string back: quote, backslash, controls, U+2028/9, surrogates. */
const NEEDS_JSON_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A string's JSON text without quotes, as ClickHouse's JSONExtractRaw writes it (upper-case \u00XX, \u2028 escaped). */
function jsonStringBody(s: string): string {
  return s.replace(/["\\\u0000-\u001f\u2028\u2029]/g, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
}

/**
 * What the real service materialises a property as: `replaceRegexpAll(JSONExtractRaw(properties, key), '^"|"$',
 * '')` over the properties' JSON, computed here from the value (a string's escaped text without its quotes, any
 * other value's JSON, "" when absent) so that ClickHouse need not parse the JSON once per column. A test holds it
 * against ClickHouse's expression. Known difference: ClickHouse writes numbers back from their parsed value, so
 * a number of 1e21 or more reads `1e21` there and `1e+21` here, and one beyond 64 bits reads "" there.
 */
export function rawText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return NEEDS_JSON_ESCAPE.test(value) ? jsonStringBody(value) : value;
  return clickhouseJson(JSON.stringify(value)).replace(/^"|"$/g, "");
}

/** JSON text with its escapes written as ClickHouse writes them (JSON.stringify writes \u001f, leaves U+2028 raw). */
function clickhouseJson(json: string): string {
  if (!/\\u|[\u2028\u2029]/.test(json)) return json;
  return json
    .replace(/\\(?:["\\/bfnrt]|u([0-9a-f]{4}))/g, (escape, hex: string | undefined) => (hex === undefined ? escape : `\\u${hex.toUpperCase()}`))
    .replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

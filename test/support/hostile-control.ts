import fc from "fast-check";
import { EXTREME_NUMBERS, HUGE_STRINGS, rawMarker, type Hints } from "./hostile-arbitraries.ts";
import { PROJECT_TOKENS } from "./hostile-capture.ts";
import type { RawRequest } from "./hostile-http.ts";
import { OWNER_KEY } from "./server.ts";

/**
 * Values for the control API's fields (openapi/control.yaml) that its code must bound: clock instants and
 * steps at the ends of the Date range, globs that make a backtracking matcher explode, statuses and counts
 * out of range. Delays stay short: a valid override delays the product requests sent beside the fuzzing.
 */
export function controlHints(productOperationIds: readonly string[]): Hints {
  const rawExtremes = fc.constantFrom(0, 1, 2, 3, 7).map(rawMarker);
  return {
    seconds: fc.oneof(
      fc.constantFrom(0, 1, 60, 3.5, 604_800, 86_400 * 365),
      fc.constantFrom(...EXTREME_NUMBERS, 1e20, 8.64e12, 2.6e11, 1e15, "1e300", "Infinity", "NaN", "-0"),
      rawExtremes,
    ),
    now: fc.constantFrom(
      "2024-03-05T12:00:00Z", "2024-03-10T05:00:00Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z", "0000-01-01T00:00:00Z",
      "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59-23:59", "0000-01-01T00:00:00+23:59", "2024-02-30T00:00:00Z",
      "+275760-09-13T00:00:00Z", "2024-03-05T12:00:00.123456789Z", "1e300",
    ),
    frozen: fc.constantFrom(false, true, "false", 0),
    path: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom("/api/projects/*/insights/**", "/api/projects/1/insights/", "**", "*", "/api/**", "/api/projects/*/insights/trend", "", "/", "/e/", "/batch") },
      { weight: 2, arbitrary: fc.constantFrom(...HUGE_STRINGS, "**".repeat(25_000) + "x", "*/".repeat(20_000) + "x", "*a".repeat(25_000), "/**/*".repeat(8_000) + "!") },
      { weight: 1, arbitrary: fc.constantFrom("(a+)+$", "[", "\\", "?", "{a,b}", "\u0000", "%2F", "/api/projects/(1)/", "$^", ".*.*.*.*.*.*=") },
    ),
    method: fc.constantFrom("GET", "post", "Patch", "", "💩", "GET ".repeat(1000)),
    operation_id: fc.oneof(fc.constantFrom(...productOperationIds), fc.constantFrom("nope", "__proto__", "", "toString")),
    status: fc.constantFrom(200, 201, 204, 400, 404, 500, 599, 600, 99, 0, -1, 1e300, 2 ** 53 + 1, 200.5),
    delay_ms: fc.constantFrom(0, 1, 5, 30_001, -1, 1e300, 2 ** 53 + 1, 0.5),
    times: fc.constantFrom(1, 2, 1000, 1001, 0, 1e300, 2 ** 53 + 1),
    // No "reset" among the faults: a dropped connection of a background request would read as a hang-up.
    fault_rate: fc.constantFrom(0.5, 1, 0, -0.1, 1.5, 1e300, "NaN"),
    faults: fc.constantFrom(["500"], ["500", "503"], [], ["bogus"], ["500", "500"], "500"),
    seed: fc.constantFrom(0, 1, 7, -1, 2 ** 53 + 1, 1e300, 0.5),
    retry_after: fc.constantFrom(0, 1, 3600, 3601, -1, 1e300, 0.5),
    name: fc.constantFrom("basic", "capture", "nope", "__proto__", "toString", "..%2Fpackage", "constructor", ""),
    // A wait lasts up to timeout_ms: valid ones stay short so that the fuzzer never sits out a minute.
    timeout_ms: fc.constantFrom(0, 1, 20, 60_001, -1, 1e300, 2 ** 53 + 1, 0.5),
    count: fc.constantFrom(1, 2, 10_000, 10_001, 0, -1, 1e300),
    limit: fc.constantFrom(1, 100, 1e300, 2 ** 53 + 1, 0, -1, "Infinity", "NaN", 1.5, "1e300", "9".repeat(400)),
    query: fc.constantFrom({ date_from: "-30d" }, { limit: 2 }, { events: [{ id: "$pageview" }] }, { "a.b.c": 1 }, { [`${"a.".repeat(20_000)}b`]: 1 }, { x: "*".repeat(50_000) }),
    body: fc.constantFrom({ breakdown: "$browser" }, { "events.0.id": "$pageview" }, { events: [{ id: "$pageview" }] }, { [`${"0.".repeat(20_000)}x`]: 1 }, { [`${"events.".repeat(8_000)}id`]: "x" }, { properties: [] }),
  };
}

const auth = { authorization: `Bearer ${OWNER_KEY}` };
const json = { ...auth, "content-type": "application/json" };
const P = "/api/projects/1";
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

/**
 * Product-API and capture requests sent to the control fuzzing's server between its requests: they fill
 * the request log `find`/`count` match against and the captured log, and show what a clock set far away,
 * a replaced state or an override does to everyone else's requests.
 */
export const BACKGROUND: RawRequest[] = [
  { method: "GET", path: `${P}/insights/?limit=2`, headers: auth },
  { method: "POST", path: `${P}/insights/trend/`, headers: json, body: JSON.stringify({ events: [{ id: "$pageview" }], breakdown: "$browser", date_from: "-30d" }) },
  { method: "GET", path: `${P}/insights/trend/?events=${q([{ id: "$pageview" }])}&date_from=-7d&interval=day`, headers: auth },
  { method: "GET", path: `${P}/events/?after=-7d&limit=5`, headers: auth },
  { method: "GET", path: `${P}/persons/?limit=5&properties=${q([{ key: "email", value: "a", operator: "icontains", type: "person" }])}`, headers: auth },
  { method: "POST", path: `${P}/insights/funnel/`, headers: json, body: JSON.stringify({ events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }], date_from: "-14d" }) },
  { method: "POST", path: `${P}/insights/`, headers: json, body: JSON.stringify({ name: "background", filters: { insight: "TRENDS", events: [{ id: "$pageview" }], date_from: "-7d" } }) },
  { method: "POST", path: `${P}/query/`, headers: json, body: JSON.stringify({ query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-7d" } } }) },
  { method: "POST", path: `${P}/insights/retention/`, headers: json, body: JSON.stringify({ target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, date_from: "-14d" }) },
  { method: "POST", path: "/batch/", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: PROJECT_TOKENS[0], batch: [{ event: "background", distinct_id: "bg", timestamp: "2024-03-05T11:00:00Z", properties: { $set: { plan: "x" } } }] }) },
  { method: "GET", path: `/flags/?v=2&token=${PROJECT_TOKENS[0]}`, headers: {} },
  { method: "GET", path: `${P}/insights/?limit=1&offset=999999999999`, headers: auth },
];

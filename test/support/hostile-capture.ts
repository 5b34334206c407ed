import { gzipSync } from "node:zlib";
import fc from "fast-check";
import LZString from "lz-string";
import { derivedProjectToken } from "../../src/util/ids.ts";
import {
  applyMutation,
  deepSpec,
  encodeSegment,
  EXTREME_NUMBERS,
  HOSTILE_KEYS,
  HOSTILE_STRINGS,
  hostileValue,
  INVALID_JSON,
  jsonText,
  mutation,
  ODD_IDS,
  rawMarker,
  RAW_TEXTS,
  type OperationInfo,
} from "./hostile-arbitraries.ts";
import type { RawRequest } from "./hostile-http.ts";
import { OWNER_KEY } from "./server.ts";

/**
 * Hostile requests for the capture surface (openapi/capture.yaml): payloads shaped as the client libraries
 * send them (batch, array, single event; JSON, gzip, base64, form `data=`, lz64, GET `data=`), each hostile in
 * a few places: the token, the payload's fields (times and offsets at the extremes, odd distinct ids, person
 * and group properties), its encoding, the query, the method and the path.
 */

/** The fixture projects' tokens (the basic scenario names none, so each is derived from the project id). */
export const PROJECT_TOKENS = ["1", "2", "3"].map(derivedProjectToken);
const TOKEN = PROJECT_TOKENS[0]!;

const hostileToken = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PROJECT_TOKENS) },
  { weight: 1, arbitrary: fc.constantFrom("phc_unknown", OWNER_KEY, "", " ", `${TOKEN} `, TOKEN.toUpperCase(), "phc_\u0000", `phc_${"x".repeat(100)}`, "phc_é", "__proto__") },
  { weight: 1, arbitrary: hostileValue },
);

const times = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom("2024-03-05T11:00:00Z", "2024-03-05T11:59:59.999+01:00", "2024-03-04", "2024-03-05 10:00", "2024-03-05T10:00:00+03", "1709636400000", "1709636400") },
  { weight: 2, arbitrary: fc.constantFrom("1e300", "-1e300", "NaN", "Infinity", "-0", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "+275760-09-13T00:00:00Z", "99999999999999999999", "9007199254740993", "") },
  { weight: 2, arbitrary: fc.constantFrom(...EXTREME_NUMBERS, 1709636400000, 0, -1) },
  { weight: 1, arbitrary: fc.nat(8).map(rawMarker) },
  { weight: 1, arbitrary: hostileValue },
);

const offsets = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(0, 1000, -1000, 60_000) },
  { weight: 3, arbitrary: fc.constantFrom(...EXTREME_NUMBERS, "1000", null) },
  { weight: 1, arbitrary: fc.nat(8).map(rawMarker) },
);

const DISTINCT_IDS = ["a", "a-anon", "b", "c", "m1", "new-1", "new-2", "anon-1", "0189aaaa-0000-4000-8000-000000000001", "null", "anonymous", "0", "undefined"];

const distinctId = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...DISTINCT_IDS) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: hostileValue },
);

const EVENT_NAMES = ["$pageview", "signup", "purchase", "$identify", "$create_alias", "$merge_dangerously", "$groupidentify", "$pageleave", "$snapshot", "$autocapture"];

const propertyValue = fc.oneof({ weight: 3, arbitrary: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()) }, { weight: 1, arbitrary: hostileValue });
const propertyMap = fc.dictionary(fc.oneof(fc.constantFrom("email", "plan", "$browser", "name", "$initial_referrer"), fc.constantFrom(...HOSTILE_KEYS.filter((k) => k !== "__proto__"))), propertyValue, { maxKeys: 3 });

/** Properties an event's person and group processing reads, each sometimes odd. */
const properties = fc.record(
  {
    $set: fc.oneof(propertyMap, hostileValue),
    $set_once: fc.oneof(propertyMap, hostileValue),
    $unset: fc.oneof(fc.constant(["email"]), fc.constant({ plan: 1 }), hostileValue),
    $groups: fc.oneof(fc.record({ company: fc.oneof(fc.constantFrom("acme", "beta", ""), hostileValue) }), fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 7 }), hostileValue),
    $group_type: fc.oneof(fc.constantFrom("company", "team", ""), hostileValue),
    $group_key: fc.oneof(fc.constantFrom("acme", "x".repeat(500)), hostileValue),
    $group_set: fc.oneof(propertyMap, hostileValue),
    $anon_distinct_id: distinctId,
    alias: distinctId,
    $process_person_profile: fc.constantFrom(true, false, "false", null),
    $cookieless_mode: fc.constantFrom(true, false, "yes"),
    $ignore_sent_at: fc.constantFrom(true, "true"),
    $current_url: fc.constantFrom("https://example.com/a?b=1", "", "javascript:alert(1)"),
    $browser: fc.constantFrom("Chrome", "Firefox"),
    $os: fc.constantFrom("Mac OS X", "iOS"),
    $is_server: fc.constantFrom(true),
    $elements_chain: fc.constantFrom('a:nth-child="1"', "", "x".repeat(3000)),
    distinct_id: distinctId,
    token: hostileToken,
  },
  { requiredKeys: [] },
).chain((p) => fc.subarray(Object.keys(p), { maxLength: 5 }).map((keep) => Object.fromEntries(Object.entries(p).filter(([k]) => keep.includes(k)))));

const uuid = fc.oneof(
  { weight: 3, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.constantFrom("0190aaaa-0000-7000-8000-000000000001", "0190aaaa000070008000000000000002", "0190AAAA-0000-7000-8000-000000000003", "not-a-uuid", "", 1, null) },
);

/** One event: the fields capture requires (event, distinct_id) are there; the rest now and then. */
const event = fc
  .record(
    {
      event: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...EVENT_NAMES) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) }),
      distinct_id: distinctId,
      uuid,
      timestamp: times,
      offset: offsets,
      properties,
      $set: propertyMap,
      $set_once: propertyMap,
    },
    { requiredKeys: ["event", "distinct_id", "properties"] },
  )
  .chain((e) => fc.subarray(["uuid", "timestamp", "offset", "$set", "$set_once"], { maxLength: 3 }).map((keep) => Object.fromEntries(Object.entries(e).filter(([k]) => k === "event" || k === "distinct_id" || k === "properties" || keep.includes(k)))));

type Payload = Record<string, unknown> | unknown[];

/** The three payload shapes, each carrying the token where its shape says (reference §1.4). */
const payload: fc.Arbitrary<Payload> = fc.oneof(
  fc.record({ token: hostileToken, key: fc.constantFrom("api_key", "token"), batch: fc.array(event, { minLength: 1, maxLength: 3 }), sent_at: fc.option(times, { nil: undefined }), historical_migration: fc.option(fc.boolean(), { nil: undefined }) }).map(({ token, key, batch, sent_at, historical_migration }) => ({
    [key]: token,
    batch,
    ...(sent_at === undefined ? {} : { sent_at }),
    ...(historical_migration === undefined ? {} : { historical_migration }),
  })),
  fc.tuple(hostileToken, fc.array(event, { minLength: 1, maxLength: 3 })).map(([token, events]) => events.map((e) => ({ ...e, token }))),
  fc.tuple(hostileToken, fc.constantFrom("token", "api_key", "$token"), event, fc.option(times, { nil: undefined })).map(([token, key, e, sent_at]) => ({ ...e, [key]: token, ...(sent_at === undefined ? {} : { sent_at }) })),
);

/** How the payload text travels: the encodings the client libraries use, and broken ones. */
type Encoding = "json" | "gzip-text" | "gzip-header" | "gzip-hint" | "base64" | "form" | "form-lz64" | "lz64" | "query" | "query-base64" | "truncated-gzip" | "bad-hint" | "double-base64";
const ENCODINGS: Encoding[] = ["json", "json", "json", "gzip-text", "gzip-header", "gzip-hint", "base64", "form", "form-lz64", "lz64", "query", "query-base64", "truncated-gzip", "bad-hint", "double-base64"];

interface Encoded {
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: Buffer | string;
}

const b64 = (text: string | Buffer) => Buffer.from(text).toString("base64");

/** The payload text in one encoding; a GET can only carry it in `data=` (too long for a request line, it goes in a body anyway). */
function encode(text: string, encoding: Encoding): Encoded {
  const json = { "content-type": "application/json" };
  const plain = { "content-type": "text/plain" };
  switch (encoding) {
    case "json":
      return { query: {}, headers: json, body: text };
    case "gzip-text":
      return { query: {}, headers: plain, body: gzipSync(text) };
    case "gzip-header":
      return { query: {}, headers: { ...json, "content-encoding": "gzip" }, body: gzipSync(text) };
    case "gzip-hint":
      return { query: { compression: "gzip-js" }, headers: plain, body: gzipSync(text) };
    case "base64":
      return { query: { compression: "base64" }, headers: plain, body: b64(text) };
    case "form":
      return { query: {}, headers: { "content-type": "application/x-www-form-urlencoded" }, body: `data=${b64(text).replace(/\+/g, " ")}` };
    case "form-lz64":
      return { query: {}, headers: { "content-type": "application/x-www-form-urlencoded" }, body: `data=${encodeURIComponent(LZString.compressToBase64(text))}&compression=lz64` };
    case "lz64":
      return { query: { compression: "lz64" }, headers: plain, body: LZString.compressToBase64(text) };
    case "query":
      return text.length < 3000 ? { query: { data: text }, headers: {} } : { query: {}, headers: json, body: text };
    case "query-base64":
      return text.length < 3000 ? { query: { data: b64(text) }, headers: {} } : { query: {}, headers: plain, body: b64(text) };
    case "truncated-gzip": {
      const gz = gzipSync(text);
      return { query: {}, headers: plain, body: gz.subarray(0, Math.max(3, gz.length >> 1)) };
    }
    case "bad-hint":
      return { query: { compression: "gzip" }, headers: json, body: text };
    case "double-base64":
      return { query: {}, headers: plain, body: b64(b64(text)) };
  }
}

/** 3 MB of spaces around an empty batch: 3 KB gzipped, past the 2 MB limit once inflated. */
const GZIP_BOMB = gzipSync(`{"api_key":"${TOKEN}","batch":[${" ".repeat(3 * 1024 * 1024)}]}`);

/** Bodies no encoding makes sense of, and bombs: gzip that inflates past the 2 MB limit, a body past it. */
const brokenBody: fc.Arbitrary<Encoded> = fc.oneof(
  fc.constantFrom(...INVALID_JSON).map((text): Encoded => ({ query: {}, headers: { "content-type": "application/json" }, body: text })),
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 40 }).map((bytes): Encoded => ({ query: {}, headers: { "content-type": "text/plain" }, body: Buffer.from([0x1f, 0x8b, 0x08, ...bytes]) })),
  fc.constantFrom("====", "AAAA", "data=", "data=%%%", "compression=lz64&data=!!!", "data=AAAA&compression=gzip").map((body): Encoded => ({ query: {}, headers: { "content-type": "application/x-www-form-urlencoded" }, body })),
  fc.constantFrom("br", "deflate", "identity", "gzip, gzip", "x-unknown").map((enc): Encoded => ({ query: {}, headers: { "content-type": "application/json", "content-encoding": enc }, body: "{}" })),
  fc.constant<Encoded>({ query: {}, headers: { "content-type": "text/plain" }, body: GZIP_BOMB }),
  fc.constant<Encoded>({ query: {}, headers: { "content-type": "application/json" } }),
);

const queryExtras = fc.dictionary(
  fc.constantFrom("ver", "_", "sent_at", "beacon", "compression", "unknown", "data", "v", "config", "token", "api_key"),
  fc.oneof(fc.constantFrom("1", "1.140.0", "1709636400000", "1e300", "-1e300", "NaN", "Infinity", "9007199254740993", "gzip", "lz64", "base64", "", "%zz"), fc.constantFrom(...HOSTILE_STRINGS).map((s) => s.slice(0, 200))),
  { maxKeys: 3 },
);

/** Values are percent-encoded, but for `%zz`, sent as written: a broken escape in the query. */
const queryString = (query: Record<string, string>) => {
  const parts = Object.entries(query).map(([k, v]) => `${encodeURIComponent(k)}=${v === "%zz" ? v : encodeURIComponent(v.replace(/[\ud800-\udfff]/g, "\ufffd"))}`);
  return parts.length ? `?${parts.join("&")}` : "";
};

/** The path of an operation as sent: now and then without its trailing slash, in the wrong case, or doubled. */
const pathVariant = (template: string) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(template) },
    { weight: 2, arbitrary: fc.constant(template.endsWith("/") ? template.slice(0, -1) : `${template}/`) },
    { weight: 1, arbitrary: fc.constantFrom(template.toUpperCase(), `${template}x/`, `/${template}`, template.replace(/\/$/, "//")) },
  );

const hostileMethod = (method: string) => fc.oneof({ weight: 12, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE") });

const payloadText = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(payload, deepSpec).map(([p, d]) => jsonText(p, d)) },
  { weight: 2, arbitrary: fc.tuple(payload, mutation, deepSpec).map(([p, m, d]) => jsonText(applyMutation(p, m), d)) },
  { weight: 1, arbitrary: fc.tuple(hostileValue, deepSpec).map(([v, d]) => jsonText(v, d)) },
  { weight: 1, arbitrary: fc.nat(RAW_TEXTS.length - 1).map((n) => RAW_TEXTS[n]!) },
);

/** `/e/`, `/batch/` and the other event endpoints, by POST body or GET `data=`. */
function eventRequest(op: OperationInfo): fc.Arbitrary<RawRequest> {
  const isGet = op.method === "GET";
  const encoded = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(payloadText, fc.constantFrom(...(isGet ? (["query", "query-base64"] as Encoding[]) : ENCODINGS))).map(([text, enc]) => encode(text, enc)) },
    { weight: 1, arbitrary: brokenBody },
  );
  return fc.record({ method: hostileMethod(op.method), path: pathVariant(op.template), encoded, extras: queryExtras, chunked: fc.boolean() }).map(({ method, path, encoded: e, extras, chunked }) => ({
    method,
    path: path + queryString({ ...extras, ...e.query }),
    headers: e.body === undefined ? {} : e.headers,
    body: e.body,
    chunked: chunked && e.body !== undefined,
  }));
}

/** `/flags/` and `/decide/`: a token in the query or the body, the format version, an optional body. */
function flagsRequest(op: OperationInfo): fc.Arbitrary<RawRequest> {
  const body = fc.record({ token: hostileToken, distinct_id: distinctId, groups: fc.oneof(fc.constant({ company: "acme" }), hostileValue), person_properties: fc.oneof(propertyMap, hostileValue) }, { requiredKeys: [] });
  const encodedBody = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(body, deepSpec, fc.constantFrom<Encoding>("json", "json", "base64", "gzip-text", "gzip-hint", "form", "truncated-gzip")).map(([b, d, enc]) => encode(jsonText(b, d), enc)) },
    { weight: 1, arbitrary: brokenBody },
  );
  const query = fc.record({ v: fc.constantFrom("1", "2", "3", "", "NaN", "1e300", "-1", "Infinity", "2.5"), config: fc.constantFrom("true", "false", "1"), token: hostileToken.map((t) => (typeof t === "string" ? t : JSON.stringify(t) ?? "").slice(0, 200)) }, { requiredKeys: [] });
  return fc.record({ method: hostileMethod(op.method), path: pathVariant(op.template), query, extras: queryExtras, encoded: op.method === "POST" ? fc.option(encodedBody, { nil: undefined }) : fc.constant(undefined) }).map(({ method, path, query, extras, encoded }) => ({
    method,
    path: path + queryString({ ...extras, ...(query as Record<string, string>), ...encoded?.query }),
    headers: encoded?.body === undefined ? {} : encoded.headers,
    body: encoded?.body,
  }));
}

/** `/array/{token}/config` and `config.js`: any token in the path. */
function remoteConfigRequest(op: OperationInfo): fc.Arbitrary<RawRequest> {
  const token = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PROJECT_TOKENS) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_IDS, "phc_unknown", OWNER_KEY, "%00", "__proto__") });
  return fc.record({ method: hostileMethod(op.method), token, extras: queryExtras }).map(({ method, token, extras }) => ({
    method,
    path: op.template.replace("{token}", encodeSegment(token)) + queryString(extras),
    headers: {},
  }));
}

/** A hostile request for one operation of openapi/capture.yaml. */
export function captureRequestFor(op: OperationInfo): fc.Arbitrary<RawRequest & { operationId: string }> {
  const request = op.template.includes("{token}") ? remoteConfigRequest(op) : /^(flags|decide)_/.test(op.operationId) ? flagsRequest(op) : eventRequest(op);
  return request.map((r) => ({ ...r, operationId: op.operationId }));
}

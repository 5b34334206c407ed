import fc from "fast-check";
import type { Backend } from "../../src/pipeline/documents.ts";
import { contract } from "./contract.ts";
import { OTHER_KEY, OWNER_KEY } from "./server.ts";
import type { RawRequest } from "./hostile-http.ts";

type Schema = Record<string, any>;

/** One operation of the document, as the fuzzer needs it. */
export interface OperationInfo {
  operationId: string;
  method: string;
  template: string;
  query: { name: string; schema: Schema }[];
  /** The JSON body's schema, and the values of its documented examples (valid bodies a reader would copy). */
  body: { schema: Schema; required: boolean; examples: unknown[] } | null;
}

/** Every operation of a document (by default openapi/openapi.yaml), read from the (dereferenced) document. */
export async function operationsOf(document: Promise<Backend> = contract()): Promise<OperationInfo[]> {
  const api = await document;
  const paths = (api.definition as { paths: Record<string, Record<string, any>> }).paths;
  const out: OperationInfo[] = [];
  for (const [template, item] of Object.entries(paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])] as { in: string; name: string; schema?: Schema }[];
      const media = op.requestBody?.content?.["application/json"] as { schema?: Schema; examples?: Record<string, { value?: unknown }> } | undefined;
      const json = media?.schema;
      const examples = Object.values(media?.examples ?? {}).flatMap((e) => (e.value === undefined ? [] : [e.value]));
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        query: params.filter((p) => p.in === "query").map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: json ? { schema: json, required: op.requestBody.required === true, examples } : null,
      });
    }
  }
  return out;
}

// --- values --------------------------------------------------------------------------------------

/** Strings a client of this API sends: event names, dates, property keys and operators, known ids. */
export const DOMAIN_STRINGS = [
  "$pageview", "signup", "purchase", "$pageleave", "$screen", "plan", "email", "$browser", "amount", "a", "b", "m1",
  "-7d", "-14d", "-30d", "-90d", "-1h", "2024-03-01", "2024-03-05T12:00:00Z", "all", "mStart", "dStart", "yStart",
  "day", "week", "hour", "month", "exact", "icontains", "regex", "gt", "is_set", "person", "event", "cohort",
  "TRENDS", "FUNNELS", "ActionsLineGraph", "ordered", "A+B", "A/B*100", "total", "dau", "events", "actions",
];

/** Text chosen to break naive code: control and bidi characters, lone surrogates, prototype names, paths. */
export const HOSTILE_STRINGS = [
  "", " ", "\u0000", "\ud800", "\udfff", "\u202e\u0041\u0042", "\u200b", "\ufeff", "e\u0301\u0301\u0301", "💩🏳️‍🌈",
  "Ｔｅｓｔ", "𝕏", "ß", "İ", "\r\n", "\t=1+1", "=HYPERLINK(\"http://x\")", "+1", "-1", "@SUM(A1)", "__proto__",
  "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "../../../../etc/passwd", "..\\..\\boot.ini",
  "%00", "%2e%2e%2f", "${jndi:ldap://x}", "<script>alert(1)</script>", "' OR 1=1 --", "(a+)+$", "[", "\\",
  "NaN", "Infinity", "-Infinity", "-0", "1e309", "1e300", "-1e300", "99999999999999999999999", "9007199254740993", "0x10",
  "true", "null", "{}", "[]", "0000-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59", "+275760-09-13T00:00:00Z",
];

/** Strings of tens of kilobytes (bodies only: query values are cut to 200 characters): globs and runs that make naive matching explode. */
export const HUGE_STRINGS = ["*".repeat(50_000) + "x", "**/".repeat(16_000) + "x", "a".repeat(60_000), "%".repeat(30_000) + "!", "(".repeat(20_000)];

/**
 * Numbers at the extremes: JSON.stringify writes these as JavaScript does, so `-0` becomes `0`; the raw
 * literals below (1e400 parses to Infinity, huge integers lose precision) go through RAW markers.
 */
export const EXTREME_NUMBERS = [1e300, -1e300, -0, 2 ** 53 + 1, -(2 ** 53 + 1), 1e21, 8.64e15, 8.64e15 + 1, -8.64e15, Number.MAX_VALUE, -Number.MAX_VALUE, Number.EPSILON];

/**
 * JSON text that JSON.stringify cannot write: literals out of double range or precision, `-0`, and wide
 * values (tens of thousands of items or keys, within the 64 KiB body limit). A value holding `rawMarker(n)`
 * is serialised with `RAW_TEXTS[n]` in its place.
 */
export const RAW_TEXTS = [
  "1e400", "-1e400", "-0", "1e-400", "123456789012345678901234567890", "-123456789012345678901234567890", "9007199254740993", "1E300", "0.0000000000000000000000000001",
  `[${"0,".repeat(19_999)}0]`,
  `{${Array.from({ length: 3_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`,
  `[${'"$pageview",'.repeat(4_000)}"x"]`,
];
export const rawMarker = (n: number) => `\u0000raw${n}\u0000`;

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 2000, maxLength: 5000 }) },
  { weight: 2, arbitrary: fc.constantFrom(0, -1, -0.5, 1.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, Number.MIN_VALUE) },
  { weight: 2, arbitrary: fc.constantFrom(...EXTREME_NUMBERS) },
  { weight: 1, arbitrary: fc.nat(RAW_TEXTS.length - 1).map(rawMarker) },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE_STRINGS) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: fc.constantFrom({}, [], [null], { "": "" }, [[[]]]) },
);

/** Any JSON value, hostile leaves included; `fc.jsonValue` adds odd keys and shapes. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

export const HOSTILE_KEYS = ["__proto__", "constructor", "prototype", "", " ", "\u0000", "💩", "a.b", "a__b", "$set", "toString", "id", "1"];

/** Defines an own, enumerable key (even `__proto__`) without touching any prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Values to try, by property (or query parameter) name, besides what the schema alone suggests: extremes a field's code must bound. */
export type Hints = Record<string, fc.Arbitrary<unknown>>;

/** A value the schema accepts, roughly: what a correct client sends (bounded, so analyses stay small). */
export function fromSchema(schema: Schema | undefined, depth = 0, hints: Hints = {}): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return fc.constantFrom(null, "x", 1, {});
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (variants?.length) return fc.oneof(...variants.map((v) => fromSchema({ ...schema, oneOf: undefined, anyOf: undefined, ...v }, depth + 1, hints)));
  if (Array.isArray(schema.allOf) && schema.allOf.length) return fromSchema(Object.assign({}, ...(schema.allOf as Schema[])), depth + 1, hints);
  const examples = Array.isArray(schema.examples) ? (schema.examples as unknown[]) : schema.example !== undefined ? [schema.example] : [];
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ["object"] : ["string"];
  const byType = types.map((t) => ofType(t, schema, depth, hints));
  const typed = byType.length === 1 ? byType[0]! : fc.oneof(...byType);
  return examples.length ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...examples) }, { weight: 2, arbitrary: typed }) : typed;
}

function ofType(type: string, schema: Schema, depth: number, hints: Hints): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: schema.minimum ?? -3, max: Math.min(schema.maximum ?? 40, (schema.minimum ?? 0) + 40) });
    case "number":
      return fc.double({ min: schema.minimum ?? -100, max: schema.maximum ?? 100, noNaN: true });
    case "array": {
      const min = schema.minItems ?? 0;
      return fc.array(fromSchema(schema.items as Schema | undefined, depth + 1, hints), { minLength: min, maxLength: Math.max(min, 3) });
    }
    case "object":
      return objectOf(schema, depth, hints);
    default:
      return stringOf(schema);
  }
}

/** The schema's value for a named field, or now and then (three times in four when hinted) a hinted one. */
function fieldOf(name: string, schema: Schema | undefined, depth: number, hints: Hints): fc.Arbitrary<unknown> {
  const plain = fromSchema(schema, depth, hints);
  const hint = Object.hasOwn(hints, name) ? hints[name] : undefined;
  return hint ? fc.oneof({ weight: 3, arbitrary: hint }, { weight: 1, arbitrary: plain }) : plain;
}

function objectOf(schema: Schema, depth: number, hints: Hints): fc.Arbitrary<unknown> {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  const names = Object.keys(props);
  if (names.length === 0) return fc.dictionary(fc.constantFrom(...DOMAIN_STRINGS.slice(5, 12)), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()), { maxKeys: 3 });
  const model = Object.fromEntries(names.map((n) => [n, fieldOf(n, props[n], depth + 1, hints)]));
  return fc.record(model, { requiredKeys: names.filter((n) => required.has(n)) }).chain((rec) =>
    fc.subarray(names.filter((n) => !required.has(n))).map((keep) => keep.slice(0, 4)).map((keep) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(rec)) if (required.has(k) || keep.includes(k)) out[k] = v;
      return out;
    }),
  );
}

function stringOf(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.format === "date-time") return fc.constantFrom("2024-03-01T00:00:00Z", "2024-03-05T12:00:00.000Z", "2024-02-29T23:59:59+09:00");
  if (schema.format === "date") return fc.constantFrom("2024-03-01", "2024-02-29");
  if (schema.format === "uuid") return fc.oneof(fc.uuid(), fc.constant("01890000-0000-4000-8000-000000000001"));
  const min = schema.minLength ?? 0;
  return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...DOMAIN_STRINGS) }, { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: min + 8 }) });
}

// --- mutations -----------------------------------------------------------------------------------

type Path = (string | number)[];

function nodesOf(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((v, i) => nodesOf(v, [...path, i], out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) nodesOf(v, [...path, k], out);
  return out;
}

function replaceAt(value: unknown, path: Path, fn: (old: unknown) => unknown): unknown {
  if (path.length === 0) return fn(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, fn) : v));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) setOwn(out, k, k === head ? replaceAt(v, rest, fn) : v);
  return out;
}

/** Marks a place the serialiser fills with a deeply nested text (built as text: no stack is used to make it). */
const DEEP = "\u0000deep\u0000";

type Mutation =
  | { kind: "none" }
  | { kind: "retype"; at: number; value: unknown }
  | { kind: "drop"; at: number }
  | { kind: "extra"; at: number; key: string; value: unknown }
  | { kind: "deep"; at: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("retype" as const), at: fc.nat(), value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("drop" as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("extra" as const), at: fc.nat(), key: fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ unit: "binary", maxLength: 12 })), value: hostileValue }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deep" as const), at: fc.nat() }) },
);

export function applyMutation(value: unknown, m: Mutation): unknown {
  if (m.kind === "none") return value;
  const nodes = nodesOf(value);
  const path = nodes[m.at % nodes.length]!;
  switch (m.kind) {
    case "retype":
      return replaceAt(value, path, () => m.value);
    case "deep":
      return replaceAt(value, path, () => DEEP);
    case "drop":
      if (path.length === 0) return undefined;
      return replaceAt(value, path.slice(0, -1), (parent) => {
        const last = path[path.length - 1]!;
        if (Array.isArray(parent)) return parent.filter((_, i) => i !== last);
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(parent as Record<string, unknown>)) if (k !== last) setOwn(out, k, v);
        return out;
      });
    case "extra":
      return replaceAt(value, path, (node) => {
        if (!node || typeof node !== "object" || Array.isArray(node)) return node;
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(node)) setOwn(out, k, v);
        setOwn(out, m.key, m.value);
        return out;
      });
  }
}

const deepText = (depth: number, shape: "array" | "object") =>
  shape === "array" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

// --- bodies --------------------------------------------------------------------------------------

export type DeepSpec = { depth: number; shape: "array" | "object" };

/** Past MAX_JSON_DEPTH (100) a value is refused; 6,000 levels would overflow serialisation if it were stored. */
export const deepSpec: fc.Arbitrary<DeepSpec> = fc.record({ depth: fc.constantFrom(20, 99, 200, 6_000), shape: fc.constantFrom("array" as const, "object" as const) });

/** JSON text of a value, with its DEEP and RAW markers written out. */
export function jsonText(value: unknown, deep: DeepSpec): string {
  const text = JSON.stringify(value) ?? "";
  const deepened = text.includes("deep") ? text.split(JSON.stringify(DEEP)).join(deepText(deep.depth, deep.shape)) : text;
  return deepened.includes("raw") ? deepened.replace(/"\\u0000raw(\d+)\\u0000"/g, (_, n: string) => RAW_TEXTS[Number(n)]!) : deepened;
}

export type BodySpec =
  | { kind: "json"; value: unknown; deep: DeepSpec }
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: number[] }
  | { kind: "huge"; size: number }
  | { kind: "none" };

export const INVALID_JSON = [
  "{", "}", "[1,]", "{'a':1}", "{\"a\":1}x", "NaN", "undefined", "\"unterminated", "{\"a\":01}", "\ufeff{}", "{\"a\":\"\\u12\"}",
  "{\"a\":1,\"a\":2}", "", " ", "null", "true", "0", "\"string\"", "[]", "{\"__proto__\":{\"polluted\":true}}",
  "{\"constructor\":{\"prototype\":{\"polluted\":true}}}", "\u0000", "/*c*/{}", "{\"a\":1e999999}",
];

/** A body for an operation: mostly schema-shaped (mutated or not), sometimes not JSON at all. */
export function bodyFor(op: OperationInfo, bodyLimit: number, hints: Hints = {}): fc.Arbitrary<BodySpec> {
  const deep = deepSpec;
  const shaped = op.body
    ? fc.tuple(validBodyOf(op, hints), mutation, deep).map(([v, m, d]): BodySpec => ({ kind: "json", value: applyMutation(v, m), deep: d }))
    : fc.constant<BodySpec>({ kind: "none" });
  return fc.oneof(
    { weight: op.body ? 90 : 120, arbitrary: shaped },
    { weight: 9, arbitrary: fc.record({ kind: fc.constant("json" as const), value: hostileValue, deep }) },
    { weight: 6, arbitrary: fc.constantFrom(...INVALID_JSON).map((text): BodySpec => ({ kind: "text", text })) },
    { weight: 3, arbitrary: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 30 }).map((bytes): BodySpec => ({ kind: "bytes", bytes })) },
    { weight: 3, arbitrary: fc.constant<BodySpec>({ kind: "none" }) },
    { weight: 1, arbitrary: fc.constantFrom(bodyLimit + 1, bodyLimit * 2).map((size): BodySpec => ({ kind: "huge", size })) },
  );
}

export function serialiseBody(spec: BodySpec): string | Buffer | undefined {
  switch (spec.kind) {
    case "none":
      return undefined;
    case "text":
      return spec.text;
    case "bytes":
      return Buffer.from(spec.bytes);
    case "huge":
      return `{"name":"${"x".repeat(spec.size)}"}`;
    case "json":
      return spec.value === undefined ? "" : jsonText(spec.value, spec.deep);
  }
}

// --- paths, queries, headers ---------------------------------------------------------------------

const PROJECT_IDS = ["1", "1", "1", "1", "2", "@current", "3", "999", "0", "-1", "1.0", "01", " 1", "１", "__proto__", "constructor", "%2e%2e", "..", "1%2F2", "%00", "%ZZ", "%", "%E0%A4%A", "💩", "9".repeat(400)];
const INTEGER_IDS = ["1", "2", "3", "4", "5", "6", "0", "-1", "1.5", "1e3", "0x1", "9007199254740993", "9".repeat(40), "NaN", "null", "%20", "1%00"];
const UUIDS = ["84877a1c-03f2-5cfd-8633-cf112f0d565a", "01890000-0000-4000-8000-000000000001", "01890000000040008000000000000002", "01890000-0000-4000-8000-00000000000Z", "{01890000-0000-4000-8000-000000000003}", "00000000-0000-0000-0000-000000000000"];
export const ODD_IDS = ["", "..", ".", "%2e%2e", "%2F", "a/b", "__proto__", "constructor", "toString", "💩", "%F0%9F%92%A9", "%C0%AF", "%E0%A4%A", "%", "\u202e1", "x".repeat(2000)];

const pathSegment = (pool: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pool).map((s) => ({ raw: s })) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_IDS).map((s) => ({ raw: s })) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }).map((s) => ({ raw: encodeURIComponent(safe(s)) })) },
  );

/** Lone surrogates cannot be percent-encoded; replace them (the raw odd ids cover broken encodings). */
const safe = (s: string) => s.replace(/[\ud800-\udfff]/g, "\ufffd");

export function encodeSegment(raw: string): string {
  // Raw strings from the pools are sent as written (they hold deliberate %-sequences); other characters are encoded.
  return [...raw].map((ch) => (/^[\x21-\x7e]$/.test(ch) && ch !== "?" && ch !== "#" ? ch : encodeURIComponent(safe(ch)))).join("");
}

/**
 * Query values stay under 200 characters (up to 1,800 once percent-encoded): the request line must fit
 * Node's 16 KiB header limit, whose bodiless 431 is tested on its own. Long values go in bodies.
 */
const asQueryText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v) ?? "");

const queryValue = (name: string, schema: Schema, hints: Hints) =>
  fc
    .oneof(
      { weight: 3, arbitrary: fieldOf(name, schema, 0, hints).map(asQueryText) },
      { weight: 2, arbitrary: hostileValue.map((v) => (typeof v === "string" ? v : JSON.stringify(v) ?? "")) },
    )
    .map((v) => v.slice(0, 200));

type QueryPart = { name: string; value: string; encode: boolean } | { raw: string };

function queryFor(op: OperationInfo, hints: Hints): fc.Arbitrary<QueryPart[]> {
  const declared = op.query.length
    ? fc.constantFrom(...op.query).chain((p) => queryValue(p.name, p.schema, hints).map((value) => ({ name: p.name, value, encode: true })))
    : fc.constant({ name: "limit", value: "1", encode: true });
  const unknown = fc.record({ name: fc.constantFrom("unknown", "__proto__", "constructor", "limit[]", "a[b]", "format", "", "💩"), value: fc.string({ maxLength: 10 }), encode: fc.constant(true) });
  const raw = fc.constantFrom("%", "%zz", "=", "&&", "a==b", "limit=1&limit=2", "format=csv", "format=csv&format=json", "offset=-1", "limit=99999999999", "key", "%E0%A4%A=1", "a=%00", "properties=%5B", "events=%7B").map((r) => ({ raw: r }));
  return fc.array(fc.oneof({ weight: 6, arbitrary: declared }, { weight: 1, arbitrary: unknown }, { weight: 1, arbitrary: raw }), { maxLength: 5 });
}

const queryString = (parts: QueryPart[]) =>
  parts.length === 0
    ? ""
    : "?" + parts.map((p) => ("raw" in p ? p.raw : `${encodeURIComponent(safe(p.name))}=${encodeURIComponent(safe(p.value))}`)).join("&");

const UNKNOWN_KEY = "phx_fuzz_unknown_key_9999";

export const authHeader = fc.oneof(
  { weight: 40, arbitrary: fc.constant(`Bearer ${OWNER_KEY}`) },
  { weight: 2, arbitrary: fc.constant(`Bearer ${OTHER_KEY}`) },
  { weight: 2, arbitrary: fc.constant(`Bearer ${UNKNOWN_KEY}`) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom("Bearer", "Bearer ", `Basic ${OWNER_KEY}`, `bearer ${OWNER_KEY}`, `Bearer ${OWNER_KEY} extra`, `Bearer ${"k".repeat(3000)}`, "Bearer \u00e9\u00e9") },
);

export const CONTENT_TYPES = [
  "application/json", "application/json", "application/json", "application/json; charset=utf-8", "application/merge-patch+json",
  "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16",
  "application/json; charset=latin1", "application/xml", "", "*/*", "application/json, text/plain", "application/jsonx",
];

const DIMENSIONS = ["method", "project", "id", "query", "auth", "contentType", "body", "chunked"] as const;
type Dimension = (typeof DIMENSIONS)[number];

const VALID_IDS: Record<string, string[]> = {
  insights: ["1", "2", "3", "4", "5", "6"],
  persons: ["1", "2", "3", "84877a1c-03f2-5cfd-8633-cf112f0d565a"],
  events: ["01890000-0000-4000-8000-000000000001", "01890000-0000-4000-8000-000000000005", "0189000000004000800000000000000a"],
};

/**
 * A request for one operation. Each request is hostile in up to three dimensions (method, project, id,
 * query, auth, content type, body, framing) and correct in the others, so that the hostile part reaches
 * the code behind the checks that the correct parts pass; one in five is correct in every dimension, which
 * makes valid writes (and the state they change) part of every run.
 */
export function requestFor(op: OperationInfo, bodyLimit: number, hints: Hints = {}): fc.Arbitrary<RawRequest & { operationId: string }> {
  const resource = /\/(insights|persons|events)\/\{id\}/.exec(op.template)?.[1] ?? "insights";
  const hostileDims = fc.oneof(
    { weight: 1, arbitrary: fc.constant<Dimension[]>([]) },
    { weight: 4, arbitrary: fc.subarray([...DIMENSIONS], { minLength: 1 }).map((d) => d.slice(0, 3)) },
  );
  const valid = fc.record({
    method: fc.constant(op.method),
    project: fc.constantFrom("1", "1", "1", "2", "@current").map((raw) => ({ raw })),
    id: fc.constantFrom(...VALID_IDS[resource]!).map((raw) => ({ raw })),
    query: validQueryFor(op, hints),
    auth: fc.constant<string | undefined>(`Bearer ${OWNER_KEY}`),
    contentType: fc.constantFrom("application/json", "application/json; charset=utf-8"),
    body: op.body ? validBodyOf(op, hints).map((value): BodySpec => ({ kind: "json", value, deep: { depth: 0, shape: "array" } })) : fc.constant<BodySpec>({ kind: "none" }),
    chunked: fc.constant(false),
  });
  const hostile = fc.record({
    method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"),
    project: pathSegment(PROJECT_IDS),
    id: pathSegment(resource === "persons" ? [...INTEGER_IDS, ...UUIDS] : resource === "events" ? UUIDS : INTEGER_IDS),
    query: queryFor(op, hints),
    auth: authHeader,
    contentType: fc.constantFrom(...CONTENT_TYPES),
    body: bodyFor(op, bodyLimit, hints),
    chunked: fc.constant(true),
  });
  return fc.tuple(hostileDims, valid, hostile).map(([dims, v, h]) => {
    const pick = <K extends Dimension>(k: K) => (dims.includes(k) ? h[k] : v[k]);
    let path = op.template.replace("{project_id}", encodeSegment(pick("project").raw)).replace("{id}", encodeSegment(pick("id").raw));
    if (dims.includes("id") && path.length % 5 === 0) path = path.replace(/\/$/, "");
    const headers: Record<string, string> = {};
    const auth = pick("auth");
    if (auth !== undefined) headers.authorization = auth;
    const body = serialiseBody(pick("body"));
    const contentType = pick("contentType");
    if (body !== undefined && contentType) headers["content-type"] = contentType;
    return { operationId: op.operationId, method: pick("method"), path: path + queryString(pick("query")), headers, body, chunked: pick("chunked") && body !== undefined };
  });
}

/** Declared query parameters with values their schema accepts (most of them). */
function validQueryFor(op: OperationInfo, hints: Hints): fc.Arbitrary<QueryPart[]> {
  const usable = op.query.filter((p) => p.name !== "format");
  if (usable.length === 0) return fc.constant([]);
  return fc.array(
    fc.constantFrom(...usable).chain((p) => fieldOf(p.name, p.schema, 0, hints).map((v) => ({ name: p.name, value: asQueryText(v).slice(0, 200), encode: true }))),
    { maxLength: 2 },
  );
}

/** A body the operation's schema accepts, or one of its documented examples. */
function validBodyOf(op: OperationInfo, hints: Hints): fc.Arbitrary<unknown> {
  const generated = fromSchema(op.body!.schema, 0, hints);
  return op.body!.examples.length ? fc.oneof({ weight: 3, arbitrary: generated }, { weight: 1, arbitrary: fc.constantFrom(...op.body!.examples) }) : generated;
}

/** Paths that are no operation: routing must answer 404/405 with the Error shape. */
export const strayRequest: fc.Arbitrary<RawRequest> = fc
  .record({
    method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"),
    path: fc.constantFrom(
      "/nope/", "/api", "/api/", "/api/projects/1/nope/", "/api/projects/1/insights/1/extra/", "/api/projects/1/insights/trend/extra/",
      "/api//projects/1/insights/", "/API/PROJECTS/", "/api/projects/1/../../", "/api/projects/1/%2e%2e/%2e%2e/",
      "/api/projects/1/insights/..%2F..%2Fpackage.json", "/.git/config", "/package.json", "/%2e%2e/package.json",
      "/api/projects/__proto__/", "/api/projects/1/persons/1/split/x/", "/api/projects/1/events/values/x/",
    ),
    auth: authHeader,
  })
  .map((r): RawRequest => ({ method: r.method, path: r.path, headers: r.auth === undefined ? {} : { authorization: r.auth } }));

import RE2 from "re2";
import { fail } from "../core/errors.ts";

/**
 * What `POST /_mock/requests/find|count` and `POST /_mock/overrides/` match requests by (WireMock's request
 * patterns, reduced to what a test of this API asks). Every given condition must hold.
 */
export interface RequestPattern {
  method?: string;
  /** A glob over the path: `*` is any run of characters within one segment, `**` any run across segments; the trailing slash is optional. */
  path?: string;
  operation_id?: string;
  status?: number;
  /** Query fields: each must be present and match (see `matchesValue`). */
  query?: Record<string, unknown>;
  /** Body fields: a partial deep match (see `matchesValue`). */
  body?: Record<string, unknown>;
}

/** What a pattern is matched against: a logged request, or one being handled. */
export interface MatchableRequest {
  method: string;
  path: string;
  operation_id: string | null;
  status?: number;
  /** Query fields as decoded from the query string (repeated fields are arrays). */
  query: Record<string, string | string[]>;
  body: unknown;
  /** A capture batch's events: the body condition also holds when one of them matches it. */
  events?: unknown[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `a.b.0.c` reads nested fields, so one deep field can be asked without writing its parents out. */
function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".")) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isObject(current) && key in current) current = current[key];
    else return undefined;
  }
  return current;
}

/**
 * Partial deep equality: an expected object matches an object having at least its keys (a key not present
 * as such is read as a dotted path), an expected array matches an array of the same length item by item,
 * anything else must be equal.
 */
export function matchesValue(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => matchesValue(item, actual[i]));
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return false;
    return Object.entries(expected).every(([key, want]) => matchesValue(want, key in actual ? actual[key] : readPath(actual, key)));
  }
  return expected === actual;
}

/** JSON-encoded query values (the analyses' query forms) are compared decoded; plain values as sent. */
function decodeQueryValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function matchesQueryField(expected: unknown, actual: string | string[] | undefined): boolean {
  if (actual === undefined) return false;
  if (Array.isArray(actual)) return Array.isArray(expected) ? matchesValue(expected, actual) : actual.some((a) => matchesQueryField(expected, a));
  if (typeof expected === "string") return expected === actual;
  return matchesValue(expected, decodeQueryValue(actual));
}

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/**
 * The glob as a linear-time matcher over the whole path, trailing slash optional on both sides. RE2 runs it:
 * a backtracking RegExp with one `[^/]*` per `*` takes exponential time on a path that almost matches, and
 * overflows the stack compiling a long glob. A run of stars is `**` (any run of `*` and `**` is any run).
 */
export function globToRegExp(glob: string): RegExp {
  const trimmed = glob.endsWith("/") ? glob.slice(0, -1) : glob;
  const source = trimmed
    .replace(/\*{2,}/g, "**")
    .split("**")
    .map((part) => part.split("*").map(escapeRegExp).join("[^/]*"))
    .join(".*");
  try {
    return new RE2(`^${source}/?$`, "s");
  } catch (e) {
    throw fail.invalid("path", `path is not a glob this server can match: ${(e as Error).message}.`);
  }
}

/** A compiled pattern: the glob is turned into a RegExp once. */
export function compilePattern(pattern: RequestPattern): (req: MatchableRequest) => boolean {
  const path = pattern.path === undefined ? null : globToRegExp(pattern.path);
  const method = pattern.method?.toUpperCase();
  return (req) =>
    (method === undefined || req.method.toUpperCase() === method) &&
    (path === null || path.test(req.path)) &&
    (pattern.operation_id === undefined || req.operation_id === pattern.operation_id) &&
    (pattern.status === undefined || req.status === pattern.status) &&
    Object.entries(pattern.query ?? {}).every(([name, want]) => matchesQueryField(want, req.query[name])) &&
    (pattern.body === undefined || matchesValue(pattern.body, req.body) || (req.events ?? []).some((e) => matchesValue(pattern.body, e)));
}

/** A query string's fields, decoded; a repeated field becomes an array. */
export function queryFields(search: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = fields[name];
    fields[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

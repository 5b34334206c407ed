import RE2 from "re2";
import { reject } from "./analysis-errors.ts";

/** Compiled patterns kept per cache (refusals too); past this a cache starts over, so hostile callers cannot grow it. */
const CACHE_LIMIT = 1_000;
const cache = new Map<string, RegExp | Error>();

/**
 * The one place a user's regex pattern becomes a matcher: RE2, a linear-time engine (as ClickHouse's `match`),
 * so a catastrophic pattern such as `^(a+)+$` cannot hold the server on a long value. Inline flag groups
 * (`(?i)`, `(?s)`, `(?m)`) and `(?P<name>…)` are RE2 syntax and work anywhere in the pattern. Throws RE2's
 * error for what it refuses (backreferences, lookaround, oversized programs) and for invalid patterns; each
 * caller decides what a refusal means (a 400 on its field, or a condition that matches nothing).
 * `g` is for replace-all callers; never rebuild a native RegExp from the result's `source` (that brings
 * backtracking back, and RE2-only syntax such as `(?i)` throws there).
 */
export function compileRe2(pattern: string, flags: "" | "g" = ""): RegExp {
  const key = `${flags}/${pattern}`;
  let compiled = cache.get(key);
  if (compiled === undefined) {
    compiled = tryRe2(pattern, flags);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, compiled);
  }
  if (compiled instanceof Error) throw compiled;
  return compiled;
}

function tryRe2(pattern: string, flags: string): RegExp | Error {
  try {
    return new RE2(pattern, flags);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/**
 * A user's regex pattern on RE2 (`compileRe2` says why), or a 400 on `attr` naming what RE2 refuses
 * (backreferences, lookaround, oversized programs) or what is not a pattern at all.
 */
export function compileUserRegex(pattern: string, attr = "properties", flags: "" | "g" = ""): RegExp {
  try {
    return compileRe2(pattern, flags);
  } catch (err) {
    throw reject.invalid(attr, `Invalid regular expression "${pattern}": ${(err as Error).message}`);
  }
}

const likeCache = new Map<string, RegExp>();

/** Escapes every regex metacharacter, so the text matches itself. */
export const escapeRegExp = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export interface LikeOptions {
  /** Whole value (SQL LIKE) rather than anywhere in it (PostHog's icontains, `%v%`). */
  anchored?: boolean;
  caseInsensitive?: boolean;
  /** The wildcard for "any run": `%` in SQL, `*` in path groupings (which have no one-character wildcard). */
  wildcard?: "%" | "*";
}

/**
 * A LIKE-style pattern as a linear-time matcher: `%` (or `*`) is any run, `_` any one character in SQL.
 * The one place such patterns are compiled: a backtracking `RegExp` with one `.*` per `%` hangs on many of them.
 */
export function compileLikePattern(value: string, { anchored = false, caseInsensitive = true, wildcard = "%" }: LikeOptions = {}): RegExp {
  const key = `${anchored ? "^" : ""}${caseInsensitive ? "i" : ""}${wildcard}/${value}`;
  const cached = likeCache.get(key);
  if (cached) return cached;
  const escaped = escapeRegExp(value);
  const source = wildcard === "%" ? escaped.replace(/%+/g, ".*").replace(/_/g, ".") : escaped.replace(/(\\\*)+/g, ".*");
  const compiled = new RE2(anchored ? `^(?:${source})$` : source, caseInsensitive ? "is" : "s");
  if (likeCache.size >= CACHE_LIMIT) likeCache.clear();
  likeCache.set(key, compiled);
  return compiled;
}

import RE2 from "re2";
import { reject } from "../errors.ts";

/** Compiled patterns kept; past this the cache starts over, so hostile callers cannot grow it. */
const CACHE_LIMIT = 1_000;
const cache = new Map<string, RegExp>();

/**
 * The one place user regex patterns are compiled. RE2 (a linear-time engine) runs them, as PostHog's
 * ClickHouse does, so a catastrophic pattern such as `(a+)+$` cannot hang the server on a long value.
 * Inline flag groups (`(?i)`, `(?s)`, `(?m)`) are RE2 syntax and work anywhere in the pattern. What RE2
 * refuses (backreferences, lookaround, oversized programs) and invalid patterns are a 400 on `attr`.
 * `g` is for replace-all callers; never rebuild a native RegExp from the result's `source` (that brings
 * backtracking back, and RE2-only syntax such as `(?i)` throws there).
 */
export function compileUserRegex(pattern: string, attr = "properties", flags: "" | "g" = ""): RegExp {
  const key = `${flags}/${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let compiled: RegExp;
  try {
    compiled = new RE2(pattern, flags);
  } catch (err) {
    throw reject.invalid(attr, `Invalid regular expression "${pattern}": ${(err as Error).message}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, compiled);
  return compiled;
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

import RE2 from "re2";
import { compileRe2 } from "../../core/regex.ts";
import { reject } from "../../core/analysis-errors.ts";

/** Compiled like-patterns kept; past this the cache starts over, so hostile callers cannot grow it. */
const CACHE_LIMIT = 1_000;

/**
 * A user's regex pattern on RE2 (src/core/regex.ts says why), or a 400 on `attr` naming what RE2 refuses
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

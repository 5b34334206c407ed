import RE2 from "re2";

/** Compiled patterns kept (refusals too); past this the cache starts over, so hostile callers cannot grow it. */
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

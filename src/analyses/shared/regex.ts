import { fail } from "../../http/errors.ts";

const cache = new Map<string, RegExp>();

/**
 * The one place user regex patterns are compiled (a later issue swaps in a linear-time engine).
 * Patterns follow RE2 syntax as PostHog uses it; a leading `(?i)` / `(?s)` / `(?m)` flag group is turned into
 * JS flags. Invalid patterns are a 400 on `attr`.
 */
export function compileUserRegex(pattern: string, attr = "properties"): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let source = pattern;
  let flags = "";
  const inline = /^\(\?([ims]+)\)/.exec(source);
  if (inline) {
    flags = [...new Set(inline[1])].join("");
    source = source.slice(inline[0].length);
  }
  let compiled: RegExp;
  try {
    compiled = new RegExp(source, flags);
  } catch (err) {
    throw fail.invalid(attr, `Invalid regular expression "${pattern}": ${(err as Error).message}`);
  }
  if (cache.size > 1000) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}

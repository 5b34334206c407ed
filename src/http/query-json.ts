import { fail } from "../core/errors.ts";
import { parseCallerJson } from "./json-depth.ts";

/**
 * GET forms of the analyses take the filter as query parameters with JSON-encoded lists and objects
 * (reference: analytics §1.3, §9.2). Values that look like JSON arrays or objects are decoded; the rest are
 * kept as the router coerced them. An undecodable value is a 400 naming its parameter.
 */
export function decodeJsonParams(query: Record<string, unknown>, skip: ReadonlySet<string> = new Set()): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    if (skip.has(name)) continue;
    out[name] = typeof value === "string" && /^\s*[[{]/.test(value) ? parseParam(name, value) : value;
  }
  return out;
}

export function parseParam(name: string, value: string): unknown {
  try {
    return parseCallerJson(value, name);
  } catch (err) {
    if (err instanceof SyntaxError) throw fail.invalid(name, `${name} is not valid JSON.`);
    throw err;
  }
}

import { fail } from "./errors.ts";

/**
 * Deepest nesting accepted in any JSON the API reads (bodies and JSON-encoded parameters). PostHog's own
 * filters and query nodes nest about ten levels; a value nested thousands deep would be stored and then
 * overflow the stack each time it is serialised.
 */
export const MAX_JSON_DEPTH = 100;

/** True when `value` nests objects or arrays deeper than `limit`; iterative, so any depth is safe to ask. */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/** 400 naming `attr` (or, for an object body, the top-level field holding the deep value). */
export function assertJsonDepth(value: unknown, attr: string | null): void {
  if (!nestsDeeperThan(value)) return;
  const field =
    attr ?? (value && typeof value === "object" && !Array.isArray(value)
      ? Object.keys(value).find((key) => nestsDeeperThan((value as Record<string, unknown>)[key], MAX_JSON_DEPTH - 1)) ?? null
      : null);
  throw fail.invalid(field, `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted.`);
}

/** JSON.parse for caller-supplied text: a syntax error propagates as it is, a too-deep value is a 400 on `attr`. */
export function parseCallerJson(text: string, attr: string | null): unknown {
  const value: unknown = JSON.parse(text);
  assertJsonDepth(value, attr);
  return value;
}

/**
 * Deepest nesting accepted in any JSON the API reads (bodies and JSON-encoded parameters). PostHog's own
 * filters and query nodes nest about ten levels; a value nested thousands deep would be stored and then
 * overflow the stack each time it is serialised.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * True when `value` nests objects or arrays deeper than `limit`. Recursive but never deeper than `limit` + 1
 * frames, so any value is safe to ask; it allocates nothing, as it runs over every capture batch twice.
 */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  if (limit <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) if (Object.hasOwn(value, key) && nestsDeeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}

export const tooDeepMessage = `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted.`;

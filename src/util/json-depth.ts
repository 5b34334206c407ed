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

export const tooDeepMessage = `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted.`;

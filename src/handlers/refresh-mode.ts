/**
 * `refresh` as the real service reads it on insight reads (posthog/utils.py `_request_has_key_set`, then
 * posthog/hogql_queries/query_runner.py `execution_mode_from_refresh`): true, 1 and yes are force_blocking; false,
 * 0 and no are force_cache; an ExecutionMode value names its mode; any other value is false (openapi/components/
 * parameters.yaml#/refresh says the same).
 */
export const REFRESH_VALUES = ["true", "false", "1", "0", "yes", "no", "force_cache", "blocking", "async", "async_except_on_cache_miss", "lazy_async", "force_blocking", "force_async"] as const;

/** The modes that recompute even when a cached result is fresh (CALCULATE_BLOCKING_ALWAYS, CALCULATE_ASYNC_ALWAYS). */
const ALWAYS_CALCULATE: ReadonlySet<unknown> = new Set(["true", "1", "yes", "force_blocking", "force_async", true]);

/**
 * Whether a `refresh` value asks for a recomputation: the `force_` modes and true. Every other mode is answered from
 * the cache, computing within the request what is missing (blocking and async alike: insights compute within the
 * request here, so an async mode's status would already be complete).
 */
export const refreshRequested = (value: unknown): boolean => ALWAYS_CALCULATE.has(typeof value === "string" ? value.toLowerCase() : value);

/** Whether a mode computes what the cache lacks: all but force_cache (and false, 0, no, which mean it). */
export function computesMissing(value: unknown): boolean {
  if (value === undefined || value === false) return false;
  const mode = typeof value === "string" ? value.toLowerCase() : value;
  return (REFRESH_VALUES as readonly unknown[]).includes(mode) && !["false", "0", "no", "force_cache"].includes(mode as string);
}

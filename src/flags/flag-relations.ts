/**
 * What the flag editor asks about one flag: the values a dependent condition can test it for, and the flags whose
 * conditions test it (reference: PostHog `posthog/api/flag_value.py` `values` and `posthog/api/feature_flag.py`
 * `find_dependent_flags`).
 */
import { flagFilters, flagResolver } from "./dependencies.ts";
import type { FeatureFlagDefinition } from "./types.ts";

/** `true` and `false` for every flag (a dependency on `true` matches any enabled value), then its variant keys in order. */
export function possibleFlagValues(flag: FeatureFlagDefinition): Array<boolean | string> {
  const variants = (flag.filters.multivariate?.variants ?? []).map((v) => v.key).filter((key) => key !== "");
  return [true, false, ...variants];
}

/**
 * The other active, undeleted flags with a `flag` filter naming this one, ordered by key. A filter names a flag the
 * way evaluation resolves it (by id, as the real UI writes it, or by key), so the list is what evaluation follows.
 */
export function dependentFlags(flag: FeatureFlagDefinition, flags: readonly FeatureFlagDefinition[]): FeatureFlagDefinition[] {
  const resolve = flagResolver([...flags]);
  return flags
    .filter((other) => other.id !== flag.id && other.active && !other.deleted)
    .filter((other) => flagFilters(other).some((filter) => resolve(filter)?.id === flag.id))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

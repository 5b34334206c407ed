/**
 * Forced flag values written into local evaluation definitions, so that posthog-node evaluating locally sees
 * what `/flags` answers. posthog-node adds `distinct_id` to the person properties and `$group_key` to each
 * group's properties before matching; a forced value becomes a condition on them.
 */
import type { ForcedFlag } from "./forced-flags.ts";

type Loose = Record<string, unknown>;
export interface DefinitionFlag extends Loose {
  id: number;
  key: string;
  active: boolean;
  filters: Loose;
}

/** The condition naming the forced scope: a person's distinct id, or a group's key for a group flag. */
function scopeProperty(f: ForcedFlag, groupIndex: number | null, operator: "exact" | "is_not"): Loose {
  if (f.group !== undefined) return { key: "$group_key", value: [f.group.key], operator, type: "group", group_type_index: groupIndex ?? 0 };
  return { key: "distinct_id", value: [f.distinct_id], operator, type: "person" };
}

/** One flag's filters with its forced values: narrow scopes first, then the rest as evaluated (or as forced for everyone). */
function forcedFilters(filters: Loose, active: boolean, forced: readonly ForcedFlag[]): Loose {
  const groupIndex = (filters.aggregation_group_type_index as number | null | undefined) ?? null;
  const everyone = forced.filter((f) => f.distinct_id === undefined && f.group === undefined).at(-1);
  const scoped = forced.filter((f) => f.distinct_id !== undefined || f.group !== undefined);
  const variantOf = (f: ForcedFlag) => (typeof f.value === "string" ? f.value : null);
  const offFor = scoped.filter((f) => f.value === false).map((f) => scopeProperty(f, groupIndex, "is_not"));
  const onFor = scoped.filter((f) => f.value !== false).map((f) => ({ properties: [scopeProperty(f, groupIndex, "exact")], rollout_percentage: 100, variant: variantOf(f) }));
  const rest: Loose[] = everyone
    ? [{ properties: [], rollout_percentage: everyone.value === false ? 0 : 100, variant: variantOf(everyone) }]
    : active
      ? ((filters.groups as Loose[] | undefined) ?? [])
      : [];
  const guarded = rest.map((g) => ({ ...g, properties: [...((g.properties as Loose[] | undefined) ?? []), ...offFor] }));
  const payloads = { ...((filters.payloads as Record<string, string> | undefined) ?? {}) };
  for (const f of forced) if (f.payload !== undefined && f.value !== false) payloads[variantOf(f) ?? "true"] = JSON.stringify(f.payload);
  // A forced variant the flag does not define joins its variants, so that posthog-node accepts the override.
  const variants = [...((((filters.multivariate as Loose | null | undefined)?.variants as Loose[] | undefined) ?? []))];
  for (const f of forced) {
    const variant = variantOf(f);
    if (variant !== null && !variants.some((v) => v.key === variant)) variants.push({ key: variant, rollout_percentage: 0 });
  }
  return { ...filters, groups: [...onFor, ...guarded], payloads, ...(variants.length ? { multivariate: { variants } } : {}) };
}

/** The definitions with every forced value applied; a forced key no flag has becomes a flag of its own. */
export function withForcedValues(flags: readonly DefinitionFlag[], forced: readonly ForcedFlag[], newFlag: (key: string) => DefinitionFlag): DefinitionFlag[] {
  if (!forced.length) return [...flags];
  const byKey = new Map<string, ForcedFlag[]>();
  for (const f of forced) byKey.set(f.key, [...(byKey.get(f.key) ?? []), f]);
  const result = flags.map((flag) => {
    const mine = byKey.get(flag.key);
    return mine ? { ...flag, active: true, filters: forcedFilters(flag.filters, flag.active, mine) } : flag;
  });
  for (const [key, mine] of byKey) {
    if (flags.some((f) => f.key === key)) continue;
    const flag = newFlag(key);
    result.push({ ...flag, active: true, filters: forcedFilters({ groups: [] }, false, mine) });
  }
  return result;
}

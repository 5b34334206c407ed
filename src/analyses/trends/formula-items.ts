import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from "../shared/breakdown.ts";
import { applyFormula } from "../shared/formula.ts";
import type { FormulaSpec, TrendSpec } from "./filter.ts";
import type { TrendResultItem } from "./items.ts";

/**
 * Formula results replace the series (reference: analytics §2.6, §11 item 6): evaluated bucket by bucket,
 * per breakdown value (a series lacking the value contributes zeros), on aggregated values for
 * total-value displays. `perSeries` holds the items of one period, one list per series.
 */
export function formulaItems(formula: FormulaSpec, perSeries: TrendResultItem[][], spec: TrendSpec): TrendResultItem[] {
  if (perSeries.length === 0 || perSeries.every((items) => items.length === 0)) return [];
  if (!spec.breakdown) return [evaluate(formula, perSeries.map((items) => items[0]), spec)];
  const keys = new Map<string, TrendResultItem>();
  for (const items of perSeries) for (const item of items) if (!keys.has(keyOf(item))) keys.set(keyOf(item), item);
  const results = [...keys.keys()].map((key) => evaluate(formula, perSeries.map((items) => items.find((i) => keyOf(i) === key)), spec, keys.get(key)));
  return results.sort(byBreakdownThenTotal);
}

const keyOf = (item: TrendResultItem): string => JSON.stringify(item.breakdown_value ?? null);

function evaluate(formula: FormulaSpec, row: (TrendResultItem | undefined)[], spec: TrendSpec, fallback?: TrendResultItem): TrendResultItem {
  const base = row.find((item) => item !== undefined) ?? fallback!;
  const result: TrendResultItem = { ...base, label: formula.customName ?? `Formula (${formula.text})`, action: null };
  if (spec.totalValue) {
    const [value] = applyFormula(formula.evaluate, row.map((item) => [item?.aggregated_value ?? 0]), 1);
    return { ...result, aggregated_value: value ?? 0, data: null, count: 0 };
  }
  const length = base.data?.length ?? 0;
  const data = applyFormula(formula.evaluate, row.map((item) => item?.data ?? []), length);
  return { ...result, data, count: data.reduce((a, b) => a + b, 0) };
}

/**
 * Regular values first, then null, then other; within them descending by total, count, the data compared
 * bucket by bucket, then the value (PostHog trends_query_runner.py, apply_formula: one reversed sort key).
 */
function byBreakdownThenTotal(a: TrendResultItem, b: TrendResultItem): number {
  const rank = (i: TrendResultItem) => (i.breakdown_value === BREAKDOWN_OTHER ? 2 : i.breakdown_value === BREAKDOWN_NULL ? 1 : 0);
  const total = (i: TrendResultItem) => i.aggregated_value ?? (i.data ?? []).reduce((x, y) => x + y, 0);
  const ka = keyOf(a);
  const kb = keyOf(b);
  return rank(a) - rank(b) || total(b) - total(a) || b.count - a.count || compareData(b.data ?? [], a.data ?? []) || (kb < ka ? -1 : kb > ka ? 1 : 0);
}

/** Lists compared as Python compares them: bucket by bucket, a shorter prefix first. */
function compareData(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

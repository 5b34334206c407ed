import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from "../shared/breakdown.ts";
import { applyFormula } from "../shared/formula.ts";
import type { FormulaSpec, TrendSpec } from "./filter.ts";
import type { TrendResultItem } from "./items.ts";

/**
 * Formula results replace the series (reference: analytics §2.6, §11 item 6; real service
 * posthog/hogql_queries/insights/trends/trends_query_runner.py `apply_formula`): evaluated bucket by bucket,
 * per breakdown value of any series (a series lacking the value contributes zeros), on aggregated values for
 * total-value displays. `perSeries` holds the items of one period, one list per series.
 */
export function formulaItems(formula: FormulaSpec, perSeries: TrendResultItem[][], spec: TrendSpec): TrendResultItem[] {
  if (perSeries.length === 0 || perSeries.every((items) => items.length === 0)) return [];
  if (!spec.breakdown) return [evaluate(formula, perSeries.map((items) => items[0]), spec).item];
  if (conjoinsCohorts(formula, spec)) return conjoinedCohortItems(formula, perSeries, spec);
  const keys = new Map<string, TrendResultItem>();
  for (const items of perSeries) for (const item of items) if (!keys.has(keyOf(item))) keys.set(keyOf(item), item);
  const results = [...keys.keys()].sort(naturalOrder).map((key) => evaluate(formula, perSeries.map((items) => items.find((i) => keyOf(i) === key)), spec, keys.get(key)));
  return spec.compare ? stableByCountDesc(results) : results.sort(byRankThenTotal).map((r) => r.item);
}

/**
 * A cohort breakdown listing "all" under a `formula` field: PostHog runs one query per cohort, applies the formula
 * per cohort, then applies it again across the cohorts as if they were series (trends_query_runner.py
 * `apply_formula`, "the all cohort makes us do special handling"). In that second pass every cohort but the first
 * listed sits on a zero filler, so for a line it sorts by 0 (test_formula.py::test_breakdown_cohort).
 */
function conjoinsCohorts(formula: FormulaSpec, spec: TrendSpec): boolean {
  const breakdown = spec.breakdown;
  return formula.formulaFieldSet && breakdown?.kind === "cohort" && breakdown.cohorts.some((c) => c.value === "all");
}

function conjoinedCohortItems(formula: FormulaSpec, perSeries: TrendResultItem[][], spec: TrendSpec): TrendResultItem[] {
  if (spec.breakdown?.kind !== "cohort") return [];
  const perCohort = spec.breakdown.cohorts.map((cohort) => {
    const row = perSeries.map((items) => items.find((item) => item.breakdown_value === cohort.value));
    return row.some((item) => item !== undefined) ? evaluate(formula, row, spec).item : undefined;
  });
  const results = perCohort.flatMap((item, i) => (item ? [evaluate(formula, perCohort.map((other, j) => (j === i ? other : undefined)), spec, item)] : []));
  return results.sort((a, b) => naturalOrder(keyOf(a.item), keyOf(b.item))).sort(byRankThenTotal).map((r) => r.item);
}

const keyOf = (item: TrendResultItem): string => JSON.stringify(item.breakdown_value ?? null);

interface Evaluated {
  item: TrendResultItem;
  /** The total the real service sorts by: 0 when the first series lacks the value (its zero filler is the base). */
  sortTotal: number;
}

function evaluate(formula: FormulaSpec, row: (TrendResultItem | undefined)[], spec: TrendSpec, fallback?: TrendResultItem): Evaluated {
  const base = row.find((item) => item !== undefined) ?? fallback!;
  const result: TrendResultItem = { ...base, label: formula.customName ?? `Formula (${formula.text})`, action: null };
  if (spec.totalValue) {
    const [value] = applyFormula(formula.evaluate, row.map((item) => [item?.aggregated_value ?? 0]), 1);
    return { item: { ...result, aggregated_value: value ?? 0, data: null, count: 0 }, sortTotal: value ?? 0 };
  }
  const length = base.data?.length ?? 0;
  const data = applyFormula(formula.evaluate, row.map((item) => item?.data ?? []), length);
  const count = data.reduce((a, b) => a + b, 0);
  return { item: { ...result, data, count }, sortTotal: row[0] === undefined ? 0 : count };
}

/**
 * Without compare: regular values, then null, then other; within them by total, count and data (each
 * descending), then by the value's Python repr, descending (apply_formula sorts that tuple in reverse).
 */
function byRankThenTotal(a: Evaluated, b: Evaluated): number {
  const only = (i: TrendResultItem, value: string) =>
    i.breakdown_value === value || (Array.isArray(i.breakdown_value) && i.breakdown_value.length > 0 && i.breakdown_value.every((v) => v === value));
  const rank = (i: TrendResultItem) => (only(i, BREAKDOWN_OTHER) ? 2 : only(i, BREAKDOWN_NULL) ? 1 : 0);
  return (
    rank(a.item) - rank(b.item) || b.sortTotal - a.sortTotal || b.item.count - a.item.count || compareLists(b.item.data ?? [], a.item.data ?? []) || compareStrings(pyRepr(b.item.breakdown_value), pyRepr(a.item.breakdown_value))
  );
}

/** With compare the real service sorts each period's results by count, descending, keeping the natural order of ties. */
function stableByCountDesc(results: Evaluated[]): TrendResultItem[] {
  return results.map((r, i) => ({ r, i })).sort((x, y) => y.r.item.count - x.r.item.count || x.i - y.i).map(({ r }) => r.item);
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function compareLists(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Python's repr of a breakdown value: strings quoted (single quotes unless the text holds one and no double quote). */
function pyRepr(value: TrendResultItem["breakdown_value"]): string {
  if (Array.isArray(value)) return `[${value.map((v) => pyRepr(v)).join(", ")}]`;
  if (typeof value !== "string") return String(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const body = value.replace(/\\/g, "\\\\").replace(quote === "'" ? /'/g : /"/g, `\\${quote}`);
  return `${quote}${body}${quote}`;
}

/** natsort with IGNORECASE: case-insensitive, digit runs compared as numbers. */
function naturalOrder(a: string, b: string): number {
  const pa = a.toLowerCase().split(/(\d+)/);
  const pb = b.toLowerCase().split(/(\d+)/);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const diff = i % 2 === 1 ? Number(pa[i]) - Number(pb[i]) : compareStrings(pa[i]!, pb[i]!);
    if (diff !== 0) return diff;
  }
  return pa.length - pb.length;
}

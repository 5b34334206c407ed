import { bucketKeys, bucketLabels, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { isoInZone, type QueryWindow } from "../shared/date-range.ts";
import { readBool, type Loose } from "../shared/filter-read.ts";
import { cumulate } from "../shared/math.ts";
import { seriesLabel, type SeriesEntity } from "../shared/series.ts";
import type { TrendSpec } from "./filter.ts";
import type { Row, SeriesRun } from "./run.ts";

/** One element of the trends `result` (reference: analytics §2.2). */
export interface TrendResultItem {
  action: Record<string, unknown> | null;
  label: string;
  count: number;
  data: number[] | null;
  labels?: string[];
  days: string[];
  filter: Record<string, unknown>;
  breakdown_value?: string | number | string[];
  compare?: boolean;
  compare_label?: "current" | "previous";
  aggregated_value?: number;
}

export interface Period {
  window: QueryWindow;
  compareLabel: "current" | "previous" | undefined;
}

/** smoothing_intervals: mean of the last N buckets up to this one, rounded down (reference §2.4). */
export function smooth(data: readonly number[], n: number): number[] {
  if (n <= 1) return [...data];
  return data.map((_, i) => {
    const window = data.slice(Math.max(0, i - n + 1), i + 1);
    return Math.floor(window.reduce((a, b) => a + b, 0) / window.length);
  });
}

/** The items of one series in one period: one per row (breakdown value). */
export function seriesItems(run: SeriesRun, spec: TrendSpec, ctx: AnalysisContext, period: Period, echo: Record<string, unknown>): TrendResultItem[] {
  const base = seriesLabel(run.entity, ctx);
  const action = seriesAction(run.entity, run.buckets, base, ctx);
  const days = spec.totalValue ? [] : bucketKeys(run.buckets, ctx.timezone);
  const labels = spec.totalValue ? undefined : bucketLabels(run.buckets, ctx.timezone);
  return run.rows.map((row) => {
    const item: TrendResultItem = { action, label: rowLabel(row, base, spec.series.length), count: 0, data: [], days, filter: echo };
    if (spec.totalValue) item.aggregated_value = row.data[0] ?? 0;
    else {
      const data = spec.cumulative ? cumulate(smooth(row.data, spec.smoothing)) : smooth(row.data, spec.smoothing);
      Object.assign(item, { data, labels, count: spec.cumulative ? (data.at(-1) ?? 0) : data.reduce((a, b) => a + b, 0) });
    }
    if (period.compareLabel) Object.assign(item, { compare: true, compare_label: period.compareLabel });
    if (row.breakdown) item.breakdown_value = row.breakdown.value;
    return item;
  });
}

/** With several series the label is "<series> - <value>", with one series just the value (§2.5). */
function rowLabel(row: Row, base: string, seriesCount: number): string {
  if (!row.breakdown) return base;
  return seriesCount > 1 ? `${base} - ${row.breakdown.label}` : row.breakdown.label;
}

/** The `action` of a result item: the series entity as sent, defaults filled (stickiness and lifecycle too). */
export function seriesAction(entity: SeriesEntity, buckets: Buckets, label: string, ctx: AnalysisContext): Record<string, unknown> {
  return {
    days: buckets.edges.slice(0, buckets.length).map((ms) => isoInZone(ms, ctx.timezone)),
    id: entity.id,
    type: entity.type,
    order: entity.index,
    name: label,
    custom_name: entity.custom_name,
    math: entity.math ?? null,
    math_property: entity.math_property ?? null,
    math_hogql: (entity.raw.math_hogql as string | undefined) ?? null,
    math_group_type_index: entity.math_group_type_index ?? null,
    properties: {},
  };
}

const ECHOED = [
  "display", "formula", "formulas", "smoothing_intervals", "compare", "compare_to", "breakdown", "breakdown_type",
  "breakdown_limit", "breakdown_histogram_bin_count", "breakdown_normalize_url", "breakdown_hide_other_aggregation", "breakdowns",
];

/** The `filter` echoed on every item, as the current engine's _query_to_filter builds it. */
export function filterEcho(spec: TrendSpec, window: QueryWindow, ctx: AnalysisContext): Record<string, unknown> {
  const raw: Loose = spec.raw;
  const echo: Record<string, unknown> = {
    insight: "TRENDS",
    properties: raw.properties ?? [],
    filter_test_accounts: readBool(raw, "filter_test_accounts"),
    date_to: isoInZone(window.to, ctx.timezone),
    date_from: isoInZone(window.from, ctx.timezone),
    entity_type: "events",
    interval: spec.interval,
  };
  for (const key of ECHOED) if (raw[key] !== undefined && raw[key] !== null) echo[key] = raw[key];
  if (raw.aggregation_group_type_index !== undefined && raw.aggregation_group_type_index !== null) echo.aggregation_group_type_index = raw.aggregation_group_type_index;
  return echo;
}

import { reject } from "../../core/analysis-errors.ts";
import { readBreakdown, type BreakdownDef } from "../shared/breakdown.ts";
import type { AnalysisContext, Interval } from "../shared/context.ts";
import { INTERVALS } from "../shared/context.ts";
import { resolveDateRange, type QueryWindow } from "../shared/date-range.ts";
import { readDateField } from "../../core/date-parse.ts";
import { compileFormula, type Formula } from "../shared/formula.ts";
import { isObject, readBool, readList, readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { mergeSeries, type SeriesEntity } from "../shared/series.ts";
import { MATHS } from "./maths.ts";

/** The legacy trend filter JSON (reference: analytics §2.1); loose, read through TrendSpec. */
export type TrendFilter = Record<string, unknown>;

export const TOTAL_VALUE_DISPLAYS = ["BoldNumber", "ActionsPie", "ActionsTable", "ActionsBarValue", "WorldMap"] as const;

export interface FormulaSpec {
  text: string;
  customName: string | null;
  evaluate: Formula;
  /** The filter has a `formula` field (whichever list the formulas came from): it steers PostHog's cohort "all" handling. */
  formulaFieldSet: boolean;
}

export interface TrendSpec {
  raw: Loose;
  series: SeriesEntity[];
  interval: Interval;
  display: string;
  totalValue: boolean;
  cumulative: boolean;
  smoothing: number;
  formulas: FormulaSpec[];
  compare: boolean;
  compareTo: string | undefined;
  breakdown: BreakdownDef | undefined;
  breakdownLimit: number;
  hideOther: boolean;
  /** aggregation_group_type_index: actors are `$group_N` values instead of persons (§1.1). */
  groupIndex: number | undefined;
}

/** Reads and checks a trend filter; semantic errors are 400s with the field path as attr. */
export function readTrendFilter(filter: TrendFilter, ctx: AnalysisContext): TrendSpec {
  const series = mergeSeries(filter);
  series.forEach(checkMath);
  const display = readString(filter, "display") || "ActionsLineGraph";
  const totalValue = (TOTAL_VALUE_DISPLAYS as readonly string[]).includes(display);
  const limit = readNumber(filter, "breakdown_limit");
  return {
    raw: filter,
    series,
    interval: readInterval(filter),
    display,
    totalValue,
    cumulative: display === "ActionsLineGraphCumulative",
    smoothing: Math.max(1, Math.floor(readNumber(filter, "smoothing_intervals") ?? 1)),
    formulas: readFormulas(filter, series.length),
    compare: readBool(filter, "compare"),
    compareTo: readDateField(filter, "compare_to", ctx) ? readString(filter, "compare_to") : undefined,
    breakdown: readBreakdown(filter, ctx),
    // A world map shows every country (PostHog test_breakdown_values_world_map_limit).
    breakdownLimit: display === "WorldMap" ? Infinity : limit !== undefined && limit > 0 ? Math.floor(limit) : 25,
    hideOther: readBool(filter, "breakdown_hide_other_aggregation"),
    groupIndex: readNumber(filter, "aggregation_group_type_index"),
  };
}

/**
 * A trend's window: total-value displays resolve the range by day whatever the interval, and a BoldNumber's is
 * exact, from the instant date_from names to now (PostHog trends_query_runner.py: query_date_range with
 * exact_timerange = display == BOLD_NUMBER; test_trends_query_runner.py::test_trends_daily_compare_to_previous_period).
 */
export const trendWindow = (filter: Loose, spec: Pick<TrendSpec, "totalValue" | "interval" | "display">, ctx: AnalysisContext, earliest: number | undefined): QueryWindow =>
  resolveDateRange(filter, spec.totalValue ? "day" : spec.interval, ctx, earliest, spec.display === "BoldNumber");

/**
 * Legacy filters map `minute` to `hour` (reference §1.2, §10); a TrendsQuery's minutes arrive as `query_interval`
 * (query-node.ts) and are computed as minutes.
 */
function readInterval(filter: Loose): Interval {
  if (readString(filter, "query_interval") === "minute") return "minute";
  const value = readString(filter, "interval") || "day";
  if (!(INTERVALS as readonly string[]).includes(value)) throw reject.invalid("interval", `"${value}" is not a valid interval.`);
  return value === "minute" ? "hour" : (value as Interval);
}

/** Where a property math reads its property: the event (default) or the event's person. */
const MATH_PROPERTY_TYPES = ["event_properties", "person_properties"] as const;

function checkMath(entity: SeriesEntity): void {
  const attr = `${entity.type}__${entity.position}`;
  const math = entity.math ?? "total";
  const spec = MATHS[math];
  if (!spec) throw reject.invalid(`${attr}__math`, `"${math}" is not a supported math.`);
  if (spec.needsProperty && !entity.math_property) throw reject.invalid(`${attr}__math_property`, `Math "${math}" needs a math_property.`);
  const propertyType = entity.raw.math_property_type;
  if (propertyType !== undefined && propertyType !== null && !(MATH_PROPERTY_TYPES as readonly unknown[]).includes(propertyType)) {
    throw reject.invalid(`${attr}__math_property_type`, `math_property_type "${String(propertyType)}" is not supported by this server (${MATH_PROPERTY_TYPES.join(", ")}).`);
  }
  if (math === "hogql" && !readString(entity.raw, "math_hogql")) throw reject.invalid(`${attr}__math_hogql`, `Math "hogql" needs a math_hogql expression.`);
  if (math === "unique_group" && entity.math_group_type_index === undefined) {
    throw reject.invalid(`${attr}__math_group_type_index`, `Math "unique_group" needs a math_group_type_index.`);
  }
}

/** `formula`, or the newer `formulas` / `formulaNodes` lists (reference §2.1). */
function readFormulas(filter: Loose, seriesCount: number): FormulaSpec[] {
  const nodes = readList(filter, "formulaNodes").filter(isObject);
  const texts: { text: string; customName: string | null; attr: string }[] = nodes.length
    ? nodes.map((n, i) => ({ text: String(n.formula ?? ""), customName: readString(n, "custom_name") ?? null, attr: `formulaNodes__${i}__formula` }))
    : readList(filter, "formulas").map((f, i) => ({ text: String(f), customName: null, attr: `formulas__${i}` }));
  const single = readString(filter, "formula");
  if (texts.length === 0 && single && single.trim() !== "") texts.push({ text: single, customName: null, attr: "formula" });
  const formulaFieldSet = single !== undefined && single.trim() !== "";
  return texts.map(({ text, customName, attr }) => ({ text, customName, evaluate: compileFormula(text, seriesCount, attr), formulaFieldSet }));
}

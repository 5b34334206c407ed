import { reject } from "../../core/analysis-errors.ts";
import { readBreakdown, type BreakdownDef } from "../shared/breakdown.ts";
import type { AnalysisContext, Interval } from "../shared/context.ts";
import { readDateField } from "../../core/date-parse.ts";
import { decodeJsonish, readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { plus, startOf } from "../../core/time-zones.ts";
import { entityFrom, type SeriesEntity } from "../shared/series.ts";
import { readBrackets, type Brackets } from "./brackets.ts";

/** The legacy retention filter JSON (reference: analytics §7.1); loose, read through RetentionSpec. */
export type RetentionFilter = Record<string, unknown>;

export const RETENTION_TYPES = ["retention_recurring", "retention_first_time", "retention_first_ever_occurrence"] as const;
export const PERIODS = ["Hour", "Day", "Week", "Month"] as const;
export type Period = (typeof PERIODS)[number];

export interface RetentionSpec {
  raw: Loose;
  target: SeriesEntity;
  returning: SeriesEntity;
  type: (typeof RETENTION_TYPES)[number];
  period: Period;
  interval: Interval;
  /** total_intervals: the window's cohort rows when date_from is absent, and without brackets the values per row. */
  totalIntervals: number;
  /** Values per cohort row: the cohort (0), then the periods (or brackets) after it. */
  columns: number;
  /** retention_custom_brackets: periods after the cohort's grouped into brackets of these sizes; undefined: none. */
  brackets: Brackets | undefined;
  /** Cohort rows, one per period of the window (total_intervals of them unless date_from is given). */
  periods: number;
  /** edges[i] is the start of period i; edges[periods] the end of the window. */
  edges: number[];
  /** A return counts in a period only with at least this many returning events in it (1: any). */
  minimumOccurrences: number;
  /** Rolling retention: value j counts the cohort's actors who return in period i + j or any later one. */
  cumulative: boolean;
  breakdown: BreakdownDef | undefined;
  /** aggregation_group_type_index: actors are `$group_N` values (§1.1). */
  groupIndex: number | undefined;
  /** aggregation_type sum/avg of a numeric property beside the counts; undefined: counts only. */
  aggregation: RetentionAggregation | undefined;
  /** time_window_mode: calendar periods, or periods counted from each actor's first target event. */
  windowMode: (typeof WINDOW_MODES)[number];
}

export const AGGREGATION_TYPES = ["count", "sum", "avg"] as const;
export const AGGREGATION_PROPERTY_TYPES = ["event", "person"] as const;
export const WINDOW_MODES = ["strict_calendar_dates", "24_hour_windows"] as const;

export interface RetentionAggregation {
  type: "sum" | "avg";
  property: string;
  propertyType: (typeof AGGREGATION_PROPERTY_TYPES)[number];
}

const DEFAULT_ENTITY = { id: "$pageview", type: "events" };
/** The legacy endpoint's default; the current engine's is 7 (reference §7.1). */
const DEFAULT_INTERVALS = 11;

/** Reads a retention filter; semantic errors are 400s with the field as attr. */
export function readRetentionFilter(filter: RetentionFilter, ctx: AnalysisContext): RetentionSpec {
  const period = readPeriod(filter);
  const interval = period.toLowerCase() as Interval;
  const totalIntervals = readNumber(filter, "total_intervals") ?? DEFAULT_INTERVALS;
  if (!Number.isInteger(totalIntervals) || totalIntervals < 1 || totalIntervals > 100) {
    throw reject.invalid("total_intervals", "total_intervals must be an integer between 1 and 100.");
  }
  const brackets = readBrackets(filter);
  const edges = windowEdges(filter, interval, totalIntervals, ctx);
  const cumulative = filter.cumulative === true || filter.cumulative === "true";
  const windowMode = readWindowMode(filter, cumulative);
  const aggregation = readAggregation(filter, cumulative, windowMode);
  const minimumOccurrences = readMinimumOccurrences(filter);
  return {
    raw: filter,
    target: readEntity(filter, "target_entity"),
    returning: readEntity(filter, "returning_entity"),
    type: readType(filter),
    period,
    interval,
    totalIntervals,
    // PostHog's lookahead_period_count: the brackets and the cohort's own value, else total_intervals.
    columns: brackets ? brackets.length + 1 : totalIntervals,
    brackets,
    periods: edges.length - 1,
    edges,
    // A property aggregation reads every returning event, however few (PostHog retention_base_query_fixed.py).
    minimumOccurrences: aggregation ? 1 : minimumOccurrences,
    cumulative,
    breakdown: readBreakdown(filter, ctx),
    groupIndex: readNumber(filter, "aggregation_group_type_index"),
    aggregation,
    windowMode,
  };
}

function readEntity(filter: Loose, key: string): SeriesEntity {
  const raw = decodeJsonish(filter[key]);
  if (raw === undefined || raw === null || raw === "") return entityFrom(DEFAULT_ENTITY)!;
  const entity = entityFrom(raw);
  if (!entity) throw reject.invalid(key, `${key} must be an event or action entity.`);
  return entity;
}

/** Period names are case-insensitive (`day` = `Day`). */
function readPeriod(filter: Loose): Period {
  const value = readString(filter, "period") || "Day";
  const period = PERIODS.find((p) => p.toLowerCase() === value.toLowerCase());
  if (!period) throw reject.invalid("period", `"${value}" is not a valid period.`);
  return period;
}

function readType(filter: Loose): RetentionSpec["type"] {
  const value = readString(filter, "retention_type") || "retention_recurring";
  if (!(RETENTION_TYPES as readonly string[]).includes(value)) throw reject.invalid("retention_type", `"${value}" is not a valid retention type.`);
  return value as RetentionSpec["type"];
}

/**
 * The window (reference §7.2): with date_from, one cohort per period from date_from's to date_to's (default now);
 * without it, total_intervals periods ending with the one that contains date_to. Weeks start on the project's week
 * start, months on the 1st. `date_from: "all"` is read as absent.
 */
function windowEdges(filter: Loose, interval: Interval, count: number, ctx: Pick<AnalysisContext, "now" | "timezone" | "weekStartDay">): number[] {
  const from = filter.date_from === "all" ? undefined : readDateField(filter, "date_from", ctx);
  const to = readDateField(filter, "date_to", ctx)?.ms ?? ctx.now;
  const last = startOf(to, interval, ctx.timezone, ctx.weekStartDay);
  if (from === undefined) return Array.from({ length: count + 1 }, (_, i) => plus(last, i - (count - 1), interval, ctx.timezone));
  const first = startOf(from.ms, interval, ctx.timezone, ctx.weekStartDay);
  // date_from after date_to: no cohort at all, an empty result (PostHog's runners never refuse an inverted range).
  if (first > last) return [first];
  const edges = [first];
  while (edges.at(-1)! <= last) {
    if (edges.length > MAX_PERIODS) throw reject.invalid("date_from", `date_from to date_to spans more than ${MAX_PERIODS} periods: narrow the range or use a longer period.`);
    edges.push(plus(first, edges.length, interval, ctx.timezone));
  }
  return edges;
}

/** The retention window's first and last instant (for the refresh interval, which needs no analysis). */
export function retentionWindow(filter: RetentionFilter, ctx: Pick<AnalysisContext, "now" | "timezone" | "weekStartDay">): { from: number; to: number; interval: Interval } {
  const interval = readPeriod(filter).toLowerCase() as Interval;
  const edges = windowEdges(filter, interval, readNumber(filter, "total_intervals") ?? DEFAULT_INTERVALS, ctx);
  return { from: edges[0]!, to: edges.at(-1)! - 1, interval };
}

/** Cohort rows a date range may ask for (each row holds total_intervals values). */
const MAX_PERIODS = 2000;

function readMinimumOccurrences(filter: Loose): number {
  const value = readNumber(filter, "minimum_occurrences") ?? 1;
  if (!Number.isInteger(value) || value < 1) throw reject.invalid("minimum_occurrences", "minimum_occurrences must be a positive integer.");
  return value;
}

/** One of `allowed`, or undefined when absent; anything else is a 400 naming the field. */
function readChoice<T extends string>(filter: Loose, key: string, allowed: readonly T[]): T | undefined {
  const value = filter[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (!(allowed as readonly unknown[]).includes(value)) throw reject.invalid(key, `"${String(value)}" is not a valid ${key} (one of ${allowed.join(", ")}).`);
  return value as T;
}

/** PostHog's runner refuses rolling retention over 24-hour windows (retention_query_runner.py `validate`), with no field named. */
function readWindowMode(filter: Loose, cumulative: boolean): RetentionSpec["windowMode"] {
  const mode = readChoice(filter, "time_window_mode", WINDOW_MODES) ?? "strict_calendar_dates";
  if (mode === "24_hour_windows" && cumulative) throw reject.invalid(null, "Cumulative retention is not supported for 24 hour windows.");
  return mode;
}

/**
 * sum and avg aggregate a property only when one is named (PostHog `property_aggregation_expr`); `count`, or no
 * property, is the plain table. PostHog's rolling (cumulative) and 24-hour queries carry no property values and fail
 * on one: a 400 here.
 */
function readAggregation(filter: Loose, cumulative: boolean, windowMode: RetentionSpec["windowMode"]): RetentionAggregation | undefined {
  const type = readChoice(filter, "aggregation_type", AGGREGATION_TYPES);
  const propertyType = readChoice(filter, "aggregation_property_type", AGGREGATION_PROPERTY_TYPES) ?? "event";
  const property = filter.aggregation_property;
  if (property !== undefined && property !== null && typeof property !== "string") throw reject.invalid("aggregation_property", "aggregation_property must be a property name.");
  if ((type !== "sum" && type !== "avg") || !property) return undefined;
  if (cumulative) throw reject.invalid("aggregation_type", "A property aggregation is not supported with cumulative retention.");
  if (windowMode === "24_hour_windows") throw reject.invalid("aggregation_type", "A property aggregation is not supported with 24 hour windows.");
  return { type, property, propertyType };
}

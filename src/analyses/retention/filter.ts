import { reject } from "../errors.ts";
import { readBreakdown, type BreakdownDef } from "../shared/breakdown.ts";
import type { AnalysisContext, Interval } from "../shared/context.ts";
import { readDateField } from "../shared/date-range.ts";
import { decodeJsonish, readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { plus, startOf } from "../shared/local-time.ts";
import { entityFrom, type SeriesEntity } from "../shared/series.ts";

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
  totalIntervals: number;
  /** edges[i] is the start of period i; edges[totalIntervals] the end of the window. */
  edges: number[];
  breakdown: BreakdownDef | undefined;
  /** aggregation_group_type_index: actors are `$group_N` values (§1.1). */
  groupIndex: number | undefined;
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
  return {
    raw: filter,
    target: readEntity(filter, "target_entity"),
    returning: readEntity(filter, "returning_entity"),
    type: readType(filter),
    period,
    interval,
    totalIntervals,
    edges: windowEdges(filter, interval, totalIntervals, ctx),
    breakdown: readBreakdown(filter, ctx),
    groupIndex: readNumber(filter, "aggregation_group_type_index"),
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
 * The window: total_intervals periods ending with the one that contains date_to (default now); weeks start on
 * the project's week start, months on the 1st (reference §7.2). date_from is ignored, but must still be a date.
 */
function windowEdges(filter: Loose, interval: Interval, count: number, ctx: AnalysisContext): number[] {
  if (filter.date_from !== "all") readDateField(filter, "date_from", ctx);
  const to = readDateField(filter, "date_to", ctx)?.ms ?? ctx.now;
  const last = startOf(to, interval, ctx.timezone, ctx.weekStartDay);
  return Array.from({ length: count + 1 }, (_, i) => plus(last, i - (count - 1), interval, ctx.timezone));
}

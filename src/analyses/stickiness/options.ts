import { reject } from "../../core/analysis-errors.ts";
import type { Interval } from "../shared/context.ts";
import { MS } from "../shared/context.ts";
import { isObject, readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { toWallClock } from "../../core/time-zones.ts";

/** The stickiness query's own options (StickinessQuery `intervalCount`, `stickinessFilter`; reference: analytics §3). */
export interface StickinessOptions {
  /** Periods of this many intervals, counted back from the end of the range; undefined: calendar buckets. */
  intervalCount: number | undefined;
  /** An interval counts for an actor only when their number of events in it meets this. */
  criteria: { operator: CriteriaOperator; value: number } | undefined;
  /** Position k counts the actors active on k or more intervals (`computed_as: "cumulative"`). */
  cumulative: boolean;
}

export const CRITERIA_OPERATORS = ["gte", "lte", "exact"] as const;
export type CriteriaOperator = (typeof CRITERIA_OPERATORS)[number];
const COMPUTATION_MODES = ["non_cumulative", "cumulative"];
/** The real service's MAX_INTERVAL_COUNT. */
const MAX_INTERVAL_COUNT = 365;

/** Reads and checks interval_count, stickiness_criteria and computed_as, with the real service's messages. */
export function readStickinessOptions(filter: Loose): StickinessOptions {
  return { intervalCount: readIntervalCount(filter), criteria: readCriteria(filter), cumulative: readCumulative(filter) };
}

function readIntervalCount(filter: Loose): number | undefined {
  if (filter.interval_count === undefined || filter.interval_count === null) return undefined;
  const count = readNumber(filter, "interval_count");
  if (count === undefined || !Number.isInteger(count) || count <= 0) throw reject.invalid("interval_count", "intervalCount must be a positive integer.");
  if (count > MAX_INTERVAL_COUNT) throw reject.invalid("interval_count", `intervalCount cannot exceed ${MAX_INTERVAL_COUNT}.`);
  return count;
}

function readCriteria(filter: Loose): StickinessOptions["criteria"] {
  const raw = filter.stickiness_criteria;
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw reject.invalid("stickiness_criteria", "stickinessCriteria must be an object with operator and value.");
  const operator = readString(raw, "operator");
  if (!operator || !(CRITERIA_OPERATORS as readonly string[]).includes(operator)) {
    throw reject.invalid("stickiness_criteria__operator", `"${String(raw.operator)}" is not a stickiness criteria operator (gte, lte, exact).`);
  }
  const value = readNumber(raw, "value");
  if (value === undefined) throw reject.invalid("stickiness_criteria__value", "Stickiness criteria value must be a number.");
  if (value < 0) throw reject.invalid("stickiness_criteria__value", "Stickiness criteria value must be non-negative.");
  if (value === 0 && operator !== "gte") throw reject.invalid("stickiness_criteria__value", "Stickiness criteria with operator exact or lte must use a value greater than 0.");
  return { operator: operator as CriteriaOperator, value };
}

function readCumulative(filter: Loose): boolean {
  const mode = filter.computed_as;
  if (mode === undefined || mode === null) return false;
  if (typeof mode !== "string" || !COMPUTATION_MODES.includes(mode)) throw reject.invalid("computed_as", `"${String(mode)}" is not a computation mode (non_cumulative, cumulative).`);
  return mode === "cumulative";
}

/** Whether an actor's number of events in one interval meets the criteria. */
export function meetsCriteria(criteria: NonNullable<StickinessOptions["criteria"]>, events: number): boolean {
  if (criteria.operator === "gte") return events >= criteria.value;
  if (criteria.operator === "lte") return events <= criteria.value;
  return events === criteria.value;
}

/**
 * With intervalCount, the period of an instant: the whole intervals from it to the end of the range (ClickHouse's
 * `age`, on the project's wall clock), divided by the count and rounded down, as the real service numbers them.
 */
export function periodOf(interval: Interval, count: number, to: number, timezone: string): (ms: number) => number {
  const end = toWallClock(to, timezone);
  return (ms) => Math.floor(wholeIntervals(interval, toWallClock(ms, timezone), end) / count);
}

function wholeIntervals(interval: Interval, from: number, to: number): number {
  if (interval !== "month") return Math.floor((to - from) / MS[interval]);
  const a = new Date(from);
  const b = new Date(to);
  const months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  const restA = from - Date.UTC(a.getUTCFullYear(), a.getUTCMonth());
  const restB = to - Date.UTC(b.getUTCFullYear(), b.getUTCMonth());
  return restB < restA ? months - 1 : months;
}

/** `1 day`, `2 days`, …; `… or more` when cumulative (reference §3). */
export const positionLabel = (k: number, interval: Interval, cumulative = false): string => `${k} ${interval}${k === 1 ? "" : "s"}${cumulative ? " or more" : ""}`;

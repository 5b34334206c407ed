import type { Interval } from "./context.ts";
import { MS } from "./context.ts";
import { parseDateExpression, readDateField, type ParsedDate, type TimeContext } from "../../core/date-parse.ts";
import { readBool, type Loose } from "./filter-read.ts";
import { endOfDay, fromWallClock, startOf, toWallClock } from "../../core/time-zones.ts";

export { parseDate, parseDateExpression, parseRelativeOrAbsoluteDate, isoInZone } from "../../core/date-parse.ts";

/** The queried window: both ends inclusive, in epoch ms (reference: analytics §1.2). */
export interface QueryWindow {
  /** First instant counted. Week buckets may start earlier (the key is the week start). */
  from: number;
  /** Last instant counted (PostHog's …59.999999, here …59.999). */
  to: number;
  interval: Interval;
  fromParsed: ParsedDate;
  /** undefined when date_to was absent (then `to` derives from now). */
  toParsed: ParsedDate | undefined;
}

/**
 * Resolves date_from/date_to/explicit_date for an interval; `earliest` is the project's first event (for `all`).
 * An inverted range (date_from after date_to, or after now without date_to) is kept as it is and counts nothing:
 * PostHog's QueryDateRange never refuses one, and its runners answer it empty (isInvertedWindow names it for the
 * request log). `exact` is PostHog's QueryDateRange exact_timerange: date_from
 * as parsed, not truncated (`-7d` is this instant seven days ago), and an absent date_to is now, not the end of today.
 */
export function resolveDateRange(filter: Loose, interval: Interval, ctx: TimeContext, earliest: number | undefined, exact = false): QueryWindow {
  const explicit = readBool(filter, "explicit_date");
  const fromParsed = parseFrom(filter, ctx, earliest);
  const toParsed = readDateField(filter, "date_to", ctx);
  const from = explicit || exact ? fromParsed.ms : alignFrom(fromParsed, interval, ctx);
  const to = explicit || (exact && toParsed === undefined) ? (toParsed?.ms ?? ctx.now) : alignTo(toParsed, interval, ctx);
  return { from, to, interval, fromParsed, toParsed };
}

/** A window that ends before it starts (test_paths_query_runner.py::test_current_url_paths_and_logic: no edges). */
export const isInvertedWindow = (window: { from: number; to: number }): boolean => window.to < window.from;

/** Every date field of a filter is in the grammar (a 400 naming the first one that is not), computed or not. */
export function requireDateFields(filter: Loose, ctx: TimeContext): void {
  if (filter.date_from !== "all") readDateField(filter, "date_from", ctx);
  readDateField(filter, "date_to", ctx);
  readDateField(filter, "compare_to", ctx);
}

function parseFrom(filter: Loose, ctx: TimeContext, earliest: number | undefined): ParsedDate {
  if (filter.date_from === "all") return { ms: earliest ?? ctx.now - 7 * MS.day, kind: "datetime", amount: 0 };
  return readDateField(filter, "date_from", ctx) ?? parseDateExpression("-7d", ctx.now, ctx.timezone, ctx.weekStartDay);
}

/**
 * date_from as PostHog's QueryDateRange takes it: relative values are parsed with always_truncate (`-Nh` to the start
 * of its hour, any other unit to the start of its day) except by minute, where they are kept exact
 * (test_formula.py::test_hour_interval_hour_level_relative counts the events of the first, partial hour); the
 * bucket start then truncates further, except by hour (`-2d` by hour starts at its day,
 * test_stickiness_query_runner.py::test_interval_hour_last_days) and by day over `-Nh` (use_start_of_interval).
 * Absolute values truncate to their hour by hour, their day by day and week, their month by month.
 */
function alignFrom(parsed: ParsedDate, interval: Interval, ctx: TimeContext): number {
  const relative = parsed.kind === "relative";
  if (interval === "minute") return relative ? parsed.ms : startOf(parsed.ms, "minute", ctx.timezone);
  const hours = relative && parsed.unit === "h";
  if (interval === "hour") return startOf(parsed.ms, relative && !hours ? "day" : "hour", ctx.timezone);
  if (interval === "day" && hours) return startOf(parsed.ms, "hour", ctx.timezone);
  const day = startOf(parsed.ms, "day", ctx.timezone);
  return interval === "month" ? startOf(day, "month", ctx.timezone) : day;
}

/** date_to: the whole day for day/week/month even when a time is given; hour keeps absolute values (reference §1.2). */
function alignTo(parsed: ParsedDate | undefined, interval: Interval, ctx: TimeContext): number {
  const ms = parsed?.ms ?? ctx.now;
  const relative = parsed === undefined || parsed.kind === "relative";
  if (interval === "minute" || interval === "hour") {
    return relative ? startOf(ms, interval, ctx.timezone) + (interval === "hour" ? MS.hour : MS.minute) - 1 : ms;
  }
  return endOfDay(ms, ctx.timezone);
}

/**
 * The previous period of equal length, aligned as PostHog's get_compare_period_dates does (reference §2.7):
 * wall-clock arithmetic, hour-of-day alignment by hour, and otherwise the current period's times of day kept at both
 * ends (a day-aligned range stays day-aligned; an exact one, as a BoldNumber's, keeps its instants), with the
 * -7d/-14d quirk that shifts it one day later.
 */
export function previousPeriod(window: QueryWindow, timezone: string): { from: number; to: number } {
  const wFrom = toWallClock(window.from, timezone);
  const wTo = toWallClock(window.to, timezone);
  const diff = wTo - wFrom;
  let from = wFrom - diff;
  let to: number;
  if (window.interval === "hour") {
    const hourOfDay = floorTo(wFrom - floorTo(wFrom, MS.day), MS.hour);
    from = floorTo(from, MS.day) + hourOfDay;
    to = floorTo(from + diff, MS.hour) + MS.hour - 1;
  } else {
    from = floorTo(from, MS.day) + timeOfDay(wFrom);
    if (isWeekMultipleQuirk(window)) from += MS.day;
    to = floorTo(from + diff, MS.day) + timeOfDay(wTo);
  }
  return { from: fromWallClock(from, timezone), to: fromWallClock(to, timezone) };
}

const timeOfDay = (wallMs: number): number => wallMs - floorTo(wallMs, MS.day);

function isWeekMultipleQuirk(window: QueryWindow): boolean {
  const { fromParsed, toParsed } = window;
  const toHasDelta = toParsed !== undefined && toParsed.kind === "relative" && toParsed.unit !== undefined;
  return window.interval === "day" && fromParsed.unit === "d" && fromParsed.amount > 0 && fromParsed.amount % 7 === 0 && !toHasDelta;
}

const floorTo = (ms: number, unit: number): number => Math.floor(ms / unit) * unit;

/** compare_to ("-1w", "-1m", …) shifts the current range by that amount instead. */
export function shiftedPeriod(window: QueryWindow, compareTo: string, ctx: TimeContext): { from: number; to: number } {
  const from = parseDateExpression(compareTo, window.from, ctx.timezone, ctx.weekStartDay).ms;
  const length = toWallClock(window.to, ctx.timezone) - toWallClock(window.from, ctx.timezone);
  return { from, to: fromWallClock(toWallClock(from, ctx.timezone) + length, ctx.timezone) };
}

/** `window` with other bounds, keeping interval and the parsed inputs. */
export const withBounds = (window: QueryWindow, bounds: { from: number; to: number }): QueryWindow => ({ ...window, ...bounds });

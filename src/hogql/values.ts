import { zoned } from "../core/time-zones.ts";

/**
 * A length of time (`interval 1 day`), kept apart from numbers so that date ± interval works: fixed units in
 * milliseconds, months (and quarters, years) as calendar months, added in the project's zone as ClickHouse adds them.
 */
export class Interval {
  constructor(
    readonly ms: number,
    readonly months = 0,
  ) {}

  /** As a number of seconds (a month counted as 30 days), where an interval is shown or summed. */
  get seconds(): number {
    return this.ms / 1000 + this.months * 2_592_000;
  }
}

/** A DateTime of whole seconds (`toStartOfDay(…)`, `toDateTime(…)` of a date-time); a plain Date is a DateTime64(6). */
export class DateTimeSeconds extends Date {}

/** A calendar day (ClickHouse's Date: `toDate(…)`, `today()`), at midnight UTC of that day; shown as YYYY-MM-DD. */
export class Day extends Date {}

/**
 * An in-process HogQL value: text, numbers (comparisons answer 1/0 as ClickHouse's UInt8), booleans (Bool
 * properties, `true`), instants (DateTime), days, intervals, tuples.
 */
export type Value = null | boolean | number | string | Date | Interval | Value[] | Record<string, unknown> | undefined;

/** ClickHouse's truth of a filter value: non-zero, not NULL. */
export const truthy = (v: Value) => v !== null && v !== undefined && v !== false && v !== 0 && v !== "";

/** An instant as the query API shows a DateTime cell: ISO 8601 in the zone, `Z` in UTC, milliseconds only when some. */
export function showInstant(ms: number, timezone: string): string {
  return timezone === "UTC" ? new Date(ms).toISOString().replace(".000Z", "Z") : zoned(ms, timezone).toISO({ suppressMilliseconds: true })!;
}

/** A value as the API shows it (the query API's cells.ts for the same ClickHouse type): the events list's `select` columns. */
export function shownValue(v: Value, timezone: string): unknown {
  if (v === undefined || v === null) return null;
  if (v instanceof Day) return v.toISOString().slice(0, 10);
  if (v instanceof Date) return showInstant(v.getTime(), timezone);
  if (v instanceof Interval) return v.seconds;
  if (Array.isArray(v)) return v.map((x) => shownValue(x, timezone));
  return v;
}

/**
 * ClickHouse's `toString`: a Float64 in its shortest form, Bool as true/false, Date as YYYY-MM-DD, DateTime as
 * `YYYY-MM-DD hh:mm:ss` and DateTime64(6) as `YYYY-MM-DD hh:mm:ss.ffffff`, in the zone.
 */
export function clickhouseString(v: Value, timezone: string): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Day) return v.toISOString().slice(0, 10);
  if (v instanceof DateTimeSeconds) return zoned(v.getTime(), timezone).toFormat("yyyy-MM-dd HH:mm:ss");
  if (v instanceof Date) return `${zoned(v.getTime(), timezone).toFormat("yyyy-MM-dd HH:mm:ss.SSS")}000`;
  if (v instanceof Interval) return String(v.seconds);
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v).replace("e+", "e");
  return String(v);
}

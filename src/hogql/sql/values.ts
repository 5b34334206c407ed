import { zoned } from "../../analyses/shared/local-time.ts";
import { Interval, type Value } from "../evaluate.ts";
import { CalendarDate } from "./functions.ts";

const DATETIME = "DateTime64(6, 'UTC')";

/** A result cell as JSON: dates in the project's zone (ISO 8601), calendar dates as YYYY-MM-DD, JSON objects as strings. */
export function cellOf(v: Value, timezone: string): unknown {
  if (v === undefined || v === null) return null;
  if (v instanceof CalendarDate) return v.toISOString().slice(0, 10);
  if (v instanceof Date) return timezone === "UTC" ? v.toISOString().replace(".000Z", "Z") : zoned(v.getTime(), timezone).toISO({ suppressMilliseconds: true });
  if (v instanceof Interval) return v.ms / 1000;
  if (Array.isArray(v)) return v.map((x) => cellOf(x, timezone));
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "number" && !Number.isFinite(v)) return null;
  return v;
}

/** The ClickHouse type of a column read off its values, when the expression does not fix it. */
export function typeOfValues(values: readonly Value[]): string {
  const present = values.filter((v) => v !== null && v !== undefined);
  const nullable = present.length < values.length;
  const base = baseType(present);
  return base === "Nothing" || !nullable ? (nullable ? "Nullable(Nothing)" : base) : `Nullable(${base})`;
}

function baseType(values: readonly Value[]): string {
  if (values.length === 0) return "Nothing";
  if (values.every((v) => v instanceof CalendarDate)) return "Date";
  if (values.every((v) => v instanceof Date)) return DATETIME;
  if (values.every((v) => typeof v === "number")) return values.every((v) => Number.isInteger(v)) ? "Int64" : "Float64";
  if (values.every((v) => typeof v === "boolean")) return "Bool";
  if (values.every((v) => Array.isArray(v))) return "Array(String)";
  return "String";
}

/** Fixed result types of functions whose type does not depend on the values. */
export const FUNCTION_TYPES: Readonly<Record<string, string>> = {
  now: DATETIME,
  toDateTime: DATETIME,
  toStartOfMinute: DATETIME,
  toStartOfHour: DATETIME,
  toStartOfDay: DATETIME,
  toStartOfWeek: DATETIME,
  toDate: "Date",
  today: "Date",
  yesterday: "Date",
  toMonday: "Date",
  toStartOfMonth: "Date",
  toStartOfQuarter: "Date",
  toStartOfYear: "Date",
  toYear: "UInt16",
  toMonth: "UInt8",
  toDayOfMonth: "UInt8",
  toDayOfWeek: "UInt8",
  toHour: "UInt8",
  toMinute: "UInt8",
  dateDiff: "Int64",
  toString: "String",
  lower: "String",
  upper: "String",
  concat: "String",
  length: "UInt64",
};

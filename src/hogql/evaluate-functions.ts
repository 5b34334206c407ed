import { reject } from "../core/analysis-errors.ts";
import { startOf, zoned } from "../core/time-zones.ts";
import { clickhouseString, DateTimeSeconds, Day, truthy, type Value } from "./values.ts";
import { parseDateTime, toFloat64OrNull } from "./event-fields.ts";

/** What a function sees besides its arguments: the injected clock and the project's zone. */
export interface CallEnv {
  now: number;
  timezone: string;
  attr: string;
}

export type Fn = (args: Value[], env: CallEnv) => Value;

const UTF8 = new TextEncoder();

/** A number as ClickHouse converts one (`accurateCastOrNull(x, 'Float64')`): text parsed in full, Bool as 0/1. */
export function toNumber(v: Value): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string") return toFloat64OrNull(v);
  if (v instanceof Date) return v.getTime() / 1000;
  return null;
}

const toDateTime = (v: Value, env: CallEnv): Date | null =>
  v === null || v === undefined ? null : v instanceof Date ? new Date(v.getTime()) : typeof v === "string" ? parseDateTime(v, env.timezone) : typeof v === "number" ? new Date(v * 1000) : null;

/** The calendar day of an instant in the project's zone (ClickHouse's `toDate` of a DateTime in that zone). */
export function dayOf(ms: number, timezone: string): Day {
  return new Day(Date.parse(zoned(ms, timezone).toISODate()!));
}

const DIFF_UNITS = ["second", "minute", "hour", "day", "month", "quarter", "year"] as const;

/** `dateDiff(unit, a, b)`: the unit boundaries crossed from a to b in the project's zone, as ClickHouse counts. */
function dateDiff(unit: Value, a: Date | null, b: Date | null, env: CallEnv): Value {
  const u = String(unit).toLowerCase();
  if (!(DIFF_UNITS as readonly string[]).includes(u)) throw reject.invalid(env.attr, `dateDiff('${String(unit)}', …) is not supported here (units: ${DIFF_UNITS.join(", ")}).`);
  if (a === null || b === null) return null;
  const [x, y] = [zoned(a.getTime(), env.timezone), zoned(b.getTime(), env.timezone)];
  switch (u) {
    case "year": return y.year - x.year;
    case "quarter": return (y.year * 4 + Math.floor((y.month - 1) / 3)) - (x.year * 4 + Math.floor((x.month - 1) / 3));
    case "month": return (y.year * 12 + y.month) - (x.year * 12 + x.month);
    case "day": return Math.round(y.startOf("day").diff(x.startOf("day"), "days").days);
  }
  const size = u === "hour" ? 3_600_000 : u === "minute" ? 60_000 : 1_000;
  const local = (d: typeof x) => d.toMillis() + d.offset * 60_000;
  return Math.floor(local(y) / size) - Math.floor(local(x) / size);
}

/** ClickHouse's `and`/`or` with NULL: a decisive operand wins, else NULL if any is NULL; UInt8 (1/0) even over Bools. */
const logic = (decisive: boolean) => (args: Value[]): Value => {
  let sawNull = false;
  for (const a of args) {
    if (a === null || a === undefined) sawNull = true;
    else if (truthy(a) === decisive) return decisive ? 1 : 0;
  }
  return sawNull ? null : decisive ? 0 : 1;
};

/** A numeric function's argument: NULL passes through, text is ClickHouse's type error (a 400). */
function numericArg(v: Value, name: string, env: CallEnv): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "string" || typeof v === "object") throw reject.invalid(env.attr, `${name}() needs a number; HogQL reads a property as text unless its property definition is Numeric (use toFloat(…)).`);
  return typeof v === "boolean" ? (v ? 1 : 0) : v;
}

/** Ties to even, as ClickHouse rounds floats. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** floor/ceil/round(x[, N]): to N decimal places (negative N: tens, hundreds…). */
const rounding = (name: string, round: (x: number) => number): Fn => ([v, places], env) => {
  const x = numericArg(v ?? null, name, env);
  if (x === null) return null;
  const scale = 10 ** Number(places ?? 0);
  return round(x * scale) / scale;
};

const text2 = (test: (s: string, t: string) => boolean): Fn => ([s, t]) => (s == null || t == null ? null : test(String(s), String(t)) ? 1 : 0);

/** The functions evaluated in-process (a documented subset of HogQL's); a Map, so no prototype name resolves. */
export const FUNCTIONS = new Map<string, Fn>([
  ["now", (_a, env) => new Date(env.now)],
  ["today", (_a, env) => dayOf(env.now, env.timezone)],
  // Text is parsed to a DateTime64 (parseDateTime64BestEffortOrNull); anything else becomes a DateTime of whole seconds.
  ["toDateTime", ([v], env) => {
    const d = toDateTime(v ?? null, env);
    return d === null || typeof v === "string" ? d : new DateTimeSeconds(Math.floor(d.getTime() / 1000) * 1000);
  }],
  ["toDate", ([v], env) => {
    if (typeof v === "string") return /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) ? new Day(Date.parse(v)) : null;
    const d = toDateTime(v ?? null, env);
    return d === null ? null : dayOf(d.getTime(), env.timezone);
  }],
  ["toStartOfDay", ([v], env) => {
    const d = toDateTime(v ?? null, env);
    return d === null ? null : new DateTimeSeconds(startOf(d.getTime(), "day", env.timezone));
  }],
  ["dateDiff", ([unit, a, b], env) => dateDiff(unit ?? null, toDateTime(a ?? null, env), toDateTime(b ?? null, env), env)],
  ["toInt", ([v]) => {
    if (typeof v === "string") return /^[+-]?\d+$/.test(v) ? Number(v) : null;
    // accurateCastOrNull(x, 'Int64'): a fractional number is NULL, not truncated.
    const n = toNumber(v ?? null);
    return n === null || !Number.isInteger(n) ? null : n;
  }],
  ["toFloat", ([v]) => toNumber(v ?? null)],
  ["toString", ([v], env) => clickhouseString(v ?? null, env.timezone)],
  ["lower", ([v]) => (v == null ? null : String(v).toLowerCase())],
  ["upper", ([v]) => (v == null ? null : String(v).toUpperCase())],
  // ClickHouse's length() counts bytes of a string (lengthUTF8 counts code points).
  ["length", ([v]) => (v == null ? null : Array.isArray(v) ? v.length : UTF8.encode(String(v)).length)],
  // HogQL's concat reads NULL as "" (printer.py visit_call), other values by toString.
  ["concat", (args, env) => args.map((a) => clickhouseString(a ?? null, env.timezone) ?? "").join("")],
  ["coalesce", (args) => args.find((a) => a != null) ?? null],
  ["ifNull", ([a, b]) => a ?? b ?? null],
  ["if", ([c, a, b]) => (truthy(c ?? null) ? (a ?? null) : (b ?? null))],
  ["multiIf", (args) => {
    for (let i = 0; i + 1 < args.length; i += 2) if (truthy(args[i] ?? null)) return args[i + 1] ?? null;
    return args[args.length - 1] ?? null;
  }],
  ["abs", ([v], env) => {
    const x = numericArg(v ?? null, "abs", env);
    return x === null ? null : Math.abs(x);
  }],
  ["floor", rounding("floor", Math.floor)],
  ["ceil", rounding("ceil", Math.ceil)],
  ["round", rounding("round", roundHalfEven)],
  // trim() is trimBoth: spaces only.
  ["trim", ([v]) => (v == null ? null : String(v).replace(/^ +| +$/g, ""))],
  ["startsWith", text2((s, t) => s.startsWith(t))],
  ["endsWith", text2((s, t) => s.endsWith(t))],
  ["empty", ([v]) => (v == null ? null : String(v) === "" ? 1 : 0)],
  ["notEmpty", ([v]) => (v == null ? null : String(v) === "" ? 0 : 1)],
  ["isNull", ([v]) => (v == null ? 1 : 0)],
  ["isNotNull", ([v]) => (v == null ? 0 : 1)],
  // not() of a Bool stays Bool (ClickHouse), of anything else is UInt8.
  ["not", ([v]) => (v == null ? null : typeof v === "boolean" ? !v : truthy(v) ? 0 : 1)],
  ["and", logic(false)],
  ["or", logic(true)],
]);

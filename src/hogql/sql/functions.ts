import { startOf, zoned, type CalendarUnit } from "../../analyses/shared/local-time.ts";
import type { Fn, Value } from "../evaluate.ts";

/** A calendar date (ClickHouse `Date`): midnight UTC of the local day, so it compares with 'YYYY-MM-DD'. */
export class CalendarDate extends Date {}

const ms = (v: Value): number | null => {
  if (v instanceof Date) return v.getTime();
  if (typeof v === "number") return v * 1000;
  if (typeof v !== "string") return null;
  const parsed = Date.parse(v.includes("T") || v.length <= 10 ? v : v.replace(" ", "T") + (/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? "" : "Z"));
  return Number.isNaN(parsed) ? null : parsed;
};

const num = (v: Value): number | null => (v == null || v === "" || Number.isNaN(Number(v)) ? null : Number(v));

/** The local calendar date of an instant in the project's zone. */
function calendarDate(instant: number, timezone: string): CalendarDate {
  return new CalendarDate(Date.parse(zoned(instant, timezone).toISODate()!));
}

function startOfUnit(unit: CalendarUnit, timezone: string, weekStartDay: 0 | 1 = 0): Fn {
  return ([v]) => {
    const t = ms(v ?? null);
    return t === null ? null : new Date(startOf(t, unit, timezone, weekStartDay));
  };
}

function part(read: (dt: ReturnType<typeof zoned>) => number, timezone: string): Fn {
  return ([v]) => {
    const t = ms(v ?? null);
    return t === null ? null : read(zoned(t, timezone));
  };
}

const DIFF_UNITS: Readonly<Record<string, CalendarUnit>> = { second: "second", minute: "minute", hour: "hour", day: "day", week: "week", month: "month", quarter: "quarter", year: "year" };

/** ClickHouse's dateDiff: the number of unit boundaries crossed between the two instants (local calendar). */
function dateDiff(timezone: string): Fn {
  return ([unit, a, b]) => {
    const u = DIFF_UNITS[String(unit).toLowerCase()];
    const [x, y] = [ms(a ?? null), ms(b ?? null)];
    if (!u || x === null || y === null) return null;
    const [dx, dy] = [zoned(startOf(x, u, timezone, 1), timezone), zoned(startOf(y, u, timezone, 1), timezone)];
    const plural = u === "quarter" ? "months" : (`${u}s` as const);
    const diff = dy.diff(dx, plural).as(plural);
    return Math.round(u === "quarter" ? diff / 3 : diff);
  };
}

/**
 * The SQL engine's functions beyond the events API's: calendar functions in the project's time zone (HogQL
 * evaluates them in the project's zone), numeric helpers. toDate/today return calendar dates.
 */
export function sqlFunctions(timezone: string): ReadonlyMap<string, Fn> {
  return new Map<string, Fn>([
    ["toDate", ([v]) => (ms(v ?? null) === null ? null : calendarDate(ms(v ?? null)!, timezone))],
    ["today", (_a, now) => calendarDate(now, timezone)],
    ["yesterday", (_a, now) => calendarDate(now - 86_400_000, timezone)],
    ["toStartOfMinute", startOfUnit("minute", timezone)],
    ["toStartOfHour", startOfUnit("hour", timezone)],
    ["toStartOfDay", startOfUnit("day", timezone)],
    ["toStartOfWeek", startOfUnit("week", timezone, 0)],
    ["toMonday", ([v]) => (ms(v ?? null) === null ? null : calendarDate(startOf(ms(v ?? null)!, "week", timezone, 1), timezone))],
    ["toStartOfMonth", ([v]) => (ms(v ?? null) === null ? null : calendarDate(startOf(ms(v ?? null)!, "month", timezone), timezone))],
    ["toStartOfQuarter", ([v]) => (ms(v ?? null) === null ? null : calendarDate(startOf(ms(v ?? null)!, "quarter", timezone), timezone))],
    ["toStartOfYear", ([v]) => (ms(v ?? null) === null ? null : calendarDate(startOf(ms(v ?? null)!, "year", timezone), timezone))],
    ["toYear", part((dt) => dt.year, timezone)],
    ["toMonth", part((dt) => dt.month, timezone)],
    ["toDayOfMonth", part((dt) => dt.day, timezone)],
    ["toDayOfWeek", part((dt) => dt.weekday, timezone)],
    ["toHour", part((dt) => dt.hour, timezone)],
    ["toMinute", part((dt) => dt.minute, timezone)],
    ["dateDiff", dateDiff(timezone)],
    ["round", ([v, d]) => (num(v ?? null) === null ? null : Number(num(v ?? null)!.toFixed(Math.max(0, Math.min(20, Number(d ?? 0))))))],
    ["floor", ([v]) => (num(v ?? null) === null ? null : Math.floor(num(v ?? null)!))],
    ["ceil", ([v]) => (num(v ?? null) === null ? null : Math.ceil(num(v ?? null)!))],
    ["abs", ([v]) => (num(v ?? null) === null ? null : Math.abs(num(v ?? null)!))],
    ["isNull", ([v]) => v == null],
    ["isNotNull", ([v]) => v != null],
  ]);
}

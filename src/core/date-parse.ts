import { DateTime } from "luxon";
import { reject } from "./analysis-errors.ts";
import { endOfDay, plus, safeZone, startOf, zoned, type CalendarUnit } from "./time-zones.ts";

/**
 * The date grammar shared by date_from/date_to, compare_to and the events API (reference: analytics §1.2):
 * absolute dates and date-times (no offset ⇒ project zone), -Nh/-Nd/-Nw/-Nm/-Nq/-Ny/-NM/-Ns with an optional
 * Start/End position. The real service reads anything else as "now" (its relative_date_parse searches the text
 * for a unit letter); here anything else is no date at all, so the API can answer 400 instead of a silent "now".
 */
export type DateKind = "date" | "datetime" | "relative";

export interface ParsedDate {
  ms: number;
  kind: DateKind;
  /** Relative unit letter (h, d, w, m, q, y, M, s); undefined for absolute values. */
  unit?: string;
  /** Relative amount (0 when the number was omitted). */
  amount: number;
  position?: "Start" | "End";
}

/** How the API describes the grammar in its 400s. */
export const DATE_GRAMMAR =
  "YYYY-MM-DD, an ISO 8601 date-time, or a relative date such as -7d, -24h, -2w, -1m, -1q, -1y, -30M, -10s, dStart, -1mStart, yEnd";

/** `YYYY-M-D` as well: the real service falls back to strptime("%Y-%m-%d"), which takes unpadded months and days. */
const DATE_ONLY = /^\d{4}-\d{1,2}-\d{1,2}$/;
/** ISO 8601 date-time as Python's isoparse takes it from clients: minutes required, seconds and fraction optional. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;
const RELATIVE = /^-?(\d+)?([hdwmqyMs])(Start|End)?$/;

const UNITS: Record<string, CalendarUnit> = { h: "hour", d: "day", w: "week", m: "month", q: "quarter", y: "year", M: "minute", s: "second" };

export function parseAbsolute(value: string, timezone: string): ParsedDate | undefined {
  const trimmed = value.trim();
  if (DATE_ONLY.test(trimmed)) {
    const dt = DateTime.fromFormat(trimmed, "y-M-d", { zone: safeZone(timezone) });
    return dt.isValid ? { ms: dt.toMillis(), kind: "date", amount: 0 } : undefined;
  }
  if (DATE_TIME.test(trimmed)) {
    const dt = DateTime.fromISO(trimmed.replace(" ", "T"), { zone: safeZone(timezone) });
    return dt.isValid ? { ms: dt.toMillis(), kind: "datetime", amount: 0 } : undefined;
  }
  return undefined;
}

/** One value of the grammar against `now` in the project zone; undefined when the value is not in the grammar. */
export function parseDate(value: string, now: number, timezone: string, weekStartDay: 0 | 1 = 0): ParsedDate | undefined {
  const absolute = parseAbsolute(value, timezone);
  if (absolute) return absolute;
  const match = RELATIVE.exec(value.trim());
  if (!match) return undefined;
  const unit = UNITS[match[2]!]!;
  const amount = match[1] ? Number(match[1]) : 0;
  if (!Number.isSafeInteger(amount)) return undefined;
  const position = match[3] as "Start" | "End" | undefined;
  const ms = applyRelative(now, unit, amount, position, timezone, weekStartDay);
  return Number.isFinite(ms) ? { ms, kind: "relative", unit: match[2], amount, position } : undefined;
}

/**
 * The real service's lenient reading, for values that are data rather than request fields (a date property
 * filter's value): anything outside the grammar is now.
 */
export function parseDateExpression(value: string, now: number, timezone: string, weekStartDay: 0 | 1 = 0): ParsedDate {
  return parseDate(value, now, timezone, weekStartDay) ?? { ms: now, kind: "relative", amount: 0 };
}

function applyRelative(now: number, unit: CalendarUnit, amount: number, position: "Start" | "End" | undefined, tz: string, wsd: 0 | 1): number {
  const moved = plus(now, -amount, unit, tz);
  if (!position) return moved;
  if (unit === "second" || unit === "minute") return moved;
  const positionUnit: CalendarUnit = unit;
  const start = startOf(moved, positionUnit, tz, wsd);
  if (position === "Start") return start;
  if (unit === "hour") return start + 3_599_999;
  return endOfDay(plus(start, 1, positionUnit, tz) - 1, tz);
}

/**
 * A single instant for APIs that take one bound (the events API's after/before): a bare date is the start
 * of that day for edge "start" and its last millisecond for edge "end"; everything else as parsed; undefined
 * when the value is not in the grammar.
 */
export function parseRelativeOrAbsoluteDate(value: string, now: number, timezone: string, edge: "start" | "end"): number | undefined {
  const parsed = parseDate(value, now, timezone);
  if (parsed?.kind === "date" && edge === "end") return endOfDay(parsed.ms, timezone);
  return parsed?.ms;
}

/** ISO 8601 with the project offset, as Django writes aware datetimes ("Z" for UTC, microseconds at day ends). */
export function isoInZone(ms: number, timezone: string): string {
  const dt = zoned(ms, timezone);
  const base = dt.toFormat("yyyy-MM-dd'T'HH:mm:ss");
  const fraction = dt.millisecond === 0 ? "" : dt.millisecond === 999 ? ".999999" : `.${String(dt.millisecond).padStart(3, "0")}000`;
  const offset = dt.offset === 0 ? "Z" : dt.toFormat("ZZ");
  return `${base}${fraction}${offset}`;
}

/** What a date is read against: the instant that is "now", the project's zone, and the day its weeks start on. */
export interface TimeContext {
  now: number;
  timezone: string;
  weekStartDay: 0 | 1;
}

/**
 * A date field of a filter: undefined when absent (missing, null or ""), the parsed value when in the grammar
 * (reference §1.2), and a 400 naming the field otherwise — never a silent "now". A number is read as its text,
 * as every text field of a filter is (src/analyses/shared/filter-read.ts `readString`).
 */
export function readDateField(filter: Record<string, unknown>, key: string, ctx: TimeContext): ParsedDate | undefined {
  const raw = filter[key];
  if (raw === undefined || raw === null || raw === "") return undefined;
  const text = typeof raw === "string" ? raw : typeof raw === "number" ? String(raw) : undefined;
  const parsed = text === undefined ? undefined : parseDate(text, ctx.now, ctx.timezone, ctx.weekStartDay);
  if (!parsed) throw reject.invalid(key, `${JSON.stringify(raw)} is not a date: use ${DATE_GRAMMAR}${key === "date_from" ? ", or all" : ""}.`);
  return parsed;
}

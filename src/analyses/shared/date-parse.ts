import { DateTime } from "luxon";
import { endOfDay, plus, safeZone, startOf, zoned, type CalendarUnit } from "./local-time.ts";

/**
 * The date grammar shared by date_from/date_to, compare_to and the events API (reference: analytics §1.2):
 * absolute dates and date-times (no offset ⇒ project zone), -Nh/-Nd/-Nw/-Nm/-Nq/-Ny/-NM/-Ns, the
 * …Start/…End positions, and `now` for anything unparseable.
 */
export type DateKind = "date" | "datetime" | "relative";

export interface ParsedDate {
  ms: number;
  kind: DateKind;
  /** Relative unit letter (h, d, w, m, q, y, M, s); undefined for absolute values and bare `now`. */
  unit?: string;
  /** Relative amount (0 when the number was omitted). */
  amount: number;
  position?: "Start" | "End";
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}/;
const RELATIVE = /-?(\d+)?([a-zA-Z])(Start|End)?/;

const UNITS: Record<string, CalendarUnit> = { h: "hour", d: "day", w: "week", m: "month", q: "quarter", y: "year", M: "minute", s: "second" };

export function parseAbsolute(value: string, timezone: string): ParsedDate | undefined {
  const trimmed = value.trim();
  if (DATE_ONLY.test(trimmed)) {
    const dt = DateTime.fromISO(trimmed, { zone: safeZone(timezone) });
    return dt.isValid ? { ms: dt.toMillis(), kind: "date", amount: 0 } : undefined;
  }
  if (DATE_TIME.test(trimmed)) {
    const dt = DateTime.fromISO(trimmed.replace(" ", "T"), { zone: safeZone(timezone) });
    return dt.isValid ? { ms: dt.toMillis(), kind: "datetime", amount: 0 } : undefined;
  }
  return undefined;
}

/** Parses one value of the grammar against `now` in the project zone. */
export function parseDateExpression(value: string, now: number, timezone: string, weekStartDay: 0 | 1 = 0): ParsedDate {
  const absolute = parseAbsolute(value, timezone);
  if (absolute) return absolute;
  const match = RELATIVE.exec(value);
  const unit = match ? UNITS[match[2]!] : undefined;
  if (!match || !unit) return { ms: now, kind: "relative", amount: 0 };
  const amount = match[1] ? Number(match[1]) : 0;
  const position = match[3] as "Start" | "End" | undefined;
  return { ms: applyRelative(now, unit, amount, position, timezone, weekStartDay), kind: "relative", unit: match[2], amount, position };
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
 * of that day for edge "start" and its last millisecond for edge "end"; everything else as parsed.
 */
export function parseRelativeOrAbsoluteDate(value: string, now: number, timezone: string, edge: "start" | "end"): number {
  const parsed = parseDateExpression(value, now, timezone);
  if (parsed.kind === "date" && edge === "end") return endOfDay(parsed.ms, timezone);
  return parsed.ms;
}

/** ISO 8601 with the project offset, as Django writes aware datetimes ("Z" for UTC, microseconds at day ends). */
export function isoInZone(ms: number, timezone: string): string {
  const dt = zoned(ms, timezone);
  const base = dt.toFormat("yyyy-MM-dd'T'HH:mm:ss");
  const fraction = dt.millisecond === 0 ? "" : dt.millisecond === 999 ? ".999999" : `.${String(dt.millisecond).padStart(3, "0")}000`;
  const offset = dt.offset === 0 ? "Z" : dt.toFormat("ZZ");
  return `${base}${fraction}${offset}`;
}

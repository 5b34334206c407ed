import { DateTime, IANAZone } from "luxon";

/**
 * Project-time-zone arithmetic (reference: analytics §1.2). Luxon is used here only, and only for range
 * boundaries and labels, never per event.
 */
export type CalendarUnit = "second" | "minute" | "hour" | "day" | "week" | "month" | "quarter" | "year";

const zoneCache = new Map<string, string>();

/** An unknown zone name falls back to UTC instead of producing NaN everywhere. */
export function safeZone(timezone: string): string {
  let zone = zoneCache.get(timezone);
  if (zone === undefined) {
    zone = IANAZone.isValidZone(timezone) ? timezone : "UTC";
    zoneCache.set(timezone, zone);
  }
  return zone;
}

export const zoned = (ms: number, timezone: string): DateTime => DateTime.fromMillis(ms, { zone: safeZone(timezone) });

/** Start of the calendar unit containing `ms`; weeks start on Sunday (0) or Monday (1). */
export function startOf(ms: number, unit: CalendarUnit, timezone: string, weekStartDay: 0 | 1 = 0): number {
  const dt = zoned(ms, timezone);
  if (unit === "week") {
    const day = dt.startOf("day");
    const back = weekStartDay === 1 ? day.weekday - 1 : day.weekday % 7;
    return day.minus({ days: back }).toMillis();
  }
  return dt.startOf(unit).toMillis();
}

/** `ms` moved by `n` units: calendar-aware for days and longer (DST keeps local midnight), exact below. */
export function plus(ms: number, n: number, unit: CalendarUnit, timezone: string): number {
  if (unit === "second") return ms + n * 1000;
  if (unit === "minute") return ms + n * 60_000;
  if (unit === "hour") return ms + n * 3_600_000;
  if (unit === "quarter") return zoned(ms, timezone).plus({ weeks: 13 * n }).toMillis();
  return zoned(ms, timezone).plus({ [`${unit}s`]: n }).toMillis();
}

/** Last millisecond of the local day containing `ms` (PostHog's 23:59:59.999999). */
export const endOfDay = (ms: number, timezone: string): number => plus(startOf(ms, "day", timezone), 1, "day", timezone) - 1;

/** Local wall-clock time as if it were UTC: PostHog does wall-clock arithmetic on aware datetimes. */
export const toWallClock = (ms: number, timezone: string): number => ms + zoned(ms, timezone).offset * 60_000;

export function fromWallClock(wall: number, timezone: string): number {
  const w = DateTime.fromMillis(wall, { zone: "UTC" });
  const { year, month, day, hour, minute, second, millisecond } = w;
  return DateTime.fromObject({ year, month, day, hour, minute, second, millisecond }, { zone: safeZone(timezone) }).toMillis();
}

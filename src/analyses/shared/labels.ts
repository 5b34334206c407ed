import type { Interval } from "./context.ts";
import { plus, startOf, zoned } from "../../core/time-zones.ts";

/** Bucket keys and labels, exactly as the current engine writes them (reference: analytics §1.2). */

const SUB_DAY = new Set<Interval>(["hour", "minute"]);

/** `days` entry: YYYY-MM-DD, or YYYY-MM-DD HH:MM:SS for hour/minute. */
export function bucketKey(start: number, interval: Interval, timezone: string): string {
  return zoned(start, timezone).toFormat(SUB_DAY.has(interval) ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd");
}

const fmt = (ms: number, timezone: string, pattern: string): string =>
  zoned(ms, timezone).setLocale("en-US").toFormat(pattern);

/** `labels` entry; week labels show the week's days clamped to the queried range, joined by an en dash. */
export function bucketLabel(start: number, interval: Interval, timezone: string, range: { from: number; to: number }): string {
  if (SUB_DAY.has(interval)) return fmt(start, timezone, "d-MMM HH:mm");
  if (interval === "day") return fmt(start, timezone, "d-MMM-yyyy");
  if (interval === "month") return fmt(start, timezone, "MMM yyyy");
  const first = Math.max(start, startOf(range.from, "day", timezone));
  const last = Math.min(plus(start, 6, "day", timezone), startOf(range.to, "day", timezone));
  return weekSpan(first, last, timezone);
}

function weekSpan(first: number, last: number, timezone: string): string {
  const a = zoned(first, timezone);
  const b = zoned(last, timezone);
  if (a.hasSame(b, "day")) return fmt(first, timezone, "d-MMM-yyyy");
  if (a.hasSame(b, "month")) return `${a.day}–${fmt(last, timezone, "d MMM")}`;
  if (a.hasSame(b, "year")) return `${fmt(first, timezone, "d-MMM")} – ${fmt(last, timezone, "d-MMM")}`;
  return `${fmt(first, timezone, "d-MMM-yyyy")} – ${fmt(last, timezone, "d-MMM-yyyy")}`;
}

/** The legacy engine's label (`%-d-%b-%Y`, plus ` %H:%M` below a day), still used by funnel trends (§5.6). */
export function legacyLabel(start: number, interval: Interval, timezone: string): string {
  return fmt(start, timezone, SUB_DAY.has(interval) ? "d-MMM-yyyy HH:mm" : "d-MMM-yyyy");
}

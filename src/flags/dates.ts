/**
 * Dates as the flags service reads them for is_date_before / is_date_after / is_date_exact
 * (reference: flags service `property_matching.rs` `parse_date_string_in_tz`, `relative_date.rs`).
 * The team time zone is taken as UTC: naive wall-clock strings are read as UTC.
 */

const RELATIVE = /^-?(\d+)([hdwmy])$/;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** "-7d", "3h", "-2w", "-1m", "-1y" (the sign is optional and ignored: always in the past); numbers from 10 000 up are refused. */
export function parseRelativeDate(text: string, now: Date): Date | undefined {
  const match = RELATIVE.exec(text);
  if (!match) return undefined;
  const amount = Number(match[1]);
  if (amount >= 10_000) return undefined;
  switch (match[2]) {
    case "h":
      return new Date(now.getTime() - amount * HOUR_MS);
    case "d":
      return new Date(now.getTime() - amount * DAY_MS);
    case "w":
      return new Date(now.getTime() - amount * 7 * DAY_MS);
    case "m":
      return monthsBefore(now, amount);
    default:
      return yearsBefore(now, amount);
  }
}

const lastDayOfMonth = (year: number, month0: number): number => new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();

/** One month at a time, keeping the day when the earlier month has it, else its last day (the clamp carries on). */
function monthsBefore(now: Date, months: number): Date {
  let year = now.getUTCFullYear();
  let month = now.getUTCMonth();
  let day = now.getUTCDate();
  for (let i = 0; i < months; i++) {
    [year, month] = month === 0 ? [year - 1, 11] : [year, month - 1];
    day = Math.min(day, lastDayOfMonth(year, month));
  }
  return withDate(now, year, month, day);
}

/** One year at a time; only 29 February moves (to the 28th). */
function yearsBefore(now: Date, years: number): Date {
  let year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  let day = now.getUTCDate();
  for (let i = 0; i < years; i++) {
    year -= 1;
    if (month === 1) day = Math.min(day, lastDayOfMonth(year, month));
  }
  return withDate(now, year, month, day);
}

function withDate(timeOfDay: Date, year: number, month0: number, day: number): Date {
  const result = new Date(timeOfDay.getTime());
  result.setUTCFullYear(year, month0, day);
  return result;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BARE_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const NAIVE_DATETIME = /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(\.\d+)?)?$/;

/** A filter or property date string: relative, RFC 3339, a bare date, a naive date-time (UTC), or a Unix timestamp in digits. */
export function parseDateString(text: string, now: Date): Date | undefined {
  const relative = parseRelativeDate(text, now);
  if (relative) return relative;
  const rfc = RFC3339.exec(text);
  if (rfc) return rfc3339(rfc);
  const bare = BARE_DATE.exec(text);
  if (bare) return utcDate(+bare[1]!, +bare[2]!, +bare[3]!, 0, 0, 0, 0);
  const naive = NAIVE_DATETIME.exec(text);
  if (naive) return utcDate(+naive[1]!, +naive[2]!, +naive[3]!, +naive[4]!, +naive[5]!, +(naive[6] ?? 0), fractionMs(naive[7]));
  return fallbackDate(text);
}

function rfc3339(m: RegExpExecArray): Date | undefined {
  const local = utcDate(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, fractionMs(m[7]));
  if (!local) return undefined;
  const zone = m[8]!;
  if (zone === "Z" || zone === "z") return local;
  const sign = zone.startsWith("-") ? -1 : 1;
  const offsetMinutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  return new Date(local.getTime() - offsetMinutes * 60_000);
}

const fractionMs = (fraction: string | undefined): number => (fraction ? Math.round(Number(`0${fraction}`) * 1000) : 0);

/** Refuses impossible calendar values (chrono does not roll 31 February over into March). */
function utcDate(year: number, month: number, day: number, h: number, min: number, s: number, ms: number): Date | undefined {
  if (month < 1 || month > 12 || day < 1 || day > lastDayOfMonth(year, month - 1)) return undefined;
  if (h > 23 || min > 59 || s > 60) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day, h, min, s, ms));
  date.setUTCFullYear(year);
  return date;
}

/** The service's last resort (the `dateparser` crate) also reads Unix timestamps and RFC 2822 dates; the rest of its formats are not covered. */
function fallbackDate(text: string): Date | undefined {
  if (/^\d{10}(\.\d+)?$/.test(text)) return fromEpochSeconds(Number(text));
  if (/^\d{13}$/.test(text)) return new Date(Number(text));
  if (/^(?:[A-Za-z]{3}, )?\d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}(?::\d{2})? (?:[+-]\d{4}|GMT|UTC|Z)$/.test(text)) {
    const parsed = Date.parse(text);
    return Number.isNaN(parsed) ? undefined : new Date(parsed);
  }
  return undefined;
}

const fromEpochSeconds = (seconds: number): Date | undefined =>
  Number.isFinite(seconds) && Math.abs(seconds) < 8.64e12 ? new Date(Math.round(seconds * 1000)) : undefined;

/** A person's date: numbers and numeric strings are Unix seconds; other strings read like filter dates; anything else is no date. */
export function parsePropertyDate(value: unknown, now: Date): Date | undefined {
  if (typeof value === "number") return fromEpochSeconds(value);
  if (typeof value !== "string") return undefined;
  const asNumber = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value) ? Number(value) : undefined;
  if (asNumber !== undefined) return fromEpochSeconds(asNumber);
  return parseDateString(value, now);
}

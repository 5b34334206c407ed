import { parseAbsolute } from "../core/date-parse.ts";
import { parseRelativeOrAbsoluteDate } from "../analyses/shared/date-range.ts";

const RELATIVE = /^-?\d+[hdwmqyMs]$/;

/**
 * An `after`/`before` bound of a list: ISO 8601 (no offset = UTC) or relative to now (`-7d`, `2h`, `1w`: now
 * minus that, the sign optional); undefined for anything else.
 */
export function parseInstant(value: string, now: number, timezone: string): number | undefined {
  return RELATIVE.test(value) ? parseRelativeOrAbsoluteDate(value.startsWith("-") ? value : `-${value}`, now, timezone, "start") : parseAbsolute(value, "UTC")?.ms;
}

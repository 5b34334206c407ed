/**
 * The heatmaps list's query parameters read as the real service's serializer reads them (PostHog/posthog
 * products/web_analytics/backend/api/heatmaps_api.py `HeatmapsRequestSerializer`): an empty value is the same as
 * none, text is trimmed, dates become whole days in the project's time zone, and the URL pattern is anchored.
 * Each refusal names its parameter.
 */
import { reject } from "../core/analysis-errors.ts";
import { DATE_GRAMMAR, parseDate, type TimeContext } from "../core/date-parse.ts";
import { compileUserRegex } from "../core/regex.ts";
import { plus, startOf } from "../core/time-zones.ts";
import { roundHalfEven } from "../hogql/evaluate-functions.ts";
import { SCALE_FACTOR } from "./rows.ts";

export const AGGREGATIONS = ["total_count", "unique_visitors"] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** Django REST framework's BooleanField texts (`TRUE_VALUES`, `FALSE_VALUES`, `NULL_VALUES`). */
export const TRUE_TEXTS = ["t", "T", "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "1"] as const;
export const FALSE_TEXTS = ["f", "F", "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "0"] as const;
export const NULL_TEXTS = ["null", "Null", "NULL"] as const;

export interface HeatmapQuery {
  type: string;
  /** Inclusive bounds (epoch ms): the start of date_from's day to the start of the day after date_to's. */
  from: number;
  to: number;
  urlExact?: string;
  urlPattern?: RegExp;
  /** Bounds on the stored (scaled) viewport width. */
  viewportWidthMin?: number;
  viewportWidthMax?: number;
  aggregation: Aggregation;
  filterTestAccounts: boolean;
  hideZeroCoordinates: boolean;
  /** 0: every point. */
  limit: number;
  offset: number;
  cohortIds: number[];
}

type Q = Record<string, unknown>;

/** A parameter's value; an empty one counts as absent (the real form reading of an optional field). */
function given(q: Q, key: string): unknown {
  const value = q[key];
  return value === undefined || value === null || value === "" ? undefined : value;
}

/** A text parameter, trimmed; only whitespace is a 400 (`This field may not be blank.`). */
function text(q: Q, key: string): string | undefined {
  const value = given(q, key);
  if (value === undefined) return undefined;
  const trimmed = String(value).trim();
  if (trimmed === "") throw reject.invalid(key, "This field may not be blank.");
  return trimmed;
}

function flag(q: Q, key: string): boolean | undefined {
  const value = given(q, key);
  if (value === undefined || typeof value === "boolean") return value;
  if ((TRUE_TEXTS as readonly string[]).includes(String(value))) return true;
  if ((FALSE_TEXTS as readonly string[]).includes(String(value))) return false;
  if ((NULL_TEXTS as readonly string[]).includes(String(value))) return undefined;
  throw reject.invalid(key, "Must be a valid boolean.");
}

function integer(q: Q, key: string): number | undefined {
  const value = given(q, key);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw reject.invalid(key, "A valid integer is required.");
  return n;
}

/** The day a date parameter names, as the start of that day in the project's zone. */
function dayOf(value: string, key: string, ctx: TimeContext): number {
  const parsed = parseDate(value, ctx.now, ctx.timezone, ctx.weekStartDay);
  if (!parsed) throw reject.invalid(key, `Error parsing provided ${key}: ${value}. Use ${DATE_GRAMMAR}.`);
  return startOf(parsed.ms, "day", ctx.timezone);
}

/**
 * The pattern as the real service rewrites it before ClickHouse's `match`: anchored at both ends unless the
 * caller anchored it, and a `*` not after `.` read as `.+` (a glob-like star that needs at least one character).
 */
export function anchoredUrlPattern(pattern: string): string {
  let anchored = pattern.startsWith("^") ? pattern : `^${pattern}`;
  if (!pattern.endsWith("$")) anchored = `${anchored}$`;
  return [...anchored].map((c, i) => (c === "*" && i > 0 && anchored[i - 1] !== "." ? ".+" : c)).join("");
}

/** A viewport width in pixels as the stored (scaled) width it is compared with: ClickHouse's round(px / 16), halves to even. */
export const scaledViewportBound = (px: number): number => roundHalfEven(px / SCALE_FACTOR);

function cohortIdsOf(q: Q): number[] {
  const value = given(q, "cohort_ids");
  if (value === undefined) return [];
  let ids: unknown;
  try {
    ids = JSON.parse(String(value));
  } catch {
    throw reject.invalid("cohort_ids", "cohort_ids must be valid JSON");
  }
  if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id))) throw reject.invalid("cohort_ids", "cohort_ids must be a JSON array of integers");
  return ids as number[];
}

/** The request's parameters, checked and defaulted (date_from -7d, date_to today, type click, total_count, limit 500). */
export function readHeatmapQuery(q: Q, ctx: TimeContext): HeatmapQuery {
  const aggregation = given(q, "aggregation") ?? "total_count";
  if (!(AGGREGATIONS as readonly unknown[]).includes(aggregation)) throw reject.invalid("aggregation", `"${String(aggregation)}" is not a valid choice.`);
  let urlExact = text(q, "url_exact");
  let pattern = text(q, "url_pattern");
  // Both given: the same text is an exact match, different texts leave the pattern (the serializer's `validate`).
  if (urlExact !== undefined && pattern !== undefined) {
    if (urlExact === pattern) pattern = undefined;
    else urlExact = undefined;
  }
  const min = integer(q, "viewport_width_min");
  const max = integer(q, "viewport_width_max");
  return {
    type: text(q, "type") ?? "click",
    from: dayOf(text(q, "date_from") ?? "-7d", "date_from", ctx),
    to: plus(dayOf(text(q, "date_to") ?? "dStart", "date_to", ctx), 1, "day", ctx.timezone),
    urlExact,
    urlPattern: pattern === undefined ? undefined : compileUserRegex(anchoredUrlPattern(pattern), "url_pattern"),
    viewportWidthMin: min === undefined ? undefined : scaledViewportBound(min),
    viewportWidthMax: max === undefined ? undefined : scaledViewportBound(max),
    aggregation: aggregation as Aggregation,
    filterTestAccounts: flag(q, "filter_test_accounts") ?? false,
    hideZeroCoordinates: flag(q, "hide_zero_coordinates") ?? true,
    limit: integer(q, "limit") ?? 500,
    offset: integer(q, "offset") ?? 0,
    cohortIds: cohortIdsOf(q),
  };
}

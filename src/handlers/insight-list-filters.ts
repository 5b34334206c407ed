import { parseDate } from "../core/date-parse.ts";
import { fail } from "../core/errors.ts";
import { parseCallerJson } from "../http/json-depth.ts";
import { definitionOf } from "../services/analysis-service.ts";
import type { InsightRecord } from "../store/schema.ts";

type Q = Record<string, unknown>;

/** What the list filters need beyond the insight: the caller, the clock and zone, views and dashboards. */
export interface ListFilterContext {
  callerId: number;
  now: number;
  timezone: string;
  /** The caller's latest view of an insight (ISO), if any. */
  lastViewedAt: (insightId: number) => string | undefined;
  /** Dashboards the insight is on (not deleted tiles). */
  dashboardIdsOf: (insightId: number) => number[];
}

/** A JSON-encoded query parameter, 400 naming it when it is not JSON or not what `valid` accepts. */
function jsonParam<T>(q: Q, name: string, valid: (v: unknown) => v is T, shape: string): T | undefined {
  const raw = q[name];
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = parseCallerJson(String(raw), name);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    throw fail.invalid(name, `${name} must be ${shape}.`);
  }
  if (!valid(value)) throw fail.invalid(name, `${name} must be ${shape}.`);
  return value;
}

const isIntegerList = (v: unknown): v is number[] => Array.isArray(v) && v.every(Number.isInteger);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
const isIdOrIdList = (v: unknown): v is number | number[] => Number.isInteger(v) || isIntegerList(v);

/** A bound of the date grammar (a bare date is its day's start, as the real service's relative_date_parse). */
function dateParam(q: Q, name: string, ctx: ListFilterContext): number | undefined {
  const raw = q[name];
  if (raw === undefined) return undefined;
  const parsed = parseDate(String(raw), ctx.now, ctx.timezone);
  if (!parsed) throw fail.invalid(name, `${name} is not a date of the grammar (2024-03-01, -7d, mStart, an ISO date-time).`);
  return parsed.ms;
}

const inWindow = (iso: string | undefined, from: number | undefined, to: number | undefined): boolean => {
  if (from === undefined && to === undefined) return true;
  if (iso === undefined) return false;
  const ms = Date.parse(iso);
  return (from === undefined || ms > from) && (to === undefined || ms < to);
};

function kindMatches(insight: InsightRecord, kind: unknown): boolean {
  try {
    return definitionOf(insight).kind === kind;
  } catch {
    return false;
  }
}

/** The list's filters (spec, web app and CLI parameters), parsed once; 400 naming a malformed one. */
export function insightListMatcher(q: Q, ctx: ListFilterContext): (insight: InsightRecord) => boolean {
  const createdBy = jsonParam(q, "created_by", isIdOrIdList, "a user id or a JSON array of user ids");
  const creators = createdBy === undefined ? undefined : new Set(Array.isArray(createdBy) ? createdBy : [createdBy]);
  const tags = jsonParam(q, "tags", isStringList, "a JSON array of tag names");
  const dashboards = jsonParam(q, "dashboards", isIntegerList, "a JSON array of dashboard ids");
  const modified = [dateParam(q, "date_from", ctx), dateParam(q, "date_to", ctx)] as const;
  const created = [dateParam(q, "created_date_from", ctx), dateParam(q, "created_date_to", ctx)] as const;
  const viewed = [dateParam(q, "last_viewed_date_from", ctx), dateParam(q, "last_viewed_date_to", ctx)] as const;
  const term = typeof q.search === "string" ? q.search.toLowerCase() : null;
  return (insight) => {
    if (creators && (insight.created_by === null || !creators.has(insight.created_by))) return false;
    // The real service filters on the mere presence of `user`.
    if (q.user !== undefined && insight.created_by !== ctx.callerId) return false;
    if (q.short_id !== undefined && insight.short_id !== q.short_id) return false;
    if (q.saved !== undefined && insight.saved !== q.saved) return false;
    if (q.favorited !== undefined && insight.favorited !== q.favorited) return false;
    if (term !== null && ![insight.name, insight.derived_name, insight.description].join(" ").toLowerCase().includes(term)) return false;
    if (q.insight !== undefined && !kindMatches(insight, q.insight)) return false;
    if (tags && !tags.some((t) => insight.tags.includes(t))) return false;
    if (dashboards && dashboards.length) {
      const on = ctx.dashboardIdsOf(insight.id);
      if (!dashboards.every((d) => on.includes(d))) return false;
    }
    if (!inWindow(insight.last_modified_at, ...modified)) return false;
    if (!inWindow(insight.created_at, ...created)) return false;
    return inWindow(ctx.lastViewedAt(insight.id), ...viewed);
  };
}

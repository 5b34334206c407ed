import { decodeJsonish, isObject, type Loose } from "./filter-read.ts";

/**
 * A dashboard's filters (PostHog's DashboardFilter) laid over an insight's legacy filter, as the real service's
 * QueryRunner.apply_dashboard_filters rewrites the insight's query (posthog/hogql_queries/query_runner.py, and
 * TrendsQueryRunner's for compare): the same rule for `GET /insights/{id}/?from_dashboard=` (the dashboard's filters,
 * then the request's `filters_override`) and for the query API's `filters_override`.
 */

/** Kinds whose query has a breakdownFilter (a dashboard breakdown is ignored by the others). */
const BREAKDOWN_KINDS = new Set(["TRENDS", "FUNNELS", "RETENTION"]);
/** Kinds whose query has an interval (retention and paths have none). */
const INTERVAL_KINDS = new Set(["TRENDS", "FUNNELS", "STICKINESS", "LIFECYCLE"]);

/** Whether a property list or group holds at least one filter (an empty group filters nothing). */
function hasAnyPropertyFilter(properties: unknown): boolean {
  if (Array.isArray(properties)) return properties.some((p) => !isObject(p) || !Array.isArray(p.values) || hasAnyPropertyFilter(p.values));
  return isObject(properties) && Array.isArray(properties.values) && hasAnyPropertyFilter(properties.values);
}

/** The insight's properties AND the dashboard's: a group of both (the insight's own group kept whole), or the dashboard's alone. */
function withDashboardProperties(own: unknown, dashboard: unknown[]): unknown {
  if (!hasAnyPropertyFilter(own)) return [...dashboard];
  const ownGroup = Array.isArray(own) ? { type: "AND", values: own } : own;
  return { type: "AND", values: [ownGroup, { type: "AND", values: dashboard }] };
}

/** A date bound: set when given, left out (the kind's default) when null. */
function setOrDrop(filter: Loose, key: string, value: unknown): void {
  if (value === undefined || value === null || value === "") delete filter[key];
  else filter[key] = value;
}

/** The date range is one unit: either bound given replaces both (a missing one becomes the default). */
function applyDateRange(filter: Loose, dashboard: Loose): void {
  if (!dashboard.date_from && !dashboard.date_to) return;
  setOrDrop(filter, "date_from", dashboard.date_from);
  setOrDrop(filter, "date_to", dashboard.date_to);
  if (dashboard.explicitDate !== undefined && dashboard.explicitDate !== null) filter.explicit_date = dashboard.explicitDate;
}

/** A dashboard breakdown replaces the insight's whole breakdown (its limit and type included). */
function applyBreakdown(filter: Loose, breakdown: Loose): void {
  for (const key of Object.keys(filter)) if (key.startsWith("breakdown")) delete filter[key];
  for (const [key, value] of Object.entries(breakdown)) if (value !== undefined && value !== null) filter[key] = value;
}

/** The insight's legacy filter with a dashboard's filters applied; `dashboard` undefined or empty changes nothing. */
export function applyDashboardFilter(kind: string, filter: Loose, dashboard: Loose | undefined): Loose {
  if (!dashboard) return filter;
  const out: Loose = { ...filter };
  const properties = decodeJsonish(dashboard.properties);
  if (Array.isArray(properties) && properties.length) out.properties = withDashboardProperties(decodeJsonish(filter.properties), properties);
  applyDateRange(out, dashboard);
  const breakdown = decodeJsonish(dashboard.breakdown_filter);
  if (isObject(breakdown) && BREAKDOWN_KINDS.has(kind)) applyBreakdown(out, breakdown);
  if (typeof dashboard.interval === "string" && INTERVAL_KINDS.has(kind)) out.interval = dashboard.interval;
  if (typeof dashboard.filterTestAccounts === "boolean") out.filter_test_accounts = dashboard.filterTestAccounts;
  // There is no previous period of "all time" (TrendsQueryRunner.apply_dashboard_filters).
  if (kind === "TRENDS" && dashboard.date_from === "all" && out.compare) out.compare = false;
  return out;
}

import type { AnalysisService } from "../services/analysis-service.ts";
import type { DashboardTileRecord, InsightRecord, ProjectRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { toUserJson } from "./user-json.ts";
import type { SqlInsightResult } from "../services/query/sql-insight.ts";
import { filtersToQuery } from "../analyses/filter-to-query.ts";

/**
 * The insight's query node: the stored one, else the one its `filters` convert to (the real service's
 * `query_from_filters`), so a client can run `insight.query` as is; null for empty filters. The stored
 * record is left as it is: results are still computed from what was saved.
 */
export function queryOfInsight(insight: Pick<InsightRecord, "filters" | "query">): Record<string, unknown> | null {
  if (insight.query && Object.keys(insight.query).length) return insight.query;
  if (!insight.filters || Object.keys(insight.filters).length === 0) return null;
  return filtersToQuery(insight.filters);
}

export interface InsightView {
  refresh?: boolean;
  /** false: serve the cached result only (lists and create do not compute). */
  compute?: boolean;
  /** The tile when loaded with from_dashboard: its dashboard's filters apply and its color/layouts are added. */
  tile?: DashboardTileRecord;
  /** `filters_override` of a retrieve: top-level keys replacing the insight's filters for this request. */
  override?: Record<string, unknown>;
  /** A SQL insight's rows and columns, run before building (the SQL engine answers asynchronously). */
  sql?: SqlInsightResult;
  /** The caller's latest view of an insight (ISO), null if never. */
  lastViewedAt?: (insightId: number) => string | null;
}

/** Restriction and privilege levels (reference: analytics §9.1): 21 = everyone in the project can edit; 37 = can edit. */
export const EVERYONE_CAN_EDIT = 21;
export const CAN_EDIT = 37;

/**
 * The dashboard filters laid over an insight's own: the request's override in place of the dashboard's, as the
 * real service's insight serializer takes `filters_override` instead of `dashboard.filters` (posthog/api/insight.py).
 */
export function filterOverrides(store: Store, project: ProjectRecord, view: Pick<InsightView, "tile" | "override">): Record<string, unknown> | undefined {
  if (view.override) return view.override;
  return view.tile ? store.dashboards.get(project.id, view.tile.dashboard_id)?.filters : undefined;
}

/** The Insight representation, with its result computed (or served from cache) from filters or query. */
export function toInsightJson(insight: InsightRecord, project: ProjectRecord, deps: { store: Store; analyses: AnalysisService }, view: InsightView = {}) {
  const { store, analyses } = deps;
  const overrides = filterOverrides(store, project, view);
  const pkg = view.sql ?? analyses.forInsight(project, insight, { refresh: view.refresh ?? false, overrides, compute: view.compute });
  const tiles = store.dashboards.tilesOf(insight.id);
  return {
    id: insight.id,
    short_id: insight.short_id,
    name: insight.name,
    derived_name: insight.derived_name,
    filters: insight.filters,
    query: queryOfInsight(insight),
    order: insight.order,
    deleted: insight.deleted,
    dashboards: tiles.filter((t) => !t.deleted).map((t) => t.dashboard_id),
    dashboard_tiles: tiles.map((t) => ({ id: t.id, dashboard_id: t.dashboard_id, deleted: t.deleted })),
    last_refresh: pkg.last_refresh,
    next_allowed_client_refresh: pkg.next_allowed_client_refresh,
    result: pkg.result,
    created_at: insight.created_at,
    created_by: toUserJson(store.users.get(insight.created_by)),
    description: insight.description,
    updated_at: insight.updated_at,
    tags: insight.tags,
    favorited: insight.favorited,
    saved: insight.saved,
    last_modified_at: insight.last_modified_at,
    last_modified_by: toUserJson(store.users.get(insight.last_modified_by)),
    is_sample: insight.is_sample,
    effective_restriction_level: EVERYONE_CAN_EDIT,
    effective_privilege_level: CAN_EDIT,
    timezone: project.timezone,
    is_cached: pkg.is_cached,
    last_viewed_at: view.lastViewedAt?.(insight.id) ?? null,
    alerts: [],
    ...(view.tile ? { color: view.tile.color, layouts: view.tile.layouts } : {}),
    ...(view.sql ? { columns: view.sql.columns, types: view.sql.types, hogql: view.sql.hogql, hasMore: view.sql.hasMore } : {}),
  };
}

/** The light serializer of my_last_viewed (reference: analytics §9.1). */
export function toInsightBasicJson(insight: InsightRecord, store: Store) {
  return {
    id: insight.id,
    short_id: insight.short_id,
    name: insight.name,
    derived_name: insight.derived_name,
    filters: insight.filters,
    query: queryOfInsight(insight),
    dashboards: store.insights.dashboardIdsOf(insight.id),
    description: insight.description,
    last_refresh: null,
    saved: insight.saved,
    tags: insight.tags,
    updated_at: insight.updated_at,
    created_by: toUserJson(store.users.get(insight.created_by)),
    created_at: insight.created_at,
    last_modified_at: insight.last_modified_at,
    favorited: insight.favorited,
  };
}

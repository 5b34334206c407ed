import { fail } from "../http/errors.ts";
import { paginate } from "../http/pagination.ts";
import { reply, type Handler, type HandlerArgs } from "../http/types.ts";
import type { DashboardRecord, ProjectRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { projectNumber } from "../util/ids.ts";
import { isSqlInsight, sqlInsightResult } from "../services/query/sql-insight.ts";
import { personName } from "./person-json.ts";
import { CAN_EDIT, EVERYONE_CAN_EDIT, toInsightJson } from "./insight-json.ts";

/**
 * The list serializer's fields. A dashboard exists through the insights placed on it, so it was created when
 * the first of them was (removed tiles count: the dashboard outlives them).
 */
function toDashboardBasicJson(dashboard: DashboardRecord, project: ProjectRecord, store: Store) {
  const createdAt = store.dashboards
    .tilesOn(dashboard.id)
    .map((t) => store.insights.get(project.id, t.insight_id, { includeDeleted: true })?.created_at)
    .filter((at): at is string => at !== undefined)
    .sort()[0];
  return {
    id: dashboard.id,
    name: dashboard.name,
    description: "",
    pinned: false,
    created_at: createdAt ?? new Date(0).toISOString(),
    created_by: null,
    last_accessed_at: null,
    is_shared: false,
    deleted: dashboard.deleted,
    creation_mode: "default",
    tags: [],
    restriction_level: EVERYONE_CAN_EDIT,
    effective_restriction_level: EVERYONE_CAN_EDIT,
    effective_privilege_level: CAN_EDIT,
    user_access_level: "editor",
    team_id: projectNumber(project),
  };
}

type Basic = ReturnType<typeof toDashboardBasicJson>;

/** The list's `search` (name or description, case-insensitive) and `pinned` filters. */
function listFilter(q: { search?: string; pinned?: boolean }): (d: Basic) => boolean {
  const search = q.search?.toLowerCase();
  return (d) => (search === undefined || `${d.name}\n${d.description}`.toLowerCase().includes(search)) && (q.pinned === undefined || d.pinned === q.pinned);
}

/** Pinned first, then by name (case-insensitive), then by id. */
const byListOrder = (a: Basic, b: Basic) =>
  Number(b.pinned) - Number(a.pinned) || a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id;

function findDashboard(args: HandlerArgs): DashboardRecord {
  const dashboard = args.deps.store.dashboards.get(args.project.id, Number((args.c.request.params as { id: number }).id));
  if (!dashboard) throw fail.notFound();
  return dashboard;
}

export const dashboardHandlers = {
  dashboards_list: ({ c, deps, project, url }) => {
    const q = c.request.query as { limit?: number; offset?: number; search?: string; pinned?: boolean };
    const dashboards = deps.store.dashboards
      .list(project.id)
      .map((d) => toDashboardBasicJson(d, project, deps.store))
      .filter(listFilter(q))
      .sort(byListOrder);
    return reply(200, paginate(dashboards, url, q.limit ?? 100, q.offset ?? 0));
  },

  /** Tiles shown as deleted (a soft-deleted insight, or taken off) are left out; each insight as loaded from here. */
  dashboards_retrieve: async (args) => {
    const { deps, project } = args;
    const dashboard = findDashboard(args);
    const refresh = (args.c.request.query as { refresh?: boolean }).refresh === true;
    const shown = deps.store.dashboards.tilesOn(dashboard.id).filter((t) => !t.deleted);
    const tiles = [];
    for (const [order, tile] of shown.entries()) {
      const insight = deps.store.insights.get(project.id, tile.insight_id);
      if (!insight) continue;
      const sql = isSqlInsight(insight) ? await sqlInsightResult({ ...deps, personName }, project, insight, refresh) : undefined;
      const json = toInsightJson(insight, project, deps, { tile, refresh, sql });
      tiles.push({ id: tile.id, insight: json, order, color: tile.color, layouts: tile.layouts, last_refresh: json.last_refresh, is_cached: json.is_cached, deleted: false });
    }
    return reply(200, { ...toDashboardBasicJson(dashboard, project, deps.store), filters: dashboard.filters, variables: {}, tiles });
  },
} satisfies Record<string, Handler>;

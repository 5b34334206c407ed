import { fail } from "../core/errors.ts";
import { paginate } from "../http/pagination.ts";
import { writableFields } from "../http/writable-fields.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import type { DashboardRecord, DashboardTileRecord, ProjectRecord } from "../store/schema.ts";
import { DASHBOARD_WRITABLE, type DashboardInput, type DashboardSource, type TileInput } from "../store/dashboards-repo.ts";
import type { Store } from "../store/store.ts";
import { projectNumber } from "../util/ids.ts";
import { isSqlInsight, sqlInsightResult } from "../services/query/sql-insight.ts";
import { personName } from "./person-json.ts";
import { CAN_EDIT, EVERYONE_CAN_EDIT, filterOverrides, toInsightJson } from "./insight-json.ts";
import { toUserJson } from "./user-json.ts";
import { refreshRequested } from "./refresh-mode.ts";

/** The list serializer's fields. */
function toDashboardBasicJson(dashboard: DashboardRecord, project: ProjectRecord, store: Store) {
  return {
    id: dashboard.id,
    name: dashboard.name,
    description: dashboard.description,
    pinned: dashboard.pinned,
    created_at: dashboard.created_at,
    created_by: toUserJson(store.users.get(dashboard.created_by)),
    last_accessed_at: dashboard.last_accessed_at,
    is_shared: false,
    deleted: dashboard.deleted,
    creation_mode: dashboard.creation_mode,
    tags: dashboard.tags,
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

/** The dashboard with its shown tiles, each insight as loaded from it (retrieve, and every write's answer). */
async function toDashboardJson(args: HandlerArgs, dashboard: DashboardRecord, refresh = false) {
  const { deps, project } = args;
  const tiles = [];
  for (const [order, tile] of deps.store.dashboards.shownTiles(dashboard.id).entries()) {
    const insight = deps.store.insights.get(project.id, tile.insight_id);
    if (!insight) continue;
    const sql = isSqlInsight(insight) ? await sqlInsightResult({ ...deps, personName }, project, insight, refresh) : undefined;
    // The tile's analysis runs with its scans on the workers, the event loop free meanwhile; toInsightJson serves it.
    if (!sql) await deps.analyses.prepareInsight(project, insight, { refresh, overrides: filterOverrides(deps.store, project, { tile }) });
    const json = toInsightJson(insight, project, deps, { tile, refresh, sql });
    tiles.push({ id: tile.id, insight: json, order, color: tile.color, layouts: tile.layouts, last_refresh: json.last_refresh, is_cached: json.is_cached, deleted: false });
  }
  return { ...toDashboardBasicJson(dashboard, project, deps.store), filters: dashboard.filters, variables: {}, tiles };
}

const pathId = (args: HandlerArgs) => Number((args.c.request.params as { id: number }).id);

function findDashboard(args: HandlerArgs, opts: { includeDeleted?: boolean } = {}): DashboardRecord {
  const dashboard = args.deps.store.dashboards.get(args.project.id, pathId(args), opts);
  if (!dashboard) throw fail.notFound();
  return dashboard;
}

interface WriteBody {
  tiles?: TileInput[];
  use_dashboard?: number | null;
  duplicate_tiles?: boolean;
  use_template?: string;
  delete_insights?: boolean;
}

/** Every tile written must already be on this dashboard (the real service would make an empty tile of an unknown id). */
function requireOwnTiles(dashboard: DashboardRecord, tiles: readonly TileInput[], store: Store) {
  tiles.forEach((t, i) => {
    if (!store.dashboards.tile(dashboard.id, t.id)) throw fail.invalid(`tiles__${i}__id`, `Tile ${t.id} is not on dashboard ${dashboard.id}.`);
  });
}

/** No templates exist here: an empty key means none, any other is unknown (as the real service answers one). */
function requireNoTemplate(body: WriteBody) {
  if (!body.use_template) return;
  if (body.use_dashboard) throw fail.invalid(null, "`use_dashboard` and `use_template` cannot be used together");
  throw fail.invalid("use_template", `Invalid template provided: ${body.use_template}`);
}

function sourceOf(args: HandlerArgs, body: WriteBody): DashboardSource | undefined {
  if (!body.use_dashboard) return undefined;
  const dashboard = args.deps.store.dashboards.get(args.project.id, body.use_dashboard);
  if (!dashboard) throw fail.invalid("use_dashboard", "Invalid value provided");
  return { dashboard, copyInsights: body.duplicate_tiles === true };
}

/** PATCH and PUT: `deleted: false` is the one write that reaches a soft-deleted dashboard (it restores it). */
async function updateDashboard(args: HandlerArgs) {
  const body = (args.c.request.requestBody ?? {}) as WriteBody;
  const input = writableFields<DashboardInput>(body, DASHBOARD_WRITABLE);
  // As in the real service, empty filters leave the stored ones as they are.
  if (input.filters && Object.keys(input.filters).length === 0) delete input.filters;
  const dashboard = findDashboard(args, { includeDeleted: true });
  if (dashboard.deleted && input.deleted !== false) throw fail.notFound();
  const tiles = body.tiles ?? [];
  requireOwnTiles(dashboard, tiles, args.deps.store);
  await args.deps.store.dashboards.update(dashboard, input, tiles, args.caller.user.id, { deleteInsights: body.delete_insights === true });
  return reply(200, await toDashboardJson(args, dashboard));
}

/** The tile of the path's dashboard named by a body, shown there; else 404. */
function shownTile(store: Store, dashboard: DashboardRecord, tileId: number): DashboardTileRecord {
  const tile = store.dashboards.tile(dashboard.id, tileId);
  if (!tile || tile.deleted) throw fail.notFound(`Tile ${tileId} is not on dashboard ${dashboard.id}.`);
  return tile;
}

function requireNotOn(store: Store, to: DashboardRecord, tile: DashboardTileRecord) {
  const there = store.dashboards.tileFor(to.id, tile.insight_id);
  if (there && there !== tile && !there.removed) throw fail.invalid(null, "This insight is already on the destination dashboard.");
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

  dashboards_create: async (args) => {
    const body = (args.c.request.requestBody ?? {}) as WriteBody;
    requireNoTemplate(body);
    const input = writableFields<DashboardInput>(body, DASHBOARD_WRITABLE);
    const dashboard = await args.deps.store.dashboards.create(args.project.id, input, args.caller.user.id, sourceOf(args, body));
    return reply(201, await toDashboardJson(args, dashboard));
  },

  dashboards_retrieve: async (args) => {
    const dashboard = findDashboard(args);
    await args.deps.store.dashboards.accessed(dashboard);
    return reply(200, await toDashboardJson(args, dashboard, refreshRequested((args.c.request.query as { refresh?: string }).refresh)));
  },

  dashboards_partial_update: updateDashboard,
  dashboards_update: updateDashboard,

  /** Moves a tile to another dashboard of the project; answers the dashboard it left. */
  dashboards_move_tile_partial_update: async (args) => {
    const body = args.c.request.requestBody as { toDashboard: number; tile: { id: number } };
    const { store } = args.deps;
    const from = findDashboard(args);
    const tile = shownTile(store, from, body.tile.id);
    const to = store.dashboards.get(args.project.id, body.toDashboard);
    if (!to) throw fail.notFound(`Dashboard ${body.toDashboard} does not exist in this project.`);
    requireNotOn(store, to, tile);
    if (to.id !== from.id) await store.dashboards.moveTile(tile, to);
    return reply(200, await toDashboardJson(args, from));
  },

  /** Places another dashboard's tile (its insight, color and layouts) on this one; answers this one. */
  dashboards_copy_tile_create: async (args) => {
    const body = args.c.request.requestBody as { fromDashboardId: number; tileId: number };
    const { store } = args.deps;
    const to = findDashboard(args);
    if (body.fromDashboardId === to.id) throw fail.invalid(null, "Destination must be a different dashboard than the source.");
    const from = store.dashboards.get(args.project.id, body.fromDashboardId);
    if (!from) throw fail.notFound(`Dashboard ${body.fromDashboardId} does not exist in this project.`);
    const tile = shownTile(store, from, body.tileId);
    requireNotOn(store, to, tile);
    await store.dashboards.copyTile(tile, to);
    return reply(200, await toDashboardJson(args, to));
  },

  /** Lays the tiles out in the given order, two a row. */
  dashboards_reorder_tiles_create: async (args) => {
    const order = (args.c.request.requestBody as { tile_order: number[] }).tile_order;
    const { store } = args.deps;
    const dashboard = findDashboard(args);
    if (new Set(order).size !== order.length) throw fail.invalid("tile_order", "tile_order must contain unique tile IDs");
    const missing = order.filter((id) => !store.dashboards.tile(dashboard.id, id) || store.dashboards.tile(dashboard.id, id)!.deleted);
    if (missing.length) throw fail.notFound(`Tile IDs not found on this dashboard: [${missing.sort((a, b) => a - b).join(", ")}]`);
    await store.dashboards.reorderTiles(dashboard, order);
    return reply(200, await toDashboardJson(args, dashboard));
  },
} satisfies Record<string, Handler>;

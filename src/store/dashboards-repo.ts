import { randomShortId } from "../util/ids.ts";
import { activityEntry } from "./activity-entry.ts";
import { byLayout, gridLayout } from "./tile-layout.ts";
import type { StoreCore } from "./core.ts";
import type { ActivityChange, ActivityRecord, DashboardRecord, DashboardTileRecord, InsightRecord, MetaData, Properties } from "./schema.ts";

/** Fields a client may write on a dashboard (the real service's DashboardSerializer, less what we do not model). */
export const DASHBOARD_WRITABLE = ["name", "description", "pinned", "tags", "filters", "deleted"] as const;
export type DashboardInput = Partial<Pick<DashboardRecord, (typeof DASHBOARD_WRITABLE)[number]>>;

/** A write to one tile of the dashboard: taken off (`deleted`), put back, recoloured or laid out. */
export interface TileInput {
  id: number;
  deleted?: boolean;
  color?: string | null;
  layouts?: Properties;
}

/** Where a new dashboard's tiles come from: another dashboard's shown tiles, its insights shared or copied. */
export interface DashboardSource {
  dashboard: DashboardRecord;
  copyInsights: boolean;
}

/** A tile shows while neither taken off its dashboard nor its insight soft-deleted. */
function refreshShown(tile: DashboardTileRecord, meta: MetaData) {
  tile.deleted = tile.removed || meta.insights.find((i) => i.id === tile.insight_id)?.deleted !== false;
}

const dashboardItem = (d: DashboardRecord) => ({ scope: "Dashboard" as const, project_id: d.project_id, id: d.id, name: d.name, short_id: null });
const insightItem = (i: InsightRecord) => ({ scope: "Insight" as const, project_id: i.project_id, id: i.id, name: i.name ?? i.derived_name, short_id: i.short_id });

/** Each changed field's before and after. */
function changesOf(before: Record<string, unknown>, input: Record<string, unknown>): ActivityChange[] {
  return Object.keys(input)
    .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(input[field]))
    .map((field) => ({ type: "Dashboard", action: "changed", field, before: before[field], after: input[field] }));
}

export function createDashboardsRepo(core: StoreCore) {
  const { meta, nowIso, dbs } = core;

  const newTile = (dashboardId: number, insightId: number, from?: Pick<DashboardTileRecord, "color" | "layouts">): DashboardTileRecord => ({
    id: ++meta().counters.dashboard_tile,
    dashboard_id: dashboardId,
    insight_id: insightId,
    deleted: false,
    removed: false,
    color: from?.color ?? null,
    layouts: structuredClone(from?.layouts ?? {}),
  });

  /** A copy of an insight for a duplicated dashboard: new id and short id, " (Copy)" added to its name. */
  function copyOfInsight(insight: InsightRecord, userId: number, now: string): InsightRecord {
    return {
      ...structuredClone(insight),
      id: ++meta().counters.insight,
      short_id: randomShortId(),
      name: insight.name ? `${insight.name} (Copy)` : null,
      is_sample: false,
      created_by: userId,
      created_at: now,
      updated_at: now,
      last_modified_at: now,
      last_modified_by: userId,
    };
  }

  /** Puts the source's shown tiles on `dashboard`; returns the insights copied for it. */
  function placeSourceTiles(dashboard: DashboardRecord, source: DashboardSource, userId: number, now: string): InsightRecord[] {
    const copies: InsightRecord[] = [];
    for (const tile of repo.tilesOn(source.dashboard.id).filter((t) => !t.deleted)) {
      const insight = meta().insights.find((i) => i.id === tile.insight_id)!;
      const placed = source.copyInsights ? copyOfInsight(insight, userId, now) : insight;
      if (source.copyInsights) copies.push(placed);
      meta().dashboard_tiles.push(newTile(dashboard.id, placed.id, tile));
    }
    meta().insights.push(...copies);
    return copies;
  }

  /** Soft delete takes every tile off (and, asked, soft-deletes insights shown nowhere else); restore puts them all back. */
  function applyDeleted(dashboard: DashboardRecord, deleted: boolean, deleteInsights: boolean) {
    const tiles = repo.tilesOn(dashboard.id);
    if (deleted && deleteInsights) {
      for (const tile of tiles.filter((t) => !t.deleted)) {
        const elsewhere = repo.tilesOf(tile.insight_id).some((t) => t.dashboard_id !== dashboard.id && !t.deleted);
        const insight = meta().insights.find((i) => i.id === tile.insight_id);
        if (insight && !elsewhere) insight.deleted = true;
      }
    }
    for (const tile of tiles) {
      tile.removed = deleted;
      if (!deleted) {
        const insight = meta().insights.find((i) => i.id === tile.insight_id);
        if (insight) insight.deleted = false;
      }
    }
    const touched = new Set(tiles.map((t) => t.insight_id));
    for (const tile of meta().dashboard_tiles) if (touched.has(tile.insight_id)) refreshShown(tile, meta());
  }

  function applyTiles(dashboard: DashboardRecord, inputs: readonly TileInput[]) {
    for (const input of inputs) {
      const tile = repo.tile(dashboard.id, input.id)!;
      if (input.deleted !== undefined) tile.removed = input.deleted;
      if (input.color !== undefined) tile.color = input.color;
      if (input.layouts !== undefined) tile.layouts = input.layouts;
      refreshShown(tile, meta());
    }
  }

  async function save(entries: ActivityRecord[]) {
    await Promise.all([dbs.meta.write(), core.logActivity(entries)]);
  }

  const repo = {
    get: (projectId: string, id: number, opts: { includeDeleted?: boolean } = {}) =>
      meta().dashboards.find((d) => d.id === id && d.project_id === projectId && (opts.includeDeleted || !d.deleted)),
    /** The project's dashboards that are not deleted, in stored order. */
    list: (projectId: string) => meta().dashboards.filter((d) => d.project_id === projectId && !d.deleted),
    tilesOf: (insightId: number): DashboardTileRecord[] => meta().dashboard_tiles.filter((t) => t.insight_id === insightId),
    /** Every tile placed on a dashboard, removed ones included, in placing order. */
    tilesOn: (dashboardId: number): DashboardTileRecord[] => meta().dashboard_tiles.filter((t) => t.dashboard_id === dashboardId),
    /** The tiles a dashboard shows, in layout order (top to bottom, left to right), as the real service orders them. */
    shownTiles: (dashboardId: number): DashboardTileRecord[] => repo.tilesOn(dashboardId).filter((t) => !t.deleted).sort(byLayout),
    tile: (dashboardId: number, tileId: number) => meta().dashboard_tiles.find((t) => t.id === tileId && t.dashboard_id === dashboardId),
    /** The insight's tile on a dashboard, removed or not (there is at most one). */
    tileFor: (dashboardId: number, insightId: number) => meta().dashboard_tiles.find((t) => t.dashboard_id === dashboardId && t.insight_id === insightId),

    async create(projectId: string, input: DashboardInput, userId: number, source?: DashboardSource): Promise<DashboardRecord> {
      const now = nowIso();
      const dashboard: DashboardRecord = {
        id: ++meta().counters.dashboard,
        project_id: projectId,
        name: input.name ?? "",
        description: input.description ?? "",
        pinned: input.pinned ?? false,
        tags: input.tags ?? [],
        filters: input.filters && Object.keys(input.filters).length ? input.filters : structuredClone(source?.dashboard.filters ?? {}),
        deleted: input.deleted ?? false,
        creation_mode: source ? "duplicate" : "default",
        created_at: now,
        created_by: userId,
        last_accessed_at: null,
      };
      meta().dashboards.push(dashboard);
      const copies = source ? placeSourceTiles(dashboard, source, userId, now) : [];
      if (dashboard.deleted) applyDeleted(dashboard, true, false);
      await save([activityEntry(dashboardItem(dashboard), "created", userId, null, now), ...copies.map((i) => activityEntry(insightItem(i), "created", userId, null, now))]);
      return dashboard;
    },

    /** Applies writable fields and tile writes to a dashboard the caller found and checked; logs what changed. */
    async update(dashboard: DashboardRecord, input: DashboardInput, tiles: readonly TileInput[], userId: number, opts: { deleteInsights?: boolean } = {}) {
      const changes = changesOf(dashboard as unknown as Record<string, unknown>, input);
      if (input.deleted !== undefined && input.deleted !== dashboard.deleted) applyDeleted(dashboard, input.deleted, opts.deleteInsights ?? false);
      Object.assign(dashboard, input);
      applyTiles(dashboard, tiles);
      const kind = changes.some((c) => c.field === "deleted") ? (dashboard.deleted ? "deleted" : "restored") : "updated";
      const entries = changes.length || tiles.length ? [activityEntry(dashboardItem(dashboard), kind, userId, changes, nowIso())] : [];
      await save(entries);
      return dashboard;
    },

    /** A retrieve stamps `last_accessed_at`, as the real service's does. */
    async accessed(dashboard: DashboardRecord) {
      dashboard.last_accessed_at = nowIso();
      await dbs.meta.write();
    },

    /** Moves a tile to another dashboard, keeping its id; a removed tile of the same insight there gives way. */
    async moveTile(tile: DashboardTileRecord, to: DashboardRecord) {
      const stale = repo.tileFor(to.id, tile.insight_id);
      if (stale) meta().dashboard_tiles = meta().dashboard_tiles.filter((t) => t !== stale);
      tile.dashboard_id = to.id;
      await dbs.meta.write();
    },

    /** Places a tile's insight on another dashboard with its color and layouts; a removed tile there is put back. */
    async copyTile(tile: DashboardTileRecord, to: DashboardRecord) {
      const existing = repo.tileFor(to.id, tile.insight_id);
      if (existing) Object.assign(existing, { removed: false, color: tile.color, layouts: structuredClone(tile.layouts) });
      else meta().dashboard_tiles.push(newTile(to.id, tile.insight_id, tile));
      refreshShown(existing ?? meta().dashboard_tiles.at(-1)!, meta());
      await dbs.meta.write();
    },

    /** Lays the tiles out in the given order on the two-column grid. */
    async reorderTiles(dashboard: DashboardRecord, tileIds: readonly number[]) {
      tileIds.forEach((id, index) => {
        repo.tile(dashboard.id, id)!.layouts = gridLayout(index);
      });
      await dbs.meta.write();
    },
  };
  return repo;
}

export type DashboardsRepo = ReturnType<typeof createDashboardsRepo>;

/** A dashboard of a store file written while dashboards were read only gains its fields, dated by its earliest insight. */
export function upgradeDashboard(dashboard: DashboardRecord, meta: MetaData): void {
  if (dashboard.created_at !== undefined) return;
  const insightIds = new Set(meta.dashboard_tiles.filter((t) => t.dashboard_id === dashboard.id).map((t) => t.insight_id));
  const first = meta.insights.filter((i) => insightIds.has(i.id)).sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
  Object.assign(dashboard, {
    description: "",
    pinned: false,
    tags: [],
    creation_mode: "default",
    created_at: first?.created_at ?? new Date(0).toISOString(),
    created_by: first?.created_by ?? null,
    last_accessed_at: null,
  } satisfies Omit<DashboardRecord, "id" | "project_id" | "name" | "filters" | "deleted">);
}

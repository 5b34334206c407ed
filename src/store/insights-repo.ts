import { randomShortId } from "../util/ids.ts";
import { activityEntry } from "./activity-entry.ts";
import type { StoreCore } from "./core.ts";
import { createDashboardsRepo } from "./dashboards-repo.ts";
import type { ActivityChange, ActivityRecord, InsightRecord } from "./schema.ts";

/** Fields a client may write on an insight (spec: "Writable fields are exactly those accepted as request parameters"). */
export const INSIGHT_WRITABLE = ["name", "derived_name", "filters", "query", "order", "deleted", "dashboards", "description", "tags", "favorited", "saved"] as const;
export type InsightWritableField = (typeof INSIGHT_WRITABLE)[number];
export type InsightInput = Partial<Pick<InsightRecord, Exclude<InsightWritableField, "dashboards">> & { dashboards: number[] }>;

/** Changes to these mark the insight as modified by the user (reference: analytics §9.1). */
const MATERIAL_FIELDS: ReadonlySet<InsightWritableField> = new Set(["name", "derived_name", "description", "filters", "query", "tags", "dashboards"]);
/** Views kept per user and project: my_last_viewed needs 5; the rest would only grow the store. */
const VIEWS_KEPT_PER_USER = 50;

export function createInsightsRepo(core: StoreCore) {
  const { meta, nowIso, dbs } = core;
  const dashboards = createDashboardsRepo(core);

  const dashboardIdsOf = (insightId: number) =>
    dashboards
      .tilesOf(insightId)
      .filter((t) => !t.deleted)
      .map((t) => t.dashboard_id);

  /** Tiles follow the insight: deleted while it is, or while removed from their dashboard; one per wanted dashboard. */
  function syncTiles(insight: InsightRecord, wanted: number[] | undefined) {
    const tiles = meta().dashboard_tiles;
    for (const tile of tiles) {
      if (tile.insight_id !== insight.id) continue;
      if (wanted !== undefined) tile.removed = !wanted.includes(tile.dashboard_id);
      tile.deleted = insight.deleted || tile.removed;
    }
    for (const dashboardId of wanted ?? []) {
      if (tiles.some((t) => t.insight_id === insight.id && t.dashboard_id === dashboardId)) continue;
      const id = ++meta().counters.dashboard_tile;
      tiles.push({ id, dashboard_id: dashboardId, insight_id: insight.id, deleted: insight.deleted, removed: false, color: null, layouts: {} });
    }
  }

  const activity = (insight: InsightRecord, kind: string, userId: number | null, changes: ActivityChange[] | null): ActivityRecord =>
    activityEntry({ scope: "Insight", project_id: insight.project_id, id: insight.id, name: insight.name ?? insight.derived_name, short_id: insight.short_id }, kind, userId, changes, nowIso());

  /** The one place views are recorded: each user keeps their latest view of an insight, the newest last. */
  function recordView(projectId: string, userId: number, insightIds: readonly number[]) {
    const mine = (v: { project_id: string; user_id: number }) => v.project_id === projectId && v.user_id === userId;
    const seen = new Set(insightIds);
    const views = meta().insight_views.filter((v) => !(mine(v) && seen.has(v.insight_id)));
    const viewedAt = nowIso();
    for (const insightId of seen) views.push({ project_id: projectId, user_id: userId, insight_id: insightId, viewed_at: viewedAt });
    const excess = views.filter(mine).length - VIEWS_KEPT_PER_USER;
    const drop = new Set(excess > 0 ? views.filter(mine).slice(0, excess) : []);
    meta().insight_views = views.filter((v) => !drop.has(v));
  }

  const repo = {
    /** Non-deleted insights of a project (deleted ones only when asked). */
    list: (projectId: string, opts: { includeDeleted?: boolean } = {}): InsightRecord[] =>
      meta().insights.filter((i) => i.project_id === projectId && (opts.includeDeleted || !i.deleted)),
    get: (projectId: string, id: number, opts: { includeDeleted?: boolean } = {}): InsightRecord | undefined =>
      meta().insights.find((i) => i.id === id && i.project_id === projectId && (opts.includeDeleted || !i.deleted)),
    dashboardIdsOf,
    /** By short id (as the real service's clients address insights in paths). */
    getByShortId: (projectId: string, shortId: string, opts: { includeDeleted?: boolean } = {}): InsightRecord | undefined =>
      meta().insights.find((i) => i.short_id === shortId && i.project_id === projectId && (opts.includeDeleted || !i.deleted)),
    /** The project's recorded views (one per user and insight: its latest), oldest first. */
    views: (projectId: string) => meta().insight_views.filter((v) => v.project_id === projectId),

    async create(projectId: string, input: InsightInput, userId: number): Promise<InsightRecord> {
      const now = nowIso();
      const insight: InsightRecord = {
        id: ++meta().counters.insight,
        project_id: projectId,
        short_id: randomShortId(),
        name: input.name ?? null,
        derived_name: input.derived_name ?? null,
        description: input.description ?? "",
        filters: input.filters ?? {},
        query: input.query ?? null,
        order: input.order ?? null,
        deleted: input.deleted ?? false,
        tags: input.tags ?? [],
        favorited: input.favorited ?? false,
        saved: input.saved ?? false,
        is_sample: false,
        created_by: userId,
        created_at: now,
        updated_at: now,
        last_modified_at: now,
        last_modified_by: userId,
      };
      meta().insights.push(insight);
      syncTiles(insight, input.dashboards ?? []);
      recordView(projectId, userId, [insight.id]);
      await Promise.all([dbs.meta.write(), core.logActivity([activity(insight, "created", userId, null)])]);
      return insight;
    },

    /** Applies writable fields to an insight the caller found; logs each changed field's before/after. */
    async update(insight: InsightRecord, input: InsightInput, userId: number): Promise<InsightRecord> {
      const before: Record<string, unknown> = { ...insight, dashboards: dashboardIdsOf(insight.id) };
      const changes: ActivityChange[] = [];
      for (const field of INSIGHT_WRITABLE) {
        if (!(field in input)) continue;
        const after = (input as Record<string, unknown>)[field];
        if (JSON.stringify(before[field]) === JSON.stringify(after)) continue;
        changes.push({ type: "Insight", action: "changed", field, before: before[field], after });
        if (field !== "dashboards") (insight as unknown as Record<string, unknown>)[field] = after;
      }
      const now = nowIso();
      insight.updated_at = now;
      if (changes.length) insight.is_sample = false;
      if (changes.some((c) => MATERIAL_FIELDS.has(c.field as InsightWritableField))) {
        insight.last_modified_at = now;
        insight.last_modified_by = userId;
      }
      syncTiles(insight, input.dashboards);
      const kind = input.deleted !== undefined && input.deleted !== before.deleted ? (input.deleted ? "deleted" : "restored") : "updated";
      await Promise.all([dbs.meta.write(), core.logActivity(changes.length ? [activity(insight, kind, userId, changes)] : [])]);
      return insight;
    },

    /** Records the caller's view of each insight now (ids given in the order seen). */
    async recordViews(projectId: string, userId: number, insightIds: readonly number[]): Promise<void> {
      if (!insightIds.length) return;
      recordView(projectId, userId, insightIds);
      await dbs.meta.write();
    },

    /** The caller's most recently viewed, non-deleted insights, newest first (views are kept in viewing order). */
    lastViewed(projectId: string, userId: number, limit: number): InsightRecord[] {
      return meta()
        .insight_views.filter((v) => v.project_id === projectId && v.user_id === userId)
        .reverse()
        .map((v) => repo.get(projectId, v.insight_id))
        .filter((i): i is InsightRecord => i !== undefined)
        .slice(0, limit);
    },
  };
  return { insights: repo, dashboards };
}

import { fail } from "../core/errors.ts";
import { writableFields } from "../http/writable-fields.ts";
import type { Page } from "../http/pagination.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { parseCallerJson } from "../http/json-depth.ts";
import type { InsightRecord, ProjectRecord } from "../store/schema.ts";
import { INSIGHT_WRITABLE, type InsightInput, type Store } from "../store/store.ts";
import { activityPage } from "./activity-json.ts";
import { filterOverrides, toInsightBasicJson, toInsightJson } from "./insight-json.ts";
import { isSqlInsight, sqlInsightResult } from "../services/query/sql-insight.ts";
import { personName } from "./person-json.ts";
import { insightListMatcher, type ListFilterContext } from "./insight-list-filters.ts";
import { trendingInsights } from "./insight-trending.ts";
import { requireValidDefinition } from "./insight-validation.ts";
import { computesMissing, refreshRequested } from "./refresh-mode.ts";
import { listPage } from "./list-page.ts";

const LAST_VIEWED_LIMIT = 5;

type Q = Record<string, unknown>;
const queryOf = (args: HandlerArgs) => args.c.request.query as Q;

/** Dashboards named in a write must be dashboards of this project. */
function requireDashboards(input: InsightInput, project: ProjectRecord, store: Store) {
  (input.dashboards ?? []).forEach((id, i) => {
    if (!store.dashboards.get(project.id, id)) throw fail.invalid(`dashboards__${i}`, `Dashboard ${id} does not exist in this project.`);
  });
}

/** The insight of the path: its integer id, else its short id (as the real service's clients send it); else 404. */
export function findInsight(args: HandlerArgs, opts: { includeDeleted?: boolean } = {}): InsightRecord {
  const id = String((args.c.request.params as Q).id);
  const { insights } = args.deps.store;
  const insight = /^\d{1,15}$/.test(id) ? insights.get(args.project.id, Number(id), opts) : insights.getByShortId(args.project.id, id, opts);
  if (!insight) throw fail.notFound();
  return insight;
}

/** The caller's latest view of each insight of the project. */
function callerViews(args: HandlerArgs): Map<number, string> {
  const views = args.deps.store.insights.views(args.project.id).filter((v) => v.user_id === args.caller.user.id);
  return new Map(views.map((v) => [v.insight_id, v.viewed_at]));
}

const lastViewedBy = (args: HandlerArgs) => (id: number) => callerViews(args).get(id) ?? null;

function listFilterContext(args: HandlerArgs): ListFilterContext {
  const viewed = callerViews(args);
  return {
    callerId: args.caller.user.id,
    now: args.deps.clock.now(),
    timezone: args.project.timezone,
    lastViewedAt: (id) => viewed.get(id),
    dashboardIdsOf: (id) => args.deps.store.insights.dashboardIdsOf(id),
  };
}

/** `filters_override`: a JSON object whose top-level keys replace the insight's filters for this request. */
function filtersOverride(q: Q): Record<string, unknown> | undefined {
  if (q.filters_override === undefined) return undefined;
  let value: unknown;
  try {
    value = parseCallerJson(String(q.filters_override), "filters_override");
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw fail.invalid("filters_override", "filters_override must be a JSON object.");
  return value as Record<string, unknown>;
}

/** List order: `order` ascending with nulls last, then most recently modified, then newest id. */
function byListOrder(a: InsightRecord, b: InsightRecord): number {
  if (a.order !== b.order) return a.order === null ? 1 : b.order === null ? -1 : a.order - b.order;
  return b.last_modified_at.localeCompare(a.last_modified_at) || b.id - a.id;
}

/**
 * What a read of insights follows from: the state, the analysis cache (results shown), the URL (links, filters)
 * and the caller (their views: `last_viewed_at`, `user`).
 */
/**
 * A list page answered as the real list answers a computing `refresh` mode (its full serializer computes each
 * insight): each insight as `GET /insights/{id}/` with that refresh answers it. A SQL insight's bad HogQL stays a
 * null result here, as lists never refuse.
 */
async function computedListPage(args: HandlerArgs, page: Page<InsightRecord>, refresh: boolean, lastViewedAt: (id: number) => string | null) {
  const results = [];
  for (const insight of page.results) {
    if (isSqlInsight(insight)) {
      const sql = await sqlInsightResult({ ...args.deps, personName }, args.project, insight, refresh);
      results.push(toInsightJson(insight, args.project, args.deps, { sql, lastViewedAt }));
      continue;
    }
    await args.deps.analyses.prepareInsight(args.project, insight, { refresh });
    results.push(toInsightJson(insight, args.project, args.deps, { refresh, lastViewedAt }));
  }
  return { ...page, results };
}

const readKey = (args: HandlerArgs) => `${args.deps.store.revision()}:${args.deps.analyses.revision()}:${args.caller.user.id}:${args.href}`;

export const insightHandlers = {
  insights_list: async (args) => {
    const q = queryOf(args);
    const ctx = listFilterContext(args);
    const pageOf = () => {
      const matches = args.deps.store.insights.list(args.project.id).filter(insightListMatcher(q, ctx)).sort(byListOrder);
      return listPage(args, matches);
    };
    const lastViewedAt = (id: number) => ctx.lastViewedAt(id) ?? null;
    if (computesMissing(q.refresh)) return reply(200, await computedListPage(args, pageOf(), refreshRequested(q.refresh), lastViewedAt));
    const build = () => {
      const page = pageOf();
      return { ...page, results: page.results.map((i) => toInsightJson(i, args.project, args.deps, { compute: false, lastViewedAt })) };
    };
    return reply(200, q.format === "csv" ? build() : args.deps.bodies(readKey(args), build));
  },

  insights_create: async (args) => {
    const input = writableFields<InsightInput>(args.c.request.requestBody, INSIGHT_WRITABLE);
    requireDashboards(input, args.project, args.deps.store);
    await requireValidDefinition(input, args);
    const insight = await args.deps.store.insights.create(args.project.id, input, args.caller.user.id);
    return reply(201, toInsightJson(insight, args.project, args.deps, { compute: false, lastViewedAt: lastViewedBy(args) }));
  },

  insights_retrieve: async (args) => {
    const q = queryOf(args);
    const insight = findInsight(args);
    if (isSqlInsight(insight)) {
      const sql = await sqlInsightResult({ ...args.deps, personName }, args.project, insight, refreshRequested(q.refresh), "raise");
      return reply(200, toInsightJson(insight, args.project, args.deps, { sql, lastViewedAt: lastViewedBy(args) }));
    }
    const tile =
      q.from_dashboard === undefined
        ? undefined
        : args.deps.store.dashboards.tilesOf(insight.id).find((t) => t.dashboard_id === q.from_dashboard && !t.deleted);
    const override = filtersOverride(q);
    const overrides = filterOverrides(args.deps.store, args.project, { tile, override });
    const refresh = refreshRequested(q.refresh);
    await args.deps.analyses.prepareInsight(args.project, insight, { refresh, overrides });
    const build = () => toInsightJson(insight, args.project, args.deps, { refresh, tile, override, lastViewedAt: lastViewedBy(args) });
    const notes = args.deps.analyses.insightRangeNotes(args.project, insight, overrides);
    // refresh=true may recompute: never answered from a serialized body.
    if (refresh) return { ...reply(200, build()), notes };
    return { ...reply(200, args.deps.bodies(readKey(args), build)), repeatable: true, notes };
  },

  /** PATCH: writable fields only; `deleted: false` is the one request that reaches a soft-deleted insight (it restores it). */
  insights_partial_update: async (args) => {
    const input = writableFields<InsightInput>(args.c.request.requestBody, INSIGHT_WRITABLE);
    const insight = findInsight(args, { includeDeleted: true });
    if (insight.deleted && input.deleted !== false) throw fail.notFound();
    requireDashboards(input, args.project, args.deps.store);
    // The definition is computed once: to check it, and kept for the answer below.
    await requireValidDefinition(input, args, "keep");
    const updated = await args.deps.store.insights.update(insight, input, args.caller.user.id);
    // A PATCH that left the definition alone computes it here, if it is not cached yet, off the event loop.
    await args.deps.analyses.prepareInsight(args.project, updated, { refresh: false });
    return reply(200, toInsightJson(updated, args.project, args.deps, { lastViewedAt: lastViewedBy(args) }));
  },

  /** Hard deletes are refused with a bodiless 405 (spec: States; use PATCH deleted=true). */
  insights_destroy: (args) => {
    findInsight(args);
    return reply(405);
  },

  insights_activity_retrieve: (args) => {
    const insight = findInsight(args);
    const q = queryOf(args);
    const entries = args.deps.store.activity.list(args.project.id, "Insight", String(insight.id));
    return reply(200, activityPage(entries, args.deps.store, args.url, Number(q.limit ?? 10), Number(q.page ?? 1)));
  },

  insights_all_activity_retrieve: (args) => {
    const q = queryOf(args);
    const entries = args.deps.store.activity.list(args.project.id, "Insight");
    return reply(200, activityPage(entries, args.deps.store, args.url, Number(q.limit ?? 10), Number(q.page ?? 1)));
  },

  insights_viewed_create: async (args) => {
    const insight = findInsight(args);
    await args.deps.store.insights.recordViews(args.project.id, args.caller.user.id, [insight.id]);
    await args.deps.analyses.prepareInsight(args.project, insight, { refresh: false });
    return reply(200, toInsightJson(insight, args.project, args.deps, { lastViewedAt: lastViewedBy(args) }));
  },

  insights_my_last_viewed_retrieve: (args) => {
    const viewed = args.deps.store.insights.lastViewed(args.project.id, args.caller.user.id, LAST_VIEWED_LIMIT);
    return reply(200, viewed.map((i) => toInsightBasicJson(i, args.deps.store)));
  },

  insights_trending_retrieve: (args) => {
    const q = queryOf(args);
    const window = { days: Number(q.days ?? 7), limit: Number(q.limit ?? 10), offset: Number(q.offset ?? 0) };
    return reply(200, { results: trendingInsights(args.project.id, args.deps.store, args.deps.clock.now(), window) });
  },

  /** Nothing runs long enough to cancel: the query id is acknowledged. */
  insights_cancel_create: (args) => {
    const body = args.c.request.requestBody as { client_query_id: string };
    return reply(200, { success: true, client_query_id: body.client_query_id });
  },
} satisfies Record<string, Handler>;

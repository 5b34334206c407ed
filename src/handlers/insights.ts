import { fail } from "../http/errors.ts";
import { paginate } from "../http/pagination.ts";
import { reply, type Handler, type HandlerArgs } from "../http/types.ts";
import { definitionOf } from "../services/analysis-service.ts";
import type { InsightRecord, ProjectRecord } from "../store/schema.ts";
import { INSIGHT_WRITABLE, type InsightInput, type Store } from "../store/store.ts";
import { activityPage } from "./activity-json.ts";
import { toInsightBasicJson, toInsightJson } from "./insight-json.ts";
import { requireValidDefinition } from "./insight-validation.ts";

const LAST_VIEWED_LIMIT = 5;

type Q = Record<string, unknown>;
const queryOf = (args: HandlerArgs) => args.c.request.query as Q;
const idOf = (args: HandlerArgs) => Number((args.c.request.params as Q).id);

/** Only the writable fields of a body; read-only fields sent along are ignored, as the real service does. */
function writableFields(body: unknown): InsightInput {
  const source = (body ?? {}) as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  for (const field of INSIGHT_WRITABLE) if (Object.hasOwn(source, field)) input[field] = source[field];
  return input as InsightInput;
}

/** Dashboards named in a write must be dashboards of this project. */
function requireDashboards(input: InsightInput, project: ProjectRecord, store: Store) {
  (input.dashboards ?? []).forEach((id, i) => {
    if (!store.dashboards.get(project.id, id)) throw fail.invalid(`dashboards__${i}`, `Dashboard ${id} does not exist in this project.`);
  });
}

function findInsight(args: HandlerArgs, opts: { includeDeleted?: boolean } = {}): InsightRecord {
  const insight = args.deps.store.insights.get(args.project.id, idOf(args), opts);
  if (!insight) throw fail.notFound();
  return insight;
}

function matchesListFilters(insight: InsightRecord, q: Q): boolean {
  if (q.created_by !== undefined && insight.created_by !== q.created_by) return false;
  if (q.short_id !== undefined && insight.short_id !== q.short_id) return false;
  if (q.saved !== undefined && insight.saved !== q.saved) return false;
  if (q.favorited !== undefined && insight.favorited !== q.favorited) return false;
  if (typeof q.search === "string") {
    const term = q.search.toLowerCase();
    const text = [insight.name, insight.derived_name, insight.description].join(" ").toLowerCase();
    if (!text.includes(term)) return false;
  }
  if (q.insight !== undefined) {
    try {
      if (definitionOf(insight).kind !== q.insight) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** List order: `order` ascending with nulls last, then most recently modified, then newest id. */
function byListOrder(a: InsightRecord, b: InsightRecord): number {
  if (a.order !== b.order) return a.order === null ? 1 : b.order === null ? -1 : a.order - b.order;
  return b.last_modified_at.localeCompare(a.last_modified_at) || b.id - a.id;
}

/** What a read of insights follows from: the state, the analysis cache (results shown) and the URL (links, filters). */
const readKey = (args: HandlerArgs) => `${args.deps.store.revision()}:${args.deps.analyses.revision()}:${args.url.href}`;

export const insightHandlers = {
  insights_list: (args) => {
    const q = queryOf(args);
    const build = () => {
      const matches = args.deps.store.insights.list(args.project.id).filter((i) => matchesListFilters(i, q)).sort(byListOrder);
      const page = paginate(matches, args.url, Number(q.limit ?? 100), Number(q.offset ?? 0));
      return { ...page, results: page.results.map((i) => toInsightJson(i, args.project, args.deps, { compute: false })) };
    };
    return reply(200, q.format === "csv" ? build() : args.deps.bodies(readKey(args), build));
  },

  insights_create: async (args) => {
    const input = writableFields(args.c.request.requestBody);
    requireDashboards(input, args.project, args.deps.store);
    requireValidDefinition(input, args);
    const insight = await args.deps.store.insights.create(args.project.id, input, args.caller.user.id);
    return reply(201, toInsightJson(insight, args.project, args.deps, { compute: false }));
  },

  insights_retrieve: (args) => {
    const q = queryOf(args);
    const insight = findInsight(args);
    const tile =
      q.from_dashboard === undefined
        ? undefined
        : args.deps.store.dashboards.tilesOf(insight.id).find((t) => t.dashboard_id === q.from_dashboard && !t.deleted);
    const build = () => toInsightJson(insight, args.project, args.deps, { refresh: q.refresh === true, tile });
    // refresh=true may recompute: never answered from a serialized body.
    return reply(200, q.refresh === true ? build() : args.deps.bodies(readKey(args), build));
  },

  /** PATCH: writable fields only; `deleted: false` is the one request that reaches a soft-deleted insight (it restores it). */
  insights_partial_update: async (args) => {
    const input = writableFields(args.c.request.requestBody);
    const insight = findInsight(args, { includeDeleted: true });
    if (insight.deleted && input.deleted !== false) throw fail.notFound();
    requireDashboards(input, args.project, args.deps.store);
    requireValidDefinition(input, args);
    const updated = await args.deps.store.insights.update(insight, input, args.caller.user.id);
    return reply(200, toInsightJson(updated, args.project, args.deps));
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
    await args.deps.store.insights.recordView(args.project.id, args.caller.user.id, insight.id);
    return reply(200, toInsightJson(insight, args.project, args.deps));
  },

  insights_my_last_viewed_retrieve: (args) => {
    const viewed = args.deps.store.insights.lastViewed(args.project.id, args.caller.user.id, LAST_VIEWED_LIMIT);
    return reply(200, viewed.map((i) => toInsightBasicJson(i, args.deps.store)));
  },

  /** Nothing runs long enough to cancel: the query id is acknowledged. */
  insights_cancel_create: (args) => {
    const body = args.c.request.requestBody as { client_query_id: string };
    return reply(200, { success: true, client_query_id: body.client_query_id });
  },
} satisfies Record<string, Handler>;

import { decodeJsonish } from "../analyses/shared/filter-read.ts";
import { fail } from "../core/errors.ts";
import { decodeJsonParams } from "../http/query-json.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { rangeNotes, type AnalysisKind } from "../services/analysis-service.ts";
import { refreshRequested } from "./refresh-mode.ts";

/** Query parameters that steer the request, not the analysis. */
const CONTROL_PARAMS: ReadonlySet<string> = new Set(["refresh", "format"]);

export type Filter = Record<string, unknown>;

/**
 * The filter of a GET (decoded query, without `skip`) or a POST (body), checked against the body schema so a bad
 * GET field gets the same 400 as a bad body field.
 */
export function filterOf(args: HandlerArgs, schema: string, skip: ReadonlySet<string> = CONTROL_PARAMS): Filter {
  const isGet = args.c.request.method.toLowerCase() === "get";
  if (!isGet) return (args.c.request.requestBody ?? {}) as Filter;
  const filter = decodeJsonParams(args.c.request.query as Record<string, unknown>, skip);
  args.deps.schemas.assert(schema, filter);
  return filter;
}

export function requireSeries(filter: Filter) {
  const count = (k: string) => {
    const list = decodeJsonish(filter[k], k);
    return Array.isArray(list) ? list.length : 0;
  };
  if (count("events") + count("actions") === 0) throw fail.invalid("events", "One of events or actions is required.");
}

/** `insight` wins; the legacy `shown_as` switches to stickiness or lifecycle; anything else is a trend (reference §2.1). */
export function trendKind(filter: Filter): "TRENDS" | "STICKINESS" | "LIFECYCLE" {
  const insight = typeof filter.insight === "string" ? filter.insight.toUpperCase() : undefined;
  if (insight === "STICKINESS" || insight === "LIFECYCLE") return insight;
  if (insight === undefined && (filter.shown_as === "Stickiness" || filter.shown_as === "Lifecycle")) return filter.shown_as.toUpperCase() as "STICKINESS" | "LIFECYCLE";
  return "TRENDS";
}

/**
 * The caching envelope of the legacy analysis endpoints (reference: analytics §1.5); `next` (breakdown paging)
 * exists on trends only, and is always null here.
 */
async function analysisReply(args: HandlerArgs, kind: AnalysisKind, filter: Filter) {
  const refresh = refreshRequested((args.c.request.query as Filter).refresh);
  const pkg = await args.deps.analyses.runAsync(args.project, kind, filter, { refresh });
  const isTrend = kind === "TRENDS" || kind === "STICKINESS" || kind === "LIFECYCLE";
  const notes = rangeNotes(kind, filter, args.project, args.deps.clock.now());
  return { ...reply(200, { ...pkg, timings: [], ...(isTrend ? { next: null } : {}) }), notes };
}

function trends(args: HandlerArgs) {
  const filter = filterOf(args, "TrendRequest");
  requireSeries(filter);
  return analysisReply(args, trendKind(filter), filter);
}

function funnels(args: HandlerArgs) {
  const filter = filterOf(args, "FunnelRequest");
  requireSeries(filter);
  return analysisReply(args, "FUNNELS", filter);
}

function correlation(args: HandlerArgs) {
  const filter = filterOf(args, "FunnelCorrelationRequest");
  requireSeries(filter);
  return analysisReply(args, "FUNNEL_CORRELATION", filter);
}

const retention = (args: HandlerArgs) => analysisReply(args, "RETENTION", filterOf(args, "RetentionRequest"));

const paths = (args: HandlerArgs) => analysisReply(args, "PATHS", filterOf(args, "PathRequest"));

export const insightAnalysisHandlers = {
  insights_trend_retrieve: trends,
  insights_trend_create: trends,
  insights_funnel_retrieve: funnels,
  insights_funnel_create: funnels,
  insights_funnel_correlation_retrieve: correlation,
  insights_funnel_correlation_create: correlation,
  insights_retention_retrieve: retention,
  insights_path_retrieve: paths,
  insights_path_create: paths,
  /** A telemetry sink (reference: analytics §9.1): accepted and acknowledged, nothing stored. */
  insights_timing_create: () => reply(200, { success: true }),
} satisfies Record<string, Handler>;

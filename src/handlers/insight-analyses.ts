import { fail } from "../http/errors.ts";
import { decodeJsonParams } from "../http/query-json.ts";
import { reply, type Handler, type HandlerArgs } from "../http/types.ts";

/** Query parameters that steer the request, not the analysis. */
const CONTROL_PARAMS = new Set(["refresh", "format"]);

type Filter = Record<string, unknown>;

/** The filter of a GET (decoded query) or a POST (body), checked against the body schema. */
function filterOf(args: HandlerArgs, schema: string): Filter {
  const isGet = args.c.request.method.toLowerCase() === "get";
  const query = args.c.request.query as Record<string, unknown>;
  if (!isGet) return (args.c.request.requestBody ?? {}) as Filter;
  const filter = decodeJsonParams(query, CONTROL_PARAMS);
  args.deps.schemas.assert(schema, filter);
  return filter;
}

function requireSeries(filter: Filter) {
  const count = (k: string) => (Array.isArray(filter[k]) ? (filter[k] as unknown[]).length : 0);
  if (count("events") + count("actions") === 0) throw fail.invalid("events", "One of events or actions is required.");
}

/** The caching envelope of the legacy analysis endpoints (reference: analytics §1.5). */
function analysisReply(args: HandlerArgs, kind: string, filter: Filter) {
  const refresh = (args.c.request.query as Filter).refresh === true;
  const pkg = args.deps.analyses.run(args.project, kind, filter, { refresh });
  return reply(200, { ...pkg, timings: [], next: null });
}

function trends(args: HandlerArgs) {
  const filter = filterOf(args, "TrendRequest");
  requireSeries(filter);
  const kind = String(filter.insight ?? filter.shown_as ?? "TRENDS").toUpperCase();
  return analysisReply(args, kind, filter);
}

function funnels(args: HandlerArgs) {
  const filter = filterOf(args, "FunnelRequest");
  requireSeries(filter);
  return analysisReply(args, "FUNNELS", filter);
}

export const insightAnalysisHandlers = {
  insights_trend_retrieve: trends,
  insights_trend_create: trends,
  insights_funnel_retrieve: funnels,
  insights_funnel_create: funnels,
  /** A telemetry sink (reference: analytics §9.1): accepted and acknowledged, nothing stored. */
  insights_timing_create: () => reply(200, { success: true }),
} satisfies Record<string, Handler>;

import { randomUUID } from "node:crypto";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import type { ProjectRecord } from "../../store/schema.ts";
import { cacheKey, computedResponse, insightRangeNotes, insightResponse, isInsightKind, queryNodeOf, sqlContext, type QueryDeps, type QueryRequest } from "./index.ts";
import { hogqlMetadata } from "./hogql-metadata.ts";
import { withFiltersOverride } from "./filters-override.ts";
import type { QueryStatus, QueryStatuses } from "./query-statuses.ts";
import { STALE_AFTER_MS, type ResultCache } from "./result-cache.ts";

/** The real service's execution modes, named by their `refresh` value (posthog/hogql_queries/query_runner.py). */
export const EXECUTION_MODES = ["blocking", "async", "lazy_async", "force_blocking", "force_async", "force_cache"] as const;
type ExecutionMode = Exclude<(typeof EXECUTION_MODES)[number], "force_cache">;

/**
 * `refresh` as the query endpoint reads it (posthog/api/query.py): `true` is force_blocking; anything else that
 * names no mode is force_cache, which this endpoint turns into blocking (compute when the cache is stale);
 * the legacy `async: true` is async whatever `refresh` says.
 */
export function executionModeOf(refresh: unknown, legacyAsync: unknown): ExecutionMode {
  if (legacyAsync === true) return "async";
  if (refresh === true || refresh === "true") return "force_blocking";
  const named = EXECUTION_MODES.find((mode) => mode === refresh);
  return named === undefined || named === "force_cache" ? "blocking" : named;
}

export interface QueryApiDeps extends QueryDeps {
  queries: { statuses: QueryStatuses; results: ResultCache };
}

/** An answer of `POST /query/`: 202 while its status says it still runs (the real service's rule). */
export interface QueryAnswer {
  status: 200 | 202;
  body: Loose;
  /** For the request log's entry (an inverted range answered empty); absent when nothing. */
  notes?: readonly string[];
}

const answered = (body: Loose): QueryAnswer => ({ status: (body.query_status as QueryStatus | null)?.complete === false ? 202 : 200, body });

/**
 * The query API (the real service's `POST /query/`) in every execution mode. Blocking modes answer the result
 * (from the cache when fresh enough, unless forced); async modes answer a fresh cached result, or else start
 * the query in the background and answer its status at once (`force_async` always starts it). Insight kinds
 * compute within the request, so their status is complete as it is answered.
 */
export async function answerQuery(deps: QueryApiDeps, project: ProjectRecord, body: QueryRequest): Promise<QueryAnswer> {
  // HogQLMetadata checks text as it is typed: answered at once, never cached nor run (posthog/api/services/query.py).
  if (body.query.kind === "HogQLMetadata") return { status: 200, body: { ...hogqlMetadata(body.query, "query", sqlContext(deps, project)) } };
  const { node: asked, attr, kind } = queryNodeOf(body.query);
  const override = body.filters_override ?? undefined;
  const node = withFiltersOverride(asked, override);
  const mode = executionModeOf(body.refresh, body.async);
  const id = body.client_query_id ?? randomUUID().replaceAll("-", "");
  const key = cacheKey(project, node, override);
  const pending = (status: QueryStatus) => answered(mode === "force_async" ? { query_status: status } : { cache_key: key, query_status: status });
  if (isInsightKind(kind)) {
    const response = await insightResponse(deps, project, node, attr, mode === "force_blocking" || mode === "force_async", override);
    const notes = insightRangeNotes(deps, project, node, attr, override);
    if (mode === "blocking" || mode === "force_blocking" || response.is_cached) return { ...answered(response), notes };
    return { ...pending(deps.queries.statuses.completed(project.id, id, response)), notes };
  }
  const revision = deps.store.revision();
  const now = deps.clock.now();
  const maxAge = mode === "lazy_async" ? STALE_AFTER_MS.lazy : STALE_AFTER_MS.default;
  const cached = mode.startsWith("force_") ? undefined : deps.queries.results.get(key, revision, now, maxAge);
  if (cached) return answered({ ...cached.response, is_cached: true });
  const compute = async (signal?: AbortSignal) => {
    const response = await computedResponse(deps, project, node, attr, signal, override);
    deps.queries.results.set(key, { response, revision, computedAt: now });
    return response;
  };
  if (mode === "blocking" || mode === "force_blocking") {
    return answered(await deps.queries.statuses.runBlocking(project.id, id, compute));
  }
  return pending(deps.queries.statuses.start(project.id, id, compute, mode === "force_async"));
}

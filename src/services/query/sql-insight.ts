import { isObject, type Loose } from "../../analyses/shared/filter-read.ts";
import { asClientError } from "../../core/errors.ts";
import type { InsightRecord, ProjectRecord } from "../../store/schema.ts";
import { answerQuery, type QueryApiDeps } from "./query-api.ts";
import { unwrap } from "./nodes.ts";

/** What a SQL insight shows besides its rows, as the real service's insight serializer adds it. */
export interface SqlInsightResult {
  result: unknown[][] | null;
  columns: string[] | null;
  types: unknown[] | null;
  hogql: string | null;
  hasMore: boolean | null;
  last_refresh: string | null;
  next_allowed_client_refresh: string | null;
  is_cached: boolean;
}

/** A SQL insight: its query is a HogQLQuery, bare or in a wrapper (the real service saves them in a DataVisualizationNode). */
export function isSqlInsight(insight: Pick<InsightRecord, "query">): boolean {
  if (!isObject(insight.query)) return false;
  try {
    return unwrap(insight.query as Loose).node.kind === "HogQLQuery";
  } catch {
    return false;
  }
}

const NONE: SqlInsightResult = { result: null, columns: null, types: null, hogql: null, hasMore: null, last_refresh: null, next_allowed_client_refresh: null, is_cached: false };

/**
 * A SQL insight's rows, run through the query API (its cache and engine). SQL that HogQL or the engine refuses
 * is, with `refused: "raise"`, the 400 the query API gives (the real insight endpoint raises the HogQL error as a
 * validation error, with or without refresh); with `"none"` (a dashboard's tiles) the insight shows no result.
 */
export async function sqlInsightResult(deps: QueryApiDeps, project: ProjectRecord, insight: InsightRecord, refresh: boolean, refused: "raise" | "none" = "none"): Promise<SqlInsightResult> {
  try {
    const { body: answer } = await answerQuery(deps, project, { query: insight.query as Loose, refresh: refresh ? "force_blocking" : "blocking" });
    return {
      result: answer.results as unknown[][],
      columns: answer.columns as string[],
      types: answer.types as unknown[],
      hogql: answer.hogql as string,
      hasMore: answer.hasMore as boolean,
      last_refresh: answer.last_refresh as string,
      next_allowed_client_refresh: answer.next_allowed_client_refresh as string,
      is_cached: answer.is_cached as boolean,
    };
  } catch (e) {
    if (refused === "none" && asClientError(e)) return NONE;
    throw e;
  }
}

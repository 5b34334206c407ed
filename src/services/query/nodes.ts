import { reject } from "../../core/analysis-errors.ts";
import { isObject, type Loose } from "../../analyses/shared/filter-read.ts";

/** The insight query kinds and the analysis each one is (reference: analytics §10): one table, with the legacy conversion. */
export { INSIGHT_OF_KIND as INSIGHT_KINDS } from "../../analyses/query-node.ts";
import { INSIGHT_OF_KIND as INSIGHT_KINDS } from "../../analyses/query-node.ts";

/** Every kind the query API answers, wrappers included. */
export const QUERY_KINDS = [
  "InsightVizNode", "DataVisualizationNode", "DataTableNode",
  ...Object.keys(INSIGHT_KINDS),
  "FunnelCorrelationQuery", "HogQLQuery", "EventsQuery", "ActorsQuery", "InsightActorsQuery", "StickinessActorsQuery",
] as const;

const WRAPPERS = new Set(["InsightVizNode", "DataVisualizationNode", "DataTableNode"]);

/**
 * The node to run and the attr prefix of its fields: a wrapper (InsightVizNode, DataVisualizationNode,
 * DataTableNode) runs its `source`, as the real service does.
 */
export function unwrap(query: Loose, attr = "query"): { node: Loose; attr: string } {
  if (!WRAPPERS.has(String(query.kind))) return { node: query, attr };
  if (!isObject(query.source)) throw reject.required(`${attr}__source`);
  return unwrap(query.source, `${attr}__source`);
}

/** Insight query kinds need at least one series (one step for funnels is refused by the funnel itself). */
export function requireSeries(node: Loose, attr: string): void {
  const needs = node.kind !== "RetentionQuery" && node.kind !== "PathsQuery";
  if (needs && (!Array.isArray(node.series) || node.series.length === 0)) throw reject.invalid(`${attr}__series`, "At least one series is required.");
}

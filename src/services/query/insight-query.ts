import { reject } from "../../core/analysis-errors.ts";
import { isObject, type Loose } from "../../analyses/shared/filter-read.ts";
import { queryNodeToFilter } from "../../analyses/query-node.ts";
import { INSIGHT_KINDS, requireSeries } from "./nodes.ts";

/** FunnelCorrelationQuery's own fields → the legacy correlation filter's (camelCase → snake_case). */
const CORRELATION_FIELDS: Readonly<Record<string, string>> = {
  funnelCorrelationType: "funnel_correlation_type",
  funnelCorrelationNames: "funnel_correlation_names",
  funnelCorrelationExcludeNames: "funnel_correlation_exclude_names",
  funnelCorrelationEventNames: "funnel_correlation_event_names",
  funnelCorrelationExcludeEventNames: "funnel_correlation_exclude_event_names",
  funnelCorrelationEventExcludePropertyNames: "funnel_correlation_event_exclude_property_names",
};

/** An insight query node as (analysis kind, legacy filter): the same filter the seed's endpoints compute. */
export function insightDefinition(node: Loose, attr: string): { kind: string; filter: Loose } {
  if (node.kind === "FunnelCorrelationQuery") return correlationDefinition(node, attr);
  if (!INSIGHT_KINDS[String(node.kind)]) throw reject.invalid(`${attr}__kind`, `Query kind "${String(node.kind)}" is not an insight query.`);
  requireSeries(node, attr);
  return queryNodeToFilter(node);
}

/** FunnelCorrelationQuery → source (FunnelsActorsQuery) → source (FunnelsQuery), plus the correlation fields. */
function correlationDefinition(node: Loose, attr: string): { kind: string; filter: Loose } {
  const actors = node.source;
  const funnel = isObject(actors) ? actors.source : undefined;
  if (!isObject(funnel) || funnel.kind !== "FunnelsQuery") {
    throw reject.invalid(`${attr}__source__source`, "FunnelCorrelationQuery needs source: {kind: FunnelsActorsQuery, source: {kind: FunnelsQuery, …}}.");
  }
  const { filter } = insightDefinition(funnel, `${attr}__source__source`);
  const extra: Loose = {};
  for (const [field, legacy] of Object.entries(CORRELATION_FIELDS)) if (node[field] !== undefined && node[field] !== null) extra[legacy] = node[field];
  if (typeof extra.funnel_correlation_type === "string") extra.funnel_correlation_type = extra.funnel_correlation_type.toLowerCase();
  return { kind: "FUNNEL_CORRELATION", filter: { ...filter, ...extra } };
}

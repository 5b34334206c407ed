import { reject } from "../core/analysis-errors.ts";
import { isObject, type Loose } from "./shared/filter-read.ts";

/**
 * Query nodes → legacy filters (reference: analytics §10): an InsightVizNode (or a bare insight query)
 * becomes the filter it is equivalent to, so it computes exactly like that filter. Unknown kinds are a 400
 * on `query`.
 */
export const INSIGHT_OF_KIND: Readonly<Record<string, string>> = {
  TrendsQuery: "TRENDS",
  FunnelsQuery: "FUNNELS",
  RetentionQuery: "RETENTION",
  PathsQuery: "PATHS",
  StickinessQuery: "STICKINESS",
  LifecycleQuery: "LIFECYCLE",
};

const SUB_FILTERS = ["trendsFilter", "funnelsFilter", "retentionFilter", "pathsFilter", "stickinessFilter", "lifecycleFilter"];

/** camelCase keys whose legacy name is not their snake_case form. */
const RENAMED: Readonly<Record<string, string>> = {
  pathsHogQLExpression: "paths_hogql_expression",
  funnelAggregateByHogQL: "funnel_aggregate_by_hogql",
  formulaNodes: "formulaNodes",
  toggledLifecycles: "toggledLifecycles",
};

export function queryNodeToFilter(query: Record<string, unknown>): { kind: "TRENDS" | "FUNNELS" | string; filter: Record<string, unknown> } {
  const source = query.kind === "InsightVizNode" ? query.source : query;
  if (!isObject(source) || typeof source.kind !== "string" || !INSIGHT_OF_KIND[source.kind]) {
    const kind = isObject(source) ? String(source.kind) : String(query.kind);
    throw reject.invalid("query", `Query kind "${kind}" cannot be computed as an insight here.`);
  }
  const kind = INSIGHT_OF_KIND[source.kind]!;
  return { kind, filter: { insight: kind, ...commonFields(source), ...seriesFields(source), ...subFilterFields(source) } };
}

const snake = (key: string): string => RENAMED[key] ?? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Drops undefined so the filter carries only what the node said. */
const defined = (entries: [string, unknown][]): Loose => Object.fromEntries(entries.filter(([, v]) => v !== undefined));

/** Where a legacy filter field came from in the node (`commonFields`), for errors that name the node's field. */
const NODE_FIELD_OF: Readonly<Record<string, string>> = {
  date_from: "dateRange__date_from",
  date_to: "dateRange__date_to",
  explicit_date: "dateRange__explicitDate",
  interval_count: "intervalCount",
  stickiness_criteria: "stickinessFilter__stickinessCriteria",
  stickiness_criteria__operator: "stickinessFilter__stickinessCriteria__operator",
  stickiness_criteria__value: "stickinessFilter__stickinessCriteria__value",
  computed_as: "stickinessFilter__computedAs",
  funnel_aggregate_by_hogql: "funnelsFilter__funnelAggregateByHogQL",
  exclusions: "funnelsFilter__exclusions",
};

/** The node's field a converted filter field came from (`date_from` → `dateRange__date_from`), where it is known. */
export const nodeFieldOf = (filterAttr: string): string | undefined => NODE_FIELD_OF[filterAttr];

function commonFields(source: Loose): Loose {
  const dateRange = isObject(source.dateRange) ? source.dateRange : {};
  // A TrendsQuery computes minutes (PostHog test_trends_math_first_time_for_user_interval_types); the legacy filter
  // maps `minute` to `hour`, so the minute interval travels as `query_interval`, which only the trends reader reads.
  const minute = source.interval === "minute";
  const interval = minute ? "hour" : source.interval;
  return defined([
    ["date_from", dateRange.date_from ?? undefined],
    ["date_to", dateRange.date_to ?? undefined],
    ["explicit_date", dateRange.explicitDate ?? undefined],
    ["interval", interval ?? undefined],
    ["interval_count", source.intervalCount ?? undefined],
    ["query_interval", minute && source.kind === "TrendsQuery" ? "minute" : undefined],
    ["properties", source.properties],
    ["filter_test_accounts", source.filterTestAccounts],
    ["sampling_factor", source.samplingFactor ?? undefined],
    ["aggregation_group_type_index", source.aggregation_group_type_index ?? undefined],
    ...(isObject(source.breakdownFilter) ? Object.entries(source.breakdownFilter) : []),
    ...(isObject(source.compareFilter) ? Object.entries(source.compareFilter) : []),
  ]);
}

/** series[i] → events/actions entries with order i (§10: series are already in merged order). */
function seriesFields(source: Loose): Loose {
  if (!Array.isArray(source.series)) return {};
  const events: Loose[] = [];
  const actions: Loose[] = [];
  source.series.forEach((node: unknown, order) => {
    if (!isObject(node) || (node.kind !== "EventsNode" && node.kind !== "ActionsNode")) {
      throw reject.invalid("query", `Series kind "${isObject(node) ? String(node.kind) : typeof node}" is not supported.`);
    }
    (node.kind === "EventsNode" ? events : actions).push(entityOf(node, order));
  });
  return { events, actions };
}

function entityOf(node: Loose, order?: number): Loose {
  const isEvent = node.kind === "EventsNode";
  const id = isEvent ? (node.event ?? null) : node.id;
  const entity: Loose = defined([
    ["id", id],
    ["type", isEvent ? "events" : "actions"],
    ["order", order],
    ["name", node.name ?? (isEvent ? (id ?? "All events") : undefined)],
    ["custom_name", node.custom_name],
    ["math", node.math],
    ["math_property", node.math_property],
    ["math_property_type", node.math_property_type ?? undefined],
    ["math_hogql", node.math_hogql],
    ["math_group_type_index", node.math_group_type_index],
    ["properties", withFixedProperties(node.properties, node.fixedProperties)],
    ["optionalInFunnel", node.optionalInFunnel ?? undefined],
  ]);
  return entity;
}

/** A series' `fixedProperties` apply as its `properties` do, both at once (the real service ANDs them). */
function withFixedProperties(properties: unknown, fixed: unknown): unknown {
  if (fixed === undefined || fixed === null) return properties;
  if (properties === undefined || properties === null) return fixed;
  const asGroup = (filters: unknown) => (Array.isArray(filters) ? { type: "AND", values: filters } : filters);
  return { type: "AND", values: [asGroup(properties), asGroup(fixed)] };
}

function subFilterFields(source: Loose): Loose {
  const out: Loose = {};
  for (const name of SUB_FILTERS) {
    const sub = source[name];
    if (!isObject(sub)) continue;
    for (const [key, value] of Object.entries(sub)) {
      if (value === undefined || value === null) continue;
      out[snake(key)] = key === "exclusions" && Array.isArray(value) ? value.map(exclusionOf) : value;
    }
  }
  return out;
}

function exclusionOf(node: unknown): unknown {
  if (!isObject(node)) return node;
  return defined([
    ...Object.entries(entityOf({ ...node, kind: node.kind === "ActionsNode" ? "ActionsNode" : "EventsNode" })),
    ["funnel_from_step", node.funnelFromStep],
    ["funnel_to_step", node.funnelToStep],
  ]);
}

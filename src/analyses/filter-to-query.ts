import { isObject, type Loose } from "./shared/filter-read.ts";

/**
 * Legacy filters → query node, the inverse of query-node.ts (the real service's `filter_to_query` in
 * posthog/hogql_queries/legacy_compatibility): an InsightVizNode wrapping the insight query of the filter's
 * kind. Common fields go to the query's own keys (`dateRange`, `interval`, `properties`, `breakdownFilter`,
 * `compareFilter`, …), `events`/`actions` to `series` in `order`, and every other key, camelCased, to the
 * kind's sub-filter (`trendsFilter`, `funnelsFilter`, …), so that converting back gives the same filter.
 */
const QUERY_OF_INSIGHT: Readonly<Record<string, { kind: string; subFilter: string; series: boolean }>> = {
  TRENDS: { kind: "TrendsQuery", subFilter: "trendsFilter", series: true },
  FUNNELS: { kind: "FunnelsQuery", subFilter: "funnelsFilter", series: true },
  RETENTION: { kind: "RetentionQuery", subFilter: "retentionFilter", series: false },
  PATHS: { kind: "PathsQuery", subFilter: "pathsFilter", series: false },
  STICKINESS: { kind: "StickinessQuery", subFilter: "stickinessFilter", series: true },
  LIFECYCLE: { kind: "LifecycleQuery", subFilter: "lifecycleFilter", series: true },
};

/** Filter keys whose query name is not their camelCase form (the inverse of query-node.ts's renames). */
const RENAMED: Readonly<Record<string, string>> = { paths_hogql_expression: "pathsHogQLExpression", funnel_aggregate_by_hogql: "funnelAggregateByHogQL" };

/** Keys the query keeps at its top level under their own name (the sources of query-node.ts's commonFields). */
const TOP_LEVEL: Readonly<Record<string, string>> = {
  interval: "interval",
  interval_count: "intervalCount",
  properties: "properties",
  filter_test_accounts: "filterTestAccounts",
  sampling_factor: "samplingFactor",
  aggregation_group_type_index: "aggregation_group_type_index",
};
const DATE_RANGE: Readonly<Record<string, string>> = { date_from: "date_from", date_to: "date_to", explicit_date: "explicitDate" };
const COMPARE = new Set(["compare", "compare_to"]);
/** Funnel keys that start with "breakdown" but belong to funnelsFilter. */
const FUNNEL_BREAKDOWN_KEYS = new Set(["breakdown_attribution_type", "breakdown_attribution_value"]);
const DROPPED = new Set(["insight", "events", "actions"]);

export const camel = (key: string): string => RENAMED[key] ?? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const isBreakdownKey = (key: string) => key.startsWith("breakdown") && !FUNNEL_BREAKDOWN_KEYS.has(key);

/** The fields every insight query node's sub-filter has, by node kind: what the OpenAPI document lists (a test holds the two equal). */
const DISPLAY_TRENDS = ["aggregationAxisFormat", "aggregationAxisPostfix", "aggregationAxisPrefix", "confidenceLevel", "decimalPlaces", "minDecimalPlaces", "detailedResultsAggregationType", "goalLines", "hiddenLegendIndexes", "movingAverageIntervals", "resultCustomizationBy", "resultCustomizations", "showAlertThresholdLines", "showConfidenceIntervals", "showLabelsOnSeries", "showLegend", "showMovingAverage", "showMultipleYAxes", "showPercentStackView", "showTrendLines", "showValuesOnSeries", "yAxisScaleType"];
export const SUB_FILTER_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  TrendsQuery: new Set(["display", "formula", "formulas", "formulaNodes", "smoothingIntervals", "breakdown_histogram_bin_count", ...DISPLAY_TRENDS]),
  FunnelsQuery: new Set(["funnelVizType", "funnelOrderType", "funnelWindowInterval", "funnelWindowIntervalUnit", "funnelFromStep", "funnelToStep", "binCount", "breakdownAttributionType", "breakdownAttributionValue", "funnelAggregateByHogQL", "exclusions", "funnelStepReference", "goalLines", "hiddenLegendBreakdowns", "layout", "resultCustomizations", "showValuesOnSeries", "useUdf"]),
  RetentionQuery: new Set(["targetEntity", "returningEntity", "retentionType", "period", "totalIntervals", "minimumOccurrences", "cumulative", "retentionCustomBrackets", "aggregationType", "aggregationProperty", "aggregationPropertyType", "timeWindowMode", "dashboardDisplay", "display", "meanRetentionCalculation", "retentionReference", "selectedInterval", "showTrendLines"]),
  PathsQuery: new Set(["includeEventTypes", "pathsHogQLExpression", "startPoint", "endPoint", "stepLimit", "edgeLimit", "minEdgeWeight", "maxEdgeWeight", "excludeEvents", "pathGroupings", "localPathCleaningFilters", "pathReplacements", "pathStartKey", "pathEndKey", "pathDropoffKey", "showFullUrls"]),
  StickinessQuery: new Set(["stickinessCriteria", "computedAs", "display", "hiddenLegendIndexes", "resultCustomizationBy", "resultCustomizations", "showLegend", "showMultipleYAxes", "showValuesOnSeries"]),
  LifecycleQuery: new Set(["showLegend", "showValuesOnSeries", "stacked", "toggledLifecycles"]),
};

const ALL_BREAKDOWN = ["breakdown", "breakdown_type", "breakdown_limit", "breakdown_hide_other_aggregation", "breakdown_histogram_bin_count", "breakdown_normalize_url", "breakdown_group_type_index", "breakdowns"];
/** The breakdownFilter fields of each node kind that has one, and the kinds with a compareFilter. */
export const BREAKDOWN_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  TrendsQuery: new Set(ALL_BREAKDOWN),
  FunnelsQuery: new Set(["breakdown", "breakdown_type", "breakdown_limit", "breakdown_normalize_url", "breakdown_group_type_index", "breakdowns"]),
  RetentionQuery: new Set(["breakdown", "breakdown_type", "breakdown_limit", "breakdowns"]),
};
const HAS_COMPARE = new Set(["TrendsQuery", "StickinessQuery"]);

/** The top-level fields each node kind has beyond its series, ranges and filters (StickinessQuery has no group aggregation, RetentionQuery and PathsQuery no interval). */
const TOP_LEVEL_OF_KIND: Readonly<Record<string, ReadonlySet<string>>> = {
  TrendsQuery: new Set(["interval", "properties", "filterTestAccounts", "samplingFactor", "aggregation_group_type_index"]),
  FunnelsQuery: new Set(["interval", "properties", "filterTestAccounts", "samplingFactor", "aggregation_group_type_index"]),
  RetentionQuery: new Set(["properties", "filterTestAccounts", "samplingFactor", "aggregation_group_type_index"]),
  PathsQuery: new Set(["properties", "filterTestAccounts", "samplingFactor", "aggregation_group_type_index"]),
  StickinessQuery: new Set(["interval", "intervalCount", "properties", "filterTestAccounts", "samplingFactor"]),
  LifecycleQuery: new Set(["interval", "properties", "filterTestAccounts", "samplingFactor", "aggregation_group_type_index"]),
};

/**
 * The query node of a legacy filter: `InsightVizNode` around the insight query of `filter.insight` (TRENDS when
 * absent). A legacy key the node has no field for is left out, as filter_to_query leaves it (the legacy filters
 * carry keys of the old web app's state, `show_mean`, `hidden_legend_keys`, that no node holds).
 */
export function filtersToQuery(filter: Loose): Loose {
  const insight = typeof filter.insight === "string" ? filter.insight.toUpperCase() : "TRENDS";
  const target = QUERY_OF_INSIGHT[insight] ?? QUERY_OF_INSIGHT.TRENDS!;
  const topLevel = TOP_LEVEL_OF_KIND[target.kind]!;
  const subFields = SUB_FILTER_FIELDS[target.kind]!;
  const source: Loose = { kind: target.kind };
  if (target.series) source.series = seriesOf(filter, target.kind === "FunnelsQuery");
  const parts = { dateRange: {} as Loose, breakdownFilter: {} as Loose, compareFilter: {} as Loose, sub: {} as Loose };
  for (const [key, value] of Object.entries(withIncludedEventTypes(filter))) {
    if (value === undefined || DROPPED.has(key)) continue;
    if (key in DATE_RANGE) parts.dateRange[DATE_RANGE[key]!] = value;
    else if (key in TOP_LEVEL) {
      if (topLevel.has(TOP_LEVEL[key]!)) source[TOP_LEVEL[key]!] = key === "properties" ? propertyList(value) : value;
    } else if (isBreakdownKey(key)) {
      if (BREAKDOWN_FIELDS[target.kind]?.has(key)) parts.breakdownFilter[key] = value;
    } else if (COMPARE.has(key)) {
      if (HAS_COMPARE.has(target.kind)) parts.compareFilter[key] = value;
    }
    else if (subFields.has(camel(key))) parts.sub[camel(key)] = key === "exclusions" && Array.isArray(value) ? value.map(exclusionNode) : value;
  }
  if (Object.keys(parts.dateRange).length) source.dateRange = parts.dateRange;
  if (Object.keys(parts.breakdownFilter).length) source.breakdownFilter = parts.breakdownFilter;
  if (Object.keys(parts.compareFilter).length) source.compareFilter = parts.compareFilter;
  source[target.subFilter] = parts.sub;
  return { kind: "InsightVizNode", source };
}

/** The legacy single-kind `path_type` as the list the node takes, unless the filter names the list itself. */
function withIncludedEventTypes(filter: Loose): Loose {
  if (typeof filter.path_type !== "string" || filter.include_event_types !== undefined) return filter;
  return { ...filter, include_event_types: [filter.path_type] };
}

/** events and actions merged by their `order` (entities without one keep their place after those with one). */
function seriesOf(filter: Loose, funnel: boolean): Loose[] {
  const entities = [...listOf(filter.events, "events"), ...listOf(filter.actions, "actions")];
  const position = (e: { entity: Loose; index: number }) => (typeof e.entity.order === "number" ? e.entity.order : Number.MAX_SAFE_INTEGER);
  return entities
    .map((entity, index) => ({ entity, index }))
    .sort((a, b) => position(a) - position(b) || a.index - b.index)
    .map(({ entity }) => (funnel ? funnelStepNode(entity) : seriesNode(entity)));
}

/** A funnel step also says whether it is optional (FunnelSeriesNode); other kinds' series nodes have no such field. */
const funnelStepNode = (entity: Loose): Loose => defined([...Object.entries(seriesNode(entity)), ["optionalInFunnel", entity.optionalInFunnel]]);

function listOf(value: unknown, type: "events" | "actions"): Loose[] {
  return Array.isArray(value) ? value.filter(isObject).map((e) => ({ ...e, type: e.type ?? type })) : [];
}

/** Keeps only what the filter said: no key with an undefined value. */
const defined = (entries: [string, unknown][]): Loose => Object.fromEntries(entries.filter(([, v]) => v !== undefined));

function seriesNode(entity: Loose): Loose {
  const isAction = entity.type === "actions";
  return defined([
    ["kind", isAction ? "ActionsNode" : "EventsNode"],
    [isAction ? "id" : "event", entity.id ?? (isAction ? undefined : null)],
    ["name", entity.name],
    ["custom_name", entity.custom_name],
    ["math", entity.math],
    ["math_property", entity.math_property],
    ["math_property_type", entity.math_property_type],
    ["math_hogql", entity.math_hogql],
    ["math_group_type_index", entity.math_group_type_index],
    ["properties", propertyList(entity.properties)],
  ]);
}

/**
 * The legacy shorthand `{ "$browser": "Safari", "email__icontains": ".com" }` (a plain object, not an AND/OR group)
 * as the list of event property filters it stands for, as filter_to_query cleans it (key, operator after `__`).
 */
function propertyList(value: unknown): unknown {
  if (!isObject(value) || (Array.isArray(value.values) && typeof value.type === "string")) return value;
  return Object.entries(value).map(([name, v]) => {
    const [key, operator] = name.includes("__") ? [name.slice(0, name.lastIndexOf("__")), name.slice(name.lastIndexOf("__") + 2)] : [name, "exact"];
    return { key, value: v, operator, type: "event" };
  });
}

function exclusionNode(value: unknown): unknown {
  if (!isObject(value)) return value;
  return defined([...Object.entries(seriesNode(value)), ["funnelFromStep", value.funnel_from_step], ["funnelToStep", value.funnel_to_step]]);
}

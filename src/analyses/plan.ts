import { POINT_PARAMS } from "./actors/point.ts";
import { decodeJsonish, isObject, type Loose } from "./shared/filter-read.ts";

/**
 * An analysis is planned once, before any row is read: which engine executes it and how many threads its scans
 * are cut for. Both are carried by the run; nothing re-decides them while it runs (a funnel whose second pass was
 * cut for another thread count than its first merged and dropped actors). The general per-event scan is the
 * reference and runs anything; the column kernels are the speed, and run only requests made entirely of fields
 * they were written and tested for. A field this module does not know sends the request to the general scan, so a
 * new field that changes counts can never be silently ignored by the kernels.
 */
export type Engine = "columns" | "general";

export interface AnalysisPlan {
  engine: Engine;
  /** The request's fields the column kernels were not written for: why a plan takes the general scan. */
  unknownFields: readonly string[];
  /** Threads every scan of the analysis is cut for (1: the main thread alone). */
  threads: number;
}

/**
 * Fields every kind reads the same way through both engines; what the real app sends to keep track of a request;
 * and the data point of an actors request, which actor lists read beside the analysis, never the analysis itself.
 */
const COMMON = [
  "insight",
  "shown_as",
  "date_from",
  "date_to",
  "explicit_date",
  "interval",
  "properties",
  "filter_test_accounts",
  "sampling_factor",
  "aggregation_group_type_index",
  "client_query_id",
  "cache_invalidation_key",
  "from_dashboard",
  "new_entity",
  ...POINT_PARAMS,
];
/** Series, as trends, stickiness and lifecycle list them. */
const SERIES = ["events", "actions"];
const BREAKDOWN = [
  "breakdown",
  "breakdown_type",
  "breakdowns",
  "breakdown_group_type_index",
  "breakdown_limit",
  "breakdown_normalize_url",
  "breakdown_hide_other_aggregation",
  "breakdown_histogram_bin_count",
];
const COMPARE = ["compare", "compare_to"];
const FUNNEL = [
  ...SERIES,
  ...BREAKDOWN,
  "funnel_viz_type",
  "funnel_order_type",
  "funnel_window_days",
  "funnel_window_interval",
  "funnel_window_interval_unit",
  "funnel_window_interval_type",
  "funnel_from_step",
  "funnel_to_step",
  "exclusions",
  "breakdown_attribution_type",
  "breakdown_attribution_value",
  "bin_count",
  // Read by funnel correlation alone; a funnel leaves them unread.
  "funnel_correlation_type",
  "funnel_correlation_names",
  "funnel_correlation_exclude_names",
  "funnel_correlation_event_names",
  "funnel_correlation_exclude_event_names",
  "funnel_correlation_event_exclude_property_names",
];
/**
 * What only shapes how the web app draws an answer (legend, axes, colours, layout): no engine reads it. The real
 * app sends these with every query, so they must not cost a request the kernels.
 */
const PRESENTATION = [
  "display",
  "show_legend",
  "show_values_on_series",
  "show_percent_stack_view",
  "show_labels_on_series",
  "show_multiple_y_axes",
  "show_alert_threshold_lines",
  "show_trend_lines",
  "show_mean",
  "show_persons_modal",
  "aggregation_axis_format",
  "aggregation_axis_prefix",
  "aggregation_axis_postfix",
  "decimal_places",
  "min_decimal_places",
  "y_axis_scale_type",
  "hidden_legend_keys",
  "hidden_legend_indexes",
  "hidden_legend_breakdowns",
  "result_customization_by",
  "result_customizations",
  "goal_lines",
  "layout",
  "funnel_step_reference",
  "retention_reference",
  "mean_retention_calculation",
  "dashboard_display",
  "stacked",
  "toggledLifecycles",
  "funnel_advanced",
  "show_confidence_intervals",
  "confidence_level",
  "show_moving_average",
  "moving_average_intervals",
  // The real service's choice of SQL implementation for funnels: the same numbers either way.
  "use_udf",
];

/** Per kind, every request field the column kernels handle (by running it, or by declining its shape). */
const KNOWN_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  TRENDS: new Set([...COMMON, ...SERIES, ...BREAKDOWN, ...COMPARE, ...PRESENTATION, "formula", "formulas", "formulaNodes", "smoothing_intervals"]),
  STICKINESS: new Set([...COMMON, ...SERIES, ...COMPARE, ...PRESENTATION]),
  LIFECYCLE: new Set([...COMMON, ...SERIES, ...PRESENTATION]),
  FUNNELS: new Set([...COMMON, ...FUNNEL, ...PRESENTATION]),
  FUNNEL_CORRELATION: new Set([...COMMON, ...FUNNEL, ...PRESENTATION]),
  // Retention and paths read no series: the lists a legacy filter carries anyway are left unread by both engines.
  RETENTION: new Set([...COMMON, ...SERIES, ...BREAKDOWN, ...PRESENTATION, "target_entity", "returning_entity", "retention_type", "period", "total_intervals", "cumulative", "retention_custom_brackets"]),
  PATHS: new Set([
    ...COMMON,
    ...SERIES,
    ...PRESENTATION,
    "include_event_types",
    "start_point",
    "end_point",
    "step_limit",
    "path_groupings",
    "exclude_events",
    "local_path_cleaning_filters",
    // The project's own path cleaning rules: a project here has none, so it changes nothing for either engine.
    "path_replacements",
    "edge_limit",
    "min_edge_weight",
    "max_edge_weight",
    "funnel_paths",
    "path_type",
  ]),
};

/** Fields of one series entity, exclusion or retention entity that the kernels handle. */
const ENTITY_FIELDS: ReadonlySet<string> = new Set([
  "id",
  "type",
  "kind",
  "event",
  "order",
  "name",
  "custom_name",
  "math",
  "math_property",
  "math_hogql",
  "math_group_type_index",
  "properties",
  "funnel_from_step",
  "funnel_to_step",
]);
const ENTITY_LISTS = ["events", "actions", "exclusions"];
const ENTITY_OBJECTS = ["target_entity", "returning_entity"];

/** Request fields (entity fields as `events[0].name`) the kernels of `kind` were not written for. */
export function unknownFieldsOf(kind: string, filter: Loose): string[] {
  const known = KNOWN_FIELDS[kind];
  if (!known) return Object.keys(filter);
  const unknown = Object.keys(filter).filter((key) => filter[key] !== undefined && !known.has(key));
  for (const list of ENTITY_LISTS) {
    const entities = decodeJsonish(filter[list]);
    if (Array.isArray(entities)) entities.forEach((entity, i) => unknown.push(...unknownEntityFields(entity, `${list}[${i}]`)));
  }
  for (const key of ENTITY_OBJECTS) unknown.push(...unknownEntityFields(decodeJsonish(filter[key]), key));
  return unknown;
}

function unknownEntityFields(entity: unknown, at: string): string[] {
  if (!isObject(entity)) return [];
  return Object.keys(entity)
    .filter((key) => entity[key] !== undefined && !ENTITY_FIELDS.has(key))
    .map((key) => `${at}.${key}`);
}

/** The plan of `kind` over `filter`, its scans cut for `threads` threads. */
export function planAnalysis(kind: string, filter: Loose, threads: number): AnalysisPlan {
  const unknownFields = unknownFieldsOf(kind, filter);
  return { engine: unknownFields.length === 0 ? "columns" : "general", unknownFields, threads: Math.max(1, Math.floor(threads)) };
}

import { reject } from "../../core/analysis-errors.ts";
import { decodeJsonish, readNumber, readString, type Loose } from "../shared/filter-read.ts";
import type { SeriesEntity } from "../shared/series.ts";

/**
 * The data point of an actors request (reference: ingestion-persons-events §4.9): the parameters that say which
 * number of the insight is meant. They arrive as query parameters (or in a POST body); the filter is the rest.
 */
export type DataPoint = Loose;

export const POINT_PARAMS = [
  "entity_id", "entity_type", "entity_math", "entity_order", "breakdown_value", "funnel_step", "funnel_step_breakdown",
  "funnel_custom_steps", "entrance_period_start", "drop_off",
  "funnel_correlation_person_entity", "funnel_correlation_person_converted", "funnel_correlation_person_limit",
  "funnel_correlation_person_offset", "funnel_correlation_property_values", "target_date", "lifecycle_type",
  "stickiness_days", "selected_interval", "path_start_key", "path_end_key", "path_dropoff_key",
] as const;

const hasSeries = (filter: Loose): boolean =>
  [decodeJsonish(filter.events), decodeJsonish(filter.actions)].some((list) => Array.isArray(list) && list.length > 0);

/** A filter without series takes the point's entity as its only series (PostHog's legacy persons URLs send only that). */
export function withPointSeries(filter: Loose, point: DataPoint): Loose {
  const id = readString(point, "entity_id");
  if (hasSeries(filter) || id === undefined) return filter;
  const type = readString(point, "entity_type") === "actions" ? "actions" : "events";
  const entity = { id: type === "actions" ? Number(id) : id, type, order: 0, ...(readString(point, "entity_math") ? { math: readString(point, "entity_math") } : {}) };
  return { ...filter, [type]: [entity] };
}

/** The series of the data point: by entity_order (position), else by entity_id (+ type and math), else the only one. */
export function pickSeries(series: readonly SeriesEntity[], point: DataPoint): SeriesEntity {
  const order = readNumber(point, "entity_order");
  if (order !== undefined) {
    const picked = series[order];
    if (!picked) throw reject.invalid("entity_order", `The insight has no series at position ${order}.`);
    return picked;
  }
  const id = readString(point, "entity_id");
  if (id === undefined) {
    if (series.length === 1) return series[0]!;
    throw reject.invalid("entity_id", "Name the series of the data point (entity_id or entity_order).");
  }
  const type = readString(point, "entity_type");
  const math = readString(point, "entity_math");
  const picked = series.find((s) => String(s.id) === id && (type === undefined || s.type === type) && (math === undefined || (s.math ?? "total") === math));
  if (!picked) throw reject.invalid("entity_id", `The insight has no series "${id}".`);
  return picked;
}

/** A breakdown value as the URL carries it: strings as they are, anything else JSON-encoded. */
export const sameValue = (value: unknown, asked: string): boolean => (typeof value === "string" ? value : JSON.stringify(value)) === asked;

export function requiredNumber(point: DataPoint, key: string): number {
  const value = readNumber(point, key);
  if (value === undefined) {
    if (point[key] === undefined || point[key] === "") throw reject.required(key);
    throw reject.invalid(key, `${key} must be a number.`);
  }
  return value;
}

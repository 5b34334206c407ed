/**
 * The heatmaps list computed from heatmap rows as the real service's queries compute it (PostHog/posthog
 * products/web_analytics/backend/api/heatmaps_api.py: DEFAULT_QUERY, SCROLL_DEPTH_QUERY, FOLD_SUMMARY_QUERY), with
 * ClickHouse's arithmetic: round() takes halves to even, intDiv truncates, quantile interpolates.
 */
import { roundHalfEven } from "../hogql/evaluate-functions.ts";
import type { Aggregation, HeatmapQuery } from "./query.ts";
import { SCALE_FACTOR, type HeatmapRow } from "./rows.ts";

/** The most points one answer holds (the real service's MAX_SELECT_HEATMAPS_LIMIT), also with `limit=0`. */
export const MAX_HEATMAP_POINTS = 1_000_000;

export interface HeatmapPoint {
  count: number;
  pointer_y: number;
  pointer_relative_x: number;
  pointer_target_fixed: boolean;
}

export interface FoldSummary {
  total_count: number;
  below_fold_count: number;
  pct_below_fold: number;
  median_viewport_height: number | null;
}

export interface ScrollDepthBucket {
  scroll_depth_bucket: number;
  bucket_count: number;
  cumulative_count: number;
}

/** ClickHouse's round(x, places) on a float. */
const roundTo = (x: number, places: number): number => roundHalfEven(x * 10 ** places) / 10 ** places;

/** Trailing slashes do not tell two URLs apart (the query's trimRight(current_url, '/')). */
const withoutTrailingSlashes = (url: string): string => url.replace(/\/+$/, "");

/** The query's row conditions, the same for every kind of answer; `sessions`: the test-account filter's sessions. */
export function rowFilter(query: HeatmapQuery, sessions: ReadonlySet<string> | undefined, inCohorts: (distinctId: string) => boolean): (row: HeatmapRow) => boolean {
  const exact = query.urlExact === undefined ? undefined : withoutTrailingSlashes(query.urlExact);
  const hideZero = query.hideZeroCoordinates && query.type !== "scrolldepth";
  return (row) =>
    row.type === query.type &&
    row.timestamp >= query.from &&
    row.timestamp <= query.to &&
    (query.viewportWidthMin === undefined || row.viewport_width >= query.viewportWidthMin) &&
    (query.viewportWidthMax === undefined || row.viewport_width <= query.viewportWidthMax) &&
    (exact === undefined || withoutTrailingSlashes(row.current_url) === exact) &&
    (query.urlPattern === undefined || query.urlPattern.test(row.current_url)) &&
    !(hideZero && row.x === 0 && row.y === 0) &&
    (sessions === undefined || sessions.has(row.session_id)) &&
    inCohorts(row.distinct_id);
}

/** Counts per key: every row, or each distinct id once. */
function countBy<K>(rows: readonly HeatmapRow[], keyOf: (row: HeatmapRow) => K, aggregation: Aggregation): Map<K, number> {
  const seen = new Map<K, Set<string>>();
  const counts = new Map<K, number>();
  for (const row of rows) {
    const key = keyOf(row);
    if (aggregation === "unique_visitors") {
      const ids = seen.get(key) ?? new Set<string>();
      seen.set(key, ids.add(row.distinct_id));
      counts.set(key, ids.size);
    } else counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Hottest first; ties (ClickHouse leaves them in no order) by y, then x, then not fixed before fixed. */
const hottestFirst = (a: HeatmapPoint, b: HeatmapPoint): number =>
  b.count - a.count || a.pointer_y - b.pointer_y || a.pointer_relative_x - b.pointer_relative_x || Number(a.pointer_target_fixed) - Number(b.pointer_target_fixed);

/**
 * The points of a click, rage click, mouse move (or any other type's) heatmap: x relative to the viewport's width
 * rounded to hundredths, y in pixels on the 16-pixel grid, counted per point. A row recorded with a viewport
 * narrower than 8 pixels has no relative x (ClickHouse's division by zero) and is left out.
 */
export function heatmapPoints(rows: readonly HeatmapRow[], aggregation: Aggregation): HeatmapPoint[] {
  const points = new Map<string, HeatmapPoint>();
  const keyOf = (row: HeatmapRow): string => {
    const relativeX = roundTo(row.x / row.viewport_width, 2);
    const key = `${row.pointer_target_fixed}|${relativeX}|${row.y}`;
    if (!points.has(key)) points.set(key, { count: 0, pointer_y: row.y * SCALE_FACTOR, pointer_relative_x: relativeX, pointer_target_fixed: row.pointer_target_fixed });
    return key;
  };
  const counts = countBy(rows.filter((row) => row.viewport_width !== 0), keyOf, aggregation);
  return [...points].map(([key, point]) => ({ ...point, count: counts.get(key)! })).sort(hottestFirst);
}

/** One page of the points: `limit` 0 is every point (up to the cap); `has_more` when a further point exists. */
export function pageOfPoints(points: readonly HeatmapPoint[], limit: number, offset: number): { results: HeatmapPoint[]; has_more: boolean } {
  if (limit === 0) return { results: points.slice(offset, offset + MAX_HEATMAP_POINTS), has_more: false };
  return { results: points.slice(offset, offset + limit), has_more: points.length > offset + limit };
}

/** ClickHouse's quantile(0.5): linear interpolation between the middle values. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) / 2;
  const low = sorted[Math.floor(at)]!;
  return low + (sorted[Math.ceil(at)]! - low) * (at - Math.floor(at));
}

/**
 * Above and below the fold: of the interactions on elements that scroll with the page (fixed ones are always on
 * screen), how many were further down than the viewport's height; the median viewport height counts every row.
 */
export function foldSummary(rows: readonly HeatmapRow[]): FoldSummary {
  const scrolling = rows.filter((row) => !row.pointer_target_fixed);
  const below = scrolling.filter((row) => row.y > row.viewport_height).length;
  return {
    total_count: scrolling.length,
    below_fold_count: below,
    pct_below_fold: scrolling.length === 0 ? 0 : roundTo((100 * below) / scrolling.length, 1),
    median_viewport_height: rows.length === 0 ? null : roundHalfEven(median(rows.map((row) => row.viewport_height * SCALE_FACTOR))),
  };
}

/**
 * Scroll depth: how far down each row reached (its y plus the viewport's height, in pixels) in buckets of 100
 * pixels, ascending, each with its own count and the count of rows that reached it or further.
 */
export function scrollDepthBuckets(rows: readonly HeatmapRow[], aggregation: Aggregation): ScrollDepthBucket[] {
  const counts = countBy(rows, (row) => Math.trunc(((row.y + row.viewport_height) * SCALE_FACTOR) / 100) * 100, aggregation);
  const buckets = [...counts].sort(([a], [b]) => a - b);
  let reached = buckets.reduce((sum, [, count]) => sum + count, 0);
  return buckets.map(([bucket, count]) => {
    const row = { scroll_depth_bucket: bucket, bucket_count: count, cumulative_count: reached };
    reached -= count;
    return row;
  });
}

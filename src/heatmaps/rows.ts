/**
 * The rows the real service's heatmaps table holds, made from a stored event as its ingestion makes them
 * (PostHog/posthog nodejs/src/ingestion/event-processing/extract-heatmap-data-step.ts): coordinates and viewport
 * divided by the scale factor and rounded (JavaScript's Math.round: halves up), one row per valid item of
 * `$heatmap_data`, plus a `scrolldepth` row for the previous page when the event carries `$prev_pageview_pathname`.
 * Here the event keeps `$heatmap_data` (the real service strips it from the stored event), so these rows are
 * derived from the events on every read and survive a restart with them.
 */
import { isIllegalMergeId } from "../capture/persons-merge.ts";
import { eventProperty, type PropertyReadable } from "../core/event-read.ts";

/** Heatmap coordinates are kept on a grid of this many pixels (ingestion's SCALE_FACTOR). */
export const SCALE_FACTOR = 16;

export interface HeatmapRow {
  type: string;
  /** Scaled: pixels / SCALE_FACTOR, rounded. */
  x: number;
  y: number;
  viewport_width: number;
  viewport_height: number;
  pointer_target_fixed: boolean;
  /** The page the item was recorded on: the key of `$heatmap_data`, not the event's `$current_url`. */
  current_url: string;
  session_id: string;
  distinct_id: string;
  timestamp: number;
}

export interface HeatmapSource extends PropertyReadable {
  distinct_id: string;
  timestamp: number;
}

interface Item {
  x: unknown;
  y: unknown;
  target_fixed: unknown;
  type: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const isValidString = (v: unknown): v is string => typeof v === "string" && v.trim().length > 0;
const isValidNumber = (v: unknown): v is number => typeof v === "number" && !Number.isNaN(v);
const scaled = (px: number) => Math.round(px / SCALE_FACTOR);

/** True when the event can give heatmap rows at all: a cheap test before reading anything else of it. */
export const mayHoldHeatmapData = (event: PropertyReadable): boolean =>
  eventProperty(event, "$heatmap_data") !== undefined || eventProperty(event, "$prev_pageview_pathname") !== undefined;

/**
 * `$heatmap_data` with the previous page's scroll depth added (ingestion's rule: the previous page is the current
 * URL with the previous pathname, query and fragment kept); undefined when the current URL does not parse, which
 * makes ingestion give up on the whole event.
 */
function itemsByUrl(event: HeatmapSource): Map<string, unknown> | undefined {
  const data = eventProperty(event, "$heatmap_data");
  const byUrl = new Map<string, unknown>(isObject(data) ? Object.entries(data) : []);
  const previousPath = eventProperty(event, "$prev_pageview_pathname");
  const currentUrl = eventProperty(event, "$current_url");
  if (!previousPath || !currentUrl) return byUrl;
  let previousUrl: string;
  try {
    const url = new URL(String(currentUrl));
    url.pathname = String(previousPath);
    previousUrl = url.toString();
  } catch {
    return undefined;
  }
  const scroll: Item = { x: 0, y: eventProperty(event, "$prev_pageview_max_scroll"), target_fixed: false, type: "scrolldepth" };
  const existing = byUrl.get(previousUrl);
  byUrl.set(previousUrl, [...(Array.isArray(existing) ? existing : []), scroll]);
  return byUrl;
}

const isValidItem = (item: unknown): item is Item & { x: number; y: number; type: string; target_fixed: boolean } =>
  isObject(item) && isValidNumber(item.x) && isValidNumber(item.y) && isValidString(item.type) && typeof item.target_fixed === "boolean";

/** The heatmap rows of one event; none when it has no data, an illegal distinct id, or no numeric viewport. */
export function heatmapRowsOf(event: HeatmapSource): HeatmapRow[] {
  const byUrl = itemsByUrl(event);
  if (!byUrl || byUrl.size === 0) return [];
  if (!isValidString(event.distinct_id) || isIllegalMergeId(event.distinct_id)) return [];
  const width = eventProperty(event, "$viewport_width");
  const height = eventProperty(event, "$viewport_height");
  if (!isValidNumber(width) || !isValidNumber(height)) return [];
  const base = {
    viewport_width: scaled(width),
    viewport_height: scaled(height),
    session_id: String(eventProperty(event, "$session_id")),
    distinct_id: event.distinct_id,
    timestamp: event.timestamp,
  };
  const rows: HeatmapRow[] = [];
  for (const [url, items] of byUrl) {
    if (!isValidString(url) || !Array.isArray(items)) continue;
    for (const item of items) {
      if (!isValidItem(item)) continue;
      rows.push({ ...base, type: item.type, x: scaled(item.x), y: scaled(item.y), pointer_target_fixed: item.target_fixed, current_url: url });
    }
  }
  return rows;
}

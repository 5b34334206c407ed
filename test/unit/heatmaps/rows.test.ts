/**
 * Heatmap rows from stored events, as the real service's ingestion extracts them
 * (PostHog/posthog nodejs/src/ingestion/event-processing/extract-heatmap-data-step.ts). Expected rows worked out
 * by hand: pixels / 16 rounded with Math.round (halves up).
 */
import { describe, expect, it } from "vitest";
import { heatmapRowsOf, type HeatmapRow, type HeatmapSource } from "../../../src/heatmaps/rows.ts";

const AT = Date.parse("2024-03-01T10:00:00Z");
const event = (properties: Record<string, unknown>, distinct_id = "d1"): HeatmapSource => ({ distinct_id, timestamp: AT, properties });
const click = { x: 200, y: 24, target_fixed: false, type: "click" };
const row = (over: Partial<HeatmapRow>): HeatmapRow => ({
  type: "click",
  x: 13,
  y: 2,
  viewport_width: 80,
  viewport_height: 45,
  pointer_target_fixed: false,
  current_url: "https://a.test/",
  session_id: "s1",
  distinct_id: "d1",
  timestamp: AT,
  ...over,
});
const viewport = { $viewport_width: 1280, $viewport_height: 720, $session_id: "s1" };

type Case = [string, HeatmapSource, HeatmapRow[]];
const cases: Case[] = [
  // 200/16 = 12.5 → 13 and 24/16 = 1.5 → 2 (halves up); 1280/16 = 80, 720/16 = 45.
  ["a click, scaled to the 16-pixel grid", event({ ...viewport, $heatmap_data: { "https://a.test/": [click] } }), [row({})]],
  [
    "every valid item of every page; invalid items are skipped",
    event({
      ...viewport,
      $heatmap_data: {
        "https://a.test/": [click, { x: "1", y: 2, target_fixed: false, type: "click" }, { x: 1, y: 2, type: "click" }, { x: 1, y: 2, target_fixed: true, type: " " }],
        "https://a.test/b": [{ x: 8, y: 40, target_fixed: true, type: "rageclick" }],
      },
    }),
    // 8/16 = 0.5 → 1; 40/16 = 2.5 → 3.
    [row({}), row({ type: "rageclick", x: 1, y: 3, pointer_target_fixed: true, current_url: "https://a.test/b" })],
  ],
  ["no viewport: nothing", event({ $heatmap_data: { "https://a.test/": [click] } }), []],
  ["a viewport given as text: nothing", event({ $viewport_width: "1280", $viewport_height: 720, $heatmap_data: { "https://a.test/": [click] } }), []],
  ["an illegal distinct id: nothing", event({ ...viewport, $heatmap_data: { "https://a.test/": [click] } }, "anonymous"), []],
  ["no session id: the text undefined, as ingestion's String()", event({ $viewport_width: 1280, $viewport_height: 720, $heatmap_data: { "https://a.test/": [click] } }), [row({ session_id: "undefined" })]],
  [
    "the previous page's scroll depth, at its URL with the current query kept",
    event({ $viewport_width: 1000, $viewport_height: 600, $session_id: "s1", $current_url: "https://a.test/new?q=1", $prev_pageview_pathname: "/old", $prev_pageview_max_scroll: 800 }),
    // 800/16 = 50; 1000/16 = 62.5 → 63; 600/16 = 37.5 → 38.
    [row({ type: "scrolldepth", x: 0, y: 50, viewport_width: 63, viewport_height: 38, current_url: "https://a.test/old?q=1" })],
  ],
  [
    "a previous page without its max scroll: no scroll row",
    event({ ...viewport, $current_url: "https://a.test/new", $prev_pageview_pathname: "/old" }),
    [],
  ],
  [
    "a current URL that does not parse drops the whole event's data",
    event({ ...viewport, $current_url: "not a url", $prev_pageview_pathname: "/old", $prev_pageview_max_scroll: 10, $heatmap_data: { "https://a.test/": [click] } }),
    [],
  ],
];

describe("heatmapRowsOf", () => {
  it.each(cases)("%s", (_name, given, want) => {
    expect(heatmapRowsOf(given)).toEqual(want);
  });
});

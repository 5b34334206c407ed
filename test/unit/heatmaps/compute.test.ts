/**
 * The heatmaps list's arithmetic, as ClickHouse does it in the real service's queries (products/web_analytics/
 * backend/api/heatmaps_api.py): round() halves to even, intDiv truncates, quantile(0.5) interpolates. Expected
 * values worked out by hand.
 */
import { describe, expect, it } from "vitest";
import { foldSummary, heatmapPoints, pageOfPoints, scrollDepthBuckets } from "../../../src/heatmaps/compute.ts";
import { anchoredUrlPattern, scaledViewportBound } from "../../../src/heatmaps/query.ts";
import type { HeatmapRow } from "../../../src/heatmaps/rows.ts";

const row = (over: Partial<HeatmapRow>): HeatmapRow => ({
  type: "click",
  x: 1,
  y: 1,
  viewport_width: 8,
  viewport_height: 40,
  pointer_target_fixed: false,
  current_url: "https://a.test/",
  session_id: "s",
  distinct_id: "d",
  timestamp: 0,
  ...over,
});

describe("heatmapPoints", () => {
  it.each([
    // 1/8 = 0.125 → 12.5 hundredths → 12 (even); 3/8 = 0.375 → 37.5 → 38 (even).
    ["halves to even", [row({ x: 1 }), row({ x: 3 })], [0.12, 0.38]],
    // 1/3 = 0.333… → 0.33; 2/3 → 0.67.
    ["thirds", [row({ x: 1, viewport_width: 3 }), row({ x: 2, viewport_width: 3 })], [0.33, 0.67]],
    ["a zero-width viewport has no relative x", [row({ viewport_width: 0 })], []],
  ] as const)("%s", (_name, rows, xs) => {
    expect(heatmapPoints(rows, "total_count").map((p) => p.pointer_relative_x).sort()).toEqual(xs);
  });

  it("groups by fixed, relative x and y; y in pixels; hottest first", () => {
    const rows = [row({ y: 2 }), row({ y: 2, distinct_id: "e" }), row({ y: 2, pointer_target_fixed: true }), row({ y: 3 }), row({ y: 2 })];
    expect(heatmapPoints(rows, "total_count")).toEqual([
      { count: 3, pointer_y: 32, pointer_relative_x: 0.12, pointer_target_fixed: false },
      { count: 1, pointer_y: 32, pointer_relative_x: 0.12, pointer_target_fixed: true },
      { count: 1, pointer_y: 48, pointer_relative_x: 0.12, pointer_target_fixed: false },
    ]);
    expect(heatmapPoints(rows, "unique_visitors")[0]).toEqual({ count: 2, pointer_y: 32, pointer_relative_x: 0.12, pointer_target_fixed: false });
  });
});

describe("pageOfPoints", () => {
  const points = [3, 2, 1].map((count) => ({ count, pointer_y: 0, pointer_relative_x: 0, pointer_target_fixed: false }));
  it.each([
    [0, 0, [3, 2, 1], false],
    [0, 1, [2, 1], false],
    [2, 0, [3, 2], true],
    [2, 1, [2, 1], false],
    [3, 0, [3, 2, 1], false],
  ])("limit %i offset %i", (limit, offset, counts, hasMore) => {
    const page = pageOfPoints(points, limit, offset);
    expect(page.results.map((p) => p.count)).toEqual(counts);
    expect(page.has_more).toBe(hasMore);
  });
});

describe("foldSummary", () => {
  it.each([
    ["nothing", [], { total_count: 0, below_fold_count: 0, pct_below_fold: 0, median_viewport_height: null }],
    // Heights 640 and 960 pixels: the median interpolates to 800. One of two is below its fold (y 50 > 40).
    ["interpolated median", [row({ y: 50 }), row({ viewport_height: 60 })], { total_count: 2, below_fold_count: 1, pct_below_fold: 50, median_viewport_height: 800 }],
    // 1 of 16 below: 6.25 % → 6.2 (halves to even); the fixed row counts only towards the median.
    [
      "percent to one decimal, halves to even",
      [row({ y: 41 }), ...Array.from({ length: 15 }, () => row({})), row({ pointer_target_fixed: true, y: 99 })],
      { total_count: 16, below_fold_count: 1, pct_below_fold: 6.2, median_viewport_height: 640 },
    ],
  ] as const)("%s", (_name, rows, want) => {
    expect(foldSummary(rows)).toEqual(want);
  });
});

describe("scrollDepthBuckets", () => {
  it("bands of 100 pixels of y plus viewport height, with the count that reached each or further", () => {
    // (1 + 62) * 16 = 1008 → 1000; (6 + 62) * 16 = 1088 → 1000; (13 + 62) * 16 = 1200 → 1200.
    const rows = [row({ y: 1, viewport_height: 62 }), row({ y: 6, viewport_height: 62, distinct_id: "e" }), row({ y: 13, viewport_height: 62 })];
    expect(scrollDepthBuckets(rows, "total_count")).toEqual([
      { scroll_depth_bucket: 1000, bucket_count: 2, cumulative_count: 3 },
      { scroll_depth_bucket: 1200, bucket_count: 1, cumulative_count: 1 },
    ]);
  });
});

describe("query rules", () => {
  it.each([
    ["a*", "^a.+$"],
    ["a**", "^a.+.+$"],
    [".*x", "^.*x$"],
    ["^a*$", "^a.+$"],
    ["*a", "^.+a$"],
  ])("url pattern %s reads as %s", (pattern, want) => {
    expect(anchoredUrlPattern(pattern)).toBe(want);
  });

  // round(px / 16) with halves to even: 8 → 0.5 → 0; 24 → 1.5 → 2; 152 → 9.5 → 10; 168 → 10.5 → 10.
  it.each([[8, 0], [24, 2], [150, 9], [152, 10], [161, 10], [168, 10], [192, 12]])("viewport bound %i is %i on the grid", (px, want) => {
    expect(scaledViewportBound(px)).toBe(want);
  });
});

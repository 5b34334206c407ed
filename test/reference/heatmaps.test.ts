/**
 * PostHog's heatmaps API tests (products/web_analytics/backend/test/test_heatmaps_api.py, `TestSessionRecordings`),
 * ported: their data, their parameters, the numbers they assert. PostHog's tests insert rows straight into the
 * heatmaps table with Python's round(px / 16) (halves to even); here each row is sent as the `$$heatmap` event
 * posthog-js sends, with pixel values on the 16-pixel grid (`onGrid`), so that ingestion's own rounding (halves up)
 * makes exactly the row PostHog's test inserts. Every response is checked against the OpenAPI document.
 */
import { describe, expect, it } from "vitest";
import { P, withReference, type RefData, type RefEvent } from "./support.ts";
import { qs } from "../support/server.ts";

/** Python's round(v) (halves to even), the rounding of PostHog's test helper. */
function pythonRound(v: number): number {
  const r = Math.round(v);
  return Math.abs(v % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
/** The pixel value whose row is the one PostHog's helper inserts for `px`. */
const onGrid = (px: number) => 16 * pythonRound(px / 16);

interface HeatmapArgs {
  type: string;
  at?: string;
  viewport_width?: number;
  viewport_height?: number;
  x?: number;
  y?: number;
  current_url?: string;
  distinct_id?: string;
  pointer_target_fixed?: boolean;
  /** `$host` of the event (posthog-js sets it on every event; the test-account filter reads it). */
  host?: string;
}

/** `_create_heatmap_event` with its defaults, as the `$$heatmap` event that makes that row. */
function heatmapEvent(session: string, a: HeatmapArgs): RefEvent {
  const item = { x: onGrid(a.x ?? 10), y: onGrid(a.y ?? 20), target_fixed: a.pointer_target_fixed ?? true, type: a.type };
  return {
    event: "$$heatmap",
    distinct_id: a.distinct_id ?? "user_distinct_id",
    timestamp: a.at ?? "2023-03-08T09:00:00",
    properties: {
      $session_id: session,
      $viewport_width: onGrid(a.viewport_width ?? 100),
      $viewport_height: onGrid(a.viewport_height ?? 100),
      $heatmap_data: { [a.current_url ?? "http://posthog.com"]: [item] },
      ...(a.host ? { $host: a.host } : {}),
    },
  };
}

/** `create_event`: a `$pageview` of the session. */
const pageview = (session: string, at: string, host: string): RefEvent => ({
  event: "$pageview",
  distinct_id: "12345",
  timestamp: at,
  properties: { $host: host, $session_id: session },
});

const NOW = "2025-03-31";

async function heatmap(data: Omit<RefData, "now"> & { now?: string }, params: Record<string, unknown>) {
  return withReference({ now: NOW, ...data }, async (ref) => ref.server.get(`${P}/heatmaps/?${qs(params)}`));
}

async function results(data: Omit<RefData, "now"> & { now?: string }, params: Record<string, unknown>) {
  const res = await heatmap(data, params);
  expect(res.status, res.text).toBe(200);
  return res.body.results;
}

const point = (pointer_relative_x: number, count: number) => ({ count, pointer_relative_x, pointer_target_fixed: true, pointer_y: 16 });
const byX = (rows: { pointer_relative_x: number }[]) => [...rows].sort((a, b) => a.pointer_relative_x - b.pointer_relative_x);

describe("heatmaps API (PostHog test_heatmaps_api.py)", () => {
  it("test_can_get_empty_response", async () => {
    const res = await heatmap({ events: [] }, { date_from: "2024-05-03" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ results: [], fold: { total_count: 0, below_fold_count: 0, pct_below_fold: 0, median_viewport_height: null }, has_more: false });
  });

  it("test_can_get_all_data_response", async () => {
    const rows = await results({ events: [heatmapEvent("session_1", { type: "click" }), heatmapEvent("session_2", { type: "click" })] }, { date_from: "2023-03-08" });
    expect(rows.map((r: { count: number }) => r.count)).toEqual([2]);
  });

  it("test_returns_below_the_fold_summary", async () => {
    const events = [
      heatmapEvent("s1", { type: "click", viewport_height: 640, y: 320, pointer_target_fixed: false }),
      heatmapEvent("s2", { type: "click", viewport_height: 640, y: 960, pointer_target_fixed: false }),
      heatmapEvent("s3", { type: "click", viewport_height: 640, y: 1280, pointer_target_fixed: false }),
      heatmapEvent("s4", { type: "click", viewport_height: 640, y: 960, pointer_target_fixed: true }),
    ];
    const res = await heatmap({ events }, { date_from: "2023-03-08", type: "click" });
    expect(res.body.fold).toEqual({ total_count: 3, below_fold_count: 2, pct_below_fold: 66.7, median_viewport_height: 640 });
  });

  it("test_can_get_filter_by_date_from", async () => {
    const events = [heatmapEvent("session_1", { type: "click", at: "2023-03-07T07:00:00" }), heatmapEvent("session_2", { type: "click", at: "2023-03-08T08:00:00" })];
    expect((await results({ events }, { date_from: "2023-03-08" })).map((r: { count: number }) => r.count)).toEqual([1]);
  });

  it("test_can_get_filter_by_relative_date", async () => {
    const events = [heatmapEvent("session_1", { type: "click", at: "2023-03-07T07:00:00" }), heatmapEvent("session_2", { type: "click", at: "2023-03-08T08:00:00" })];
    const now = "2023-03-15T09:00:00";
    expect((await results({ now, events }, { date_from: "-7d", date_to: "-1d" })).map((r: { count: number }) => r.count)).toEqual([1]);
    expect(await results({ now, events }, { date_from: "dStart", date_to: "dEnd" })).toEqual([]);
  });

  it("test_can_get_filter_by_click", async () => {
    const events = [
      heatmapEvent("session_1", { type: "click", at: "2023-03-08T07:00:00" }),
      heatmapEvent("session_2", { type: "rageclick", at: "2023-03-08T08:00:00" }),
      heatmapEvent("session_2", { type: "rageclick", at: "2023-03-08T08:01:00" }),
    ];
    expect((await results({ events }, { date_from: "2023-03-08", type: "click" })).map((r: { count: number }) => r.count)).toEqual([1]);
    expect((await results({ events }, { date_from: "2023-03-08", type: "rageclick" })).map((r: { count: number }) => r.count)).toEqual([2]);
  });

  describe("test_limit_and_offset_page_hottest_first", () => {
    // Three points (x 80, 48, 16 on a 100-pixel viewport: 5/6, 3/6, 1/6 of it) with 1, 2 and 3 clicks, coolest first.
    const events = [
      heatmapEvent("s3", { type: "click", at: "2023-03-08T08:00:00", x: 80 }),
      ...[1, 2].map(() => heatmapEvent("s2", { type: "click", at: "2023-03-08T08:00:00", x: 48 })),
      ...[1, 2, 3].map(() => heatmapEvent("s1", { type: "click", at: "2023-03-08T08:00:00", x: 16 })),
    ];
    const cases: [string, number | undefined, number | undefined, number[], boolean][] = [
      ["default_returns_all", undefined, undefined, [3, 2, 1], false],
      ["limit_zero_is_unbounded", 0, undefined, [3, 2, 1], false],
      ["limit_truncates_hottest_first", 2, undefined, [3, 2], true],
      ["limit_equal_to_total", 3, undefined, [3, 2, 1], false],
      ["offset_pages_into_cooler_points", 2, 1, [2, 1], false],
      ["offset_past_end_returns_empty", 2, 5, [], false],
    ];
    it.each(cases)("%s", async (_name, limit, offset, counts, hasMore) => {
      const res = await heatmap({ events }, { date_from: "2023-03-08", type: "click", ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) });
      expect(res.body.results.map((r: { count: number }) => r.count)).toEqual(counts);
      expect(res.body.has_more).toBe(hasMore);
    });
  });

  it("test_scrolldepth_ignores_limit_and_has_no_has_more", async () => {
    const events = [100, 200, 300, 400].map((y, i) => heatmapEvent(`session_${i}`, { type: "scrolldepth", at: "2023-03-08T08:00:00", y, viewport_height: 1000 }));
    const res = await heatmap({ events }, { date_from: "2023-03-08", type: "scrolldepth", limit: 1 });
    expect(res.body.results.length).toBeGreaterThan(1);
    expect(res.body).not.toHaveProperty("has_more");
  });

  it("test_can_filter_by_exact_url", async () => {
    const events = [
      heatmapEvent("session_1", { type: "rageclick", at: "2023-03-08T08:00:00", current_url: "http://example.com" }),
      heatmapEvent("session_2", { type: "rageclick", at: "2023-03-08T08:01:00", current_url: "http://example.com/about" }),
      heatmapEvent("session_3", { type: "rageclick", at: "2023-03-08T08:01:00", current_url: "http://example.com/about" }),
    ];
    const counts = async (url: string) => (await results({ events }, { date_from: "2023-03-08", url_exact: url, type: "rageclick" })).map((r: { count: number }) => r.count);
    expect(await counts("http://example.com")).toEqual([1]);
    expect(await counts("http://example.com/about")).toEqual([2]);
  });

  it.each([
    ["query_no_slash_data_no_slash", "http://example.com", "http://example.com"],
    ["query_no_slash_data_with_slash", "http://example.com", "http://example.com/"],
    ["query_with_slash_data_no_slash", "http://example.com/", "http://example.com"],
    ["query_with_slash_data_with_slash", "http://example.com/", "http://example.com/"],
  ])("test_url_exact_normalizes_trailing_slash %s", async (_name, queryUrl, dataUrl) => {
    const events = [heatmapEvent("session_1", { type: "click", at: "2023-03-08T08:00:00", current_url: dataUrl })];
    expect((await results({ events }, { date_from: "2023-03-08", url_exact: queryUrl, type: "click" })).map((r: { count: number }) => r.count)).toEqual([1]);
  });

  it("test_can_filter_by_url_pattern_where_end_is_anchored", async () => {
    const events = [
      heatmapEvent("session_2", { type: "rageclick", at: "2023-03-08T08:01:00", current_url: "http://example.com" }),
      heatmapEvent("session_1", { type: "rageclick", at: "2023-03-08T08:00:00", current_url: "http://example.com/" }),
    ];
    expect((await results({ events }, { date_from: "2023-03-08", url_pattern: "http://example.com", type: "rageclick" })).map((r: { count: number }) => r.count)).toEqual([1]);
  });

  describe("test_can_filter_by_url_pattern", () => {
    const events = [
      heatmapEvent("session_2", { type: "rageclick", at: "2023-03-08T08:01:00", current_url: "http://example.com/" }),
      heatmapEvent("session_1", { type: "rageclick", at: "2023-03-08T08:00:00", current_url: "http://example.com/products/12345/reviews/4567" }),
      heatmapEvent("session_1", { type: "rageclick", at: "2023-03-08T08:00:00", current_url: "http://example.com/products/3456/reviews/defg" }),
      heatmapEvent("session_1", { type: "rageclick", at: "2023-03-08T08:00:00", current_url: "http://example.com/products/3456/reviews/" }),
      heatmapEvent("session_3", { type: "rageclick", at: "2023-03-08T08:01:00", current_url: "http://example.com/products/12345/parts/abcd" }),
      heatmapEvent("session_3", { type: "rageclick", at: "2023-03-08T08:01:00", current_url: "http://example.com/products/3456/parts/abcd" }),
    ];
    it.each([
      ["http://example.com*", 6],
      ["http://example.com/products*", 5],
      ["http://example.com/products/1*", 2],
      ["http://example.com/products/*/reviews/*", 2],
      ["http://example.com/products/*/parts/*", 2],
      ["http://example.com/products/1*/parts/*", 1],
    ])("%s matches %i", async (pattern, matches) => {
      expect(await results({ events }, { date_from: "2023-03-08", url_pattern: "http://example.com", type: "rageclick" })).toEqual([]);
      expect((await results({ events }, { date_from: "2023-03-08", url_pattern: pattern, type: "rageclick" })).map((r: { count: number }) => r.count)).toEqual([matches]);
    });
  });

  it("test_can_get_scrolldepth_counts", async () => {
    const events = [
      heatmapEvent("session_1", { type: "scrolldepth", at: "2023-03-08T07:00:00", y: 10, viewport_height: 1000 }),
      heatmapEvent("session_2", { type: "scrolldepth", at: "2023-03-08T08:00:00", y: 100, viewport_height: 1000 }),
      heatmapEvent("session_3", { type: "scrolldepth", at: "2023-03-08T08:01:00", y: 200, viewport_height: 1000 }),
      heatmapEvent("session_4", { type: "scrolldepth", at: "2023-03-08T08:01:00", y: 300, viewport_height: 1000 }),
      heatmapEvent("session_5", { type: "scrolldepth", at: "2023-03-08T08:01:00", y: 400, viewport_height: 1000 }),
      heatmapEvent("session_6", { type: "scrolldepth", at: "2023-03-08T08:01:00", y: 500, viewport_height: 1000 }),
      heatmapEvent("session_7", { type: "scrolldepth", at: "2023-03-08T08:01:00", y: 900, viewport_height: 1000 }),
      heatmapEvent("session_8", { type: "scrolldepth", at: "2023-03-08T08:01:00", y: 900, viewport_height: 1000 }),
    ];
    const res = await heatmap({ events }, { date_from: "2023-03-06", type: "scrolldepth" });
    expect(res.body).toEqual({
      results: [
        { bucket_count: 2, cumulative_count: 8, scroll_depth_bucket: 1000 },
        { bucket_count: 1, cumulative_count: 6, scroll_depth_bucket: 1100 },
        { bucket_count: 1, cumulative_count: 5, scroll_depth_bucket: 1200 },
        { bucket_count: 1, cumulative_count: 4, scroll_depth_bucket: 1300 },
        { bucket_count: 1, cumulative_count: 3, scroll_depth_bucket: 1400 },
        { bucket_count: 2, cumulative_count: 2, scroll_depth_bucket: 1800 },
      ],
    });
  });

  it("test_can_get_scrolldepth_counts_by_visitor", async () => {
    const events = [
      heatmapEvent("session_1", { type: "scrolldepth", at: "2023-03-08T07:00:00", y: 100, viewport_height: 1000, distinct_id: "12345" }),
      heatmapEvent("session_2", { type: "scrolldepth", at: "2023-03-08T08:00:00", y: 100, viewport_height: 1000, distinct_id: "34567" }),
      heatmapEvent("session_3", { type: "scrolldepth", at: "2023-03-08T08:01:00", y: 200, viewport_height: 1000, distinct_id: "12345" }),
    ];
    const res = await heatmap({ events }, { date_from: "2023-03-06", type: "scrolldepth", aggregation: "unique_visitors" });
    expect(res.body).toEqual({
      results: [
        { bucket_count: 2, cumulative_count: 3, scroll_depth_bucket: 1000 },
        { bucket_count: 1, cumulative_count: 1, scroll_depth_bucket: 1100 },
      ],
    });
  });

  describe("test_can_filter_by_viewport", () => {
    // Every x is round(10/16) = 1; widths 150 and 151 scale to 9, 152 and 161 to 10, 177 to 11, 193 to 12.
    const events = [
      heatmapEvent("session_1", { type: "click", at: "2023-03-08T08:00:00", viewport_width: 150 }),
      heatmapEvent("session_2", { type: "click", at: "2023-03-08T08:00:00", viewport_width: 151 }),
      heatmapEvent("session_3", { type: "click", at: "2023-03-08T08:01:00", viewport_width: 152 }),
      heatmapEvent("session_4", { type: "click", at: "2023-03-08T08:01:00", viewport_width: 161 }),
      heatmapEvent("session_3", { type: "click", at: "2023-03-08T08:01:00", viewport_width: 177 }),
      heatmapEvent("session_3", { type: "click", at: "2023-03-08T08:01:00", viewport_width: 193 }),
    ];
    it.each([
      ["min_150", { viewport_width_min: "150" }, [point(0.08, 1), point(0.09, 1), point(0.1, 2), point(0.11, 2)]],
      ["min_161", { viewport_width_min: "161" }, [point(0.08, 1), point(0.09, 1), point(0.1, 2)]],
      ["min_177", { viewport_width_min: "177" }, [point(0.08, 1), point(0.09, 1)]],
      ["min_201", { viewport_width_min: "201" }, []],
      ["min_161_and_max_192", { viewport_width_min: 161, viewport_width_max: 192 }, [point(0.08, 1), point(0.09, 1), point(0.1, 2)]],
    ])("%s", async (_name, params, expected) => {
      expect(byX(await results({ events }, { date_from: "2023-03-08", ...params }))).toEqual(expected);
    });
  });

  const TEST_ACCOUNT_FILTERS = [{ key: "$host", value: "127.0.0.1", operator: "not_icontains", type: "event" }];

  it("test_can_filter_by_test_accounts", async () => {
    const events = [
      heatmapEvent("session_1", { type: "click", at: "2023-03-08T08:00:00", viewport_width: 100, x: 5, y: 10, host: "127.0.0.1" }),
      heatmapEvent("session_2", { type: "click", at: "2023-03-08T08:00:00", viewport_width: 100, x: 5, y: 10, host: "127.0.0.1" }),
      heatmapEvent("session_3", { type: "click", at: "2023-03-08T08:01:00", viewport_width: 100, viewport_height: 100, x: 100, y: 10, host: "posthog.com" }),
      pageview("session_1", "2023-03-08T08:00:00", "127.0.0.1"),
      pageview("session_2", "2023-03-08T08:00:00", "127.0.0.1"),
      pageview("session_3", "2023-03-08T08:01:00", "posthog.com"),
    ];
    const data = { events, testAccountFilters: TEST_ACCOUNT_FILTERS };
    expect(byX(await results(data, { date_from: "2023-03-08", filter_test_accounts: "True" }))).toEqual([point(1, 1)]);
    expect(byX(await results(data, { date_from: "2023-03-08" }))).toEqual([point(0, 2), point(1, 1)]);
  });

  it.each([
    ["explicit_same_day", { date_from: "2023-03-08", date_to: "2023-03-08" }],
    ["relative_today", { date_from: "dStart" }],
    ["relative_today_start_end", { date_from: "dStart", date_to: "dEnd" }],
  ])("test_filter_test_accounts_returns_data_for_single_day_range %s", async (_name, params) => {
    const events = [
      heatmapEvent("session_1", { type: "click", at: "2023-03-08T09:00:00", viewport_width: 100, x: 5, y: 10, host: "posthog.com" }),
      pageview("session_1", "2023-03-08T09:00:00", "posthog.com"),
    ];
    const data = { now: "2023-03-08T13:00:00", events, testAccountFilters: TEST_ACCOUNT_FILTERS };
    expect(await results(data, { ...params, filter_test_accounts: "True" })).toEqual([point(0, 1)]);
  });

  it("test_can_get_count_by_aggregation", async () => {
    const events = [
      heatmapEvent("session_1", { type: "click", distinct_id: "12345" }),
      heatmapEvent("session_2", { type: "click", distinct_id: "12345" }),
      heatmapEvent("session_3", { type: "click", distinct_id: "54321" }),
    ];
    expect((await results({ events }, { date_from: "2023-03-08" })).map((r: { count: number }) => r.count)).toEqual([3]);
    expect((await results({ events }, { date_from: "2023-03-08", aggregation: "unique_visitors" })).map((r: { count: number }) => r.count)).toEqual([2]);
  });

  it.each([
    // PostHog sends Python's str() of each choice in the query string: True, False, None, 1, 0, a dict.
    ["boolean_true_is_valid", "True", 200],
    ["boolean_false_is_valid", "False", 200],
    ["none_is_invalid", "None", 400],
    ["empty_string_is_valid_because_it_is_none", "", 200],
    ["whitespace_string_is_invalid", "     ", 400],
    ["number_one_is_valid", "1", 200],
    ["number_zero_is_valid", "0", 200],
    ["dict_is_invalid", "{'test': 'test'}", 400],
    ["dict_with_filter_key_is_invalid", "{'filterTestAccounts': 'test'}", 400],
  ])("test_only_allow_valid_values_for_filter_test_accounts %s", async (_name, choice, status) => {
    const res = await heatmap({ events: [] }, { date_from: "2023-03-08", filter_test_accounts: choice });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.attr).toBe("filter_test_accounts");
    else expect(res.body.results).toEqual([]);
  });

  it.each([
    ["total_count", 200],
    ["unique_visitors", 200],
    ["direction", 400],
    ["", 200],
    ["     ", 400],
    ["None", 400],
  ])("test_only_allow_valid_values_for_aggregation %j", async (choice, status) => {
    const res = await heatmap({ events: [] }, { date_from: "2023-03-08", aggregation: choice });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.attr).toBe("aggregation");
  });

  it.each([
    ["explicit_true", { date_from: "2023-03-08", hide_zero_coordinates: "true" }],
    ["default", { date_from: "2023-03-08" }],
  ])("test_hide_zero_coordinates_filters_out_zero_zero_events %s", async (_name, params) => {
    const events = [heatmapEvent("session_1", { type: "click", x: 0, y: 0 }), heatmapEvent("session_2", { type: "click", x: 10, y: 20 })];
    expect((await results({ events }, params)).map((r: { count: number }) => r.count)).toEqual([1]);
  });

  it("test_hide_zero_coordinates_false_includes_zero_zero", async () => {
    const events = [heatmapEvent("session_1", { type: "click", x: 0, y: 0 }), heatmapEvent("session_2", { type: "click", x: 10, y: 20 })];
    expect(await results({ events }, { date_from: "2023-03-08", hide_zero_coordinates: "false" })).toHaveLength(2);
  });

  it("test_hide_zero_coordinates_not_applied_to_scrolldepth", async () => {
    const events = [heatmapEvent("session_1", { type: "scrolldepth", x: 0, y: 0 })];
    expect(await results({ events }, { date_from: "2023-03-08", type: "scrolldepth" })).toHaveLength(1);
  });

});

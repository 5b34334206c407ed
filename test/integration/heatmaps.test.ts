/**
 * The heatmaps list over events captured as posthog-js sends them (`$$heatmap` with `$heatmap_data`, and the
 * previous page's scroll depth on `$pageview`), on features.json (frozen at 2024-05-01T12:00Z; project 1 has the
 * token phc_test_features_token_0001, project 2 phc_test_features_token_0002): the capture path keeps the data,
 * both doors answer it, bad input is a 400 naming the field, and a restart from the data file keeps it. Every
 * response is validated against its document. Expected numbers worked out by hand in each case.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { callServer, qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

const TOKEN = "phc_test_features_token_0001";
const OTHER_TOKEN = "phc_test_features_token_0002";
const P = "/api/projects/1";
const E = "/api/environments/1";
const PAGE = "https://shop.example/pricing?plan=pro";

/** posthog-js's `$$heatmap` flush: its buffer by page URL, with the usual page properties. */
const heatmapEvent = (distinctId: string, session: string, items: object[], token = TOKEN, timestamp = "2024-05-01T10:00:00Z") => ({
  event: "$$heatmap",
  distinct_id: distinctId,
  timestamp,
  properties: { token, $session_id: session, $viewport_width: 1280, $viewport_height: 720, $current_url: PAGE, $host: "shop.example", $heatmap_data: { [PAGE]: items } },
});
const click = (x: number, y: number, target_fixed = false) => ({ x, y, target_fixed, type: "click" });

const capture = (base: string, events: object[]) =>
  captureRequest(base, "POST", "/e/", { body: JSON.stringify({ api_key: TOKEN, batch: events }), headers: { "content-type": "application/json" } });

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("features"));
});
afterEach(() => s.close());

const heatmap = (params: Record<string, unknown>, prefix = P) => s.get(`${prefix}/heatmaps/?${qs({ date_from: "2024-05-01", ...params })}`);

describe("heatmaps from captured events", () => {
  it("stores the $$heatmap event whole and answers its clicks on both doors", async () => {
    // 640/16 = 40 of 1280/16 = 80: x 0.5; 352/16 = 22: y 352. 160/16 = 10 of 80 = 0.125: 0.12 (halves to even); 48/16 = 3: y 48.
    expect((await capture(s.base, [heatmapEvent("ann", "s1", [click(640, 352), click(640, 352), click(160, 48, true)]), heatmapEvent("bob", "s2", [click(640, 352)])])).status).toBe(200);
    const stored = (await s.get(`${P}/events/?event=%24%24heatmap`)).body.results;
    expect(stored).toHaveLength(2);
    expect(stored.map((e: { properties: Record<string, unknown> }) => e.properties.$heatmap_data)).toContainEqual({ [PAGE]: [click(640, 352), click(640, 352), click(160, 48, true)] });

    const project = await heatmap({});
    expect(project.status).toBe(200);
    expect(project.body).toEqual({
      results: [
        { count: 3, pointer_relative_x: 0.5, pointer_y: 352, pointer_target_fixed: false },
        { count: 1, pointer_relative_x: 0.12, pointer_y: 48, pointer_target_fixed: true },
      ],
      // 720 px viewports: none of the three scrolling clicks (y 22 ≤ 45 on the grid) is below the fold.
      fold: { total_count: 3, below_fold_count: 0, pct_below_fold: 0, median_viewport_height: 720 },
      has_more: false,
    });
    expect((await heatmap({}, E)).body).toEqual(project.body);
    expect((await heatmap({ aggregation: "unique_visitors" })).body.results.map((r: { count: number }) => r.count)).toEqual([2, 1]);
  });

  it("keeps each project's data to itself", async () => {
    await capture(s.base, [heatmapEvent("ann", "s1", [click(640, 352)])]);
    await captureRequest(s.base, "POST", "/e/", { body: JSON.stringify({ api_key: OTHER_TOKEN, batch: [heatmapEvent("zed", "s9", [click(640, 352)], OTHER_TOKEN)] }), headers: { "content-type": "application/json" } });
    expect((await heatmap({})).body.results.map((r: { count: number }) => r.count)).toEqual([1]);
    expect((await heatmap({}, "/api/projects/2")).body.results.map((r: { count: number }) => r.count)).toEqual([1]);
  });

  it("answers the previous page's scroll depth that a $pageview carries", async () => {
    const pageview = {
      event: "$pageview",
      distinct_id: "ann",
      timestamp: "2024-05-01T10:00:00Z",
      properties: { token: TOKEN, $session_id: "s1", $viewport_width: 1280, $viewport_height: 720, $current_url: "https://shop.example/checkout", $prev_pageview_pathname: "/pricing", $prev_pageview_max_scroll: 1500 },
    };
    await capture(s.base, [pageview]);
    // (1500/16 = 93.75 → 94) + 45 = 139 on the grid: 2224 px, band 2200.
    expect((await heatmap({ type: "scrolldepth", url_exact: "https://shop.example/pricing" })).body).toEqual({
      results: [{ scroll_depth_bucket: 2200, bucket_count: 1, cumulative_count: 1 }],
    });
  });

  it("filters by URL pattern (RE2) and cohort", async () => {
    await capture(s.base, [heatmapEvent("known-user", "s1", [click(640, 352)]), heatmapEvent("ann", "s2", [click(640, 352)])]);
    expect((await heatmap({ url_pattern: "https://shop.example/pricing*" })).body.results.map((r: { count: number }) => r.count)).toEqual([2]);
    expect((await heatmap({ url_pattern: "https://shop.example/checkout*" })).body.results).toEqual([]);
    const cohort = await s.post(`${P}/cohorts/`, { name: "Known", is_static: true });
    expect(cohort.status, cohort.text).toBe(201);
    expect((await s.patch(`${P}/cohorts/${cohort.body.id}/add_persons_to_static_cohort/`, { person_ids: [(await s.get(`${P}/persons/?distinct_id=known-user`)).body.results[0].uuid] })).status).toBe(200);
    expect((await heatmap({ cohort_ids: JSON.stringify([cohort.body.id]) })).body.results.map((r: { count: number }) => r.count)).toEqual([1]);
  });

  it.each([
    ["date_from", { date_from: "yesterday-ish" }],
    ["date_to", { date_to: "soon" }],
    ["aggregation", { aggregation: "sum" }],
    ["url_pattern", { url_pattern: "(a" }],
    ["url_pattern", { url_pattern: "(?=x)" }],
    ["url_exact", { url_exact: "   " }],
    ["type", { type: "  " }],
    ["viewport_width_min", { viewport_width_min: "wide" }],
    ["limit", { limit: -1 }],
    ["limit", { limit: 1_000_001 }],
    ["offset", { offset: "x" }],
    ["hide_zero_coordinates", { hide_zero_coordinates: "maybe" }],
    ["filter_test_accounts", { filter_test_accounts: "None" }],
    ["cohort_ids", { cohort_ids: "[1," }],
    ["cohort_ids", { cohort_ids: '["a"]' }],
    ["cohort_ids", { cohort_ids: "[999]" }],
  ])("refuses a bad %s with a 400 naming it", async (attr, params) => {
    const res = await heatmap(params);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr });
  });

  it("reads an empty parameter as an absent one", async () => {
    await capture(s.base, [heatmapEvent("ann", "s1", [click(640, 352)])]);
    const res = await s.get(`${P}/heatmaps/?date_from=2024-05-01&type=&aggregation=&url_exact=&viewport_width_min=&limit=`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: { count: number }) => r.count)).toEqual([1]);
  });
});

describe("across a restart", () => {
  let running: StartedServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  const features = fileURLToPath(new URL("../../fixtures/scenarios/features.json", import.meta.url));
  const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent", "--now", "2024-05-01T12:00:00Z"])!, createLogger("silent"));

  it("keeps the heatmap data: it is the stored events", async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-heatmaps-")), "db.json");
    running = await start(["--data", data, "--fixtures", features]);
    expect((await capture(running.url, [heatmapEvent("ann", "s1", [click(640, 352), click(160, 48, true)])])).status).toBe(200);
    const before = await callServer(running.url, "GET", `${P}/heatmaps/?date_from=2024-05-01`);
    expect(before.body.results).toHaveLength(2);
    await running.close();

    running = await start(["--data", data]);
    expect(running.source).toBe("data-file");
    expect((await callServer(running.url, "GET", `${P}/heatmaps/?date_from=2024-05-01`)).body).toEqual(before.body);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * The analysis endpoints over HTTP on fixtures/scenarios/basic.json: the §2.8 data of the analytics reference,
 * clock frozen at 2024-03-05T12:00Z. Every expected number is worked out in the reference (or by hand below).
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";


const march = { date_from: "2024-03-01", date_to: "2024-03-03" };
const pageviews = { events: [{ id: "$pageview", type: "events", order: 0 }], ...march };
const shop = {
  events: ["$pageview", "signup", "purchase"].map((id, order) => ({ id, type: "events", order })),
  date_from: "2024-03-01",
  date_to: "2024-03-04",
};

describe("trends over HTTP (reference §2.8)", () => {
  it("POST counts pageviews per day", async () => {
    const res = await s.post(`${P}/insights/trend/`, pageviews);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ timezone: "UTC", is_cached: false, last_refresh: "2024-03-05T12:00:00.000Z", timings: [], next: null });
    expect(res.body.result).toHaveLength(1);
    expect(res.body.result[0]).toMatchObject({ label: "$pageview", count: 5, data: [3, 1, 1], days: ["2024-03-01", "2024-03-02", "2024-03-03"], labels: ["1-Mar-2024", "2-Mar-2024", "3-Mar-2024"] });
  });

  it.each([
    ["dau", { events: [{ id: "$pageview", math: "dau" }] }, [[2, 1, 1]]],
    ["sum of amount", { events: [{ id: "purchase", math: "sum", math_property: "amount" }] }, [[50, 0, 30]]],
    ["breakdown by $browser: Chrome, Firefox, Safari", { breakdown: "$browser" }, [[2, 0, 1], [0, 1, 0], [1, 0, 0]]],
  ])("POST %s", async (_name, extra, want) => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, ...extra });
    expect(res.body.result.map((i: { data: number[] }) => i.data)).toEqual(want);
  });

  it("POST BoldNumber with dau is one unique count over the range", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, events: [{ id: "$pageview", math: "dau" }], display: "BoldNumber" });
    expect(res.body.result[0]).toMatchObject({ aggregated_value: 3, data: [], days: [], count: 0 });
  });

  it("GET takes the same filter with JSON-encoded lists", async () => {
    const res = await s.get(`${P}/insights/trend/?${qs({ ...pageviews, breakdown: "$browser", properties: [{ key: "$browser", value: ["Chrome", "Safari"] }] })}`);
    expect(res.status).toBe(200);
    expect(res.body.result.map((i: { label: string; data: number[] }) => [i.label, i.data])).toEqual([["Chrome", [2, 0, 1]], ["Safari", [1, 0, 0]]]);
  });

  it("answers an identical request from the cache until refresh=true", async () => {
    const first = await s.post(`${P}/insights/trend/`, pageviews);
    s.clock.set?.(Date.parse("2024-03-05T12:05:00Z"));
    const second = await s.post(`${P}/insights/trend/`, pageviews);
    expect([first.body.is_cached, second.body.is_cached]).toEqual([false, true]);
    expect(second.body.last_refresh).toBe(first.body.last_refresh);
    expect(second.body.result).toEqual(first.body.result);
    const fresh = await s.post(`${P}/insights/trend/?refresh=true`, pageviews);
    expect(fresh.body.is_cached).toBe(false);
    const other = await s.get(`${P}/insights/trend/?${qs(pageviews)}`);
    expect(other.body.is_cached).toBe(true);
  });

  it.each([
    ["a formula with an unknown letter", { ...pageviews, formula: "A+C" }, "formula"],
    ["a formula calling a function", { ...pageviews, formula: "sqrt(A)" }, "formula"],
    ["no series", { ...march }, "events"],
    ["an unknown math", { ...pageviews, events: [{ id: "$pageview", math: "mode" }] }, "events__0__math"],
    ["an unknown property operator", { ...pageviews, properties: [{ key: "$browser", value: "x", operator: "sounds_like" }] }, "properties__0__operator"],
  ])("POST with %s is a 400 naming the field", async (_name, body, attr) => {
    const res = await s.post(`${P}/insights/trend/`, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr });
  });

  it("GET with invalid JSON in a parameter is a 400 naming it", async () => {
    const res = await s.get(`${P}/insights/trend/?events=${encodeURIComponent('[{"id": "$pageview"')}&date_from=2024-03-01`);
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("events");
  });

  it("GET validates decoded fields against the body schema", async () => {
    const res = await s.get(`${P}/insights/trend/?${qs({ ...pageviews, events: [{ id: "$pageview", order: "first" }] })}`);
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("events__0__order");
  });
});

describe("funnels over HTTP (reference §5.5)", () => {
  it.each([
    ["ordered, window 1 day", { funnel_window_interval: 1, funnel_window_interval_unit: "day" }, [3, 2, 1], [null, 1200, 3000]],
    ["ordered, window 14 days", { funnel_window_interval: 14, funnel_window_interval_unit: "day" }, [3, 2, 2], [null, 1200, 45600]],
    ["strict, 14 days", { funnel_order_type: "strict" }, [3, 1, 1], [null, 600, 3000]],
    ["ordered, 14 days, exclusion $pageleave 0→1", { exclusions: [{ id: "$pageleave", type: "events", funnel_from_step: 0, funnel_to_step: 1 }] }, [2, 1, 1], [null, 600, 3000]],
  ])("POST %s", async (_name, extra, counts, averages) => {
    const res = await s.post(`${P}/insights/funnel/`, { ...shop, ...extra });
    expect(res.status).toBe(200);
    expect(res.body.result.map((step: { count: number }) => step.count)).toEqual(counts);
    expect(res.body.result.map((step: { average_conversion_time: number | null }) => step.average_conversion_time)).toEqual(averages);
  });

  it("GET takes the same filter, and the step objects carry the legacy fields", async () => {
    const res = await s.get(`${P}/insights/funnel/?${qs({ ...shop, funnel_window_interval: 1, funnel_window_interval_unit: "day" })}`);
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty("next");
    expect(res.body.result[1]).toMatchObject({ action_id: "signup", name: "signup", order: 1, type: "events", people: [], count: 2, median_conversion_time: 1200 });
  });

  it("caches like trends", async () => {
    const first = await s.post(`${P}/insights/funnel/`, shop);
    const second = await s.post(`${P}/insights/funnel/`, shop);
    const refreshed = await s.post(`${P}/insights/funnel/?refresh=true`, shop);
    expect([first.body.is_cached, second.body.is_cached, refreshed.body.is_cached]).toEqual([false, true, false]);
  });

  it.each([
    ["funnel_from_step out of range", { funnel_viz_type: "trends", funnel_from_step: 2 }, "funnel_from_step"],
    ["funnel_to_step before funnel_from_step", { funnel_viz_type: "trends", funnel_from_step: 1, funnel_to_step: 1 }, "funnel_to_step"],
    ["one step", { events: [{ id: "$pageview" }] }, "events"],
    ["an exclusion of a step", { exclusions: [{ id: "signup", type: "events", funnel_from_step: 0, funnel_to_step: 1 }] }, "exclusions__0__id"],
  ])("POST with %s is a 400 naming the field", async (_name, extra, attr) => {
    const res = await s.post(`${P}/insights/funnel/`, { ...shop, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe(attr);
  });

  it("no series at all is a 400 on events", async () => {
    const res = await s.post(`${P}/insights/funnel/`, { date_from: "2024-03-01" });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("events");
  });
});

describe("stickiness and lifecycle through /insights/trend/ (reference §3, §4)", () => {
  it("insight STICKINESS: A on 2 days, B and C on 1; 3 buckets give 3 positions", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, insight: "STICKINESS" });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual([expect.objectContaining({ label: "$pageview", count: 3, data: [2, 1, 0], days: [1, 2, 3], labels: ["1 day", "2 days", "3 days"] })]);
  });

  it("shown_as Stickiness in the GET form", async () => {
    const res = await s.get(`${P}/insights/trend/?${qs({ ...pageviews, shown_as: "Stickiness" })}`);
    expect(res.body.result[0].data).toEqual([2, 1, 0]);
    const volume = await s.get(`${P}/insights/trend/?${qs({ ...pageviews, shown_as: "Volume" })}`);
    expect(volume.body.result[0].data).toEqual([3, 1, 1]);
  });

  it("insight LIFECYCLE: the reference example, 1–4 March", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, date_to: "2024-03-04", insight: "LIFECYCLE" });
    expect(res.status).toBe(200);
    expect(res.body.result.map((i: { label: string; status: string; data: number[]; count: number }) => [i.label, i.status, i.data, i.count])).toEqual([
      ["$pageview - new", "new", [2, 1, 0, 0], 3],
      ["$pageview - returning", "returning", [0, 0, 0, 0], 0],
      ["$pageview - resurrecting", "resurrecting", [0, 0, 1, 0], 1],
      ["$pageview - dormant", "dormant", [0, -2, -1, -1], -4],
    ]);
  });

  it("shown_as Lifecycle with two series is a 400 on events", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...march, shown_as: "Lifecycle", events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }] });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("events");
  });
});

describe("retention (reference §7)", () => {
  const daily = { period: "Day", total_intervals: 3, date_to: "2024-03-03" };

  it("GET recurring $pageview, 3 days to 3 March: the reference table, every cohort with 3 values", async () => {
    const res = await s.get(`${P}/insights/retention/?${qs(daily)}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ timezone: "UTC", is_cached: false });
    expect(res.body).not.toHaveProperty("next");
    expect(res.body.result.map((r: { label: string; date: string; values: { count: number }[] }) => [r.label, r.date, r.values.map((v) => v.count)])).toEqual([
      ["Day 0", "2024-03-01T00:00:00Z", [2, 0, 1]],
      ["Day 1", "2024-03-02T00:00:00Z", [1, 0, 0]],
      ["Day 2", "2024-03-03T00:00:00Z", [1, 0, 0]],
    ]);
  });

  it("GET with JSON-encoded entities: signup then purchase, first time", async () => {
    const filter = { ...daily, target_entity: { id: "signup", type: "events" }, returning_entity: { id: "purchase", type: "events" }, retention_type: "retention_first_time" };
    const res = await s.get(`${P}/insights/retention/?${qs(filter)}`);
    expect(res.body.result.map((r: { values: { count: number }[] }) => r.values.map((v) => v.count))).toEqual([[1, 0, 0], [1, 1, 0], [0, 0, 0]]);
  });

  it.each([
    ["period", { period: "Fortnight" }],
    ["total_intervals", { total_intervals: 0 }],
    ["target_entity", { target_entity: "{not json" }],
  ])("a bad %s is a 400 naming it", async (attr, extra) => {
    const res = await s.get(`${P}/insights/retention/?${qs({ ...daily, ...extra })}`);
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe(attr);
  });
});

describe("paths (reference §8)", () => {
  // No basic pageview has a $current_url, so a pageview is the empty item "" (PostHog's ifNull(url, '')).
  // A: "" 08:00, signup 08:10 | purchase 09:00 (50 min later: a new session) …; B: "" 09:00, $pageleave 09:10,
  // signup 09:30 | purchase next day; C: "" alone.
  const want = [
    { source: "1_", target: "2_$pageleave", value: 1, average_conversion_time: 600_000 },
    { source: "1_", target: "2_signup", value: 1, average_conversion_time: 600_000 },
    { source: "2_$pageleave", target: "3_signup", value: 1, average_conversion_time: 1_200_000 },
  ];

  it("POST every event type, 1–4 March", async () => {
    const res = await s.post(`${P}/insights/path/`, { ...shop, events: undefined });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual(want);
  });

  it("GET with JSON-encoded lists: custom events only, the empty item excluded", async () => {
    const res = await s.get(`${P}/insights/path/?${qs({ date_from: "2024-03-01", date_to: "2024-03-04", include_event_types: ["$pageview", "custom_event"], exclude_events: [""] })}`);
    expect(res.status).toBe(200);
    // B's $pageleave is no longer an item: signup alone; A's signup and purchase are 50 minutes apart.
    expect(res.body.result).toEqual([]);
  });

  it("funnel_paths is a 400: not modelled", async () => {
    const res = await s.post(`${P}/insights/path/`, { funnel_paths: "funnel_path_after_step", funnel_filter: shop });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("funnel_paths");
  });
});

describe("funnel correlation (reference §6)", () => {
  const buying = { events: [{ id: "$pageview", type: "events", order: 0 }, { id: "purchase", type: "events", order: 1 }], date_from: "2024-03-01", date_to: "2024-03-04" };

  it("POST: signup and $pageleave go with buying", async () => {
    const res = await s.post(`${P}/insights/funnel/correlation/`, buying);
    expect(res.status).toBe(200);
    expect(res.body.result.skewed).toBe(false);
    expect(res.body.result.events.map((e: any) => [e.event.event, e.success_count, e.failure_count, e.odds_ratio, e.correlation_type])).toEqual([
      ["signup", 2, 0, 6, "success"],
      ["$pageleave", 1, 0, 2, "success"],
    ]);
  });

  it("GET with person properties: a@corp.io and b@corp.io bought, c did not", async () => {
    const res = await s.get(`${P}/insights/funnel/correlation/?${qs({ ...buying, funnel_correlation_type: "properties", funnel_correlation_names: ["plan"] })}`);
    expect(res.status).toBe(200);
    // plan::pro (A) and plan::free (B): s 1, f 0 of S 2, F 1 ⇒ (2·2)/(2·1) = 2 each; C has no plan, the value ""
    // (PostHog test_funnel_correlation.py::test_correlation_with_multiple_properties): s 0, f 1 ⇒ (1·1)/(3·2) = 1/6.
    expect(res.body.result.events.map((e: any) => [e.event.event, e.odds_ratio])).toEqual([["plan::free", 2], ["plan::pro", 2], ["plan::", 1 / 6]]);
  });

  it("a properties correlation without names is a 400", async () => {
    const res = await s.post(`${P}/insights/funnel/correlation/`, { ...buying, funnel_correlation_type: "properties" });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("funnel_correlation_names");
  });
});

describe("saved insights of every kind compute their result", () => {
  it.each([
    ["filters RETENTION", { filters: { insight: "RETENTION", period: "Day", total_intervals: 3, date_to: "2024-03-03" } }, (r: any) => r.map((c: any) => c.values[0].count), [2, 1, 1]],
    ["filters STICKINESS", { filters: { insight: "STICKINESS", ...pageviews } }, (r: any) => r[0].data, [2, 1, 0]],
    ["filters LIFECYCLE", { filters: { insight: "LIFECYCLE", ...pageviews, date_to: "2024-03-04" } }, (r: any) => r.map((i: any) => i.count), [3, 0, 1, -4]],
    ["filters PATHS", { filters: { insight: "PATHS", date_from: "2024-03-01", date_to: "2024-03-04" } }, (r: any) => r.length, 3],
    ["query RetentionQuery", { query: { kind: "InsightVizNode", source: { kind: "RetentionQuery", dateRange: { date_to: "2024-03-03" }, retentionFilter: { period: "Day", totalIntervals: 3, retentionType: "retention_recurring", targetEntity: { id: "$pageview", type: "events" } } } } }, (r: any) => r.map((c: any) => c.values.map((v: any) => v.count)), [[2, 0, 1], [1, 0, 0], [1, 0, 0]]],
    ["query StickinessQuery", { query: { kind: "InsightVizNode", source: { kind: "StickinessQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" }, interval: "day" } } }, (r: any) => r[0].data, [2, 1, 0]],
    ["query LifecycleQuery", { query: { kind: "InsightVizNode", source: { kind: "LifecycleQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-04" }, lifecycleFilter: { toggledLifecycles: ["new", "dormant"] } } } }, (r: any) => r.map((i: any) => i.status), ["new", "returning", "resurrecting", "dormant"]],
    ["query PathsQuery", { query: { kind: "InsightVizNode", source: { kind: "PathsQuery", dateRange: { date_from: "2024-03-01", date_to: "2024-03-04" }, pathsFilter: { includeEventTypes: ["custom_event"], stepLimit: 5 } } } }, (r: any) => r, []],
  ])("%s", async (_name, body, pick, want) => {
    const created = await s.post(`${P}/insights/`, { name: "x", ...body });
    expect(created.status).toBe(201);
    const res = await s.get(`${P}/insights/${created.body.id}/`);
    expect(res.status).toBe(200);
    expect(pick(res.body.result)).toEqual(want);
  });
});

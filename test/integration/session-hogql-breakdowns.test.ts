import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCsv } from "../support/csv-parse.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Session and HogQL breakdowns, math hogql, over fixtures/scenarios/sessions.json (clock 2024-03-05T12:00Z, UTC).
 * Sessions worked out by hand from the events:
 *   S1 ann: $pageview 03-01 10:00:00 /home?ref=x, $autocapture 10:00:05, purchase 10:02:00 /checkout (amount 30)
 *           → duration 120, entry /home, exit /checkout, 1 pageview + 1 autocapture → not a bounce
 *   S2 bob: $pageview 03-01 12:00 /pricing → duration 0, 1 pageview → bounce
 *   S3 bob: $pageview 03-02 09:00:00 /home, $pageview 09:00:30 /pricing, purchase 09:01:00 /checkout (20)
 *           → duration 60, 2 pageviews → not a bounce
 *   S4 cy:  signup 03-02 15:00:00 (no URL), $pageview 15:00:05 /home → entry URL null (first event has none),
 *           duration 5, 1 pageview → bounce
 *   no session: cy $pageview 03-03 08:00 /blog
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(scenario("sessions"));
});
afterAll(() => s.close());

const P = "/api/projects/1";
const range = { date_from: "2024-03-01", date_to: "2024-03-03" };
const pageviews = { events: [{ id: "$pageview", type: "events", order: 0 }], ...range };
const purchases = { events: [{ id: "purchase", type: "events", order: 0 }], ...range };
const NULL = "$$_posthog_breakdown_null_$$";

const rows = (body: { result: { breakdown_value?: unknown; data: number[] }[] }) => body.result.map((i) => [i.breakdown_value, i.data]);

describe("breakdown_type session", () => {
  it.each([
    ["$entry_pathname", pageviews, [["/home", [1, 2, 0]], ["/pricing", [1, 0, 0]], [NULL, [0, 1, 1]]]],
    ["$exit_pathname", pageviews, [["/checkout", [1, 2, 0]], ["/home", [0, 1, 0]], ["/pricing", [1, 0, 0]], [NULL, [0, 0, 1]]]],
    ["$is_bounce", pageviews, [["false", [1, 2, 0]], ["true", [1, 1, 0]], [NULL, [0, 0, 1]]]],
    // S1, S2 and S4 have one pageview (e1, e4 on 03-01; e9 on 03-02), S3 two (e5, e6 on 03-02). The session-less
    // pageview reads 0, the real service's LEFT JOIN default for a count (a null URL or $is_bounce stays null).
    ["$pageview_count", pageviews, [["1", [2, 1, 0]], ["2", [0, 2, 0]], ["0", [0, 0, 1]]]],
    // Ties (one event each) by value ascending, as strings: "120" before "60".
    ["$session_duration", purchases, [["120", [1, 0, 0]], ["60", [0, 1, 0]]]],
    ["$entry_current_url", purchases, [["https://shop.io/home", [0, 1, 0]], ["https://shop.io/home?ref=x", [1, 0, 0]]]],
  ])("%s", async (key, filter, want) => {
    const res = await s.post(`${P}/insights/trend/`, { ...filter, breakdown: key, breakdown_type: "session" });
    expect(res.status).toBe(200);
    expect(rows(res.body)).toEqual(want);
  });

  it("$session_duration in two histogram bins: [0,60] holds 0 and 5 s and the session-less 0, [60,120.01] holds 60 and 120 s", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: "$session_duration", breakdown_type: "session", breakdown_histogram_bin_count: 2 });
    // Bins are ranked by their totals like values (PostHog test_trends.py::test_unique_session_with_session_breakdown),
    // ties (3 each) by value ascending; the session-less pageview's duration is 0 (the LEFT JOIN default).
    expect(rows(res.body)).toEqual([["[0,60]", [1, 1, 1]], ["[60,120.01]", [1, 2, 0]]]);
  });

  it("HogQL's session join reads the session-less pageview as the breakdown does: duration and count 0, bounce null", async () => {
    const query = "SELECT session.$session_duration, session.$pageview_count, session.$is_bounce FROM events WHERE properties.$current_url = 'https://shop.io/blog'";
    const res = await s.post(`${P}/query/`, { query: { kind: "HogQLQuery", query } });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([[0, 0, null]]);
  });

  it("the trend's $session_duration and $pageview_count breakdowns count what HogQL's session join groups", async () => {
    for (const key of ["$session_duration", "$pageview_count"]) {
      const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: key, breakdown_type: "session" });
      const trend = Object.fromEntries(res.body.result.map((i: { breakdown_value: string; count: number }) => [i.breakdown_value, i.count]));
      const query = `SELECT toString(session.${key}) AS v, count() FROM events WHERE event = '$pageview' AND timestamp >= '2024-03-01' AND timestamp < '2024-03-04' GROUP BY v`;
      const sql = await s.post(`${P}/query/`, { query: { kind: "HogQLQuery", query } });
      expect(sql.status).toBe(200);
      expect(trend).toEqual(Object.fromEntries(sql.body.results));
    }
  });

  it("the GET form takes the same filter", async () => {
    const q = new URLSearchParams({ events: JSON.stringify(purchases.events), ...range, breakdown: "$exit_pathname", breakdown_type: "session" });
    const res = await s.get(`${P}/insights/trend/?${q}`);
    expect(rows(res.body)).toEqual([["/checkout", [1, 1, 0]]]);
  });

  it.each([
    ["$vitals_lcp", /not derived by this server/],
    ["$made_up", /not a session property/],
  ])("%s is a 400 naming breakdown", async (key, detail) => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: key, breakdown_type: "session" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr: "breakdown" });
    expect(res.body.detail).toMatch(detail);
  });
});

describe("breakdown_type hogql", () => {
  it("concat of an event and a person property; ties by value ascending", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: "concat(properties.$browser, '-', toString(person.properties.plan))", breakdown_type: "hogql" });
    // Firefox-free e4 e5, Safari- e9 e10 (cy has no plan: null ⇒ ""), -free e6 (no $browser), Chrome-pro e1.
    expect(rows(res.body)).toEqual([["Firefox-free", [1, 1, 0]], ["Safari-", [0, 1, 1]], ["-free", [0, 1, 0]], ["Chrome-pro", [1, 0, 0]]]);
    expect(res.body.result.map((i: { label: string }) => i.label)).toEqual(["Firefox-free", "Safari-", "-free", "Chrome-pro"]);
  });

  it("if() over a numeric property", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...purchases, breakdown: "if(properties.amount > 25, 'big', 'small')", breakdown_type: "hogql" });
    expect(rows(res.body)).toEqual([["big", [1, 0, 0]], ["small", [0, 1, 0]]]);
  });

  it("a comparison breaks down by HogQL's 1 and 0 (a UInt8), not true/false", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...purchases, breakdown: "properties.amount > 25", breakdown_type: "hogql" });
    expect(rows(res.body)).toEqual([["0", [0, 1, 0]], ["1", [1, 0, 0]]]);
  });

  it("a bare property expression; events without it are the null value", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: "properties.$browser", breakdown_type: "hogql" });
    expect(rows(res.body)).toEqual([["Firefox", [1, 1, 0]], ["Safari", [0, 1, 1]], ["Chrome", [1, 0, 0]], [NULL, [0, 1, 0]]]);
  });

  it.each([
    ["arrayJoin(properties.tags)", /not supported/],
    ["concat(", /syntax error/],
  ])("%s is a 400 naming breakdown", async (expr, detail) => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: expr, breakdown_type: "hogql" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ attr: "breakdown" });
    expect(res.body.detail).toMatch(detail);
  });
});

describe("math hogql", () => {
  it.each([
    ["sum(properties.amount)", purchases, [30, 20, 0]],
    ["avg(properties.amount)", purchases, [30, 20, 0]],
    ["sum(properties.amount) / count()", purchases, [30, 20, 0]],
    ["count()", pageviews, [2, 3, 1]],
    // 03-01 ann and bob; 03-02 bob (twice) and cy; 03-03 cy.
    ["uniq(person_id)", pageviews, [2, 2, 1]],
    ["count(distinct properties.$session_id)", pageviews, [2, 2, 0]],
    ["max(properties.amount) - min(properties.amount)", purchases, [0, 0, 0]],
  ])("%s", async (expr, filter, want) => {
    const series = [{ ...filter.events[0], math: "hogql", math_hogql: expr }];
    const res = await s.post(`${P}/insights/trend/`, { ...filter, events: series });
    expect(res.status).toBe(200);
    expect(res.body.result[0].data).toEqual(want);
    expect(res.body.result[0].action.math_hogql).toBe(expr);
  });

  it("BoldNumber aggregates the whole range: uniq(person_id) over $pageview is 3", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, display: "BoldNumber", events: [{ id: "$pageview", math: "hogql", math_hogql: "uniq(person_id)" }] });
    expect(res.body.result[0].aggregated_value).toBe(3);
  });

  it.each([
    [{ math: "hogql" }, /needs a math_hogql/],
    [{ math: "hogql", math_hogql: "properties.amount" }, /aggregate/],
    [{ math: "hogql", math_hogql: "quantile(0.9)(properties.amount)" }, /.+/],
  ])("%j is a 400 naming events__0__math_hogql", async (math, detail) => {
    const res = await s.post(`${P}/insights/trend/`, { ...purchases, events: [{ id: "purchase", ...math }] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ attr: "events__0__math_hogql" });
    expect(res.body.detail).toMatch(detail);
  });
});

describe("format=csv on every operation", () => {
  it("a trend: one row per series, its data points as a JSON cell", async () => {
    const res = await s.post(`${P}/insights/trend/?format=csv`, { ...pageviews, breakdown: "$is_bounce", breakdown_type: "session" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const [header, ...body] = parseCsv(res.text);
    expect(body).toHaveLength(3);
    const col = (name: string) => body.map((r) => r[header!.indexOf(name)]);
    expect(col("label")).toEqual(["false", "true", NULL]);
    expect(col("data")).toEqual(["[1,2,0]", "[1,1,0]", "[0,0,1]"]);
  });

  it("a single object (an event) is one row", async () => {
    const event = await s.get(`${P}/events/01890000-0000-4000-8000-000000000103/?format=csv`);
    expect(event.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const [header, row, ...rest] = parseCsv(event.text);
    expect(rest).toEqual([]);
    expect(row![header!.indexOf("event")]).toBe("purchase");
    expect(row![header!.indexOf("properties.amount")]).toBe("30");
  });

  it("a created insight (201) is one row; an error stays JSON", async () => {
    const created = await s.post(`${P}/insights/?format=csv`, { name: "Bounces", filters: { ...pageviews } });
    expect(created.status).toBe(201);
    const [header, row] = parseCsv(created.text);
    expect(row![header!.indexOf("name")]).toBe("Bounces");
    const bad = await s.post(`${P}/insights/trend/?format=csv`, { ...pageviews, interval: "decade" });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toMatch(/^application\/json/);
  });
});

describe("funnel_window_interval_type as the spec writes it", () => {
  const funnel = { events: [{ id: "$pageview", order: 0 }, { id: "purchase", order: 1 }], ...range, funnel_window_interval: 1 };
  it.each(["days", "DAY", "day"])("%s means a day", async (unit) => {
    const res = await s.post(`${P}/insights/funnel/`, { ...funnel, funnel_window_interval_type: unit });
    expect(res.status).toBe(200);
    expect(res.body.result.map((step: { count: number }) => step.count)).toEqual([3, 2]);
  });
  it("MINUTE: bob's purchase comes 60 s after his first pageview of 03-02, ann's 120 s after hers", async () => {
    const res = await s.post(`${P}/insights/funnel/`, { ...funnel, funnel_window_interval: 1, funnel_window_interval_type: "MINUTE" });
    expect(res.body.result.map((step: { count: number }) => step.count)).toEqual([3, 1]);
  });
});

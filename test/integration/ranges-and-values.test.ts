import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
});

afterAll(async () => {
  await s?.close();
});

/**
 * An inverted range (date_from after date_to, or after now) is answered empty, as the real service answers it:
 * PostHog/posthog posthog/hogql_queries/insights/paths/test/test_paths_query_runner.py::test_current_url_paths_and_logic
 * asserts zero edges for date_from a week after now, and for date_from after date_to (ported in
 * test/reference/paths.test.ts); QueryDateRange (posthog/hogql_queries/utils/query_date_range.py) refuses no range,
 * so the other runners bucket nothing and count nothing. Expected shapes below are the empty range's, by hand.
 */
describe("an inverted date range", () => {
  const inverted = { date_from: "2024-03-04", date_to: "2024-03-01" };
  const pageviews = { events: [{ id: "$pageview" }], ...inverted };
  const NOTE = "inverted date range: date_from (2024-03-04T00:00:00.000Z) is after date_to (2024-03-01T23:59:59.999Z); answered with an empty result, as the real service does";
  const lastLogged = async () => (await callControl(s.base, "GET", "/requests/?limit=1")).body.results[0];

  it("answers a trend with no buckets on GET and POST, and says so in the request log", async () => {
    for (const res of [await s.post("/api/projects/1/insights/trend/", pageviews), await s.get(`/api/projects/1/insights/trend/?${qs(pageviews)}`)]) {
      expect(res.status).toBe(200);
      expect(res.body.result).toHaveLength(1);
      expect(res.body.result[0]).toMatchObject({ count: 0, data: [], days: [], labels: [] });
      expect((await lastLogged()).notes).toEqual([NOTE]);
    }
  });

  it("answers stickiness, lifecycle, funnels, retention and paths empty", async () => {
    const stickiness = await s.post("/api/projects/1/insights/trend/", { ...pageviews, insight: "STICKINESS" });
    expect(stickiness.body.result.map((r: { data: number[] }) => r.data)).toEqual([[]]);
    const lifecycle = await s.post("/api/projects/1/insights/trend/", { ...pageviews, insight: "LIFECYCLE" });
    expect(lifecycle.body.result.map((r: { status: string; data: number[] }) => [r.status, r.data])).toEqual([
      ["new", []],
      ["returning", []],
      ["resurrecting", []],
      ["dormant", []],
    ]);
    // No one entered the first step: the funnel answers [] here, as it does for any range without its events.
    const funnel = await s.post("/api/projects/1/insights/funnel/", { events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }], ...inverted });
    expect(funnel.body.result).toEqual([]);
    const retention = await s.get(`/api/projects/1/insights/retention/?${qs(inverted)}`);
    expect(retention.status).toBe(200);
    expect(retention.body.result).toEqual([]);
    expect((await lastLogged()).notes).toHaveLength(1);
    const paths = await s.post("/api/projects/1/insights/path/", inverted);
    expect(paths.body.result).toEqual([]);
  });

  it("answers a date_from after now (no date_to) empty", async () => {
    const res = await s.post("/api/projects/1/insights/trend/", { events: [{ id: "$pageview" }], date_from: "2030-01-01" });
    expect(res.status).toBe(200);
    expect(res.body.result[0]).toMatchObject({ count: 0, data: [] });
    expect((await lastLogged()).notes).toEqual([expect.stringContaining("date_from (2030-01-01T00:00:00.000Z) is after date_to")]);
  });

  it("answers the query API's node empty too, with the same note", async () => {
    const query = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: inverted };
    for (const body of [{ query }, { query: { kind: "InsightVizNode", source: query } }]) {
      const res = await s.post("/api/projects/1/query/", body);
      expect(res.status).toBe(200);
      expect(res.body.results[0]).toMatchObject({ count: 0, data: [], days: [] });
      expect((await lastLogged()).notes).toEqual([NOTE]);
    }
  });

  it("answers a saved insight empty, with the same note on every read (remembered ones too)", async () => {
    const created = await s.post("/api/projects/1/insights/", { name: "inverted", filters: { insight: "TRENDS", ...pageviews } });
    expect(created.status).toBe(201);
    for (const path of [`?refresh=true`, "", ""]) {
      const res = await s.get(`/api/projects/1/insights/${created.body.id}/${path}`);
      expect(res.status).toBe(200);
      expect(res.body.result[0]).toMatchObject({ count: 0, data: [] });
      expect((await lastLogged()).notes).toEqual([NOTE]);
    }
  });

  it("leaves a range of one day alone, with no note", async () => {
    const res = await s.post("/api/projects/1/insights/trend/", { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-01" });
    expect(res.status).toBe(200);
    expect(res.body.result[0].data).toEqual([3]);
    expect(await lastLogged()).not.toHaveProperty("notes");
  });
});

describe("a bad date inside a query node", () => {
  it("names the nested field, as the query API's other errors do", async () => {
    const query = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "banana" } };
    const res = await s.post("/api/projects/1/query/", { query });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr: "query__dateRange__date_from" });
    const wrapped = await s.post("/api/projects/1/query/", { query: { kind: "InsightVizNode", source: query } });
    expect(wrapped.body).toMatchObject({ attr: "query__source__dateRange__date_from" });
  });
});

describe("events/values with properties_<name>", () => {
  const values = async (params: string) => {
    const res = await s.get(`/api/projects/1/events/values/?${params}`);
    expect(res.status, res.text).toBe(200);
    return res.body as { name: string; count: number }[];
  };

  it("narrows the values to the events whose property equals the value, or one of a JSON list", async () => {
    // basic.json: five pageviews of the last 7 days, $browser Chrome ×3, Firefox, Safari; other events have no $browser.
    expect(await values("key=$browser")).toEqual([{ name: "Chrome", count: 3 }, { name: "Firefox", count: 1 }, { name: "Safari", count: 1 }]);
    const listed = new URLSearchParams({ key: "$browser", properties_$browser: JSON.stringify(["Chrome", "Safari"]) });
    expect(await values(listed.toString())).toEqual([{ name: "Chrome", count: 3 }, { name: "Safari", count: 1 }]);
    const one = new URLSearchParams({ key: "distinct_id", properties_$browser: "Chrome" });
    expect(await values(one.toString())).toEqual([{ name: "a", count: 2 }, { name: "a-anon", count: 1 }]);
  });

  it("keeps key=event a column, narrowed by the property too", async () => {
    expect(await values("key=event")).toEqual([{ name: "$pageview", count: 5 }, { name: "signup", count: 3 }, { name: "purchase", count: 2 }, { name: "$pageleave", count: 1 }]);
    expect(await values(new URLSearchParams({ key: "event", properties_$browser: "Firefox" }).toString())).toEqual([{ name: "$pageview", count: 1 }]);
  });

  it("ignores any other name, as every undeclared query parameter is ignored, and the request log says so", async () => {
    for (const param of ["colour", "properties_"]) {
      expect(await values(`key=$browser&${param}=Chrome`)).toEqual([{ name: "Chrome", count: 3 }, { name: "Firefox", count: 1 }, { name: "Safari", count: 1 }]);
      const logged = await callControl(s.base, "GET", "/requests/?limit=1");
      expect(logged.body.results[0].notes, param).toEqual([`query parameter "${param}" ignored: events_values_retrieve does not take it (the real service ignores it too)`]);
    }
  });
});

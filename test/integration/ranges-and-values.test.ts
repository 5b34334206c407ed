import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
});

afterAll(async () => {
  await s?.close();
});

describe("an inverted date range", () => {
  const inverted = { events: [{ id: "$pageview" }], date_from: "-7d", date_to: "-30d" };

  it("is a 400 naming date_to on the trend endpoint, GET and POST", async () => {
    for (const res of [await s.post("/api/projects/1/insights/trend/", inverted), await s.get(`/api/projects/1/insights/trend/?${qs(inverted)}`)]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: "validation_error", attr: "date_to" });
      expect(res.body.detail).toContain("before date_from");
    }
  });

  it("is a 400 naming the node's date_to in the query API", async () => {
    const query = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-7d", date_to: "-30d" } };
    const res = await s.post("/api/projects/1/query/", { query });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr: "query__dateRange__date_to" });
  });

  it("leaves a range of one day alone", async () => {
    const res = await s.post("/api/projects/1/insights/trend/", { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-01" });
    expect(res.status).toBe(200);
    expect(res.body.result[0].data).toEqual([3]);
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

  it("still refuses any other unknown parameter, naming it", async () => {
    for (const [param, attr] of [["colour=red", "colour"], ["properties_=x", "properties_"]]) {
      const res = await s.get(`/api/projects/1/events/values/?key=$browser&${param}`);
      expect(res.status, param).toBe(400);
      expect(res.body, param).toMatchObject({ type: "validation_error", attr });
    }
  });
});

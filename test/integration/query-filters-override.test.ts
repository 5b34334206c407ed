import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * The query API's `filters_override` on the SQL kinds, as PostHog's HogQLQueryRunner and EventsQueryRunner apply a
 * DashboardFilter (posthog/api/query.py → apply_dashboard_filters): the range goes to HogQL's `filters.dateRange`
 * and to an events query's `after`/`before`, the properties join HogQL's `filters.properties`. The insight kinds are covered by
 * test/reference/trends-dashboard-filters.test.ts. On fixtures/scenarios/basic.json (now 2024-03-05 12:00 UTC), 11
 * events in project 1: three Chrome pageviews (03-01 08:00, 03-01 15:00, 03-03 23:30); from 03-03 on, a purchase
 * (03-03 10:00), that last pageview and a signup (03-05 12:00).
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
});
afterAll(() => s.close());

const P = "/api/projects/1";
const chrome = [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }];

async function results(query: Record<string, unknown>, filters_override?: Record<string, unknown>): Promise<unknown[][]> {
  const res = await s.post(`${P}/query/`, { query, ...(filters_override ? { filters_override } : {}) });
  expect(res.status, res.text).toBe(200);
  return res.body.results;
}

describe("filters_override on a HogQL query", () => {
  const counted = { kind: "HogQLQuery", query: "select count() from events where {filters}" };

  it("sets the range of its {filters} and adds the properties", async () => {
    expect(await results(counted, { date_from: "2024-03-03" })).toEqual([[3]]);
    expect(await results(counted, { date_from: "2024-03-03", properties: chrome })).toEqual([[1]]);
    expect(await results(counted, { date_from: "2024-03-01", properties: chrome })).toEqual([[3]]);
  });

  it("answers as the query rewritten by hand", async () => {
    const rewritten = { ...counted, filters: { dateRange: { date_from: "2024-03-03", date_to: null }, properties: chrome } };
    expect(await results(counted, { date_from: "2024-03-03", properties: chrome })).toEqual(await results(rewritten));
  });
});

describe("filters_override on an events query", () => {
  const counted = { kind: "EventsQuery", select: ["count()"], after: "all" };

  it("sets after and before", async () => {
    expect(await results(counted)).toEqual([[11]]);
    expect(await results(counted, { date_from: "2024-03-03" })).toEqual([[3]]);
    expect(await results(counted, { date_from: "2024-03-01", date_to: "2024-03-02" })).toEqual([[5]]);
  });

  it("leaves the query as it is when empty", async () => {
    expect(await results(counted, {})).toEqual([[11]]);
  });
});

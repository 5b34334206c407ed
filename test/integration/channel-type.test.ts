import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixtureDocument } from "../../src/store/fixture-document.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * `$virt_initial_channel_type` (person) and `$channel_type` (session) through every door: legacy trends, the
 * query API's TrendsQuery, HogQL filters in-process and HogQL on the engine. Data: fixtures/scenarios/sessions.json
 * (clock 2024-03-05T12:00Z, UTC) with attribution added, channels worked out by hand from the rules
 * (src/core/channel-rules.ts; PostHog test_channel_type.py has each case):
 *   persons: ann $initial_referring_domain www.google.com → Organic Search; bob utm facebook/cpc → Paid Social;
 *            cy nothing → Unknown
 *   sessions (first event's values): S1 ann $referring_domain www.google.com → Organic Search; S2 bob utm
 *            facebook/cpc → Paid Social; S3 bob $referring_domain $direct → Direct; S4 cy gclid only → Paid Unknown
 *   $pageview: e1 ann S1 03-01, e4 bob S2 03-01, e5 e6 bob S3 03-02, e9 cy S4 03-02, e10 cy (no session) 03-03
 */
function attributed(): FixtureDocument {
  const doc = scenario("sessions");
  const first: Record<string, Record<string, unknown>> = {
    "01890000-0000-7000-8000-0000000000a1": { $referring_domain: "www.google.com" },
    "01890000-0000-7000-8000-0000000000a2": { utm_source: "facebook", utm_medium: "cpc" },
    "01890000-0000-7000-8000-0000000000a3": { $referring_domain: "$direct" },
    "01890000-0000-7000-8000-0000000000a4": { gclid: "abc" },
  };
  const seen = new Set<string>();
  for (const event of doc.events ?? []) {
    const id = event.properties?.$session_id as string | undefined;
    if (id === undefined || seen.has(id)) continue;
    seen.add(id);
    event.properties = { ...event.properties, ...first[id] };
  }
  const initial: Record<string, Record<string, unknown>> = { ann: { $initial_referring_domain: "www.google.com" }, bob: { $initial_utm_source: "facebook", $initial_utm_medium: "cpc" } };
  for (const person of doc.persons ?? []) person.properties = { ...person.properties, ...initial[person.distinct_ids[0]!] };
  return doc;
}

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(attributed());
});
afterAll(() => s.close());

const P = "/api/projects/1";
const pageviews = { events: [{ id: "$pageview", type: "events", order: 0 }], date_from: "2024-03-01", date_to: "2024-03-03" };
const NULL = "$$_posthog_breakdown_null_$$";
const rows = (body: { result: { breakdown_value?: unknown; data: number[] }[] }) => body.result.map((i) => [i.breakdown_value, i.data]);
const hogql = async (query: string) => {
  const res = await s.post(`${P}/query/`, { query: { kind: "HogQLQuery", query } });
  expect(res.status).toBe(200);
  return res.body.results;
};

const BY_PERSON_CHANNEL = [["Paid Social", [1, 2, 0]], ["Unknown", [0, 1, 1]], ["Organic Search", [1, 0, 0]]];
const BY_SESSION_CHANNEL = [["Direct", [0, 2, 0]], ["Organic Search", [1, 0, 0]], ["Paid Social", [1, 0, 0]], ["Paid Unknown", [0, 1, 0]], [NULL, [0, 0, 1]]];

describe("person $virt_initial_channel_type", () => {
  it("is a breakdown (legacy trends)", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: "$virt_initial_channel_type", breakdown_type: "person" });
    expect(res.status).toBe(200);
    expect(rows(res.body)).toEqual(BY_PERSON_CHANNEL);
  });

  it("is a breakdown (TrendsQuery)", async () => {
    const query = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" }, breakdownFilter: { breakdown: "$virt_initial_channel_type", breakdown_type: "person" } };
    const res = await s.post(`${P}/query/`, { query });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { breakdown_value: unknown; data: number[] }) => [r.breakdown_value, r.data])).toEqual(BY_PERSON_CHANNEL);
  });

  it.each([
    ["a person property filter", { type: "person", key: "$virt_initial_channel_type", value: "Paid Social", operator: "exact" }],
    ["a HogQL filter", { type: "hogql", key: "person.$virt_initial_channel_type = 'Paid Social'" }],
  ])("is %s: bob's pageviews", async (_name, filter) => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, properties: [filter] });
    expect(res.status).toBe(200);
    expect(rows(res.body)).toEqual([[undefined, [1, 2, 0]]]);
  });

  it("is a retention breakdown (RetentionQuery): each channel's cohorts of 03-01, 03-02, 03-03", async () => {
    const query = {
      kind: "RetentionQuery",
      dateRange: { date_to: "2024-03-03" },
      retentionFilter: { period: "Day", totalIntervals: 3, targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" } },
      breakdownFilter: { breakdowns: [{ property: "$virt_initial_channel_type", type: "person" }] },
    };
    const res = await s.post(`${P}/query/`, { query });
    expect(res.status).toBe(200);
    type Row = { breakdown_value: unknown; values: { count: number }[] };
    const cohorts = (value: string) => res.body.results.filter((r: Row) => r.breakdown_value === value).map((r: Row) => r.values.map((v) => v.count));
    // ann 03-01; bob 03-01 and 03-02; cy 03-02 and 03-03.
    expect(cohorts("Organic Search")).toEqual([[1, 0, 0], [0, 0, 0], [0, 0, 0]]);
    expect(cohorts("Paid Social")).toEqual([[1, 1, 0], [1, 0, 0], [0, 0, 0]]);
    expect(cohorts("Unknown")).toEqual([[0, 0, 0], [1, 1, 0], [1, 0, 0]]);
  });

  it("gives the same counts in HogQL on the engine, through events and from persons", async () => {
    expect(await hogql("select person.$virt_initial_channel_type as c, count() from events where event = '$pageview' group by c order by c")).toEqual([
      ["Organic Search", 1],
      ["Paid Social", 3],
      ["Unknown", 2],
    ]);
    expect(await hogql("select $virt_initial_channel_type as c, count() from persons group by c order by c")).toEqual([
      ["Organic Search", 1],
      ["Paid Social", 1],
      ["Unknown", 1],
    ]);
  });
});

describe("session $channel_type", () => {
  it("is a breakdown (legacy trends); events without a session have none", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: "$channel_type", breakdown_type: "session" });
    expect(res.status).toBe(200);
    expect(rows(res.body)).toEqual(BY_SESSION_CHANNEL);
  });

  it.each([
    ["Direct", [0, 2, 0]],
    ["Paid Unknown", [0, 1, 0]],
  ])("is a session property filter: %s", async (channel, want) => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, properties: [{ type: "session", key: "$channel_type", value: channel, operator: "exact" }] });
    expect(res.status).toBe(200);
    expect(rows(res.body)).toEqual([[undefined, want]]);
  });

  it("gives the same counts in HogQL on the engine", async () => {
    expect(await hogql("select session.$channel_type as c, count() from events where event = '$pageview' and $session_id != '' group by c order by c")).toEqual([
      ["Direct", 2],
      ["Organic Search", 1],
      ["Paid Social", 1],
      ["Paid Unknown", 1],
    ]);
  });
});

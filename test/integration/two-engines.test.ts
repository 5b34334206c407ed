import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultApiKey, generateFixtures } from "../../src/fixtures/generate.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

/**
 * Two engines, one answer: on the default generated dataset (`npm start`'s, seed 42), a TrendsQuery and a
 * FunnelsQuery (computed in process by the analyses) and the HogQL a user would write for the same question
 * (run by ClickHouse) give the same numbers. Neither side is computed by the code of the other.
 */
const SEED = 42;
const key = { key: defaultApiKey(SEED) };
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(generateFixtures({ seed: SEED, now: new Date("2024-06-15T12:00:00Z") }));
});
afterAll(() => s.close());

const E = "/api/environments/1";
const hogql = async (query: string) => {
  const res = await s.post(`${E}/query/`, { query: { kind: "HogQLQuery", query } }, key);
  expect(res.status).toBe(200);
  return res.body.results as unknown[][];
};
/** A trend series as {day: value}, days without events left out (HogQL's GROUP BY has no empty days). */
const byDay = (series: { days: string[]; data: number[] }) => Object.fromEntries(series.days.flatMap((d, i) => (series.data[i] ? [[d, series.data[i]]] : [])));

describe("the analyses and HogQL agree on the default dataset", () => {
  it("daily pageviews and daily unique persons over the last 30 days", async () => {
    const project = (await s.get("/api/projects/1/", key)).body;
    expect(project.timezone).toBeTypeOf("string");
    const trend = await s.post(`${E}/query/`, {
      query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "$pageview", math: "dau" }], dateRange: { date_from: "-30d" }, interval: "day" },
    }, key);
    expect(trend.status).toBe(200);
    const since = "toStartOfDay(now() - INTERVAL 30 DAY)";
    const counts = await hogql(`SELECT toDate(timestamp) AS day, count() FROM events WHERE event = '$pageview' AND timestamp >= ${since} GROUP BY day ORDER BY day`);
    const uniques = await hogql(`SELECT toDate(timestamp) AS day, count(DISTINCT person_id) FROM events WHERE event = '$pageview' AND timestamp >= ${since} GROUP BY day ORDER BY day`);
    expect(counts.length).toBeGreaterThan(20);
    expect(byDay(trend.body.results[0])).toEqual(Object.fromEntries(counts));
    expect(byDay(trend.body.results[1])).toEqual(Object.fromEntries(uniques));
  });

  it.each([
    ["the person's $virt_initial_channel_type", { breakdown: "$virt_initial_channel_type", breakdown_type: "person" }, "person.$virt_initial_channel_type", ""],
    ["the session's $channel_type", { breakdown: "$channel_type", breakdown_type: "session" }, "session.$channel_type", " AND $session_id != ''"],
  ])("pageviews of the last 30 days by %s (the channel rules in process and in ClickHouse)", async (_name, breakdownFilter, field, sessionOnly) => {
    const trend = await s.post(`${E}/query/`, {
      query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-30d" }, interval: "day", breakdownFilter },
    }, key);
    expect(trend.status).toBe(200);
    const rows = await hogql(`SELECT ${field} AS channel, count() FROM events WHERE event = '$pageview' AND timestamp >= toStartOfDay(now() - INTERVAL 30 DAY)${sessionOnly} GROUP BY channel`);
    expect(rows.length).toBeGreaterThan(2);
    const analyses = Object.fromEntries((trend.body.results as { breakdown_value: string; count: number }[]).filter((r) => !r.breakdown_value.startsWith("$$_posthog")).map((r) => [r.breakdown_value, r.count]));
    expect(analyses).toEqual(Object.fromEntries(rows));
  });

  it("a 3-step funnel's persons per step (windowFunnel over 14 days)", async () => {
    const steps = ["$pageview", "signed_up", "activated"];
    const funnel = await s.post(`${E}/query/`, {
      query: { kind: "FunnelsQuery", series: steps.map((event) => ({ kind: "EventsNode", event })), dateRange: { date_from: "-30d" }, funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" } },
    }, key);
    expect(funnel.status).toBe(200);
    const levels = await hogql(
      `SELECT level, count() FROM (
         SELECT person_id, windowFunnel(1209600)(toDateTime(timestamp), event = '$pageview', event = 'signed_up', event = 'activated') AS level
         FROM events WHERE timestamp >= toStartOfDay(now() - INTERVAL 30 DAY) AND event IN ('$pageview', 'signed_up', 'activated') GROUP BY person_id
       ) GROUP BY level ORDER BY level`,
    );
    const reached = (k: number) => levels.reduce((sum, [level, n]) => sum + ((level as number) >= k ? (n as number) : 0), 0);
    const counts = (funnel.body.results as { count: number }[]).map((step) => step.count);
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts).toEqual([reached(1), reached(2), reached(3)]);
  });
});

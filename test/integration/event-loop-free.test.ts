import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parallelScanReady, parallelScanStats, setParallelScan } from "../../src/analyses/parallel/pool.ts";
import { defaultApiKey } from "../../src/fixtures/users.ts";
import { startServer, type EmbeddedServer } from "../../src/index.ts";
import { callServer, scenario, startTestServer } from "../support/server.ts";

/**
 * Dashboards, actor lists and the MCP tools compute for a request without holding the event loop. An analysis
 * for a request leaves every scan to the workers and only waits for their answers (offMainThread): the pattern
 * of test/unit/analyses/parallel-scan.test.ts, "an analysis for a request", here through HTTP on an embedded
 * server (same process, so the pool's counts are this server's). A surface that computed on the main thread
 * would count parts there (a synchronous scan takes its share of parts itself), so each test asserts that the
 * request's scans ran (parts on the workers) and that none ran on the main thread. The scans are cut on small
 * data (`minRows: 0`) and the machine's load is ignored (`maxLoad`), so the workers always take them; vitest
 * runs this file in a process of its own, so the settings stay here.
 */

const NOW = "2025-06-01T00:00:00Z";
const KEY = defaultApiKey(42);
const P = "/api/projects/1";
let server: EmbeddedServer;

beforeAll(async () => {
  setParallelScan({ minRows: 0, workers: 2, maxLoad: Infinity });
  expect(await parallelScanReady()).toBe(2);
  server = await startServer({ events: 20_000, persons: 200, now: NOW });
});
afterAll(() => server.close());
// No result cached from an earlier test: every request below computes.
beforeEach(() => server.reset());

/** Parts of the scans a request ran, on the workers and on the main thread, with its answer. */
async function scansOf<T>(request: () => Promise<T>): Promise<{ answer: T; onWorkers: number; onMain: number }> {
  const before = parallelScanStats();
  const answer = await request();
  const after = parallelScanStats();
  return { answer, onWorkers: after.workerChunks - before.workerChunks, onMain: after.mainChunks - before.mainChunks };
}

/** The request computed (its scans ran) and left every part to the workers: the main thread only waited, its event loop free. */
function expectOffMain(scans: { onWorkers: number; onMain: number }): void {
  expect(scans.onWorkers).toBeGreaterThan(0);
  expect(scans.onMain).toBe(0);
}

const call = (method: string, path: string, body?: unknown) => callServer(server.url, method, path, body, KEY);
const json = (value: unknown) => encodeURIComponent(JSON.stringify(value));
const signupFunnel = [
  { id: "$pageview", type: "events", order: 0 },
  { id: "signed_up", type: "events", order: 1 },
];

type Tile = { insight: { result: unknown } };

describe("dashboards compute their tiles off the event loop", () => {
  it("retrieve", async () => {
    const scans = await scansOf(() => call("GET", `${P}/dashboards/1/`));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.tiles.length).toBeGreaterThan(0);
    expect(scans.answer.body.tiles.every((t: Tile) => t.insight.result !== null)).toBe(true);
    expectOffMain(scans);
  });

  it("update: new filters, every tile computed again under them", async () => {
    await call("GET", `${P}/dashboards/1/`);
    const scans = await scansOf(() => call("PATCH", `${P}/dashboards/1/`, { filters: { date_from: "-7d" } }));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.tiles.every((t: Tile) => t.insight.result !== null)).toBe(true);
    expectOffMain(scans);
  });

  it("create: a copy of another dashboard with its tiles' insights", async () => {
    const scans = await scansOf(() => call("POST", `${P}/dashboards/`, { name: "Copy", use_dashboard: 2, duplicate_tiles: true }));
    expect(scans.answer.status).toBe(201);
    expect(scans.answer.body.tiles.length).toBeGreaterThan(0);
    expect(scans.answer.body.tiles.every((t: Tile) => t.insight.result !== null)).toBe(true);
    expectOffMain(scans);
  });
});

describe("actor lists compute off the event loop", () => {
  it("the persons behind a funnel step (/persons/funnel/)", async () => {
    const scans = await scansOf(() => call("GET", `${P}/persons/funnel/?events=${json(signupFunnel)}&funnel_step=2&date_from=-30d`));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.results[0].count).toBeGreaterThan(0);
    expectOffMain(scans);
  });

  it("the persons behind a trend's breakdown value (/persons/trends/, the day's Chrome pageviews)", async () => {
    const filter = { events: [{ id: "$pageview", type: "events", order: 0 }], breakdown: "$browser", breakdown_type: "event", date_from: "-30d" };
    const trend = (await call("POST", `${P}/insights/trend/`, filter)).body.result.find((row: { breakdown_value: string }) => row.breakdown_value === "Chrome");
    const day = trend.data.findIndex((n: number) => n > 0);
    const point = { ...filter, date_from: trend.days[day], date_to: trend.days[day], entity_order: 0, breakdown_value: "Chrome" };
    const query = Object.entries(point).map(([k, v]) => `${k}=${typeof v === "string" ? encodeURIComponent(v) : json(v)}`).join("&");
    const scans = await scansOf(() => call("GET", `${P}/persons/trends/?${query}`));
    expect(scans.answer.status).toBe(200);
    // Each person's value is their events: with every person on one page, they add up to the day's number.
    const people = scans.answer.body.results[0].people as { value_at_data_point: number }[];
    expect([scans.answer.body.next, scans.answer.body.missing_persons]).toEqual([null, 0]);
    expect(people.reduce((sum, p) => sum + p.value_at_data_point, 0)).toBe(trend.data[day]);
    expectOffMain(scans);
  });

  it("the persons behind a paths edge (/persons/path/): their paths through it add up to its value", async () => {
    const filter = { include_event_types: ["$pageview"], date_from: "-30d" };
    const edge = (await call("POST", `${P}/insights/path/`, filter)).body.result[0];
    const point = { ...filter, path_start_key: edge.source, path_end_key: edge.target };
    const query = Object.entries(point).map(([k, v]) => `${k}=${typeof v === "string" ? encodeURIComponent(v) : json(v)}`).join("&");
    const scans = await scansOf(() => call("GET", `${P}/persons/path/?${query}`));
    expect(scans.answer.status).toBe(200);
    const people = scans.answer.body.results[0].people as { value_at_data_point: number }[];
    expect([scans.answer.body.next, scans.answer.body.missing_persons]).toEqual([null, 0]);
    expect(people.reduce((sum, p) => sum + p.value_at_data_point, 0)).toBe(edge.value);
    expectOffMain(scans);
  });

  it("the persons behind a correlation row (/persons/funnel/correlation/, the row's success_people_url)", async () => {
    const correlation = (await call("POST", `${P}/insights/funnel/correlation/`, { events: signupFunnel, date_from: "-30d" })).body.result;
    const row = correlation.events.find((r: { success_count: number }) => r.success_count > 0);
    const url = new URL(row.success_people_url, server.url);
    const scans = await scansOf(() => call("GET", url.pathname + url.search));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.results[0].count).toBe(row.success_count);
    expectOffMain(scans);
  });

  const funnelsQuery = { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "signed_up" }], dateRange: { date_from: "-30d" } };

  it("the query API's ActorsQuery over an InsightActorsQuery", async () => {
    const query = { kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: funnelsQuery, funnelStep: 2 } };
    const scans = await scansOf(() => call("POST", `${P}/query/`, { query }));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.results.length).toBeGreaterThan(0);
    expectOffMain(scans);
  });

  it("the query API's bare InsightActorsQuery", async () => {
    const query = { kind: "InsightActorsQuery", source: funnelsQuery, funnelStep: -2 };
    const scans = await scansOf(() => call("POST", `${P}/query/`, { query }));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.results.length).toBeGreaterThan(0);
    expectOffMain(scans);
  });
});

describe("the taxonomy computes off the event loop", () => {
  const readTaxonomy = (query: object) => call("POST", "/api/environments/1/mcp_tools/read_taxonomy/", { args: { query } });

  it("the MCP tool read_taxonomy", async () => {
    const scans = await scansOf(() => readTaxonomy({ kind: "events" }));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.success).toBe(true);
    expect(scans.answer.body.content).toMatch(/^\$pageview: [1-9]\d* events in the last 30 days, last seen /m);
    expectOffMain(scans);
  });

  it("event definitions", async () => {
    const scans = await scansOf(() => call("GET", `${P}/event_definitions/`));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.results.map((d: { name: string }) => d.name)).toContain("signed_up");
    expectOffMain(scans);
  });

  it("property definitions", async () => {
    const scans = await scansOf(() => call("GET", `${P}/property_definitions/?event_names=${json(["$pageview"])}&filter_by_event_names=true`));
    expect(scans.answer.status).toBe(200);
    expect(scans.answer.body.results.map((d: { name: string }) => d.name)).toContain("$browser");
    expectOffMain(scans);
  });

  it("requests that arrive while it computes wait for the same computation", async () => {
    const before = parallelScanStats().partitioned;
    const [tool, definitions] = await Promise.all([readTaxonomy({ kind: "event_properties", event_name: "$pageview" }), call("GET", `${P}/property_definitions/`)]);
    expect(parallelScanStats().partitioned - before).toBe(1);
    expect(tool.body.content).toContain("$browser (String)");
    expect(definitions.body.results.map((d: { name: string }) => d.name)).toContain("$browser");
  });
});

describe("the MCP tool execute_sql runs in the SQL engine's process", () => {
  it("answers other requests while a query runs, until the query's time limit stops it", async () => {
    // A nine-way cross join never ends on any data; the limit stops it after 1.5 s.
    const s = await startTestServer(scenario("basic"), { sqlTimeLimitMs: 1_500 });
    try {
      const tool = (query: string) => s.post("/api/environments/1/mcp_tools/execute_sql/", { args: { query } });
      // The engine is started first: its start is asynchronous too, and would let requests through by itself.
      expect((await tool("select 1")).body).toEqual({ success: true, content: "1\n1" });
      const joins = Array.from({ length: 8 }, (_, i) => `cross join events e${i}`).join(" ");
      let done = false;
      const running = tool(`select count() from events ${joins}`).finally(() => (done = true));
      let answeredMeanwhile = 0;
      while (!done) {
        expect((await s.get("/api/projects/1/insights/?limit=1")).status).toBe(200);
        if (!done) answeredMeanwhile++;
      }
      expect((await running).body).toMatchObject({ success: false, content: expect.stringMatching(/Timeout exceeded/), error_type: "retryable" });
      // A server held by the query would have answered none (or one that raced ahead of it).
      expect(answeredMeanwhile).toBeGreaterThan(10);
    } finally {
      await s.close();
    }
  });
});

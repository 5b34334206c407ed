import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parallelScanStats } from "../../src/analyses/parallel/scan-settings.ts";
import { parallelScanReady, setParallelScan } from "../../src/analyses/parallel/worker-pool.ts";
import { defaultApiKey } from "../../src/fixtures/users.ts";
import { startServer, type EmbeddedServer, type WaitAnswer } from "../../src/index.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { assertConforms } from "../support/contract.ts";
import { callControl } from "../support/control-contract.ts";
import { besideCheap, CHEAP, doublingCtes, probeBeside, PROBES, type Timed } from "../support/hostile-probes.ts";
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

describe("HogQL's CTE expansion is refused before anything runs", () => {
  it("19 CTEs each naming the one below twice (2^20 - 1 copies, issue 38): a 400 naming the limit, a cheap GET answered beside it", async () => {
    const probe = PROBES.find((p) => p.name.startsWith("19 CTEs"))!;
    const { probe: answer, cheap } = await probeBeside(server.url, KEY, probe);
    expect(answer.status).toBe(400);
    await assertConforms({ method: "POST", path: probe.path, status: answer.status, contentType: "application/json", body: answer.body });
    expect(answer.body).toMatchObject({ type: "validation_error", attr: "query__query", detail: expect.stringContaining("more than 256 copies (the limit of CTE expansions") });
    expect(cheap.status).toBe(200);
    await assertConforms({ method: CHEAP.method, path: CHEAP.path, status: cheap.status, contentType: "application/json", body: cheap.body });
    // The server still runs HogQL afterwards, CTEs included: 7 levels are 255 copies, under the limit, and count 2^7 rows.
    const within = await call("POST", `${P}/query/`, { query: { kind: "HogQLQuery", query: doublingCtes(7) } });
    expect(within.status).toBe(200);
    expect(within.body.results).toEqual([[128]]);
  });
});

/**
 * Issue 38: inputs that once held the event loop for seconds or ended the process. Each runs beside a cheap GET
 * (test/support/hostile-probes.ts, timed from when it was due, so a loop held in this process counts), which must
 * answer within about a second; then the server still answers. The bound is loose against the seconds these took.
 */
describe("hostile inputs to flags, the tracking plan and waits leave the event loop free (issue 38)", () => {
  const CHEAP_BOUND_MS = 1_000;
  const token = () => server.credentials().token;
  const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });
  const control = (method: string, path: string, body?: unknown) => callControl(server.url, method, path, body);

  async function expectFreeLoop(cheap: Timed, what: string): Promise<void> {
    console.info(`issue 38, ${what}: the cheap GET waited ${cheap.ms.toFixed(0)} ms`);
    expect(cheap.status).toBe(200);
    await assertConforms({ method: "GET", path: CHEAP.path.split("?")[0]!, status: cheap.status, contentType: "application/json", body: cheap.body });
    expect(cheap.ms).toBeLessThan(CHEAP_BOUND_MS);
  }

  it("a flag matching ^(a+)+$ and an anonymous /flags call with a 40-character near-miss (was 2.9 s at 26 characters)", async () => {
    const condition = { key: "name", type: "person", operator: "regex", value: "^(a+)+$" };
    const created = await call("POST", `${P}/feature_flags/`, { key: "redos", filters: { groups: [{ properties: [condition], rollout_percentage: 100 }] } });
    expect(created.status).toBe(201);
    const ask = (name: string) => captureRequest(server.url, "POST", "/flags/?v=2", json({ token: token(), distinct_id: "anon-1", person_properties: { name } }));
    const { answer, cheap } = await besideCheap(server.url, KEY, () => ask(`${"a".repeat(40)}b`));
    expect(answer.status).toBe(200);
    expect(answer.body.flags.redos).toMatchObject({ enabled: false });
    await expectFreeLoop(cheap, "regex flag");
    expect((await ask("a".repeat(40))).body.flags.redos).toMatchObject({ enabled: true });
  });

  it("a tracking plan with a 30,000-value enum is refused at once, naming the enum (compiling it took 3.1 s)", async () => {
    const plan = { events: { bought: { properties: { sku: { enum: Array.from({ length: 30_000 }, (_, i) => `sku-${i}`) } } } } };
    const { answer, cheap } = await besideCheap(server.url, KEY, () => control("PUT", "/tracking_plan/", plan));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: "validation_error", attr: "events__bought__properties__sku__enum", detail: expect.stringMatching(/enum list holds at most 500 values/) });
    await expectFreeLoop(cheap, "30,000-value enum");
    expect((await control("GET", "/tracking_plan/")).body).toEqual({ plan: null });
  });

  it('a tracking plan {"$ref": "#"} is refused naming the $ref; a wait and a matching capture then work (they ended the process)', async () => {
    const { answer, cheap } = await besideCheap(server.url, KEY, () => control("PUT", "/tracking_plan/", { events: { signup: { $ref: "#" } } }));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: "validation_error", attr: "events__signup__$ref", detail: expect.stringMatching(/leads back to "#"/) });
    await expectFreeLoop(cheap, "$ref cycle");
    const waiting = control("POST", "/captured/wait/", { event: "signup", distinct_id: "ref-cycle", timeout_ms: 10_000 });
    const captured = await captureRequest(server.url, "POST", "/e/", json({ token: token(), event: "signup", distinct_id: "ref-cycle" }));
    expect(captured.status).toBe(200);
    expect((await waiting).body).toMatchObject({ status: "matched", count: 1, events: [{ event: "signup", distinct_id: "ref-cycle", valid: null }] });
    await expectFreeLoop((await besideCheap(server.url, KEY, async () => undefined)).cheap, "after the $ref cycle");
  });

  it("800 open waits over a full log of 10,000 captured events: each capture checks only its own events (each took 1-2.6 s)", { timeout: 120_000 }, async () => {
    server.captured.clear();
    const batch = (n: number, from: number) => ({ api_key: token(), batch: Array.from({ length: n }, (_, i) => ({ event: "filler", distinct_id: `f${from + i}`, properties: { i: from + i } })) });
    for (let i = 0; i < 10; i++) expect((await captureRequest(server.url, "POST", "/batch/", json(batch(1_000, i * 1_000)))).status).toBe(200);
    // The waits go through the embedded control API: the same observation the HTTP door uses, without 800 sockets.
    // A properties pattern and no event name: nothing cheap rules an event out, each one is matched in depth. Each
    // wait reads the whole log once when it opens (as each request would), so they open 40 at a time.
    const waits: Promise<WaitAnswer>[] = [];
    while (waits.length < 800) {
      for (let i = 0; i < 40; i++) waits.push(server.captured.wait({ properties: { waiter: waits.length % 2 }, count: 2, timeout_ms: 60_000 }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let i = 0; i < 3; i++) {
      const { answer, cheap } = await besideCheap(server.url, KEY, () => captureRequest(server.url, "POST", "/e/", json({ token: token(), event: "filler", distinct_id: "late" })));
      expect(answer.status).toBe(200);
      await expectFreeLoop(cheap, `capture ${i + 1} beside 800 waits`);
    }
    // Waiter i waits for two "done" events with waiter = i % 2: two of each release them all.
    const done = (waiter: number) => ({ event: "done", distinct_id: "closer", properties: { waiter } });
    const { answer, cheap } = await besideCheap(server.url, KEY, () => captureRequest(server.url, "POST", "/batch/", json({ api_key: token(), batch: [done(0), done(1), done(0)] })));
    expect(answer.status).toBe(200);
    await expectFreeLoop(cheap, "the capture that releases 800 waits");
    expect((await captureRequest(server.url, "POST", "/e/", json({ token: token(), ...done(1) }))).status).toBe(200);
    const answers = await Promise.all(waits);
    expect(answers.every((a) => a.status === "matched" && a.count === 2)).toBe(true);
    expect(answers[0]!.events.map((e) => e.properties.waiter)).toEqual([0, 0]);
    expect(answers[1]!.events.map((e) => e.properties.waiter)).toEqual([1, 1]);
    server.captured.clear();
  });
});


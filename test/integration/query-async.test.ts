import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureRequest } from "../support/capture-contract.ts";
import { assertControlConforms } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestResponse, type TestServer } from "../support/server.ts";

/**
 * The query API's execution modes and background queries on fixtures/scenarios/basic.json (clock frozen at
 * 2024-03-05T12:00Z; user 1 is a member of projects 1 and 2, not 3). Project 1's 11 events by name:
 * $pageview 5 (person 1: 3, person 2: 1, person 3: 1), signup 3, purchase 2, $pageleave 1.
 * Every response is validated against the document by the test client.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const E = "/api/environments/1";
const BY_NAME = "select event, count() as c from events group by event order by c desc, event";
const BY_NAME_ROWS = [["$pageview", 5], ["signup", 3], ["purchase", 2], ["$pageleave", 1]];
const hogql = (query: string) => ({ kind: "HogQLQuery", query });
/** 11 events × 30,000 on each side: 1.1e11 products, far longer than the engine's 30 s limit unless cancelled. */
const SLOW = "select sum(x * y) from (select arrayJoin(range(30000)) as x from events) a, (select arrayJoin(range(30000)) as y from events) b";

/** Polls a status until it is no longer running (202). */
async function settled(path: string): Promise<TestResponse> {
  for (let i = 0; i < 600; i++) {
    const res = await s.get(path);
    if (res.status !== 202) return res;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${path} still running`);
}

describe("blocking modes", () => {
  it("blocking (the default) computes once, then serves the cached answer until force_blocking or true", async () => {
    const body = { query: hogql(BY_NAME) };
    const first = await s.post(`${P}/query/`, body);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ results: BY_NAME_ROWS, is_cached: false, query_status: null });
    const again = await s.post(`${E}/query/`, { ...body, refresh: "blocking" });
    expect(again.body).toMatchObject({ results: BY_NAME_ROWS, is_cached: true, cache_key: first.body.cache_key, last_refresh: first.body.last_refresh });
    expect((await s.post(`${P}/query/`, { ...body, refresh: "force_blocking" })).body).toMatchObject({ results: BY_NAME_ROWS, is_cached: false });
    expect((await s.post(`${P}/query/`, { ...body, refresh: true })).body.is_cached).toBe(false);
  });

  it("force_cache computes on a miss, as the real query endpoint does, then serves the cache", async () => {
    const body = { query: hogql(BY_NAME), refresh: "force_cache" };
    expect((await s.post(`${P}/query/`, body)).body).toMatchObject({ results: BY_NAME_ROWS, is_cached: false });
    expect((await s.post(`${P}/query/`, body)).body).toMatchObject({ results: BY_NAME_ROWS, is_cached: true });
  });

  it("reads its writes: a capture makes the next blocking query compute again", async () => {
    const body = { query: hogql("select count() from events where event = 'order placed'") };
    expect((await s.post(`${P}/query/`, body)).body.results).toEqual([[0]]);
    expect((await s.post(`${P}/query/`, body)).body.is_cached).toBe(true);
    const token = s.store.projects.get("1")!.api_token;
    const batch = { api_key: token, batch: [{ event: "order placed", distinct_id: "a", timestamp: "2024-03-05T11:00:00.000Z" }] };
    const captured = await captureRequest(s.base, "POST", "/batch/", { body: JSON.stringify(batch), headers: { "content-type": "application/json" } });
    expect(captured.status).toBe(200);
    expect((await s.post(`${P}/query/`, body)).body).toMatchObject({ results: [[1]], is_cached: false });
  });
});

describe("background modes", () => {
  it("async starts the query and answers 202 at once; polling ends with what a blocking call answers", async () => {
    const started = await s.post(`${P}/query/`, { query: hogql(BY_NAME), refresh: "async", client_query_id: "by-name-1" });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ cache_key: expect.stringMatching(/^cache_/), query_status: expect.objectContaining({ id: "by-name-1", query_async: true, team_id: 1, complete: false, error: false, results: null }) });
    const done = await settled(`${P}/query/by-name-1/`);
    expect(done.status).toBe(200);
    expect(done.body.query_status).toMatchObject({ id: "by-name-1", complete: true, error: false, error_message: null, end_time: "2024-03-05T12:00:00.000Z" });
    expect(done.body.query_status.results).toMatchObject({ results: BY_NAME_ROWS, columns: ["event", "c"], cache_key: started.body.cache_key });
    // The environments door reads the same status; the finished run filled the cache.
    expect((await s.get(`${E}/query/by-name-1/`)).body).toEqual(done.body);
    expect((await s.post(`${P}/query/`, { query: hogql(BY_NAME), refresh: "async" })).body).toMatchObject({ results: BY_NAME_ROWS, is_cached: true });
    expect((await s.post(`${P}/query/`, { query: hogql(BY_NAME) })).body).toMatchObject({ results: BY_NAME_ROWS, is_cached: true });
  });

  it("lazy_async and the legacy async flag run in the background on a miss; without client_query_id the id is generated", async () => {
    const lazy = await s.post(`${P}/query/`, { query: hogql("select count() from events"), refresh: "lazy_async" });
    expect(lazy.status).toBe(202);
    expect(lazy.body.query_status.id).toMatch(/^[0-9a-f]{32}$/);
    expect((await settled(`${P}/query/${lazy.body.query_status.id}/`)).body.query_status.results.results).toEqual([[11]]);
    const legacy = await s.post(`${P}/query/`, { query: hogql("select count() from persons"), async: true, refresh: "blocking" });
    expect(legacy.status).toBe(202);
    expect((await settled(`${P}/query/${legacy.body.query_status.id}/`)).body.query_status.results.results).toEqual([[3]]);
  });

  it("force_async always recomputes in the background and answers the status alone", async () => {
    await s.post(`${P}/query/`, { query: hogql(BY_NAME) });
    const started = await s.post(`${P}/query/`, { query: hogql(BY_NAME), refresh: "force_async", client_query_id: "forced" });
    expect(started.status).toBe(202);
    expect(Object.keys(started.body)).toEqual(["query_status"]);
    const done = await settled(`${E}/query/forced/`);
    expect(done.body.query_status.results).toMatchObject({ results: BY_NAME_ROWS, is_cached: false });
  });

  it("an insight kind computes within the request: its async status is complete as it is answered", async () => {
    const trends = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" }, interval: "day" };
    const res = await s.post(`${P}/query/`, { query: trends, refresh: "async", client_query_id: "trend-1" });
    expect(res.status).toBe(200);
    expect(res.body.query_status).toMatchObject({ id: "trend-1", complete: true, error: false });
    expect(res.body.query_status.results.results[0].data).toEqual([3, 1, 1]);
    expect((await s.get(`${P}/query/trend-1/`)).body.query_status.results.results[0].data).toEqual([3, 1, 1]);
    // Now cached by the analysis service: answered as a result.
    expect((await s.post(`${P}/query/`, { query: trends, refresh: "async" })).body).toMatchObject({ is_cached: true, query_status: null });
  });

  it("a refused query fails in its status with the message a blocking call answers as a 400", async () => {
    const query = hogql("select nope from events");
    const blocking = await s.post(`${P}/query/`, { query });
    expect(blocking.status).toBe(400);
    await s.post(`${P}/query/`, { query, refresh: "async", client_query_id: "bad" });
    const failed = await settled(`${P}/query/bad/`);
    expect(failed.status).toBe(400);
    expect(failed.body.query_status).toMatchObject({ complete: true, error: true, error_message: blocking.body.detail, results: null });
  });
});

describe("cancel and lookup", () => {
  it("DELETE kills a running query while the server keeps answering; its status then says it was cancelled", async () => {
    const started = await s.post(`${P}/query/`, { query: hogql(SLOW), refresh: "async", client_query_id: "slow" });
    expect(started.status).toBe(202);
    expect((await s.post(`${P}/query/`, { query: hogql(BY_NAME) })).body.results).toEqual(BY_NAME_ROWS);
    const running = await s.get(`${P}/query/slow/`);
    expect(running.status).toBe(202);
    expect(running.body.query_status).toMatchObject({ complete: false, error: false });
    const cancelled = await s.del(`${E}/query/slow/`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ message: "Cancelled query on clickhouse" });
    const status = await s.get(`${P}/query/slow/`);
    expect(status.status).toBe(400);
    expect(status.body.query_status).toMatchObject({ id: "slow", complete: true, error: true, error_message: "The query was cancelled.", results: null });
    expect((await s.del(`${P}/query/slow/`)).body).toEqual({ message: "Query already complete" });
    expect((await s.post(`${P}/query/`, { query: hogql("select count() from events") })).body.results).toEqual([[11]]);
  });

  it("DELETE of a client_query_id also cancels the blocking query run under it: its request answers 400 query_cancelled", async () => {
    let done = false;
    const pending = s.post(`${P}/query/`, { query: hogql(SLOW), client_query_id: "slow-blocking" }).finally(() => (done = true));
    // Until the request has reached the engine there is nothing to cancel: ask until it answers.
    while (!done) {
      expect((await s.del(`${P}/query/slow-blocking/`)).body).toEqual({ message: "Cancelled query on clickhouse" });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const res = await pending;
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "query_cancelled", detail: "The query was cancelled." });
    // A blocking query leaves no status behind.
    expect((await s.get(`${P}/query/slow-blocking/`)).status).toBe(404);
  });

  it("an unknown id, or another project's, is a 404; a reset forgets every status", async () => {
    expect((await s.get(`${P}/query/nope/`)).body).toMatchObject({ type: "invalid_request", code: "not_found" });
    expect((await s.get(`${P}/query/nope/`)).status).toBe(404);
    await s.post(`${P}/query/`, { query: hogql(BY_NAME), refresh: "async", client_query_id: "mine" });
    expect((await settled(`${P}/query/mine/`)).status).toBe(200);
    expect((await s.get(`/api/projects/2/query/mine/`)).status).toBe(404);
    expect((await s.get(`/api/environments/2/query/mine/`)).status).toBe(404);
    expect((await s.get(`/api/projects/3/query/mine/`)).status).toBe(403);
    const reset = await fetch(`${s.base}/_mock/reset/`, { method: "POST" });
    await assertControlConforms("POST", "/_mock/reset/", reset.status, await reset.json());
    expect((await s.get(`${P}/query/mine/`)).status).toBe(404);
  });
});

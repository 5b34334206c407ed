import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_QUERIES_PER_PROJECT } from "../../src/services/query/query-statuses.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Issue 38, point 6: one project's background queries must not starve another project's SQL. On
 * fixtures/scenarios/basic.json (user 1 is a member of projects 1 and 2; project 2 has 1 event), project 1 fills
 * its share with queries that run until the time limit (4 s each, two at a time: 20 s to drain), and project 2's
 * query is answered meanwhile. Every response is validated against the document by the test client.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"), { sqlTimeLimitMs: 4_000 });
});
afterEach(() => s.close());

const hogql = (query: string) => ({ kind: "HogQLQuery", query });
/** 11 events × 30,000 on each side: 1.1e11 products, stopped by the 4 s time limit unless cancelled. */
const SLOW = "select sum(x * y) from (select arrayJoin(range(30000)) as x from events) a, (select arrayJoin(range(30000)) as y from events) b";

async function cancelAll(ids: string[]): Promise<void> {
  for (const id of ids) expect((await s.del(`/api/projects/1/query/${id}/`)).status).toBe(200);
}

describe("the SQL engine is shared fairly between projects", () => {
  it("project 1 fills its share of background queries; the next is a 429 with Retry-After; project 2's query answers meanwhile", { timeout: 60_000 }, async () => {
    expect(MAX_QUERIES_PER_PROJECT).toBe(10);
    // The engine started and the mirror loaded first, so that what follows measures the queueing alone.
    expect((await s.post("/api/projects/2/query/", { query: hogql("select 1") })).status).toBe(200);
    const ids = Array.from({ length: 10 }, (_, i) => `slow-${i}`);
    try {
      for (const id of ids) {
        const started = await s.post("/api/projects/1/query/", { query: hogql(SLOW), refresh: "force_async", client_query_id: id });
        expect(started.status).toBe(202);
      }
      const refused = await s.post("/api/projects/1/query/", { query: hogql(SLOW), refresh: "force_async", client_query_id: "slow-10" });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.body).toEqual({
        type: "throttled_error",
        code: "throttled",
        detail: "Exceeded maximum concurrency limit: 10 for key: project 1 (SQL queries running or waiting at once). Expected available in 1 second.",
        attr: null,
      });
      // A blocking query of the same project counts against the same share.
      expect((await s.post("/api/projects/1/query/", { query: hogql("select 2") })).status).toBe(429);
      // The refused id was never started.
      expect((await s.get("/api/projects/1/query/slow-10/")).status).toBe(404);

      // Project 2's query: its one event, counted at once (the engine's third slot), not after project 1's 20 s of queued queries.
      const other = await s.post("/api/projects/2/query/", { query: hogql("select count() from events") });
      expect(other.status).toBe(200);
      expect(other.body.results).toEqual([[1]]);
      const running = [];
      for (const id of ids) running.push((await s.get(`/api/projects/1/query/${id}/`)).status);
      // At most the first two of project 1's queries could have ended (at their 4 s limit); the other eight still wait.
      expect(running.filter((status) => status === 202).length).toBeGreaterThanOrEqual(8);
    } finally {
      await cancelAll(ids);
    }
    // Cancelled, they leave the share: project 1's queries are accepted again (once the killed one has ended).
    let again = await s.post("/api/projects/1/query/", { query: hogql("select 3") });
    for (let i = 0; i < 100 && again.status === 429; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await s.post("/api/projects/1/query/", { query: hogql("select 3") });
    }
    expect(again.status).toBe(200);
    expect(again.body.results).toEqual([[3]]);
  });
});

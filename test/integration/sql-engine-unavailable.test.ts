import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Where chdb has no build (Windows, Alpine/musl) its module does not load: the server is started here with a
 * module name that does not exist, which takes the same path. Every SQL request answers one clear error; the
 * rest of the API works.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"), {}, { chdbModule: "chdb-not-built-for-this-platform" });
});
afterEach(() => s.close());

const E = "/api/environments/1";

describe("without the SQL engine", () => {
  it("answers SQL kinds with a 503 naming the missing engine and where it exists", async () => {
    for (const query of [{ kind: "HogQLQuery", query: "select count() from events" }, { kind: "EventsQuery", select: ["event"], after: "all" }]) {
      const res = await s.post(`${E}/query/`, { query });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ type: "server_error", code: "sql_engine_unavailable", attr: null });
      expect(res.body.detail).toMatch(/chdb/);
      expect(res.body.detail).toMatch(/Linux with glibc .* and macOS/);
    }
  });

  it("answers execute_sql as a failed tool call, not retryable", async () => {
    const res = await s.post(`${E}/mcp_tools/execute_sql/`, { args: { query: "select 1" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: false, error_type: "fatal" });
    expect(res.body.content).toMatch(/chdb/);
  });

  it("still answers everything else, the analyses included (5 pageviews: 3, 1, 1 over 1–3 March)", async () => {
    const trend = await s.post(`${E}/query/`, { query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" } } });
    expect(trend.status).toBe(200);
    expect(trend.body.results[0].data).toEqual([3, 1, 1]);
    expect((await s.get("/api/projects/1/persons/")).status).toBe(200);
  });
});

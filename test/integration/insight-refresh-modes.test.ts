/**
 * `refresh` on insight reads takes the real service's execution modes (posthog/api/insight.py, the list's
 * `refresh` parameter with `enum=ExecutionMode`; posthog/utils.py `_request_has_key_set`; posthog/hogql_queries/
 * query_runner.py `execution_mode_from_refresh`), where it used to be a boolean and `force_blocking` a 400.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

const P = "/api/projects/1";
const MODES = ["true", "false", "1", "0", "yes", "no", "force_cache", "blocking", "async", "async_except_on_cache_miss", "lazy_async", "force_blocking", "force_async"];

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(async () => {
  await s?.close();
});

describe("refresh modes on GET /insights/{id}/", () => {
  it("takes every mode, answering the insight's result (basic scenario: $pageview per day 2024-03-01..03 is 3, 1, 1)", async () => {
    for (const mode of MODES) {
      const res = await s.get(`${P}/insights/1/?refresh=${mode}`);
      expect(res.status, mode).toBe(200);
      expect(res.body.result[0].data, mode).toEqual([3, 1, 1]);
    }
  });

  it("force_blocking and force_async recompute once the minimum refresh interval has passed; blocking and async answer the cache", async () => {
    await s.get(`${P}/insights/1/`);
    s.clock.advance(4 * 60_000);
    for (const mode of ["blocking", "async", "lazy_async", "force_cache"]) expect((await s.get(`${P}/insights/1/?refresh=${mode}`)).body.is_cached, mode).toBe(true);
    const forced = await s.get(`${P}/insights/1/?refresh=force_blocking`);
    expect(forced.body).toMatchObject({ is_cached: false, last_refresh: "2024-03-05T12:04:00.000Z" });
    s.clock.advance(4 * 60_000);
    expect((await s.get(`${P}/insights/1/?refresh=force_async`)).body).toMatchObject({ is_cached: false, last_refresh: "2024-03-05T12:08:00.000Z" });
  });

  it("reads a value that is no mode as false, as the real service does (posthog/utils.py _request_has_key_set): the cache answers", async () => {
    await s.get(`${P}/insights/1/`);
    const res = await s.get(`${P}/insights/1/?refresh=sometimes`);
    expect(res.status).toBe(200);
    expect(res.body.is_cached).toBe(true);
  });
});

describe("refresh modes on GET /insights/", () => {
  const resultsById = async (query: string) => Object.fromEntries((await s.get(`${P}/insights/${query}`)).body.results.map((i: { id: number; result: unknown }) => [i.id, i.result]));

  it("without refresh (or with force_cache) carries only cached results; a computing mode computes the page", async () => {
    expect((await resultsById(""))[1]).toBeNull();
    expect((await resultsById("?refresh=force_cache"))[1]).toBeNull();
    expect((await resultsById("?refresh=sometimes"))[1]).toBeNull();
    const computed = await resultsById("?refresh=blocking");
    expect((computed[1] as { data: number[] }[])[0]!.data).toEqual([3, 1, 1]);
    expect((await resultsById(""))[1]).not.toBeNull();
  });

  it("takes force_blocking", async () => {
    const res = await s.get(`${P}/insights/?refresh=force_blocking`);
    expect(res.status).toBe(200);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

/** A call of the control API; its answer is checked against openapi/control.yaml. */
const control = (method: string, path: string, body?: unknown) => callControl(s.base, method, path, body);

const TREND = "/api/projects/1/insights/trend/";
const pageviews = { events: [{ id: "$pageview", type: "events", order: 0 }], date_from: "2024-03-01", date_to: "2024-03-03" };

describe("request log entries", () => {
  it("record the operation, query, body, status and a 4xx's code and attr; never a key", async () => {
    await s.post(TREND, { ...pageviews, breakdown: "$browser" });
    await s.get("/api/projects/1/insights/?limit=zero");
    await s.post("/api/projects/1/insights/", { name: "n", description: "leaked phx_test_owner_key_0001" });
    await s.get("/api/projects/1/nowhere/");
    const [nowhere, create, badLimit, trend] = (await control("GET", "/requests/")).body.results;
    expect(trend.body).toEqual({ ...pageviews, breakdown: "$browser" });
    expect(trend).toMatchObject({
      method: "POST",
      path: TREND,
      query: "",
      operation_id: "insights_trend_create",
      body: { ...pageviews, breakdown: "$browser" },
      body_truncated: false,
      status: 200,
      error: null,
    });
    expect(badLimit).toMatchObject({ operation_id: "insights_list", query: "limit=zero", body: null, status: 400, error: { code: "invalid_input", attr: "limit" } });
    expect(create.body.description).toBe("leaked phx_…0001");
    expect(nowhere).toMatchObject({ operation_id: null, status: 404, error: { code: "not_found", attr: null } });
    expect(JSON.stringify(await control("GET", "/requests/"))).not.toContain(OWNER_KEY);
  });

  it("cut a body over 16 KiB of JSON text, flagged, and match no body condition on it", async () => {
    await s.post("/api/projects/1/insights/", { name: "long", description: "x".repeat(20_000) });
    const [entry] = (await control("GET", "/requests/?limit=1")).body.results;
    expect(entry.body_truncated).toBe(true);
    expect(typeof entry.body).toBe("string");
    expect(Buffer.byteLength(entry.body)).toBe(16 * 1024);
    expect(entry.body.startsWith('{"name":"long","description":"xxx')).toBe(true);
    expect((await control("POST", "/requests/count/", { body: { name: "long" } })).body).toEqual({ count: 0 });
    expect((await control("POST", "/requests/count/", { operation_id: "insights_create" })).body).toEqual({ count: 1 });
  });
});

describe("POST /_mock/requests/find and /count", () => {
  beforeEach(async () => {
    await s.post(TREND, { ...pageviews, breakdown: "$browser" });
    await s.post(TREND, { ...pageviews, breakdown: "$os" });
    await s.get(`${TREND}?events=${encodeURIComponent('[{"id":"$pageview"}]')}&breakdown=%24browser&date_from=-30d`);
    await s.get("/api/projects/1/insights/?limit=1");
    await s.get("/api/projects/1/insights/", { key: null });
  });

  it("assert that the app called the trend endpoint once with breakdown=$browser", async () => {
    const found = await control("POST", "/requests/find/", { operation_id: "insights_trend_create", body: { breakdown: "$browser" } });
    expect(found.body.requests).toHaveLength(1);
    expect(found.body.requests[0].body.breakdown).toBe("$browser");
    expect((await control("POST", "/requests/count", { operation_id: "insights_trend_create", body: { breakdown: "$browser" } })).body).toEqual({ count: 1 });
  });

  it("match by method, path glob, status, query fields (JSON-encoded ones decoded), nested body fields", async () => {
    const count = async (pattern: object) => (await control("POST", "/requests/count/", pattern)).body.count;
    expect(await count({})).toBe(5);
    expect(await count({ method: "get" })).toBe(3);
    expect(await count({ path: "/api/projects/*/insights/trend" })).toBe(3);
    expect(await count({ path: "/api/projects/*/insights/" })).toBe(2);
    expect(await count({ path: "/api/**" })).toBe(5);
    expect(await count({ path: "/api/projects/*" })).toBe(0);
    expect(await count({ status: 401 })).toBe(1);
    expect(await count({ query: { breakdown: "$browser", date_from: "-30d" } })).toBe(1);
    expect(await count({ query: { events: [{ id: "$pageview" }] } })).toBe(1);
    expect(await count({ query: { limit: 1 } })).toBe(1);
    expect(await count({ query: { limit: "2" } })).toBe(0);
    expect(await count({ body: { events: [{ id: "$pageview" }] } })).toBe(2);
    expect(await count({ body: { events: [{ id: "$pageview" }, { id: "x" }] } })).toBe(0);
    expect(await count({ body: { "events.0.id": "$pageview", breakdown: "$os" } })).toBe(1);
  });

  it("refuse an unknown pattern field with a 400 naming it", async () => {
    const refused = await control("POST", "/requests/find/", { operationId: "insights_trend_create" });
    expect(refused.status).toBe(400);
    expect(refused.body.attr).toBe("operationId");
  });
});

describe("one-off overrides", () => {
  it("answer the next N calls with the documented example, then the real answer again", async () => {
    const made = await control("POST", "/overrides/", { operation_id: "insights_trend_create", status: 500, times: 2 });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ id: 1, operation_id: "insights_trend_create", status: 500, times: 2, remaining: 2 });
    const first = await s.post(TREND, pageviews);
    expect(first.status).toBe(500);
    expect(first.body.type).toBe("server_error");
    expect(first.headers.get("x-mock-override")).toBe("1");
    expect((await control("GET", "/overrides/")).body.results).toEqual([expect.objectContaining({ id: 1, remaining: 1 })]);
    expect((await s.post(TREND, pageviews)).status).toBe(500);
    expect((await control("GET", "/overrides/")).body).toEqual({ results: [] });
    const real = await s.post(TREND, pageviews);
    expect(real.status).toBe(200);
    expect(real.body.result[0].count).toBe(5);
  });

  it("apply only to valid calls matching `when`, oldest first; a given body is answered as is", async () => {
    await control("POST", "/overrides/", { operation_id: "insights_trend_create", when: { body: { breakdown: "$browser" } }, status: 404 });
    const body = { type: "invalid_request", code: "not_found", detail: "Gone for this test.", attr: null };
    await control("POST", "/overrides/", { operation_id: "insights_trend_create", when: { body: { breakdown: "$browser" } }, status: 404, body });
    expect((await s.post(TREND, pageviews)).status).toBe(200);
    expect((await s.post(TREND, { ...pageviews, breakdown: "$browser", interval: "fortnight" })).status).toBe(400);
    const first = await s.post(TREND, { ...pageviews, breakdown: "$browser" });
    expect([first.status, first.body.detail]).toEqual([404, "Not found."]);
    const second = await s.post(TREND, { ...pageviews, breakdown: "$browser" });
    expect(second.body).toEqual(body);
    expect((await s.post(TREND, { ...pageviews, breakdown: "$browser" })).status).toBe(200);
  });

  it("match query conditions of the GET forms, and a delay alone delays the real answer", async () => {
    await control("POST", "/overrides/", { operation_id: "insights_list", when: { query: { limit: 1 } }, delay_ms: 150 });
    const started = Date.now();
    const res = await s.get("/api/projects/1/insights/?limit=1");
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
  });

  it("refuse undocumented statuses (listing the documented ones), unknown operations and examples, bad bodies", async () => {
    const undocumented = await control("POST", "/overrides/", { operation_id: "insights_trend_create", status: 418 });
    expect([undocumented.status, undocumented.body.attr]).toEqual([400, "status"]);
    expect(undocumented.body.detail).toContain("documented: 200, 400, 401, 403, 404, 413, 415, 429, 500");
    const unknown = await control("POST", "/overrides/", { operation_id: "insights_teleport", status: 500 });
    expect([unknown.status, unknown.body.attr]).toEqual([400, "operation_id"]);
    const example = await control("POST", "/overrides/", { operation_id: "insights_trend_create", status: 200, example: "nope" });
    expect([example.status, example.body.attr]).toEqual([400, "example"]);
    expect(example.body.detail).toContain("trend_daily");
    const badBody = await control("POST", "/overrides/", { operation_id: "insights_trend_create", status: 404, body: { oops: true } });
    expect([badBody.status, badBody.body.attr?.startsWith("body")]).toEqual([400, true]);
    const nothing = await control("POST", "/overrides/", { operation_id: "insights_trend_create" });
    expect(nothing.status).toBe(400);
    const tooLong = await control("POST", "/overrides/", { operation_id: "insights_trend_create", delay_ms: 60_000 });
    expect([tooLong.status, tooLong.body.attr]).toEqual([400, "delay_ms"]);
    expect((await control("GET", "/overrides/")).body).toEqual({ results: [] });
  });

  it("are bounded, deleted one by one or all, and cleared by reset", async () => {
    for (let i = 0; i < 100; i++) expect((await control("POST", "/overrides/", { operation_id: "insights_list", status: 500 })).status).toBe(201);
    const full = await control("POST", "/overrides/", { operation_id: "insights_list", status: 500 });
    expect([full.status, full.body.code]).toEqual([400, "too_many_overrides"]);
    expect((await control("DELETE", "/overrides/7/")).status).toBe(204);
    expect((await control("DELETE", "/overrides/7")).status).toBe(404);
    expect((await control("GET", "/overrides/")).body.results).toHaveLength(99);
    expect((await control("DELETE", "/overrides")).status).toBe(204);
    expect((await control("GET", "/overrides/")).body.results).toHaveLength(0);
    await control("POST", "/overrides/", { operation_id: "insights_list", status: 500 });
    await control("POST", "/reset/");
    expect((await control("GET", "/overrides/")).body.results).toHaveLength(0);
    expect((await s.get("/api/projects/1/insights/")).status).toBe(200);
  });
});

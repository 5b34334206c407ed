import { PostHog } from "posthog-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

/** Overrides and `Prefer` on every operation (product, capture, flags), 429s, and what a real SDK does under them. */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("capture"));
});
afterEach(() => s.close());

const TOKEN = "phc_test_capture_token_0001";
const P = "/api/projects/1";

/** A call of the control API; its answer is checked against openapi/control.yaml. */
const control = (method: string, path: string, body?: unknown) => callControl(s.base, method, path, body);

const batch = (event: string, uuid?: string) =>
  JSON.stringify({ api_key: TOKEN, batch: [{ event, distinct_id: "u-1", ...(uuid ? { uuid } : {}), properties: {} }] });
const postBatch = (event: string, headers: Record<string, string> = {}) =>
  captureRequest(s.base, "POST", "/batch/", { body: batch(event), headers: { "content-type": "application/json", ...headers } });
const stored = async (event: string) => (await s.get(`${P}/events/?event=${encodeURIComponent(event)}&limit=100`)).body.results.length as number;
/** Statuses of the logged calls to a path, oldest first. */
const statusesOf = async (path: string) => ((await control("POST", "/requests/find/", { path })).body.requests as { status: number }[]).map((r) => r.status).reverse();

describe("Prefer and 429 everywhere", () => {
  it("Prefer: code=429 answers the throttled error with Retry-After, on product and capture operations alike", async () => {
    const product = await s.get(`${P}/insights/`, { headers: { prefer: "code=429" } });
    expect(product.status).toBe(429);
    expect(product.body).toEqual({ type: "throttled_error", code: "throttled", detail: "Request was throttled. Expected available in 1 second.", attr: null });
    expect(product.headers.get("retry-after")).toBe("1");
    const capture = await postBatch("throttled", { prefer: "code=429" });
    expect([capture.status, capture.body.code, capture.headers.get("retry-after")]).toEqual([429, "throttled", "1"]);
    expect((await postBatch("unavailable", { prefer: "code=503" })).body.code).toBe("service_unavailable");
    expect((await postBatch("teapot", { prefer: "code=418" })).status).toBe(400);
    expect(await stored("throttled")).toBe(0);
  });

  it("overrides reach capture, flags and flag definitions; an override's 429 says its Retry-After", async () => {
    const made = await control("POST", "/overrides/", { operation_id: "capture_batch", status: 500 });
    const failed = await postBatch("first try");
    expect([failed.status, failed.body.type, failed.headers.get("x-mock-override")]).toEqual([500, "server_error", String(made.body.id)]);
    expect((await postBatch("first try")).status).toBe(200);
    expect(await stored("first try")).toBe(1);

    await control("POST", "/overrides/", { operation_id: "flags_evaluate", status: 500 });
    const flags = await captureRequest(s.base, "POST", "/flags/?v=2", { body: JSON.stringify({ token: TOKEN, distinct_id: "u-1" }), headers: { "content-type": "application/json" } });
    expect(flags.status).toBe(500);

    await control("POST", "/overrides/", { operation_id: "flags_definitions", status: 429, retry_after: 7 });
    const definitions = await captureRequest(s.base, "GET", `/flags/definitions?token=${TOKEN}`, { headers: { authorization: `Bearer ${OWNER_KEY}` } });
    expect([definitions.status, definitions.headers.get("retry-after"), definitions.body.detail]).toEqual([429, "7", "Request was throttled. Expected available in 7 seconds."]);
    expect((await captureRequest(s.base, "GET", `/flags/definitions?token=${TOKEN}`, { headers: { authorization: `Bearer ${OWNER_KEY}` } })).status).toBe(200);

    await control("POST", "/overrides/", { operation_id: "insights_list", status: 429, example: "throttled" });
    const example = await s.get(`${P}/insights/`);
    expect([example.status, example.body.detail, example.headers.get("retry-after")]).toEqual([429, "Request was throttled. Expected available in 12 seconds.", "12"]);

    await control("POST", "/overrides/", { operation_id: "capture_e", when: { query: { ver: "1.2.3" } }, status: 429 });
    expect((await captureRequest(s.base, "POST", "/e/", { body: JSON.stringify({ api_key: TOKEN, event: "e", distinct_id: "u" }), headers: { "content-type": "application/json" } })).status).toBe(200);
    expect((await captureRequest(s.base, "POST", "/e/?ver=1.2.3", { body: JSON.stringify({ api_key: TOKEN, event: "e", distinct_id: "u" }), headers: { "content-type": "application/json" } })).status).toBe(429);
  });

  it("an unknown operationId is refused naming the closest few; a capture override cannot match a body", async () => {
    // "insight_list" is one edit from insights_list and farther from every other id (issue 41: all ids were 3,275 characters).
    const unknown = await control("POST", "/overrides/", { operation_id: "insight_list", status: 500 });
    expect([unknown.status, unknown.body.attr]).toEqual([400, "operation_id"]);
    expect(unknown.body.detail).toMatch(/^Unknown operationId "insight_list": did you mean `insights_list`, or `\w+`, or `\w+`\? /);
    expect(unknown.body.detail.length).toBeLessThan(200);
    const byBody = await control("POST", "/overrides/", { operation_id: "capture_batch", when: { body: { event: "x" } }, status: 500 });
    expect([byBody.status, byBody.body.attr]).toEqual([400, "when__body"]);
    const retryAfter = await control("POST", "/overrides/", { operation_id: "capture_batch", status: 500, retry_after: 3 });
    expect([retryAfter.status, retryAfter.body.attr]).toEqual([400, "retry_after"]);
    const undocumented = await control("POST", "/overrides/", { operation_id: "insights_list", status: 503 });
    expect([undocumented.status, undocumented.body.attr]).toEqual([400, "status"]);
  });
});

describe("posthog-node under overrides (its real retry behaviour)", () => {
  const client = (options: Record<string, number>) => new PostHog(TOKEN, { host: s.base, flushAt: 100, flushInterval: 0, fetchRetryDelay: 10, ...options });

  it("retries a 500 on /batch/ and the batch is stored once", async () => {
    await control("POST", "/overrides/", { operation_id: "capture_batch", status: 500, times: 2 });
    const ph = client({ fetchRetryCount: 3 });
    ph.capture({ distinctId: "u-1", event: "order placed" });
    await ph.shutdown();
    expect(await statusesOf("/batch/")).toEqual([500, 500, 200]);
    expect(await stored("order placed")).toBe(1);
  });

  it("gives up after fetchRetryCount retries: the batch is lost and the override says what remains", async () => {
    await control("POST", "/overrides/", { operation_id: "capture_batch", status: 500, times: 5 });
    const ph = client({ fetchRetryCount: 3 });
    ph.capture({ distinctId: "u-1", event: "lost order" });
    await ph.shutdown();
    expect(await statusesOf("/batch/")).toEqual([500, 500, 500, 500]);
    expect(await stored("lost order")).toBe(0);
    expect((await control("GET", "/overrides/")).body.results[0].remaining).toBe(1);
  });

  it("retries a 429 (posthog-node's batch retry does not wait for Retry-After)", async () => {
    await control("POST", "/overrides/", { operation_id: "capture_batch", status: 429, retry_after: 30 });
    const ph = client({ fetchRetryCount: 1 });
    ph.capture({ distinctId: "u-1", event: "throttled order" });
    await ph.shutdown();
    expect(await statusesOf("/batch/")).toEqual([429, 200]);
    expect(await stored("throttled order")).toBe(1);
  });

  it("times out on a delayed /batch/, sends again, and the event is stored once (same uuid)", async () => {
    await control("POST", "/overrides/", { operation_id: "capture_batch", delay_ms: 600 });
    const ph = client({ fetchRetryCount: 2, requestTimeout: 200 });
    ph.capture({ distinctId: "u-1", event: "slow order" });
    await ph.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 700)); // the delayed first call ends after its client gave up
    // The retry is stored; the first call, whose client hung up during the delay, finds its body gone (a 400).
    expect(await statusesOf("/batch/")).toEqual([200, 400]);
    expect(await stored("slow order")).toBe(1);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureRequest } from "../support/capture-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/** --rate-limits over HTTP: the real service's buckets per personal API key, on the clock of /_mock/clock/. */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("capture"), { rateLimits: true });
});
afterEach(() => s.close());

const P = "/api/projects/1";
const advance = (seconds: number) =>
  fetch(`${s.base}/_mock/clock/advance/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ seconds }) });

/** n calls of one request, in parallel batches; the statuses in order. */
async function calls(n: number, call: () => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 40) out.push(...(await Promise.all(Array.from({ length: Math.min(40, n - i) }, call))).map((r) => r.status));
  return out;
}

describe("--rate-limits", () => {
  it("analytics endpoints take 240 a minute per key; the 241st is throttled with Retry-After until the clock moves", async () => {
    const statuses = await calls(240, () => s.get(`${P}/events/?limit=1`));
    expect(statuses.every((st) => st === 200)).toBe(true);
    const refused = await s.get(`${P}/insights/`);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ type: "throttled_error", code: "throttled", detail: "Request was throttled. Expected available in 60 seconds.", attr: null });
    expect(refused.headers.get("retry-after")).toBe("60");
    // Other buckets and the capture endpoints are not touched.
    expect((await s.get(`${P}/feature_flags/`)).status).toBe(200);
    const captured = await captureRequest(s.base, "POST", "/batch/", {
      body: JSON.stringify({ api_key: "phc_test_capture_token_0001", batch: [{ event: "e", distinct_id: "d", properties: {} }] }),
      headers: { "content-type": "application/json" },
    });
    expect(captured.status).toBe(200);
    await advance(30);
    expect((await s.get(`${P}/events/?limit=1`)).headers.get("retry-after")).toBe("30");
    await advance(30);
    expect((await s.get(`${P}/events/?limit=1`)).status).toBe(200);
  });

  it("a reset empties the counts; no key, no throttle (401 as always)", async () => {
    await calls(241, () => s.get(`${P}/persons/`));
    expect((await s.get(`${P}/persons/`)).status).toBe(429);
    await fetch(`${s.base}/_mock/reset/`, { method: "POST" });
    expect((await s.get(`${P}/persons/`)).status).toBe(200);
    expect((await s.get(`${P}/persons/`, { key: null })).status).toBe(401);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/** Fault rates: a seeded share of an operation's calls fails with a 500, a 503 or a dropped connection. */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("capture"));
});
afterEach(() => s.close());

const TOKEN = "phc_test_capture_token_0001";

/** A call of the control API; its answer is checked against openapi/control.yaml. */
const control = (method: string, path: string, body?: unknown) => callControl(s.base, method, path, body);

/** Status of each of n calls; 0 for a connection closed without an answer. */
async function statuses(n: number, call: () => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await call().then((r) => r.status, () => 0));
  return out;
}

const listInsights = () => s.get("/api/projects/1/insights/");
const postBatch = (i: number) =>
  captureRequest(s.base, "POST", "/batch/", {
    body: JSON.stringify({ api_key: TOKEN, batch: [{ event: "flaky", distinct_id: `u-${i}`, properties: {} }] }),
    headers: { "content-type": "application/json" },
  });

describe("fault rates", () => {
  it("fail a seeded share of the calls: the same ones for the same seed, others for another seed", async () => {
    const fault = { operation_id: "insights_list", fault_rate: 0.5, seed: 7 };
    const made = await control("POST", "/overrides/", fault);
    expect(made.body).toMatchObject({ ...fault, times: null, remaining: null });
    const first = await statuses(20, listInsights);
    expect(new Set(first)).toEqual(new Set([200, 500]));
    expect(first.filter((st) => st === 500).length).toBeGreaterThan(4);
    expect(first.filter((st) => st === 500).length).toBeLessThan(16);
    await control("DELETE", "/overrides/");
    await control("POST", "/overrides/", fault);
    expect(await statuses(20, listInsights)).toEqual(first);
    await control("DELETE", "/overrides/");
    await control("POST", "/overrides/", { ...fault, seed: 8 });
    expect(await statuses(20, listInsights)).not.toEqual(first);
  });

  it("on capture: 500, 503 and dropped connections; what got through is stored, and times limits the failures", async () => {
    await control("POST", "/overrides/", { operation_id: "capture_batch", fault_rate: 0.6, faults: ["500", "503", "reset"], seed: 2, times: 6 });
    const got = await statuses(30, () => postBatch(0));
    expect(new Set(got.filter((st) => st !== 200))).toEqual(new Set([0, 500, 503]));
    expect(got.filter((st) => st !== 200)).toHaveLength(6);
    expect((await control("GET", "/overrides/")).body.results).toEqual([]);
    const events = (await s.get("/api/projects/1/events/?event=flaky&limit=100")).body.results;
    expect(events).toHaveLength(24);
  });

  it("a dropped connection on the product API closes it without an answer", async () => {
    await control("POST", "/overrides/", { operation_id: "insights_list", fault_rate: 1, faults: ["reset"], times: 1 });
    await expect(fetch(`${s.base}/api/projects/1/insights/`, { headers: { authorization: "Bearer phx_test_owner_key_0001" } })).rejects.toThrow();
    expect((await listInsights()).status).toBe(200);
  });

  it("refuse what does not go with a fault rate, and statuses the operation does not document", async () => {
    const withStatus = await control("POST", "/overrides/", { operation_id: "insights_list", fault_rate: 0.1, status: 500 });
    expect([withStatus.status, withStatus.body.attr]).toEqual([400, "status"]);
    const undocumented = await control("POST", "/overrides/", { operation_id: "insights_list", fault_rate: 0.1, faults: ["503"] });
    expect([undocumented.status, undocumented.body.attr]).toEqual([400, "faults"]);
    const noRate = await control("POST", "/overrides/", { operation_id: "insights_list", seed: 3 });
    expect([noRate.status, noRate.body.attr]).toEqual([400, "fault_rate"]);
    const outOfRange = await control("POST", "/overrides/", { operation_id: "insights_list", fault_rate: 1.5 });
    expect([outOfRange.status, outOfRange.body.attr]).toEqual([400, "fault_rate"]);
  });
});

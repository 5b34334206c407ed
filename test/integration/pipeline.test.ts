import { afterEach, describe, expect, it } from "vitest";
import { captureRequest } from "../support/capture-contract.ts";
import { callControl } from "../support/control-contract.ts";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";
import { derivedProjectSecretKey } from "../../src/util/ids.ts";

/** What one pipeline for every surface means from outside: the same latency, rate limits, log and Bearer grammar. */
let s: TestServer;
afterEach(() => s?.close());

const TOKEN = "phc_test_capture_token_0001";
const batch = () => JSON.stringify({ api_key: TOKEN, batch: [{ event: "pipeline", distinct_id: "d1", properties: {} }] });
const json = { "content-type": "application/json" };

/** Milliseconds one call took. */
async function timed(call: () => Promise<{ status: number }>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const { status } = await call();
  return { status, ms: performance.now() - started };
}

describe("--latency", () => {
  it("delays every answer of the product API, capture, flags and flag definitions, refusals included; the control API answers at once", async () => {
    const LATENCY = 1_500;
    s = await startTestServer(scenario("capture"), { latency: { min: LATENCY, max: LATENCY } });
    const [api, refused, captured, flags, definitions, control] = await Promise.all([
      timed(() => s.get("/api/projects/1/feature_flags/")),
      timed(() => s.get("/api/projects/1/feature_flags/", { key: null })),
      timed(() => captureRequest(s.base, "POST", "/batch/", { body: batch(), headers: json })),
      timed(() => captureRequest(s.base, "POST", "/flags/?v=2", { body: JSON.stringify({ token: TOKEN, distinct_id: "d1" }), headers: json })),
      timed(() => captureRequest(s.base, "GET", "/flags/definitions", { headers: { authorization: `Bearer ${OWNER_KEY}` } })),
      timed(() => callControl(s.base, "GET", "/requests/")),
    ]);
    expect([api.status, refused.status, captured.status, flags.status, definitions.status, control.status]).toEqual([200, 401, 200, 200, 200, 200]);
    for (const delayed of [api, refused, captured, flags, definitions]) expect(delayed.ms).toBeGreaterThanOrEqual(LATENCY - 5);
    expect(control.ms).toBeLessThan(LATENCY);
  });
});

describe("--rate-limits on flag definitions", () => {
  const definitions = (path: string, key: string) => captureRequest(s.base, "GET", path, { headers: { authorization: `Bearer ${key}` } });

  it("local evaluation polls take 600 a minute per key, in a bucket of their own shared by its three paths (PostHog's LocalEvaluationThrottle)", async () => {
    s = await startTestServer(scenario("capture"), { rateLimits: true });
    const statuses: number[] = [];
    for (let i = 0; i < 600; i += 50) {
      const paths = Array.from({ length: 50 }, (_, j) => ((i + j) % 2 === 0 ? "/api/feature_flag/local_evaluation" : "/flags/definitions"));
      statuses.push(...(await Promise.all(paths.map((path) => definitions(path, OWNER_KEY)))).map((r) => r.status));
    }
    expect(statuses.filter((st) => st === 200)).toHaveLength(600);
    const refused = await definitions("/api/feature_flag/local_evaluation", OWNER_KEY);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ type: "throttled_error", code: "throttled", detail: "Request was throttled. Expected available in 60 seconds.", attr: null });
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await definitions("/flags/definitions", OWNER_KEY)).status).toBe(429);
    expect((await s.get("/api/projects/1/feature_flags/local_evaluation/")).status).toBe(429);
    // Another key (the project's secret key), and the key's other buckets, are untouched.
    expect((await definitions("/flags/definitions?token=" + TOKEN, derivedProjectSecretKey("1"))).status).toBe(200);
    expect((await s.get("/api/projects/1/feature_flags/")).status).toBe(200);
  });
});

describe("the request log", () => {
  it("has an entry for a request a fault rate reset, with status 0 and its operation", async () => {
    s = await startTestServer(scenario("capture"));
    await callControl(s.base, "POST", "/overrides/", { operation_id: "insights_list", fault_rate: 1, faults: ["reset"], times: 1 });
    await expect(fetch(`${s.base}/api/projects/1/insights/?limit=1`, { headers: { authorization: `Bearer ${OWNER_KEY}` } })).rejects.toThrow();
    await callControl(s.base, "POST", "/overrides/", { operation_id: "capture_batch", fault_rate: 1, faults: ["reset"], times: 1 });
    await expect(fetch(`${s.base}/batch/`, { method: "POST", body: batch(), headers: json })).rejects.toThrow();
    const found = await callControl(s.base, "POST", "/requests/find/", { status: 0 });
    expect(found.status).toBe(200);
    const entries = found.body.requests.map((r: { method: string; path: string; query: string; operation_id: string; status: number }) => [r.method, r.path, r.query, r.operation_id, r.status]);
    expect(entries).toEqual([
      ["POST", "/batch/", "", "capture_batch", 0],
      ["GET", "/api/projects/1/insights/", "limit=1", "insights_list", 0],
    ]);
  });
});

describe("one Bearer grammar", () => {
  /**
   * PostHog reads `^Bearer\s+(\S.+)$` and strips the rest (posthog/auth.py, PersonalAPIKeyAuthentication.find_key_with_source):
   * blanks around the key are dropped; another scheme, another case, or nothing after it is no credential.
   */
  const cases: [string, string, { status: number; code?: string }][] = [
    ["as written", `Bearer ${OWNER_KEY}`, { status: 200 }],
    ["two spaces", `Bearer  ${OWNER_KEY}`, { status: 200 }],
    ["a tab", `Bearer\t${OWNER_KEY}`, { status: 200 }],
    ["trailing space", `Bearer ${OWNER_KEY} `, { status: 200 }],
    ["lower-case scheme", `bearer ${OWNER_KEY}`, { status: 401, code: "not_authenticated" }],
    ["two tokens", `Bearer ${OWNER_KEY} ${OWNER_KEY}`, { status: 401, code: "authentication_failed" }],
    ["empty token", "Bearer ", { status: 401, code: "not_authenticated" }],
    ["another scheme", `Token ${OWNER_KEY}`, { status: 401, code: "not_authenticated" }],
  ];

  it.each(cases)("%s: the same verdict from the product API, local evaluation and flag definitions", async (_name, authorization, want) => {
    s = await startTestServer(scenario("capture"));
    const answers = [
      await s.get("/api/projects/1/feature_flags/", { key: null, headers: { authorization } }),
      await captureRequest(s.base, "GET", "/api/feature_flag/local_evaluation", { headers: { authorization } }),
      await captureRequest(s.base, "GET", "/flags/definitions", { headers: { authorization } }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(want.status);
      if (want.code) expect(answer.body).toMatchObject({ type: "authentication_error", code: want.code, attr: null });
    }
  });
});

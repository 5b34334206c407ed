import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { authenticate } from "../../src/pipeline/authenticate.ts";
import { assertControlConforms } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

async function control(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.base}/_mock${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  await assertControlConforms(method, `/_mock${path.split("?")[0]}`, res.status, json);
  return { status: res.status, body: json };
}

describe("control API", () => {
  it("reset restores the start-up state and clock", async () => {
    await s.post("/api/projects/1/insights/", { name: "temporary" });
    await s.del("/api/projects/1/persons/1/");
    await control("POST", "/clock/advance/", { seconds: 3600 });
    const reset = await control("POST", "/reset/");
    expect(reset.body).toEqual({ projects: 3, persons: 4, events: 12, insights: 4 });
    expect((await s.get("/api/projects/1/insights/")).body.count).toBe(2);
    expect((await s.get("/api/projects/1/persons/1/")).status).toBe(200);
    expect((await control("GET", "/clock/")).body).toEqual({ now: "2024-03-05T12:00:00.000Z", frozen: true });
  });

  it("replaces the state with a fixture document, or refuses it naming the bad path and changes nothing", async () => {
    const doc = scenario("basic");
    doc.insights = doc.insights!.slice(0, 1);
    doc.now = "2024-04-01T00:00:00Z";
    expect((await control("PUT", "/state/", doc)).body.insights).toBe(1);
    expect((await s.get("/api/projects/1/insights/")).body.count).toBe(1);
    expect((await control("GET", "/clock/")).body.now).toBe("2024-04-01T00:00:00.000Z");
    const bad = scenario("basic");
    (bad.events![3] as { timestamp: string }).timestamp = "soon";
    const refused = await control("PUT", "/state/", bad);
    expect(refused.status).toBe(400);
    expect(refused.body.attr).toBe("events__3__timestamp");
    expect((await s.get("/api/projects/1/insights/")).body.count).toBe(1);
  });

  it("sets and advances the frozen clock; advancing past Sunday 05:00 runs the queued deletions", async () => {
    await s.del("/api/projects/1/persons/2/?delete_events=true");
    const set = await control("PUT", "/clock/", { now: "2024-03-09T00:00:00Z" });
    expect(set.body).toEqual({ now: "2024-03-09T00:00:00.000Z", frozen: true });
    expect((await s.get("/api/projects/1/events/?distinct_id=b")).body.count).toBe(4);
    await control("POST", "/clock/advance/", { seconds: 29 * 3600 });
    expect((await s.get("/api/projects/1/events/?distinct_id=b")).body.count).toBe(0);
    const created = await s.post("/api/projects/1/insights/", { name: "later" });
    expect(created.body.created_at).toBe("2024-03-10T05:00:00.000Z");
    expect((await control("PUT", "/clock/", { frozen: false })).body.frozen).toBe(false);
    expect((await control("POST", "/clock/advance/", { seconds: -1 })).status).toBe(400);
  });

  it("keeps a bounded request log with the validation outcome, and clears it", async () => {
    await s.get("/api/projects/1/insights/");
    await s.get("/api/projects/1/insights/?limit=zero");
    await s.get("/api/projects/1/insights/", { key: null });
    const log = await control("GET", "/requests/?limit=2");
    expect(log.body.total).toBe(3);
    expect(log.body.results.map((r: any) => [r.status, r.validation])).toEqual([
      [401, "not_checked"],
      [400, "failed"],
    ]);
    expect(JSON.stringify(log.body)).not.toContain("phx_");
    expect((await control("DELETE", "/requests/")).status).toBe(204);
    expect((await control("GET", "/requests/")).body).toEqual({ total: 0, results: [] });
  });

  it("serves its own OpenAPI document", async () => {
    const res = await fetch(`${s.base}/_mock/openapi.yaml`);
    expect(await res.text()).toContain("operationId: control_reset");
  });
});

describe("frontend conveniences", () => {
  it("answers CORS preflights and mirrors the origin", async () => {
    const pre = await fetch(`${s.base}/api/projects/1/insights/`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "PATCH", "access-control-request-headers": "authorization,content-type" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(pre.headers.get("access-control-allow-methods")).toContain("PATCH");
    const res = await s.get("/api/projects/1/insights/", { headers: { origin: "http://localhost:5173" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
  });

  it("Prefer: code=N answers that documented status with a valid body; undocumented codes are a 400", async () => {
    const steered = await s.get("/api/projects/1/insights/1/", { headers: { prefer: "code=404" } });
    expect(steered.status).toBe(404);
    expect(steered.body.code).toBe("not_found");
    const ok = await s.get("/api/projects/1/insights/", { headers: { prefer: "code=200" } });
    expect(ok.status).toBe(200);
    const undocumented = await s.get("/api/projects/1/insights/", { headers: { prefer: "code=418" } });
    expect(undocumented.status).toBe(400);
    expect(undocumented.body.detail).toContain("documented: 200");
    // steering does not bypass authentication
    expect((await s.get("/api/projects/1/insights/", { key: null, headers: { prefer: "code=200" } })).status).toBe(401);
  });

  it("Prefer: example=NAME alone picks that example of the success response; an unknown name is a 400 listing the names", async () => {
    const picked = await s.get("/api/projects/1/insights/1/", { headers: { prefer: "example=trend_insight" } });
    expect(picked.status).toBe(200);
    expect(picked.body).toMatchObject({ id: 42, short_id: "aB3dE9xQ", name: "Daily pageviews" });
    expect(picked.headers.get("preference-applied")).toBe("example=trend_insight");
    const created = await s.post("/api/projects/1/insights/", {}, { headers: { prefer: "example=trend_insight" } });
    expect([created.status, created.body.name]).toEqual([201, "Daily pageviews"]);
    for (const prefer of ["example=nope", "code=200, example=nope"]) {
      const unknown = await s.get("/api/projects/1/insights/1/", { headers: { prefer } });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ attr: "Prefer", code: "invalid_input" });
      expect(unknown.body.detail).toContain("named examples: trend_insight");
    }
    expect((await s.get("/api/projects/1/insights/", { headers: { prefer: "code=200, example=saved_insights" } })).body.results[0].id).toBeDefined();
    expect((await s.get("/api/projects/1/insights/1/", { key: null, headers: { prefer: "example=trend_insight" } })).status).toBe(401);
  });

  it("Prefer: delay=N delays the answer; a bad delay is a 400", async () => {
    const started = Date.now();
    await s.get("/api/projects/1/insights/", { headers: { prefer: "delay=150" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect((await s.get("/api/projects/1/insights/", { headers: { prefer: "delay=soon" } })).status).toBe(400);
  });
});

describe("control API protection", () => {
  const run = (adminToken: string | null, remoteAddress: string, token?: string) =>
    new Promise<unknown>((resolve) => {
      try {
        authenticate({ scheme: "admin", adminToken: token, remoteAddress, expected: adminToken });
        resolve("allowed");
      } catch (err) {
        resolve(err);
      }
    });

  it("opens to loopback clients, and to others only with the admin token", async () => {
    expect(await run(null, "127.0.0.1")).toBe("allowed");
    expect(await run(null, "::ffff:127.0.0.1")).toBe("allowed");
    expect(await run(null, "10.1.2.3")).toMatchObject({ status: 403 });
    expect(await run("s3cret-token", "10.1.2.3", "wrong")).toMatchObject({ status: 403 });
    expect(await run("s3cret-token", "10.1.2.3", "s3cret-token")).toBe("allowed");
  });
});

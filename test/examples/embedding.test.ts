import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyticsClient, dashboardRoundTrip } from "../../examples/typed-client.ts";
import { defaultApiKey } from "../../src/fixtures/users.ts";
import { scenarios, startServer, StartupError, type EmbeddedServer } from "../../src/index.ts";
import { assertConforms } from "../support/contract.ts";
import { OWNER_KEY, scenario } from "../support/server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
let server: EmbeddedServer;

beforeAll(async () => {
  server = await startServer({ fixtures: scenario("basic") });
});
afterAll(() => server.close());

/** Every response the typed client receives is checked against the document too. */
const checked: typeof fetch = async (input, init) => {
  const req = new Request(input, init);
  const res = await fetch(req);
  const text = await res.clone().text();
  const url = new URL(req.url);
  await assertConforms({ method: req.method, path: url.pathname, status: res.status, contentType: res.headers.get("content-type"), body: text ? JSON.parse(text) : undefined });
  return res;
};

describe("embedding", () => {
  it("starts in-process on a free port, frozen at the fixture's now, with the control functions", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.clock.get()).toEqual({ now: "2024-03-05T12:00:00.000Z", frozen: true });
    await server.clock.advance({ seconds: 60 });
    expect(server.clock.get().now).toBe("2024-03-05T12:01:00.000Z");
    await server.reset();
    expect(server.clock.get().now).toBe("2024-03-05T12:00:00.000Z");
  });

  it("honours queryTimeLimitMs per server: two servers in one process keep their own limits", async () => {
    const options = { events: 20_000, persons: 200, now: "2025-06-01T00:00:00Z", logLevel: "silent" as const };
    const [strict, lenient] = await Promise.all([startServer({ ...options, queryTimeLimitMs: 1 }), startServer({ ...options, queryTimeLimitMs: 60_000 })]);
    try {
      // A where clause that reads every one of the 20,000 events (none matches), timed against each server's budget.
      const path = `/api/projects/1/events/?where=${encodeURIComponent(JSON.stringify(["concat(properties.$browser, toString(timestamp)) = 'none'"]))}&limit=10`;
      const ask = async (s: EmbeddedServer) => {
        const res = await fetch(s.url + path, { headers: { authorization: `Bearer ${defaultApiKey(42)}` } });
        const body = (await res.json()) as { code?: string; attr?: string; detail?: string };
        await assertConforms({ method: "GET", path, status: res.status, contentType: res.headers.get("content-type"), body });
        return { status: res.status, body };
      };
      const refused = await ask(strict);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "timeout_exceeded", attr: "where" });
      expect(refused.body.detail).toMatch(/time limit of 1 ms/);
      expect((await ask(lenient)).status).toBe(200);
    } finally {
      await Promise.all([strict.close(), lenient.close()]);
    }
  });

  it("clock.advance takes { seconds }, as POST /_mock/clock/advance/ does, and refuses a bare number", async () => {
    await server.clock.advance({ seconds: 7 * 24 * 3600 });
    expect(server.clock.get().now).toBe("2024-03-12T12:00:00.000Z");
    await expect(server.clock.advance(60_000 as unknown as { seconds: number })).rejects.toThrow("{ seconds: N }");
    await server.reset();
  });

  it("forces a feature flag for one distinct id through flags.force, and reset clears it", async () => {
    const token = (await (await fetch(`${server.url}/api/projects/1/`, { headers: { authorization: `Bearer ${OWNER_KEY}` } })).json()) as { api_token: string };
    const flagsOf = async (distinctId: string) => {
      const res = await fetch(`${server.url}/flags/?v=2`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: token.api_token, distinct_id: distinctId }) });
      return ((await res.json()) as { flags: Record<string, { enabled: boolean; variant: string | null }> }).flags;
    };
    // internal-tools (basic.json) is on only for emails matching @example.com$; "a" is a@corp.io.
    expect((await flagsOf("a"))["internal-tools"]!.enabled).toBe(false);
    const forced = server.flags.force({ key: "internal-tools", value: true, distinct_id: "a" });
    expect(server.flags.list()).toEqual([forced]);
    expect((await flagsOf("a"))["internal-tools"]!.enabled).toBe(true);
    expect((await flagsOf("b"))["internal-tools"]!.enabled).toBe(false);
    await server.reset();
    expect(server.flags.list()).toEqual([]);
    expect((await flagsOf("a"))["internal-tools"]!.enabled).toBe(false);
  });

  it("starts a bundled scenario by name from any working directory; an unknown name lists the bundled ones", async () => {
    expect(Object.keys(scenarios)).toEqual(expect.arrayContaining(["basic", "funnels", "capture"]));
    expect(path.isAbsolute(scenarios.basic!)).toBe(true);
    const funnels = await startServer({ scenario: "funnels" });
    try {
      const res = await fetch(`${funnels.url}/api/projects/1/insights/`, { headers: { authorization: `Bearer ${OWNER_KEY}` } });
      const body = (await res.json()) as { results: { short_id: string }[] };
      await assertConforms({ method: "GET", path: "/api/projects/1/insights/", status: res.status, contentType: res.headers.get("content-type"), body });
      expect(body.results.map((i) => i.short_id).sort()).toEqual(["Fnl00001", "Ret00001"]);
      expect(funnels.clock.get()).toEqual({ now: "2024-04-05T12:00:00.000Z", frozen: true });
    } finally {
      await funnels.close();
    }
    const unknown = startServer({ scenario: "nope" });
    await expect(unknown).rejects.toBeInstanceOf(StartupError);
    await expect(unknown).rejects.toThrow(/unknown scenario "nope": the bundled ones are .*basic/);
  });

  it("a missing fixture file is a StartupError naming the path, not a raw ENOENT", async () => {
    await expect(startServer({ fixtures: "no/such/fixture.json" })).rejects.toThrow(`fixture file ${path.resolve("no/such/fixture.json")} does not exist`);
  });

  it("drives the API through the openapi-fetch example client", async () => {
    const typed = analyticsClient(server.url, OWNER_KEY, checked);
    const { insight, trend } = await dashboardRoundTrip(typed, "1");
    expect(insight?.name).toBe("Daily pageviews");
    // reference analytics §2.8
    expect(trend?.result).toMatchObject([{ data: [3, 1, 1], count: 5 }]);
    const listed = await typed.GET("/api/projects/{project_id}/insights/", { params: { path: { project_id: "1" }, query: { search: "daily" } } });
    const page = listed.data;
    if (!page || typeof page === "string") throw new Error("expected the JSON page");
    expect(page.results.map((i) => i.name)).toEqual(["Daily pageviews"]);
    expect(server.requests().results[0]).toMatchObject({ method: "GET", path: "/api/projects/1/insights/", status: 200, validation: "passed" });
  });

  it("the example client, run as a script, prints the insight and the trend it got", () => {
    const out = execFileSync(process.execPath, ["--import", "tsx", "examples/typed-client.ts"], { cwd: root, encoding: "utf8" });
    const lines = out.trim().split("\n");
    expect(lines[0]).toMatch(/^insight \d+ "Daily pageviews" \(short_id \w+\)$/);
    // basic.json pageviews, 1–3 March 2024 (reference analytics §2.8)
    expect(lines[1]).toBe("trend $pageview: 2024-03-01=3 2024-03-02=1 2024-03-03=1 (total 5)");
  });

  it("the package's bin prints every flag with its default", () => {
    const out = execFileSync(process.execPath, ["bin/analytics-mock.mjs", "--help"], { cwd: root, encoding: "utf8" });
    for (const flag of ["--port", "--data", "--in-memory", "--fixtures", "--now", "--seed", "--latency", "--cors-origins", "--admin-token", "--watch"]) {
      expect(out).toContain(flag);
    }
    expect(out).toContain("default 8000");
  });

  it("the package entry starts the server for JavaScript callers", () => {
    const script = `import("analytics-mock").then(async ({ startServer }) => { const s = await startServer({ fixtures: "fixtures/scenarios/basic.json" }); const r = await fetch(s.url + "/api/projects/", { headers: { authorization: "Bearer ${OWNER_KEY}" } }); console.log(r.status); await s.close(); })`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    expect(out.trim()).toBe("200");
  });
});

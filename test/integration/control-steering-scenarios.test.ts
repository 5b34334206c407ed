import { readdirSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { SCENARIO_DESCRIPTIONS, scenarios } from "../../src/control/scenarios.ts";
import { startServer as startCli, StartupError } from "../../src/server.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer } from "../../src/index.ts";
import { projectFile } from "../../src/util/project-files.ts";
import { callControl } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

/** A call of the control API; its answer is checked against openapi/control.yaml. */
const control = (method: string, path: string, body?: unknown) => callControl(s.base, method, path, body);

const BUNDLED = readdirSync(projectFile("fixtures/scenarios")).map((f) => f.replace(/\.json$/, "")).sort();

describe("scenarios by name", () => {
  it("lists every bundled file with a description, and the README names each", async () => {
    expect(Object.keys(scenarios)).toEqual(BUNDLED);
    expect(Object.keys(SCENARIO_DESCRIPTIONS).sort()).toEqual(BUNDLED);
    const listed = await control("GET", "/scenarios/");
    expect(listed.body.results.map((r: { name: string }) => r.name)).toEqual(BUNDLED);
    for (const r of listed.body.results) expect(r.description.length).toBeGreaterThan(20);
    const readme = (await import("node:fs")).readFileSync(projectFile("README.md"), "utf8");
    for (const name of BUNDLED) expect(readme).toContain(`\`${name}\` (`);
  });

  it("loads a scenario over HTTP, and an unknown name is a 404 listing the names", async () => {
    const loaded = await control("POST", "/scenarios/funnels/");
    expect(loaded.body).toEqual({ projects: 1, persons: 7, events: 20, insights: 2 });
    expect((await control("GET", "/clock/")).body.now).toBe("2024-04-05T12:00:00.000Z");
    expect((await s.get("/api/projects/1/persons/")).body.count).toBe(7);
    const unknown = await control("POST", "/scenarios/shop/");
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain(BUNDLED.join(", "));
    for (const name of ["toString", "__proto__", "constructor"]) expect((await control("POST", `/scenarios/${name}/`)).status).toBe(404);
  });
});

describe("reset to what the test loaded", () => {
  it("without reset_point a reset goes back to the start-up state", async () => {
    await control("POST", "/scenarios/funnels/");
    expect((await control("POST", "/reset/")).body).toEqual({ projects: 3, persons: 4, events: 12, insights: 4 });
  });

  it("a scenario loaded with reset_point=true is what reset restores, clock included", async () => {
    await control("POST", "/scenarios/funnels/?reset_point=true");
    await s.post("/api/projects/1/insights/", { name: "temporary" });
    await control("PUT", "/clock/", { now: "2025-01-01T00:00:00Z" });
    expect((await control("POST", "/reset/")).body).toEqual({ projects: 1, persons: 7, events: 20, insights: 2 });
    expect((await s.get("/api/projects/1/insights/")).body.count).toBe(2);
    expect((await control("GET", "/clock/")).body).toEqual({ now: "2024-04-05T12:00:00.000Z", frozen: true });
  });

  it("PUT /_mock/state/?reset_point=true makes its document the reset point; a refused document changes nothing", async () => {
    const doc = scenario("basic");
    doc.insights = doc.insights!.slice(0, 1);
    doc.now = "2024-04-01T00:00:00Z";
    await control("PUT", "/state/?reset_point=true", doc);
    const bad = scenario("groups");
    (bad.events![0] as { timestamp: string }).timestamp = "soon";
    expect((await control("PUT", "/state/?reset_point=true", bad)).status).toBe(400);
    await control("POST", "/scenarios/groups/");
    expect((await control("POST", "/reset/")).body.insights).toBe(1);
    expect((await control("GET", "/clock/")).body.now).toBe("2024-04-01T00:00:00.000Z");
    expect((await control("PUT", "/state/?reset_point=maybe", doc)).body.attr).toBe("reset_point");
  });
});

describe("--fixtures NAME and the embedded server", () => {
  it("--fixtures takes a bundled scenario by name; a missing file's message lists the names", async () => {
    expect(parseConfig(["--fixtures", "capture"], "/tmp")!.fixturesFile).toBe(scenarios.capture);
    expect(parseConfig(["--fixtures", "./capture"], "/tmp")!.fixturesFile).toBe("/tmp/capture");
    expect(parseConfig(["--fixtures", "toString"], "/tmp")!.fixturesFile).toBe("/tmp/toString");
    expect([parseConfig([])!.rateLimits, parseConfig(["--rate-limits"])!.rateLimits]).toEqual([false, true]);
    const config = parseConfig(["--fixtures", "nope.json", "--in-memory", "--port", "0"], "/tmp")!;
    const refused = await startCli(config, createLogger("silent")).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(StartupError);
    expect((refused as Error).message).toContain(`name a bundled scenario (--fixtures NAME): ${BUNDLED.join(", ")}`);
  });

  it("the embedded server loads scenarios by name, optionally as the reset point", async () => {
    const server = await startServer({ scenario: "basic" });
    try {
      expect(await server.loadScenario("sessions", { resetPoint: true })).toMatchObject({ persons: 3, events: 10 });
      await server.loadScenario("funnels");
      expect(await server.reset()).toMatchObject({ persons: 3, events: 10 });
      await expect(server.loadScenario("shop")).rejects.toThrow(BUNDLED.join(", "));
      const made = server.overrides.add({ operation_id: "flags_evaluate", status: 503 });
      expect(server.overrides.list()).toEqual([{ ...made, remaining: 1 }]);
      const flags = await fetch(`${server.url}/flags/?v=2`, { method: "POST", body: JSON.stringify({ token: "t", distinct_id: "d" }) });
      expect([flags.status, ((await flags.json()) as { code: string }).code]).toEqual([503, "service_unavailable"]);
      expect(() => server.overrides.add({ operation_id: "flags_teleport", status: 500 })).toThrow("flags_evaluate");
    } finally {
      await server.close();
    }
  });
});

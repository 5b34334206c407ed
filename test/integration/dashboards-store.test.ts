/**
 * Dashboards on disk and in the generated dataset: a dashboard written through the API survives a restart with
 * its fields and tile layouts, and `npm start`'s generated dataset shows named, described, laid-out dashboards.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { defaultApiKey } from "../../src/fixtures/generate.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { upgradeDashboard } from "../../src/store/dashboards-repo.ts";
import type { MetaData } from "../../src/store/schema.ts";
import { callServer, OWNER_KEY } from "../support/server.ts";

const basic = fileURLToPath(new URL("../../fixtures/scenarios/basic.json", import.meta.url));

let running: StartedServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));

const call = (method: string, p: string, body?: unknown, key = OWNER_KEY) => callServer(running!.url, method, p, body, key);

describe("dashboards in the store", () => {
  it("keep what was written across a restart", async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-")), "db.json");
    running = await start(["--data", data, "--fixtures", basic, "--now", "2024-03-05T12:00:00Z"]);
    const created = await call("POST", "/api/projects/1/dashboards/", { name: "Kept", description: "across restarts", pinned: true, tags: ["t"], use_dashboard: 1 });
    expect(created.status).toBe(201);
    const tileId = created.body.tiles[0].id;
    const layouts = { sm: { x: 0, y: 0, w: 12, h: 5 } };
    await call("PATCH", `/api/projects/1/dashboards/${created.body.id}/`, { tiles: [{ id: tileId, layouts, color: "red" }] });
    await call("PATCH", "/api/projects/1/dashboards/1/", { deleted: true });
    await running.close();

    running = await start(["--data", data, "--now", "2024-03-05T13:00:00Z"]);
    const kept = await call("GET", `/api/projects/1/dashboards/${created.body.id}/`);
    expect(kept.body).toMatchObject({ name: "Kept", description: "across restarts", pinned: true, tags: ["t"], creation_mode: "duplicate", created_at: "2024-03-05T12:00:00.000Z" });
    expect(kept.body.tiles.map((t: { id: number; layouts: unknown; color: string }) => [t.id, t.layouts, t.color])).toEqual([[tileId, layouts, "red"]]);
    expect(kept.body.last_accessed_at).toBe("2024-03-05T13:00:00.000Z");
    expect((await call("GET", "/api/projects/1/dashboards/1/")).status).toBe(404);
  });

  it("of the generated dataset are named, described and laid out", { timeout: 120_000 }, async () => {
    running = await start(["--in-memory", "--persons", "40", "--events", "2000", "--now", "2024-06-15T12:00:00Z"]);
    const key = defaultApiKey(42);
    const web = (await call("GET", "/api/projects/1/dashboards/", undefined, key)).body.results;
    expect(web.map((d: { name: string; pinned: boolean }) => [d.name, d.pinned])).toEqual([
      ["Key metrics", true],
      ["Growth", false],
    ]);
    expect(web[0].description).not.toBe("");
    expect(web[0].created_by).not.toBeNull();
    const kpis = (await call("GET", `/api/projects/1/dashboards/${web[0].id}/`, undefined, key)).body;
    expect(kpis.tiles.length).toBeGreaterThanOrEqual(2);
    // two a row, in placing order
    expect(kpis.tiles.slice(0, 3).map((t: { layouts: { sm: unknown } }) => t.layouts.sm)).toEqual([
      { x: 0, y: 0, w: 6, h: 5 },
      { x: 6, y: 0, w: 6, h: 5 },
      ...(kpis.tiles.length > 2 ? [{ x: 0, y: 5, w: 6, h: 5 }] : []),
    ]);
    const app = (await call("GET", "/api/projects/2/dashboards/", undefined, key)).body.results;
    expect(app.map((d: { name: string; tags: string[] }) => [d.name, d.tags])).toEqual([["Mobile app", ["mobile"]]]);
  });
});

describe("a store file written while dashboards were read only", () => {
  it("gains the new fields on read, dated and owned by the dashboard's earliest insight", () => {
    const old = { id: 1, project_id: "1", name: "Dashboard 1", filters: {}, deleted: false };
    const insight = (id: number, created_at: string, created_by: number) => ({ id, created_at, created_by });
    const meta = {
      dashboards: [old],
      dashboard_tiles: [
        { id: 1, dashboard_id: 1, insight_id: 2 },
        { id: 2, dashboard_id: 1, insight_id: 3 },
      ],
      insights: [insight(1, "2024-01-01T00:00:00Z", 1), insight(2, "2024-02-02T00:00:00Z", 2), insight(3, "2024-02-01T00:00:00Z", 1)],
    } as unknown as MetaData;
    upgradeDashboard(meta.dashboards[0]!, meta);
    expect(meta.dashboards[0]).toEqual({
      ...old,
      description: "",
      pinned: false,
      tags: [],
      creation_mode: "default",
      created_at: "2024-02-01T00:00:00Z",
      created_by: 1,
      last_accessed_at: null,
    });
  });
});

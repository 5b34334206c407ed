/**
 * Annotations in the default generated dataset and across restarts: the server started on a data file keeps
 * what was written (annotations, insight views) when it starts again from that file.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { defaultApiKey } from "../../src/fixtures/generate.ts";
import { generatedState } from "../../src/fixtures/generated-state.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { assertConforms } from "../support/contract.ts";

const NOW = "2024-06-15T12:00:00Z";
const KEY = defaultApiKey(42);
const DAY = 86_400_000;

let running: StartedServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function call(base: string, method: string, p: string, body?: unknown) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  await assertConforms({ method, path: p, status: res.status, contentType: res.headers.get("content-type"), body: json });
  return { status: res.status, body: json };
}

const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent", "--now", NOW, "--persons", "60", "--events", "3000"])!, createLogger("silent"));

describe("the generated dataset's annotations", () => {
  const options = { seed: 7, now: new Date(NOW), persons: 60, events: 3_000 };

  it("are the same for the same seed and clock, inside the 90 days of events, in every scope the charts draw", () => {
    const { annotations, insights, dashboards } = generatedState(options, Date.parse(NOW)).meta;
    expect(generatedState(options, Date.parse(NOW)).meta.annotations).toEqual(annotations);
    expect(new Set(annotations.map((a) => a.scope))).toEqual(new Set(["project", "organization", "dashboard_item", "dashboard"]));
    for (const a of annotations) {
      const at = Date.parse(a.date_marker!);
      expect(at).toBeGreaterThan(Date.parse(NOW) - 90 * DAY);
      expect(at).toBeLessThan(Date.parse(NOW));
      if (a.scope === "dashboard_item") expect(insights.find((i) => i.id === a.dashboard_item)?.project_id).toBe(a.project_id);
      if (a.scope === "dashboard") expect(dashboards.find((d) => d.id === a.dashboard_id)?.project_id).toBe(a.project_id);
    }
    expect(annotations.map((a) => a.id)).toEqual(annotations.map((_, i) => i + 1));
  });

  it("are listed by a started server, and what is written survives a restart from the data file", async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-")), "db.json");
    running = await start(["--data", data]);
    const seeded = await call(running.url, "GET", "/api/projects/1/annotations/");
    expect(seeded.body.count).toBeGreaterThan(3);
    const created = await call(running.url, "POST", "/api/projects/1/annotations/", { content: "Kept", date_marker: "2024-06-14T00:00:00Z", scope: "project" });
    expect(created.body.id).toBe(10);
    await call(running.url, "PATCH", `/api/projects/1/annotations/1/`, { deleted: true });
    expect((await call(running.url, "POST", "/api/projects/1/insights/viewed/", { insight_ids: [2] })).status).toBe(201);
    await running.close();

    running = await start(["--data", data]);
    const listed = await call(running.url, "GET", "/api/projects/1/annotations/");
    expect(listed.body.count).toBe(seeded.body.count);
    expect(listed.body.results[0]).toMatchObject({ id: 10, content: "Kept" });
    expect((await call(running.url, "GET", "/api/projects/1/annotations/1/")).status).toBe(404);
    expect((await call(running.url, "GET", "/api/projects/1/insights/my_last_viewed/")).body.map((i: { id: number }) => i.id)[0]).toBe(2);
    const next = await call(running.url, "POST", "/api/projects/1/annotations/", { content: "After restart" });
    expect(next.body.id).toBe(11);
  });
});

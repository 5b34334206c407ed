/**
 * Actions on disk: what the API writes survives a restart from the data file (fixtures/scenarios/basic.json
 * loaded once, clock frozen at its `now`), and the generated dataset starts with its click and URL actions.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { defaultApiKey } from "../../src/fixtures/generate.ts";
import { callServer, OWNER_KEY } from "../support/server.ts";

const basic = fileURLToPath(new URL("../../fixtures/scenarios/basic.json", import.meta.url));

let running: StartedServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));

const call = (method: string, p: string, body?: unknown, key = OWNER_KEY) => callServer(running!.url, method, p, body, key);

describe("actions in the store files", () => {
  it("keep what was created, changed and deleted across a restart, activity included", async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-actions-")), "db.json");
    running = await start(["--data", data, "--fixtures", basic, "--now", "2024-03-05T12:00:00Z"]);
    const kept = await call("POST", "/api/projects/1/actions/", { name: "Pageviews", steps: [{ event: "$pageview" }] });
    const gone = await call("POST", "/api/projects/1/actions/", { name: "Purchases", steps: [{ event: "purchase" }] });
    await call("PATCH", `/api/projects/1/actions/${kept.body.id}/`, { description: "Every page seen", steps: [{ event: "$pageview", properties: [{ key: "$browser", value: "Chrome", type: "event" }] }] });
    await call("PATCH", `/api/projects/1/actions/${gone.body.id}/`, { deleted: true });
    await running.close();

    running = await start(["--data", data, "--now", "2024-03-05T12:00:00Z"]);
    expect(running.source).toBe("data-file");
    const list = await call("GET", "/api/projects/1/actions/");
    expect(list.body.results.map((a: { name: string }) => a.name)).toEqual(["Pageviews", "Signed up"]);
    expect((await call("GET", `/api/projects/1/actions/${kept.body.id}/`)).body).toMatchObject({ description: "Every page seen", steps: [{ event: "$pageview" }] });
    expect((await call("GET", `/api/projects/1/actions/${gone.body.id}/`)).status).toBe(404);
    // Chrome pageviews of basic.json: a on 03-01 at 08:00 and 15:00, on 03-03 at 23:30.
    expect((await call("GET", `/api/projects/1/actions/${kept.body.id}/count/`)).body.count).toBe(3);
    expect(running.store.activity.list("1", "Action").map((e) => e.activity)).toEqual(["deleted", "updated", "created", "created"]);
    // A new action after the restart takes the next id, past the deleted one.
    expect((await call("POST", "/api/projects/1/actions/", { name: "Signups", steps: [{ event: "signup" }] })).body.id).toBe(gone.body.id + 1);
  });

  it("the generated dataset starts with actions on clicks and URLs, each matching its events", async () => {
    running = await start(["--in-memory", "--persons", "100", "--events", "5000"]);
    const key = defaultApiKey(42);
    const list = await call("GET", "/api/projects/1/actions/", undefined, key);
    const byName = new Map<string, { id: number; steps: Array<Record<string, unknown>> }>(list.body.results.map((a: { name: string }) => [a.name, a]));
    expect([...byName.keys()].sort()).toEqual(["Clicked a pricing link", "Clicked sign up", "Read the docs", "Signed up or activated", "Started a trial or upgraded", "Viewed pricing or billing"]);
    expect(byName.get("Clicked sign up")!.steps[0]).toMatchObject({ event: "$autocapture", selector: "div.hero > button.btn-primary", text: "Sign up" });
    for (const { id } of byName.values()) expect((await call("GET", `/api/projects/1/actions/${id}/count/`, undefined, key)).body.count).toBeGreaterThan(0);
  });
});

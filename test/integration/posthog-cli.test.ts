import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * PostHog's own CLI (@posthog/cli: the JavaScript behind `posthog-cli api call`) against the server, for the insight
 * and person tools it offers. Its postinstall (a binary download) never runs: package.json's allowScripts denies it;
 * the tools are plain JavaScript. Each call is a child process (asynchronous: the server runs in this one).
 */
const CLI = join(dirname(createRequire(import.meta.url).resolve("@posthog/cli/package.json")), "lib", "posthog-api-cli.mjs");
const run = promisify(execFile);

let s: TestServer;
let home: string;
beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
  home = mkdtempSync(join(tmpdir(), "posthog-cli-home-"));
});
afterAll(async () => {
  await s.close();
  rmSync(home, { recursive: true, force: true });
});

/** `posthog-cli api call --json [--confirm] <tool> <json>` with the basic scenario's key and project; its JSON answer. */
async function call(tool: string, params: Record<string, unknown>, opts: { confirm?: boolean } = {}): Promise<any> {
  const args = [CLI, "call", "--json", ...(opts.confirm ? ["--confirm"] : []), tool, JSON.stringify(params)];
  // Only what the CLI needs: no analytics host or key (its telemetry stays off), a throwaway HOME.
  const env = { PATH: process.env.PATH, HOME: home, POSTHOG_CLI_API_KEY: OWNER_KEY, POSTHOG_CLI_PROJECT_ID: "1", POSTHOG_CLI_HOST: s.base };
  const { stdout } = await run(process.execPath, args, { env, timeout: 60_000 });
  return JSON.parse(stdout);
}

const P = "/api/projects/1";

describe("@posthog/cli insight and person tools", () => {
  it("insights-list with the CLI's filters, insight-get by short id, insight-update, insights-trending-retrieve", async () => {
    const list = await call("insights-list", { tags: JSON.stringify(["web"]), created_date_from: "-7d", user: true, include_dashboards: true });
    expect(list.results.map((i: any) => [i.id, i.short_id, i.last_viewed_at, i.alerts])).toEqual([[1, "PgVw0001", null, []]]);

    const funnel = await call("insight-get", { id: "Fnnl0002", filters_override: { date_from: "2024-03-02" } });
    expect(funnel.id).toBe(2);
    expect(funnel.query.source.kind).toBe("FunnelsQuery");

    const renamed = await call("insight-update", { id: "PgVw0001", name: "Daily pageviews" });
    expect(renamed.name).toBe("Daily pageviews");
    expect((await s.get(`${P}/insights/1/`)).body.name).toBe("Daily pageviews");

    await s.post(`${P}/insights/2/viewed/`);
    const trending = await call("insights-trending-retrieve", { days: 7 });
    expect(trending.results.map((i: any) => [i.id, i.view_count])).toEqual([[2, 1]]);
  }, 180_000);

  it("persons-list and persons-retrieve carry last_seen_at; persons-property-delete unsets a list; persons-bulk-delete and insight-delete delete", async () => {
    const persons = await call("persons-list", { client_query_id: "cli-q1", email: "a@corp.io" });
    expect(persons.results.map((p: any) => [p.id, p.last_seen_at])).toEqual([[1, "2024-03-03T23:30:00.000Z"]]);
    const c = await call("persons-retrieve", { id: "3" });
    expect(c.last_seen_at).toBe("2024-03-05T12:00:00.000Z");

    const edited = await call("persons-property-delete", { id: "1", unset: ["plan", "email"] }, { confirm: true });
    expect(edited.properties).toEqual({});

    await call("persons-bulk-delete", { distinct_ids: ["b"], delete_events: true }, { confirm: true });
    expect((await s.get(`${P}/persons/2/`)).status).toBe(404);

    await call("insight-delete", { id: "Fnnl0002" }, { confirm: true });
    expect((await s.get(`${P}/insights/2/`)).status).toBe(404);
  }, 180_000);
});

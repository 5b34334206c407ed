import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { assertConforms } from "../support/contract.ts";
import { OWNER_KEY, scenario } from "../support/server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const basic = path.join(root, "fixtures/scenarios/basic.json");
const tmp = () => mkdtempSync(path.join(tmpdir(), "analytics-mock-"));

let running: StartedServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function call(base: string, method: string, p: string, body?: unknown, key = OWNER_KEY) {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  await assertConforms({ method, path: p, status: res.status, contentType: res.headers.get("content-type"), body: json });
  return { status: res.status, body: json };
}

function start(argv: string[], lines: string[] = []) {
  const config = parseConfig([...argv, "--port", "0", "--log-level", "info"])!;
  return startServer(config, createLogger("info", (l) => lines.push(l)));
}

/** Runs the CLI as users do (`npm start -- …` runs the bundle) and resolves with its first output, or its exit. */
function runCli(args: string[]): Promise<{ code: number | null; out: string; kill: () => void }> {
  const child = spawn(process.execPath, ["--enable-source-maps", path.join(root, "dist/main.mjs"), ...args], { cwd: root });
  let out = "";
  return new Promise((resolve) => {
    const done = (code: number | null) => resolve({ code, out, kill: () => child.kill("SIGTERM") });
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => {
      out += d;
      if (out.includes("API key:") && out.includes("try:")) done(null);
    });
    child.on("exit", (code) => done(code));
  });
}

describe("the command line", () => {
  it("starts on a fixture file with a frozen clock and answers with the fixture's key", async () => {
    const cli = await runCli(["--port", "0", "--in-memory", "--fixtures", basic, "--now", "2024-03-05T12:00:00Z"]);
    try {
      expect(cli.out).toContain("frozen at 2024-03-05T12:00:00.000Z");
      expect(cli.out).not.toContain(OWNER_KEY);
      // Every project with its id, name and project API token (not secret, unlike the personal key above).
      const lines = cli.out.split("\n");
      const projects = scenario("basic").projects!;
      expect(projects.length).toBe(3);
      for (const p of projects) {
        const line = lines.find((l) => l.trimStart().startsWith(`${p.id} "${p.name}"`));
        expect(line, `start-up output names project ${p.id}:\n${cli.out}`).toMatch(/ token phc_[0-9A-Za-z]{43}$/);
      }
      const tokens = lines.flatMap((l) => / token (phc_\w+)$/.exec(l)?.[1] ?? []);
      expect(new Set(tokens).size).toBe(3);
      const url = /listening on (http:\/\/\S+)/.exec(cli.out)![1]!;
      const res = await call(url, "GET", "/api/projects/");
      expect(res.body.count).toBe(2);
    } finally {
      cli.kill();
    }
  });

  it("refuses a bad fixture file before start, naming the JSON pointer and the reason", async () => {
    const dir = tmp();
    const doc = scenario("basic");
    (doc.events![3] as { timestamp: string }).timestamp = "yesterday";
    writeFileSync(path.join(dir, "bad.json"), JSON.stringify(doc));
    const cli = await runCli(["--port", "0", "--in-memory", "--fixtures", path.join(dir, "bad.json")]);
    expect(cli.code).toBe(1);
    expect(cli.out).toContain("/events/3/timestamp");
    expect(cli.out).toContain("date-time");
  });

  it("prints every flag with --help and rejects an unknown one", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    for (const flag of ["--port", "--data", "--in-memory", "--fixtures", "--now", "--seed", "--persons", "--events"]) expect(help.out).toContain(flag);
    const bad = await runCli(["--colour"]);
    expect(bad.code).toBe(2);
  });
});

describe("the store on disk", () => {
  it("keeps state across restarts, and an insight write rewrites neither events nor persons", async () => {
    const dir = tmp();
    const data = path.join(dir, "db.json");
    running = await start(["--data", data, "--fixtures", basic]);
    const created = await call(running.url, "POST", "/api/projects/1/insights/", { name: "Kept" });
    expect(created.status).toBe(201);
    const events = statSync(path.join(dir, "db.events.ndjson")).mtimeMs;
    const persons = statSync(path.join(dir, "db.persons.json")).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    await call(running.url, "PATCH", `/api/projects/1/insights/${created.body.id}/`, { name: "Kept 2" });
    expect(statSync(path.join(dir, "db.events.ndjson")).mtimeMs).toBe(events);
    expect(statSync(path.join(dir, "db.persons.json")).mtimeMs).toBe(persons);
    await running.close();
    running = await start(["--data", data]);
    expect(running.source).toBe("data-file");
    const listed = await call(running.url, "GET", `/api/projects/1/insights/${created.body.id}/`);
    expect(listed.body.name).toBe("Kept 2");
    expect((await call(running.url, "GET", "/api/projects/1/events/")).body.count).toBe(11);
    expect((await call(running.url, "GET", `/api/projects/1/insights/${created.body.id}/activity/`)).body.total_count).toBe(2);
  });

  it("refuses a corrupt store file, naming it, and leaves it as it was", async () => {
    const dir = tmp();
    const data = path.join(dir, "db.json");
    running = await start(["--data", data, "--fixtures", basic]);
    await running.close();
    running = undefined;
    writeFileSync(data, '{"schema_version": 1, "users": [');
    await expect(start(["--data", data])).rejects.toThrow(data);
    expect(readFileSync(data, "utf8")).toBe('{"schema_version": 1, "users": [');
  });

  it("--in-memory writes nothing and --now stamps new objects", async () => {
    const dir = tmp();
    running = await start(["--in-memory", "--fixtures", basic, "--now", "2025-01-02T03:04:05Z"]);
    const created = await call(running.url, "POST", "/api/projects/1/insights/", { name: "Clocked" });
    expect(created.body.created_at).toBe("2025-01-02T03:04:05.000Z");
    expect(readdir(dir)).toEqual([]);
  });

  it("logs requests without keys", async () => {
    const lines: string[] = [];
    running = await start(["--in-memory", "--fixtures", basic], lines);
    await call(running.url, "GET", "/api/projects/1/insights/?short_id=PgVw0001");
    await call(running.url, "GET", "/api/projects/1/insights/", undefined, "phx_wrong_key_value_123");
    expect(lines.some((l) => l.includes("GET /api/projects/1/insights/ 200"))).toBe(true);
    expect(lines.join("\n")).not.toContain(OWNER_KEY);
    expect(lines.join("\n")).not.toContain("phx_wrong_key_value_123");
  });
});

function readdir(dir: string): string[] {
  return readdirSync(dir);
}

describe("frontend options", () => {
  it("--latency delays every answer", async () => {
    running = await start(["--in-memory", "--fixtures", basic, "--latency", "120-130"]);
    const started = Date.now();
    await call(running.url, "GET", "/api/projects/");
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
  });

  it("--watch reloads the contract when openapi/ changes and keeps the state", async () => {
    const lines: string[] = [];
    running = await start(["--in-memory", "--fixtures", basic, "--watch"], lines);
    const created = await call(running.url, "POST", "/api/projects/1/insights/", { name: "survives reload" });
    const file = path.join(root, "openapi/redocly.yaml");
    writeFileSync(file, readFileSync(file, "utf8"));
    for (let i = 0; i < 100 && !lines.some((l) => l.includes("contract reloaded")); i++) await new Promise((r) => setTimeout(r, 100));
    expect(lines.some((l) => l.includes("contract reloaded"))).toBe(true);
    expect((await call(running.url, "GET", `/api/projects/1/insights/${created.body.id}/`)).body.name).toBe("survives reload");
  });
});

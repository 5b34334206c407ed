import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { defaultApiKey } from "../../src/fixtures/generate.ts";
import { callServer, OWNER_KEY, scenario } from "../support/server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const basic = path.join(root, "fixtures/scenarios/basic.json");
const DEMO_KEY = defaultApiKey(42);
const tmp = () => mkdtempSync(path.join(tmpdir(), "analytics-mock-"));

let running: StartedServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

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
  it("starts on a fixture file with a frozen clock and answers with the fixture's key, printed as the generated dataset's is", async () => {
    const cli = await runCli(["--port", "0", "--in-memory", "--fixtures", basic, "--now", "2024-03-05T12:00:00Z"]);
    try {
      expect(cli.out).toContain("frozen at 2024-03-05T12:00:00.000Z");
      // The README's `<printed key>`: the fixture's first user's key, whole, on the key line and in the curl line (issue 41).
      expect(cli.out).toContain(`API key: ${OWNER_KEY} (from ${basic})`);
      expect(cli.out).toContain(`curl -H "Authorization: Bearer ${OWNER_KEY}"`);
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
      const res = await callServer(url, "GET", "/api/projects/");
      expect(res.body.count).toBe(2);
      // The inspector (issue 42): its address printed, and a page there.
      expect(cli.out).toContain(`inspect: ${url}/_mock/ui/`);
      expect((await fetch(`${url}/_mock/ui/`)).headers.get("content-type")).toBe("text/html; charset=utf-8");
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
    const created = await callServer(running.url, "POST", "/api/projects/1/insights/", { name: "Kept" });
    expect(created.status).toBe(201);
    const events = statSync(path.join(dir, "db.events.ndjson")).mtimeMs;
    const persons = statSync(path.join(dir, "db.persons.json")).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    await callServer(running.url, "PATCH", `/api/projects/1/insights/${created.body.id}/`, { name: "Kept 2" });
    expect(statSync(path.join(dir, "db.events.ndjson")).mtimeMs).toBe(events);
    expect(statSync(path.join(dir, "db.persons.json")).mtimeMs).toBe(persons);
    await running.close();
    running = await start(["--data", data]);
    expect(running.source).toBe("data-file");
    const listed = await callServer(running.url, "GET", `/api/projects/1/insights/${created.body.id}/`);
    expect(listed.body.name).toBe("Kept 2");
    expect((await callServer(running.url, "GET", "/api/projects/1/events/")).body.count).toBe(11);
    expect((await callServer(running.url, "GET", `/api/projects/1/insights/${created.body.id}/activity/`)).body.total_count).toBe(2);
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
    const created = await callServer(running.url, "POST", "/api/projects/1/insights/", { name: "Clocked" });
    expect(created.body.created_at).toBe("2025-01-02T03:04:05.000Z");
    expect(readdir(dir)).toEqual([]);
  });

  it("logs requests without keys", async () => {
    const lines: string[] = [];
    running = await start(["--in-memory", "--fixtures", basic], lines);
    await callServer(running.url, "GET", "/api/projects/1/insights/?short_id=PgVw0001");
    await callServer(running.url, "GET", "/api/projects/1/insights/", undefined, "phx_wrong_key_value_123");
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
    await callServer(running.url, "GET", "/api/projects/");
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
  });

  it("--watch reloads the contract when openapi/ changes and keeps the state", async () => {
    const lines: string[] = [];
    running = await start(["--in-memory", "--fixtures", basic, "--watch"], lines);
    const created = await callServer(running.url, "POST", "/api/projects/1/insights/", { name: "survives reload" });
    const file = path.join(root, "openapi/redocly.yaml");
    writeFileSync(file, readFileSync(file, "utf8"));
    for (let i = 0; i < 100 && !lines.some((l) => l.includes("contract reloaded")); i++) await new Promise((r) => setTimeout(r, 100));
    expect(lines.some((l) => l.includes("contract reloaded"))).toBe(true);
    expect((await callServer(running.url, "GET", `/api/projects/1/insights/${created.body.id}/`)).body.name).toBe("survives reload");
  });
});

/** Runs the CLI to its end with an environment of our choosing (as npm or npx would set it); resolves with its exit code and output. */
function runToEnd(args: string[], env: NodeJS.ProcessEnv = {}, script = path.join(root, "dist/main.mjs")): Promise<{ code: number | null; out: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_")));
  const child = spawn(process.execPath, [script, ...args], { cwd: root, env: { ...clean, ...env } });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => {
    const check = setInterval(() => out.includes("listening on") && child.kill("SIGTERM"), 50);
    child.on("exit", (code) => {
      clearInterval(check);
      resolve({ code, out });
    });
  });
}

const STACK_LINE = /^\s+at /m;

describe("start-up failures: one line, what to do, exit 1, no stack", () => {
  it("a port in use names the port and --port; the stack only at --log-level debug", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = String((blocker.address() as { port: number }).port);
    try {
      const plain = await runToEnd(["--port", port, "--in-memory", "--fixtures", basic]);
      expect(plain.code).toBe(1);
      expect(plain.out.trim().split("\n")).toEqual([`port ${port} on 127.0.0.1 is already in use: stop the other server or pass --port with another port (--port 0 picks a free one)`]);
      const debug = await runToEnd(["--port", port, "--in-memory", "--fixtures", basic, "--log-level", "debug"]);
      expect(debug.code).toBe(1);
      expect(debug.out).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(debug.out).toMatch(STACK_LINE);
    } finally {
      blocker.close();
    }
  });

  it("--events beyond the heap is refused up front with what it needs and the flag to raise it, never a V8 abort", async () => {
    // A 256 MiB heap cannot hold 10 M generated events (150 MiB + 45 bytes per event = 0.6 GiB, measured).
    const small = await runToEnd(["--port", "0", "--in-memory", "--events", "10000000"], { NODE_OPTIONS: "--max-old-space-size=256" });
    expect(small.code).toBe(1);
    expect(small.out.trim().split("\n")).toHaveLength(1);
    expect(small.out).toMatch(/^--events 10,000,000 needs about 0\.6 GiB of JavaScript heap, more than this process may use \(0\.\d GiB\): start with NODE_OPTIONS=--max-old-space-size=\d+/);
    expect(small.out).not.toMatch(/FATAL ERROR|heap out of memory/);
  });

  it("a missing fixture file names the resolved path", async () => {
    const missing = path.join(tmp(), "nope.json");
    const res = await runToEnd(["--port", "0", "--in-memory", "--fixtures", missing]);
    expect(res.code).toBe(1);
    const lines = res.out.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`fixture file ${missing} does not exist`);
    expect(res.out).not.toMatch(STACK_LINE);
  });

  it("an unreadable data file names it and says what to do, leaving it as it is", async () => {
    const data = path.join(tmp(), "db.json");
    writeFileSync(data, "{ not json");
    const res = await runToEnd(["--port", "0", "--data", data]);
    expect(res.code).toBe(1);
    const lines = res.out.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`store file ${data} is unreadable`);
    expect(lines[0]).toContain("--reset-data");
    expect(res.out).not.toMatch(STACK_LINE);
    expect(readFileSync(data, "utf8")).toBe("{ not json");
  });
});

describe("--fixtures and the data file", () => {
  /** A copy of the basic scenario the test may edit, with the first insight named `name`. */
  const editableFixture = (dir: string, name: string) => {
    const file = path.join(dir, "fixture.json");
    const doc = JSON.parse(readFileSync(basic, "utf8"));
    doc.insights[0].name = name;
    writeFileSync(file, JSON.stringify(doc, null, 2));
    return file;
  };
  const insightNames = async (url: string) => (await callServer(url, "GET", "/api/projects/1/insights/?limit=100")).body.results.map((i: { name: string }) => i.name);

  it("writes a fresh data file loudly, then serves it with the API's changes while the fixture is unchanged", async () => {
    const dir = tmp();
    const data = path.join(dir, "db.json");
    const fixture = editableFixture(dir, "Pageviews");
    const lines: string[] = [];
    running = await start(["--data", data, "--fixtures", fixture], lines);
    expect(lines).toContain(`writing ${data} (and its sibling files) with the fixture ${fixture}`);
    await callServer(running.url, "POST", "/api/projects/1/insights/", { name: "mine" });
    await running.close();

    // Reformatting the file changes nothing: the fixture is the same document.
    writeFileSync(fixture, JSON.stringify(JSON.parse(readFileSync(fixture, "utf8"))));
    const again: string[] = [];
    running = await start(["--data", data, "--fixtures", fixture], again);
    expect(running.source).toBe("data-file");
    expect(again.filter((l) => l.includes(data))).toEqual([]);
    expect(await insightNames(running.url)).toEqual(expect.arrayContaining(["mine", "Pageviews"]));
  });

  it("reloads a fixture edited between two starts, in one log line; --keep-data keeps the stored state", async () => {
    const dir = tmp();
    const data = path.join(dir, "db.json");
    const fixture = editableFixture(dir, "Pageviews");
    running = await start(["--data", data, "--fixtures", fixture]);
    await callServer(running.url, "POST", "/api/projects/1/insights/", { name: "mine" });
    await running.close();

    editableFixture(dir, "Pageviews, renamed");
    const kept: string[] = [];
    running = await start(["--data", data, "--fixtures", fixture, "--keep-data"], kept);
    expect(kept).toContain(`--fixtures ${fixture} changed since ${data} was written from it: keeping the stored state (--keep-data)`);
    expect(await insightNames(running.url)).toEqual(expect.arrayContaining(["mine", "Pageviews"]));
    await running.close();

    const lines: string[] = [];
    running = await start(["--data", data, "--fixtures", fixture], lines);
    expect(lines.filter((l) => l.includes(data))).toEqual([`--fixtures ${fixture} changed since ${data} was written from it: reloading it (pass --keep-data to keep the stored state)`]);
    expect(running.source).toBe("fixtures-file");
    const names = await insightNames(running.url);
    expect(names).toContain("Pageviews, renamed");
    expect(names).not.toContain("mine");
    await running.close();

    // The reloaded state now follows the edited fixture: the next start serves it as stored.
    running = await start(["--data", data, "--fixtures", fixture]);
    expect(running.source).toBe("data-file");
    expect(await insightNames(running.url)).toContain("Pageviews, renamed");
    await running.close();

    // Started without the fixture, the data file still serves its state: one line says so, and how to leave it.
    const left: string[] = [];
    running = await start(["--data", data], left);
    expect(running.source).toBe("data-file");
    expect(left.filter((l) => l.includes(data))).toEqual([`${data} holds the state a fixture wrote: serving it (pass --reset-data for the default dataset)`]);
  });

  it("refuses to replace a stored state that did not come from a fixture; --reset-data replaces it", async () => {
    const data = path.join(tmp(), "db.json");
    running = await start(["--data", data, "--persons", "20", "--events", "200", "--now", "2024-03-05T12:00:00Z"]);
    await running.close();
    running = undefined;
    const stored = readFileSync(data, "utf8");

    await expect(start(["--data", data, "--fixtures", basic])).rejects.toThrow(
      `${data} already holds a stored state and --fixtures ${basic} would replace it: pass --reset-data to replace it, --in-memory to leave it alone, or --data with another path`,
    );
    expect(readFileSync(data, "utf8")).toBe(stored);

    const replacing: string[] = [];
    running = await start(["--data", data, "--fixtures", basic, "--reset-data"], replacing);
    expect(replacing).toContain(`REPLACING the stored state in ${data} (and its sibling files) with the fixture ${basic}`);
    expect(await insightNames(running.url)).toContain("Pageviews");
  });

  it("--keep-data and --reset-data exclude each other", () => {
    expect(() => parseConfig(["--keep-data", "--reset-data"])).toThrow("--keep-data and --reset-data exclude each other");
  });

  it("--in-memory with --fixtures leaves an existing data file alone", async () => {
    const data = path.join(tmp(), "db.json");
    running = await start(["--data", data, "--fixtures", basic]);
    await running.close();
    const stored = readFileSync(data, "utf8");
    running = await start(["--in-memory", "--fixtures", basic]);
    await running.close();
    running = undefined;
    expect(readFileSync(data, "utf8")).toBe(stored);
  });
});

describe("keeping persisted data current", () => {
  const GENERATED_AT = "2025-06-01T12:00:00.000Z";
  const TWO_WEEKS_LATER = "2025-06-15T12:00:00.000Z";
  const size = ["--persons", "60", "--events", "3000"];
  const trend = { events: [{ id: "$pageview" }], date_from: "-14d" };

  async function twoWeeksOldStore(): Promise<string> {
    const data = path.join(tmp(), "db.json");
    running = await start(["--data", data, ...size, "--now", GENERATED_AT]);
    await running.close();
    running = undefined;
    return data;
  }

  async function newestEvent(url: string, key = OWNER_KEY): Promise<string> {
    return (await callServer(url, "GET", "/api/projects/1/events/?limit=1", undefined, key)).body.results[0].timestamp;
  }

  it("the generated dataset, two weeks old, is shifted so its newest event is now and the last 14 days are full", async () => {
    const data = await twoWeeksOldStore();
    const lines: string[] = [];
    running = await start(["--data", data, "--now", TWO_WEEKS_LATER], lines);
    expect(lines.some((l) => l.startsWith("shifted every timestamp by +14d 0h"))).toBe(true);
    expect(new Date(await newestEvent(running.url, DEMO_KEY)).toISOString()).toBe(TWO_WEEKS_LATER);
    const result = (await callServer(running.url, "POST", "/api/projects/1/insights/trend/", trend, DEMO_KEY)).body.result[0];
    // 3,000 events over 90 days: every one of the last days has pageviews once the data ends today.
    expect(result.data.slice(-7).every((n: number) => n > 0)).toBe(true);
    await running.close();
    running = undefined;
    // The shift was written: the next start finds nothing to move.
    const again: string[] = [];
    running = await start(["--data", data, "--now", TWO_WEEKS_LATER], again);
    expect(again.some((l) => l.startsWith("shifted"))).toBe(false);
    expect(new Date(await newestEvent(running.url, DEMO_KEY)).toISOString()).toBe(TWO_WEEKS_LATER);
  });

  it("a store file written before the origin was recorded is recognised as generated by its demo key", async () => {
    const data = await twoWeeksOldStore();
    const meta = JSON.parse(readFileSync(data, "utf8"));
    expect(meta.origin).toBe("generated");
    delete meta.origin;
    writeFileSync(data, JSON.stringify(meta));
    running = await start(["--data", data, "--now", TWO_WEEKS_LATER]);
    expect(new Date(await newestEvent(running.url, DEMO_KEY)).toISOString()).toBe(TWO_WEEKS_LATER);
  });

  it("--no-shift keeps the stale times: the last 14 days are (nearly) empty", async () => {
    const data = await twoWeeksOldStore();
    running = await start(["--data", data, "--now", TWO_WEEKS_LATER, "--no-shift"]);
    expect(Date.parse(await newestEvent(running.url, DEMO_KEY))).toBeLessThanOrEqual(Date.parse(GENERATED_AT));
    const result = (await callServer(running.url, "POST", "/api/projects/1/insights/trend/", trend, DEMO_KEY)).body.result[0];
    expect(result.data.slice(-13).every((n: number) => n === 0)).toBe(true);
  });

  it("fixtures keep their times unless --shift-to-now, which moves them all by one offset", async () => {
    running = await start(["--in-memory", "--fixtures", basic, "--now", "2025-01-10T00:00:00Z"]);
    const kept = await newestEvent(running.url);
    expect(Date.parse(kept)).toBeLessThan(Date.parse("2024-04-01T00:00:00Z"));
    await running.close();
    running = await start(["--in-memory", "--fixtures", basic, "--now", "2025-01-10T00:00:00Z", "--shift-to-now"]);
    expect(new Date(await newestEvent(running.url)).toISOString()).toBe("2025-01-10T00:00:00.000Z");
    const offset = Date.parse("2025-01-10T00:00:00Z") - Date.parse(kept);
    const insight = (await callServer(running.url, "GET", "/api/projects/1/insights/?short_id=PgVw0001")).body.results[0];
    const original = scenario("basic").insights!.find((i) => i.short_id === "PgVw0001")!;
    expect(Date.parse(insight.created_at) - Date.parse(original.created_at!)).toBe(offset);
  });
});

describe("--help", () => {
  const usageLine = (out: string) => out.split("\n").find((l) => l.startsWith("Usage: "));
  it("names the command as it was invoked", async () => {
    expect(usageLine((await runToEnd(["--help"], { npm_lifecycle_event: "start", npm_command: "start" })).out)).toBe("Usage: npm start -- [options]");
    expect(usageLine((await runToEnd(["--help"], { npm_lifecycle_event: "npx", npm_command: "exec" })).out)).toBe("Usage: npx analytics-mock [options]");
    expect(usageLine((await runToEnd(["--help"], {}, path.join(root, "bin/analytics-mock.mjs"))).out)).toBe("Usage: analytics-mock [options]");
    expect(usageLine((await runToEnd(["--help"])).out)).toBe("Usage: node dist/main.mjs [options]");
  });
});

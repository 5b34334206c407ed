/**
 * The events' log under a capture storm (issue 35): `npx tsx bench/event-log-storm.ts [--sizes 200000,1000000]`
 * (not part of `npm test`; `npm run build` first). For each store size it starts the built server with a data file
 * and N generated events, then three clients capture 36,000 events through `/batch/` (200 a batch, a third of them
 * late: 2 to 40 days before the newest stored event) while a HogQL count runs every 500 ms. It then reads the same
 * number through three doors — the trend endpoint's total, HogQL's count() and uniqExact(uuid) — beside the
 * acknowledged count; again after a SIGTERM and a start; and after 6,000 more captured events, a SIGKILL and a
 * start. Every door must give the acknowledged number at every step.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { defaultApiKey } from "../src/fixtures/users.ts";
import { derivedProjectToken } from "../src/util/ids.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: flags } = parseArgs({ options: { sizes: { type: "string" } } });
const SIZES = (flags.sizes ?? "200000,1000000").split(",").map(Number);
const NOW = "2026-03-15T12:00:00Z";
const KEY = defaultApiKey(42);
const TOKEN = derivedProjectToken("1");
const BATCH = 200;
const DAY = 86_400_000;
const MARKER = "storm";

interface Server {
  url: string;
  child: ChildProcess;
  startMs: number;
}

async function start(args: string[]): Promise<Server> {
  const started = performance.now();
  const child = spawn(process.execPath, ["dist/main.mjs", "--port", "0", "--now", NOW, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const found = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server exited (${code}) before listening:\n${out}`)));
  });
  return { url, child, startMs: Math.round(performance.now() - started) };
}

async function stop(server: Server, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill(signal);
  await exited;
}

function batchOf(client: number, n: number): object[] {
  return Array.from({ length: BATCH }, (_, i) => {
    const late = i % 3 === 0;
    return {
      event: "storm_event",
      distinct_id: `storm-${(client * 977 + n * 13 + i) % 50}`,
      uuid: `0190cccc-${String(client).padStart(4, "0")}-7000-8${String(n).padStart(3, "0")}-${String(i).padStart(12, "0")}`,
      timestamp: new Date(Date.parse(NOW) - (late ? (2 + ((n * 7 + i) % 39)) * DAY : 60_000 - i * 10)).toISOString(),
      properties: { marker: MARKER },
    };
  });
}

async function post(url: string, body: unknown, key?: string): Promise<any> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

const hogql = (server: Server, sql: string) => post(`${server.url}/api/projects/1/query/`, { query: { kind: "HogQLQuery", query: sql } }, KEY);

/** Three clients, `batches` each (client numbers from `firstClient`), with a HogQL count every 500 ms meanwhile. */
async function storm(server: Server, firstClient: number, batches: number): Promise<number> {
  let done = false;
  const queries = (async () => {
    while (!done) {
      await hogql(server, `SELECT count() FROM events WHERE properties.marker = '${MARKER}'`);
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  const clients = [0, 1, 2].map(async (c) => {
    for (let n = 0; n < batches; n++) await post(`${server.url}/batch/`, { api_key: TOKEN, batch: batchOf(firstClient + c, n) });
    return batches * BATCH;
  });
  const acknowledged = (await Promise.all(clients)).reduce((a, b) => a + b, 0);
  done = true;
  await queries;
  return acknowledged;
}

async function doors(server: Server): Promise<{ trend: number; count: number; uniq: number }> {
  const trend = await post(`${server.url}/api/projects/1/insights/trend/`, { events: [{ id: "storm_event", type: "events" }], properties: [{ key: "marker", value: MARKER, operator: "exact", type: "event" }], date_from: "-60d", interval: "day" }, KEY);
  const sql = await hogql(server, `SELECT count(), uniqExact(uuid) FROM events WHERE properties.marker = '${MARKER}'`);
  return { trend: trend.result[0].count, count: Number(sql.results[0][0]), uniq: Number(sql.results[0][1]) };
}

async function run(size: number): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-event-log-"));
  const data = path.join(dir, "db.json");
  const rows: string[] = [];
  const row = async (phase: string, server: Server, acknowledged: number) => {
    const d = await doors(server);
    const equal = d.trend === acknowledged && d.count === acknowledged && d.uniq === acknowledged;
    rows.push(`| ${size.toLocaleString("en")} | ${phase} | ${acknowledged.toLocaleString("en")} | ${d.trend.toLocaleString("en")} | ${d.count.toLocaleString("en")} | ${d.uniq.toLocaleString("en")} | ${equal ? "yes" : "**NO**"} | ${server.startMs.toLocaleString("en")} |`);
  };
  let server = await start(["--data", data, "--events", String(size), "--persons", "2000"]);
  let acknowledged = await storm(server, 0, 60);
  await row("after the storm", server, acknowledged);
  await stop(server, "SIGTERM");
  server = await start(["--data", data]);
  await row("after SIGTERM and a start", server, acknowledged);
  acknowledged += await storm(server, 3, 10);
  await stop(server, "SIGKILL");
  server = await start(["--data", data]);
  await row("6,000 more, SIGKILL, a start", server, acknowledged);
  await stop(server, "SIGTERM");
  rmSync(dir, { recursive: true, force: true });
  console.log(rows.join("\n"));
}

console.log("| stored | phase | acknowledged | trend total | HogQL count() | uniqExact(uuid) | equal | start ms |\n|--:|---|--:|--:|--:|--:|---|--:|");
for (const size of SIZES) await run(size);

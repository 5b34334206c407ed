/**
 * Capture throughput (issues 15, 21): `npx tsx bench/capture.ts [--sizes bundled,1000000,10000000] [--seconds S]
 * [--connections C] [--warmup W] [--profile DIR]` (not part of `npm test`). For each store size it starts the built
 * server (`dist/main.mjs`, `npm run build` first) as a child process with a data file (so every acknowledged batch
 * is on disk): `bundled` starts from fixtures/scenarios/basic.json, a number N from N generated events (`--events N`,
 * generated and written at start: ~2 min for 10 M). It then loads `POST /batch/` with posthog-node-shaped batches
 * of 100 events (unique uuids, 1,000 distinct ids, so persons are created and then updated) at C connections and
 * prints acknowledged events per second, one line per size, and whether the target (issue 21) is met. On the
 * bundled store it also times a trend over the captured events, then over the same events read back at a restart.
 * `--profile DIR`: each server runs with node --cpu-prof (read the profile with bench/profile-top.mjs).
 * `--node-flag F` (repeatable) passes F to the servers' node; `--server-log FILE` appends their output to FILE
 * (`--node-flag=--trace-gc --server-log gc.log`: their collections).
 * `--spread MS`: each event's timestamp up to MS ms before its batch's `sent_at`, as SDKs that queue events send
 * them (default 0: every event at the server's now, so each one lands after the stored ones).
 * `--sql-every MS` (issue 22): during the warm-up and the load, a HogQL count of the events is asked every MS ms,
 * so the SQL engine's mirror is kept current with the capture (each query first brings it up to the store; its
 * first load happens in the warm-up); the line also gives the queries' p50 and the count the last one saw.
 */
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { defaultApiKey } from "../src/fixtures/generate.ts";
import { derivedProjectToken } from "../src/util/ids.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: flags } = parseArgs({
  options: { "sql-every": { type: "string" }, sizes: { type: "string" }, spread: { type: "string" }, seconds: { type: "string" }, connections: { type: "string" }, warmup: { type: "string" }, profile: { type: "string" }, "node-flag": { type: "string", multiple: true }, "server-log": { type: "string" } },
});
const SIZES = (flags.sizes ?? "bundled,1000000,10000000").split(",").map((s) => s.trim());
const SECONDS = Number(flags.seconds ?? 10);
const CONNECTIONS = Number(flags.connections ?? 10);
const WARMUP = Number(flags.warmup ?? 2);
const SPREAD_MS = Number(flags.spread ?? 0);
const EVENTS_PER_BATCH = 100;
const DISTINCT_IDS = 1000;
const TOKEN = derivedProjectToken("1");
/** One frozen clock for both starts: captured events land relative to it, and the restart reads them at the same "now". */
const NOW = "2024-03-05T12:00:00Z";
/** Issue 21's target, at every store size. */
const TARGET = { eventsPerSecond: 20_000, p99Ms: 100 };

/** The server's dataset flags for a size: the bundled scenario, or N generated events. */
function datasetArgs(size: string): string[] {
  if (size === "bundled") return ["--fixtures", "fixtures/scenarios/basic.json"];
  if (!/^\d+$/.test(size)) throw new Error(`--sizes: "${size}" is neither "bundled" nor a number of events`);
  return ["--events", size];
}

async function startServer(dataFile: string, dataset: string[], tag: string): Promise<{ url: string; startupMs: number; stop: () => Promise<void> }> {
  const nodeArgs = [...(flags["node-flag"] ?? []), ...(flags.profile ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(flags.profile, tag)] : [])];
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, "dist/main.mjs", "--port", "0", "--data", dataFile, ...dataset, "--now", NOW, "--log-level", "info"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!.replace(/\/$/, ""));
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", () => reject(new Error(`server exited:\n${out}`)));
  });
  const startupMs = performance.now() - started;
  if (flags["server-log"]) {
    const log = createWriteStream(flags["server-log"], { flags: "a" });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  } else {
    child.stdout!.resume();
    child.stderr!.resume();
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { url, startupMs, stop: () => (child.exitCode === null && child.kill("SIGTERM"), exited.then(() => undefined)) };
}

let counter = 0;
function batchBody(): string {
  const n = counter++;
  const sentMs = Date.now();
  const sentAt = new Date(sentMs).toISOString();
  const batch = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => {
    const k = n * EVENTS_PER_BATCH + i;
    return {
      event: i % 10 === 0 ? "$pageview" : "bench event",
      distinct_id: `bench-${k % DISTINCT_IDS}`,
      uuid: `0190bbbb-0000-7000-8000-${k.toString(16).padStart(12, "0")}`,
      timestamp: SPREAD_MS ? new Date(sentMs - ((k * 7919) % SPREAD_MS)).toISOString() : sentAt,
      properties: { $lib: "posthog-node", i, plan: i % 3 ? "free" : "pro", $set: { last_batch: n } },
    };
  });
  return JSON.stringify({ api_key: TOKEN, sent_at: sentAt, batch });
}

const SQL_EVERY_MS = flags["sql-every"] ? Number(flags["sql-every"]) : 0;

/** Asks a HogQL count every SQL_EVERY_MS until stopped: the mirror follows the capture meanwhile. */
function pollSql(url: string, key: string) {
  const times: number[] = [];
  let last = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${url}/api/projects/1/query/`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query: { kind: "HogQLQuery", query: "select count() from events" }, refresh: "force_blocking" }),
      });
      const body = (await res.json()) as { results?: number[][] };
      times.push(performance.now() - started);
      last = body.results?.[0]?.[0] ?? -1;
      await new Promise((r) => setTimeout(r, SQL_EVERY_MS));
    }
  })();
  return async () => {
    running = false;
    await loop;
    times.sort((a, b) => a - b);
    return { queries: times.length, p50: Math.round(times[times.length >> 1] ?? 0), lastCount: last };
  };
}

async function load(url: string, seconds: number) {
  let acked = 0;
  let other = 0;
  const instance = autocannon({
    url: `${url}/batch/`,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 30,
    requests: [{ method: "POST", path: "/batch/", headers: { "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: batchBody() }) }],
  });
  instance.on("response", (_client: unknown, status: number) => (status === 200 ? acked++ : other++));
  if (process.env.BENCH_DEBUG) instance.on("reqError", (e: unknown) => console.error("reqError", e));
  const started = performance.now();
  const result = await instance;
  const elapsed = (performance.now() - started) / 1000;
  return { eventsPerSecond: (acked * EVENTS_PER_BATCH) / elapsed, acked, other, errors: result.errors + result.timeouts, p50: result.latency.p50, p99: result.latency.p99 };
}

const TREND = { events: [{ id: "bench event", math: "dau" }], breakdown: "plan", date_from: "-1d", interval: "hour" };
const TREND_RUNS = 15;

/** p50 of a refreshed trend (recomputed each time) over what the server holds, through HTTP, c=1. */
async function trendP50(url: string): Promise<{ ms: number; total: number }> {
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < TREND_RUNS + 2; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/api/projects/1/insights/trend/?refresh=true`, {
      method: "POST",
      headers: { authorization: "Bearer phx_test_owner_key_0001", "content-type": "application/json" },
      body: JSON.stringify(TREND),
    });
    const body = (await res.json()) as { result: { count: number }[] };
    if (i >= 2) times.push(performance.now() - started);
    total = body.result.reduce((sum, item) => sum + item.count, 0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[times.length >> 1]!, total };
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(", ");
const storeLabel = (size: string) => (size === "bundled" ? "bundled scenario" : `${Number(size).toLocaleString("en")} generated events`);

/** One store size: start, warm up, load, print; on the bundled store also the trend over captured vs reloaded events. */
async function benchSize(size: string): Promise<boolean> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "analytics-mock-bench-capture-"));
  const dataFile = path.join(dir, "db.json");
  try {
    const server = await startServer(dataFile, datasetArgs(size), `capture-${size}`);
    let captured: { ms: number; total: number } | undefined;
    let met: boolean;
    try {
      // The mirror's first load (all stored events) happens once, before the measured window.
      const warmSql = SQL_EVERY_MS > 0 ? pollSql(server.url, size === "bundled" ? "phx_test_owner_key_0001" : defaultApiKey(42)) : undefined;
      await load(server.url, WARMUP);
      await warmSql?.();
      const before = loadAverage();
      const stopSql = SQL_EVERY_MS > 0 ? pollSql(server.url, size === "bundled" ? "phx_test_owner_key_0001" : defaultApiKey(42)) : undefined;
      const r = await load(server.url, SECONDS);
      const sql = await stopSql?.();
      met = r.eventsPerSecond >= TARGET.eventsPerSecond && r.p99 <= TARGET.p99Ms;
      console.log(
        `POST /batch/ (${EVENTS_PER_BATCH} events${SPREAD_MS ? `, timestamps spread over ${SPREAD_MS} ms` : ""}, durable) c=${CONNECTIONS} ${SECONDS}s, ${storeLabel(size)} (start-up ${(server.startupMs / 1000).toFixed(1)} s): ` +
          `${Math.round(r.eventsPerSecond).toLocaleString("en")} events/s (${r.acked} batches acknowledged, ${r.other} other answers, ${r.errors} errors; ` +
          `latency p50 ${r.p50} ms, p99 ${r.p99} ms) on ${os.cpus().length} CPUs, load ${before} → ${loadAverage()}; ` +
          `target ≥ ${TARGET.eventsPerSecond.toLocaleString("en")} events/s and p99 ≤ ${TARGET.p99Ms} ms ${met ? "met" : "missed"}` +
          (sql ? `; with a HogQL count every ${SQL_EVERY_MS} ms meanwhile (${sql.queries} queries, p50 ${sql.p50} ms, the last counted ${sql.lastCount.toLocaleString("en")} events)` : ""),
      );
      if (size === "bundled") captured = await trendP50(server.url);
    } finally {
      await server.stop();
    }
    if (captured) await reloadedTrend(dataFile, captured);
    return met;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same trend over the same events loaded from the data file at a restart. */
async function reloadedTrend(dataFile: string, captured: { ms: number; total: number }): Promise<void> {
  const reloaded = await startServer(dataFile, [], "capture-reloaded");
  try {
    const loaded = await trendP50(reloaded.url);
    console.log(
      `trend (dau by plan, hourly, last day) p50: over captured events ${captured.ms.toFixed(1)} ms, over the same events loaded ${loaded.ms.toFixed(1)} ms ` +
        `(ratio ${(captured.ms / loaded.ms).toFixed(2)}×; totals ${captured.total} / ${loaded.total})`,
    );
  } finally {
    await reloaded.stop();
  }
}

let allMet = true;
for (const size of SIZES) allMet = (await benchSize(size)) && allMet;
console.log(`capture target (≥ ${TARGET.eventsPerSecond.toLocaleString("en")} events/s, p99 ≤ ${TARGET.p99Ms} ms at ${SIZES.join(", ")}): ${allMet ? "met" : "missed"}`);

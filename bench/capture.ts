/**
 * Capture throughput (issue 15): `npx tsx bench/capture.ts [--seconds S] [--connections C]` (not part of
 * `npm test`). Starts the built server (`dist/main.mjs`, `npm run build` first) as a child process with a data
 * file (so every acknowledged batch is on disk), then loads `POST /batch/` with posthog-node-shaped batches of
 * 100 events (unique uuids, 1,000 distinct ids, so persons are created and then updated) at C connections and
 * prints acknowledged events per second. `--profile DIR`: the server runs with node --cpu-prof (read the
 * profile with bench/profile-top.mjs).
 */
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { derivedProjectToken } from "../src/util/ids.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: flags } = parseArgs({ options: { seconds: { type: "string" }, connections: { type: "string" }, warmup: { type: "string" }, profile: { type: "string" } } });
const SECONDS = Number(flags.seconds ?? 10);
const CONNECTIONS = Number(flags.connections ?? 10);
const WARMUP = Number(flags.warmup ?? 2);
const EVENTS_PER_BATCH = 100;
const DISTINCT_IDS = 1000;
const TOKEN = derivedProjectToken("1");
/** One frozen clock for both starts: captured events land relative to it, and the restart reads them at the same "now". */
const NOW = "2024-03-05T12:00:00Z";

async function startServer(dataFile: string, fresh = true): Promise<{ url: string; stop: () => Promise<void> }> {
  const nodeArgs = flags.profile ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(flags.profile)] : [];
  const child = spawn(process.execPath, [...nodeArgs, "dist/main.mjs", "--port", "0", "--data", dataFile, ...(fresh ? ["--fixtures", "fixtures/scenarios/basic.json"] : []), "--now", NOW, "--log-level", "info"], {
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
  child.stdout!.resume();
  child.stderr!.resume();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { url, stop: () => (child.exitCode === null && child.kill("SIGTERM"), exited.then(() => undefined)) };
}

let counter = 0;
function batchBody(): string {
  const n = counter++;
  const sentAt = new Date().toISOString();
  const batch = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => {
    const k = n * EVENTS_PER_BATCH + i;
    return {
      event: i % 10 === 0 ? "$pageview" : "bench event",
      distinct_id: `bench-${k % DISTINCT_IDS}`,
      uuid: `0190bbbb-0000-7000-8000-${k.toString(16).padStart(12, "0")}`,
      timestamp: sentAt,
      properties: { $lib: "posthog-node", i, plan: i % 3 ? "free" : "pro", $set: { last_batch: n } },
    };
  });
  return JSON.stringify({ api_key: TOKEN, sent_at: sentAt, batch });
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

const dir = mkdtempSync(path.join(os.tmpdir(), "analytics-mock-bench-capture-"));
const dataFile = path.join(dir, "db.json");
const server = await startServer(dataFile);
try {
  await load(server.url, WARMUP);
  const r = await load(server.url, SECONDS);
  console.log(
    `POST /batch/ (${EVENTS_PER_BATCH} events, durable) c=${CONNECTIONS} ${SECONDS}s: ${Math.round(r.eventsPerSecond).toLocaleString("en")} events/s ` +
      `(${r.acked} batches acknowledged, ${r.other} other answers, ${r.errors} errors; latency p50 ${r.p50} ms, p99 ${r.p99} ms) on ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  // The same trend over the events just captured, then over the same events loaded from the data file at a restart.
  const captured = await trendP50(server.url);
  await server.stop();
  const reloaded = await startServer(dataFile, false);
  try {
    const loaded = await trendP50(reloaded.url);
    console.log(
      `trend (dau by plan, hourly, last day) p50: over captured events ${captured.ms.toFixed(1)} ms, over the same events loaded ${loaded.ms.toFixed(1)} ms ` +
        `(ratio ${(captured.ms / loaded.ms).toFixed(2)}×; totals ${captured.total} / ${loaded.total})`,
    );
  } finally {
    await reloaded.stop();
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

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

async function startServer(dataFile: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const nodeArgs = flags.profile ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(flags.profile)] : [];
  const child = spawn(process.execPath, [...nodeArgs, "dist/main.mjs", "--port", "0", "--data", dataFile, "--fixtures", "fixtures/scenarios/basic.json", "--log-level", "info"], {
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
  return { url, stop: () => (child.kill("SIGTERM"), exited.then(() => undefined)) };
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

const dir = mkdtempSync(path.join(os.tmpdir(), "analytics-mock-bench-capture-"));
const server = await startServer(path.join(dir, "db.json"));
try {
  await load(server.url, WARMUP);
  const r = await load(server.url, SECONDS);
  console.log(
    `POST /batch/ (${EVENTS_PER_BATCH} events, durable) c=${CONNECTIONS} ${SECONDS}s: ${Math.round(r.eventsPerSecond).toLocaleString("en")} events/s ` +
      `(${r.acked} batches acknowledged, ${r.other} other answers, ${r.errors} errors; latency p50 ${r.p50} ms, p99 ${r.p99} ms) on ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The benchmark's shared harness: flags, the child processes it measures (start-up to the first 200, RSS
 * from /proc) and the load (autocannon rounds, medians, percentiles). The scenarios under bench/scenarios/
 * use it; bench/run.ts runs them in order and writes the report.
 */
import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { defaultApiKey } from "../src/fixtures/generate.ts";
import type { LoadResult } from "./results.ts";
import { results } from "./results.ts";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const NOW = "2025-06-01T00:00:00.000Z";
export const SEED = 42;
export const API_KEY = defaultApiKey(SEED);
export const AUTH = { authorization: `Bearer ${API_KEY}` };
export const JSON_AUTH = { ...AUTH, "content-type": "application/json" };
export const BIG = 1_000_000;

export const SCENARIOS = ["http", "analyses", "startup", "groups-sessions", "capture", "scale"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean" },
    rounds: { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    out: { type: "string" },
    profile: { type: "string" },
    note: { type: "string" },
    only: { type: "string" },
    scale: { type: "string" },
  },
});
export const ROUNDS = Number(flags.rounds ?? (flags.quick ? 2 : 3));
export const DURATION = Number(flags.duration ?? (flags.quick ? 1 : 3));
export const WARMUP = Number(flags.warmup ?? (flags.quick ? 1 : 2));
export const OUT = flags.out ?? path.join(ROOT, "bench/README.md");
export const PROFILE_DIR = flags.profile ? path.resolve(flags.profile) : null;

export const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);
export const t0Run = performance.now();
export const loadAtStart = os.loadavg();
export const INTERLEAVED_ROUNDS = Number(flags.rounds ?? (flags.quick ? 2 : 5));
/** `--only http,analyses`: run some scenarios (the report leaves the others' rows out or as "–"). */
export const ONLY = new Set<ScenarioName>(flags.only ? (flags.only.split(",") as ScenarioName[]) : SCENARIOS);
for (const name of ONLY) if (!SCENARIOS.includes(name)) throw new Error(`--only: unknown scenario ${name} (${SCENARIOS.join(", ")})`);

// ---------------------------------------------------------------------------------------------- processes

export interface Proc {
  label: string;
  child: ChildProcess;
  port: number;
  base: string;
  /** The process that serves. */
  serverPid: number;
  startupMs: number;
  rssAfterStartMb: number;
  stderr: string;
  exited: Promise<number | null>;
}

/** Processes this run started and has not stopped yet: killed by pid if the run fails. */
export const live = new Set<Proc>();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export function request(url: string, method = "GET", headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

export function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)]);
}

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Spawns, then polls `readyPath` until it answers 200; the time from spawn to that 200 is the start-up. */
export async function startProc(label: string, argv: string[], readyPath: string, opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Proc> {
  const port = await freePort();
  const args = argv.map((a) => (a === "$PORT" ? String(port) : a));
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], env: opts.env ?? process.env });
  let stderr = "";
  child.stderr!.on("data", (c) => (stderr = (stderr + c).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));
  const base = `http://127.0.0.1:${port}`;
  const deadline = started + (opts.timeoutMs ?? 180_000);
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${label} exited with ${exitCode} before answering:\n${stderr}`);
    if (performance.now() > deadline) {
      for (const pid of childrenOf(child.pid!)) process.kill(pid, "SIGKILL");
      child.kill("SIGKILL");
      throw new Error(`${label} did not answer 200 on ${readyPath} in time:\n${stderr}`);
    }
    try {
      const r = await request(base + readyPath, "GET", AUTH);
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const startupMs = performance.now() - started;
  const serverPid = child.pid!;
  const proc: Proc = { label, child, port, base, serverPid, startupMs, rssAfterStartMb: rssMb(serverPid), stderr, exited };
  live.add(proc);
  log(`${label}: first 200 after ${startupMs.toFixed(0)} ms, RSS ${proc.rssAfterStartMb.toFixed(0)} MB (pid ${serverPid})`);
  return proc;
}

/** SIGTERM (the server flushes its store), then SIGKILL after a grace period. Returns ms to exit. */
export async function stopProc(p: Proc, graceMs = 120_000): Promise<number> {
  const t = performance.now();
  const inner = p.serverPid !== p.child.pid ? p.serverPid : null;
  p.child.kill("SIGTERM");
  const timer = setTimeout(() => {
    if (inner) {
      try {
        process.kill(inner, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    p.child.kill("SIGKILL");
  }, graceMs);
  await p.exited;
  clearTimeout(timer);
  live.delete(p);
  return performance.now() - t;
}

/**
 * Our server as `npm start` runs it once built: `node dist/main.mjs` (the bundle is built when the bench
 * starts). With --profile it runs under `node --cpu-prof`, one profile directory per phase.
 */
export const OURS_COMMAND = ["--enable-source-maps", "dist/main.mjs", "--port", "$PORT", "--log-level", "silent", "--now", NOW];
export const startOurs = (label: string, tag: string, extra: string[]) => {
  const profile = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.join(PROFILE_DIR, tag)}`] : [];
  return startProc(label, [...profile, ...OURS_COMMAND, ...extra], "/api/projects/");
};


// ---------------------------------------------------------------------------------------------- load

export interface Endpoint {
  name: string;
  method: "GET" | "POST" | "PATCH";
  path: string;
  body?: unknown;
  /** A body per request (a fresh name per PATCH, so every request really changes and writes). */
  bodyPerRequest?: () => unknown;
  expect: number;
  connections?: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
export const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

export async function cannon(base: string, ep: Endpoint, connections: number, seconds: number) {
  const latencies: number[] = [];
  let unexpected = 0;
  const body = ep.body === undefined ? undefined : JSON.stringify(ep.body);
  const headers = ep.method === "GET" ? AUTH : JSON_AUTH;
  const instance = autocannon({
    url: base + ep.path,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 30,
    requests: [
      {
        method: ep.method,
        path: ep.path,
        headers,
        body,
        ...(ep.bodyPerRequest ? { setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify(ep.bodyPerRequest!()) }) } : {}),
      },
    ],
  });
  instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
    latencies.push(ms);
    if (status !== ep.expect) unexpected++;
  });
  const started = performance.now();
  const res = await instance;
  const elapsed = (performance.now() - started) / 1000;
  return { latencies, unexpected, errors: res.errors + res.timeouts, rps: latencies.length / elapsed };
}

export async function bench(server: string, base: string, ep: Endpoint, connections = ep.connections ?? 10): Promise<LoadResult> {
  await cannon(base, ep, connections, WARMUP);
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await cannon(base, ep, connections, DURATION));
  const all = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const rps = rounds.map((r) => r.rps);
  const r: LoadResult = {
    server,
    endpoint: ep.name,
    connections,
    rps: median(rps),
    rpsMin: Math.min(...rps),
    rpsMax: Math.max(...rps),
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    requests: all.length,
    unexpected: rounds.reduce((a, r) => a + r.unexpected, 0),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
  };
  results.push(r);
  log(`${server} ${ep.name} c=${connections}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms${r.unexpected || r.errors ? `, ${r.unexpected} unexpected statuses, ${r.errors} errors` : ""}`);
  return r;
}

/** One request, checked: the bench refuses to measure an endpoint that does not answer as expected. */
export async function check(base: string, ep: Endpoint) {
  const body = ep.body === undefined ? (ep.bodyPerRequest ? JSON.stringify(ep.bodyPerRequest()) : undefined) : JSON.stringify(ep.body);
  const r = await request(base + ep.path, ep.method, ep.method === "GET" ? AUTH : JSON_AUTH, body);
  if (r.status !== ep.expect) throw new Error(`${ep.method} ${ep.path}: expected ${ep.expect}, got ${r.status}: ${r.body.slice(0, 300)}`);
  return r;
}

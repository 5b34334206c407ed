/**
 * The benchmark (issue 7): `npm run bench` (not part of `npm test`).
 *
 * In one run, on this machine: starts our server (default dataset; 1,000,000 events in memory; 1,000,000
 * events in a data file), Prism 5.14.2 `mock` on openapi/openapi.yaml and a bare express 5 hello world,
 * each as its own child process; loads each with autocannon from this process (keep-alive, a discarded
 * warm-up, then several rounds); measures start-up to the first 200 and RSS from /proc; times the analyses
 * in-process at 100 k and 1 M events; writes the tables to bench/README.md and prints them.
 *
 * Flags: --quick (short rounds, for trying the script), --rounds N, --duration S, --warmup S,
 *        --out FILE (default bench/README.md; "-" prints only), --profile DIR (our server runs with
 *        node --cpu-prof, profiles land in DIR; read them with bench/profile-top.mjs), --note TEXT (a line
 *        added to the report, e.g. which of several runs it is).
 */
import autocannon from "autocannon";
import { execSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createClock } from "../src/clock.ts";
import { defaultApiKey, generateFixtures } from "../src/fixtures/generate.ts";
import { createAnalysisService } from "../src/services/analysis-service.ts";
import { stateFromFixtures } from "../src/store/load-fixtures.ts";
import { createStore } from "../src/store/store.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const NOW = "2025-06-01T00:00:00.000Z";
const SEED = 42;
const API_KEY = defaultApiKey(SEED);
const AUTH = { authorization: `Bearer ${API_KEY}` };
const JSON_AUTH = { ...AUTH, "content-type": "application/json" };
const BIG = 1_000_000;

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean" },
    rounds: { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    out: { type: "string" },
    profile: { type: "string" },
    note: { type: "string" },
  },
});
const ROUNDS = Number(flags.rounds ?? (flags.quick ? 2 : 3));
const DURATION = Number(flags.duration ?? (flags.quick ? 1 : 3));
const WARMUP = Number(flags.warmup ?? (flags.quick ? 1 : 2));
const OUT = flags.out ?? path.join(ROOT, "bench/README.md");
const PROFILE_DIR = flags.profile ? path.resolve(flags.profile) : null;

const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);
const t0Run = performance.now();
const loadAtStart = os.loadavg();

// ---------------------------------------------------------------------------------------------- processes

interface Proc {
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
const live = new Set<Proc>();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function request(url: string, method = "GET", headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string }> {
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

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)]);
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Spawns, then polls `readyPath` until it answers 200; the time from spawn to that 200 is the start-up. */
async function startProc(label: string, argv: string[], readyPath: string, opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Proc> {
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
async function stopProc(p: Proc, graceMs = 120_000): Promise<number> {
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
const OURS_COMMAND = ["--enable-source-maps", "dist/main.mjs", "--port", "$PORT", "--log-level", "silent", "--now", NOW];
const startOurs = (label: string, tag: string, extra: string[]) => {
  const profile = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${path.join(PROFILE_DIR, tag)}`] : [];
  return startProc(label, [...profile, ...OURS_COMMAND, ...extra], "/api/projects/");
};

// ---------------------------------------------------------------------------------------------- load

interface Endpoint {
  name: string;
  method: "GET" | "POST" | "PATCH";
  path: string;
  body?: unknown;
  /** A body per request (a fresh name per PATCH, so every request really changes and writes). */
  bodyPerRequest?: () => unknown;
  expect: number;
  connections?: number;
}

interface LoadResult {
  server: string;
  endpoint: string;
  connections: number;
  rps: number;
  rpsMin: number;
  rpsMax: number;
  p50: number;
  p99: number;
  requests: number;
  unexpected: number;
  errors: number;
}

const results: LoadResult[] = [];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

async function cannon(base: string, ep: Endpoint, connections: number, seconds: number) {
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

async function bench(server: string, base: string, ep: Endpoint, connections = ep.connections ?? 10): Promise<LoadResult> {
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
async function check(base: string, ep: Endpoint) {
  const body = ep.body === undefined ? (ep.bodyPerRequest ? JSON.stringify(ep.bodyPerRequest()) : undefined) : JSON.stringify(ep.body);
  const r = await request(base + ep.path, ep.method, ep.method === "GET" ? AUTH : JSON_AUTH, body);
  if (r.status !== ep.expect) throw new Error(`${ep.method} ${ep.path}: expected ${ep.expect}, got ${r.status}: ${r.body.slice(0, 300)}`);
  return r;
}

// ---------------------------------------------------------------------------------------------- requests

const P = "/api/projects/1";
const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
const INSIGHT_BODY = { name: "bench insight", filters: { insight: "TRENDS", events: [{ id: "$pageview", math: "total" }], date_from: "-7d", interval: "day" } };
let patchCounter = 0;

const READS = {
  list: { name: "GET /insights/?limit=100", method: "GET", path: `${P}/insights/?limit=100`, expect: 200 },
  detail: { name: "GET /insights/:id/", method: "GET", path: `${P}/insights/1/`, expect: 200 },
} satisfies Record<string, Endpoint>;

const DEFAULT_MIX: Endpoint[] = [
  { name: "GET /persons/ (property filter)", method: "GET", path: `${P}/persons/?${q({ properties: JSON.stringify([{ key: "$browser", value: "Chrome", operator: "exact", type: "person" }]) })}`, expect: 200 },
  { name: "GET /events/ (event + property filter, limit 100)", method: "GET", path: `${P}/events/?${q({ event: "$pageview", properties: JSON.stringify([{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]), limit: "100" })}`, expect: 200 },
  { name: "GET /insights/?limit=abc (400)", method: "GET", path: `${P}/insights/?limit=abc`, expect: 400 },
  { name: "GET /insights/999999/ (404)", method: "GET", path: `${P}/insights/999999/`, expect: 404 },
  { name: "POST /insights/", method: "POST", path: `${P}/insights/`, body: INSIGHT_BODY, expect: 201 },
  { name: "PATCH /insights/:id/", method: "PATCH", path: `${P}/insights/1/`, bodyPerRequest: () => ({ name: `bench patch ${patchCounter++}` }), expect: 200 },
];

const last30 = { date_from: "-30d", interval: "day" };
const ANALYSES = {
  "trend total": { insight: "TRENDS", events: [{ id: "$pageview", math: "total" }], ...last30 },
  "trend dau": { insight: "TRENDS", events: [{ id: "$pageview", math: "dau" }], ...last30 },
  "trend $browser breakdown": { insight: "TRENDS", events: [{ id: "$pageview", math: "total" }], breakdown: "$browser", breakdown_type: "event", ...last30 },
  "funnel 3 steps": {
    insight: "FUNNELS",
    events: [
      { id: "$pageview", type: "events", order: 0 },
      { id: "signed_up", type: "events", order: 1 },
      { id: "purchase", type: "events", order: 2 },
    ],
    date_from: "-30d",
  },
} as const;
type AnalysisName = keyof typeof ANALYSES;
const analysisEndpoint = (name: AnalysisName, refresh: boolean): Endpoint => ({
  name: `POST /insights/${name.startsWith("funnel") ? "funnel" : "trend"}/ ${name}${refresh ? " (refresh=true)" : " (cached)"}`,
  method: "POST",
  path: `${P}/insights/${name.startsWith("funnel") ? "funnel" : "trend"}/${refresh ? "?refresh=true" : ""}`,
  body: ANALYSES[name],
  expect: 200,
});

// ---------------------------------------------------------------------------------------------- phases

interface Startup {
  what: string;
  ms: number;
  rssMb: number;
  note?: string;
}
const startups: Startup[] = [];
const notes: string[] = [];

async function phaseExpress() {
  const p = await startProc("express hello world", ["bench/express-hello.mjs", "$PORT"], "/");
  startups.push({ what: "bare express 5 hello world", ms: p.startupMs, rssMb: p.rssAfterStartMb });
  await bench("express", p.base, { name: "GET / (hello world)", method: "GET", path: "/", expect: 200 });
  await stopProc(p);
}

async function phasePrism() {
  const p = await startProc("prism", ["node_modules/@stoplight/prism-cli/dist/index.js", "mock", "-p", "$PORT", "-h", "127.0.0.1", "-v", "silent", "openapi/openapi.yaml"], "/api/projects/");
  startups.push({ what: "Prism 5.14.2 mock (openapi/openapi.yaml)", ms: p.startupMs, rssMb: p.rssAfterStartMb });
  for (const ep of Object.values(READS)) {
    await check(p.base, ep);
    await bench("prism", p.base, ep);
  }
  await stopProc(p);
}

/**
 * The ratios the targets name, measured interleaved: express, Prism and ours run side by side (idle ones cost
 * nothing) and each round loads them in turn, so a slow minute of this shared machine hits all of them alike.
 * Each target's ratio is the median of the per-round ratios.
 */
interface InterleavedRatio {
  label: string;
  perRound: number[];
  ours: number[];
  other: number[];
}
const interleaved: InterleavedRatio[] = [];
const INTERLEAVED_ROUNDS = Number(flags.rounds ?? (flags.quick ? 2 : 5));

async function phaseInterleaved() {
  const express = await startProc("express (interleaved)", ["bench/express-hello.mjs", "$PORT"], "/");
  const prism = await startProc("prism (interleaved)", ["node_modules/@stoplight/prism-cli/dist/index.js", "mock", "-p", "$PORT", "-h", "127.0.0.1", "-v", "silent", "openapi/openapi.yaml"], "/api/projects/");
  const ours = await startOurs("ours (interleaved)", "interleaved", ["--in-memory"]);
  try {
    const count = (JSON.parse((await check(ours.base, READS.list)).body) as { count: number }).count;
    for (let i = count; i < 100; i++) await check(ours.base, { ...DEFAULT_MIX.find((e) => e.method === "POST")! });
    const hello: Endpoint = { name: "GET / (hello world)", method: "GET", path: "/", expect: 200 };
    const loads = { express: [express.base, hello], prismList: [prism.base, READS.list], prismDetail: [prism.base, READS.detail], oursList: [ours.base, READS.list], oursDetail: [ours.base, READS.detail] } as const;
    for (const [base, ep] of Object.values(loads)) await cannon(base, ep, 10, WARMUP);
    const rps: Record<keyof typeof loads, number[]> = { express: [], prismList: [], prismDetail: [], oursList: [], oursDetail: [] };
    for (let round = 0; round < INTERLEAVED_ROUNDS; round++) {
      for (const [name, [base, ep]] of Object.entries(loads) as [keyof typeof loads, (typeof loads)[keyof typeof loads]][]) {
        rps[name].push((await cannon(base, ep, 10, DURATION)).rps);
      }
      log(`interleaved round ${round + 1}: ${Object.entries(rps).map(([k, v]) => `${k} ${v.at(-1)!.toFixed(0)}`).join(", ")} req/s`);
    }
    const ratio = (label: string, ours: number[], other: number[]) => interleaved.push({ label, perRound: ours.map((o, i) => o / other[i]!), ours, other });
    ratio("GET /insights/?limit=100 (100 insights): ours ÷ Prism", rps.oursList, rps.prismList);
    ratio("GET /insights/:id/: ours ÷ Prism", rps.oursDetail, rps.prismDetail);
    ratio("GET /insights/:id/: ours ÷ bare express", rps.oursDetail, rps.express);
    ratio("GET /insights/:id/: Prism ÷ bare express", rps.prismDetail, rps.express);
  } finally {
    for (const p of [ours, prism, express]) await stopProc(p);
  }
}

async function phaseDefault() {
  // Start-up: median of three starts; the third one is measured under load.
  const runs: Proc[] = [];
  for (let i = 0; i < 3; i++) {
    const p = await startOurs(`ours default #${i + 1}`, "default", ["--in-memory"]);
    runs.push(p);
    if (i < 2) await stopProc(p);
  }
  const startupMs = median(runs.map((r) => r.startupMs));
  startups.push({ what: "ours, default dataset (50 k events, generated, in memory)", ms: startupMs, rssMb: median(runs.map((r) => r.rssAfterStartMb)), note: `median of 3 (${runs.map((r) => r.startupMs.toFixed(0)).join(", ")} ms)` });
  const p = runs[2]!;
  const list = JSON.parse((await check(p.base, READS.list)).body) as { count: number };
  await bench("ours", p.base, { ...READS.list, name: `GET /insights/?limit=100 (as generated: ${list.count} insights)` });
  for (let i = list.count; i < 100; i++) await check(p.base, { ...DEFAULT_MIX.find((e) => e.method === "POST")! });
  const filled = JSON.parse((await check(p.base, READS.list)).body) as { results: unknown[] };
  if (filled.results.length !== 100) throw new Error(`expected a full page of 100 insights, got ${filled.results.length}`);
  await bench("ours", p.base, READS.list);
  await bench("ours", p.base, READS.detail);
  for (const ep of DEFAULT_MIX) {
    await check(p.base, ep);
    await bench("ours", p.base, ep);
  }
  notes.push(`RSS of our server after the default-dataset load (incl. the insights created by POST): ${rssMb(p.serverPid).toFixed(0)} MiB.`);
  await stopProc(p);
  await npmStartAsTyped();
}

/**
 * `npm start` as a user types it, timed to the first 200: npm itself, the build (prestart), then the server on its
 * default data file: generated and written on the first start, read back on the next.
 */
async function npmStartAsTyped() {
  const npmCli = process.env.npm_execpath;
  if (!npmCli) return void notes.push("`npm start` as typed: not measured (run the bench through `npm run bench`).");
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-npm-start-"));
  try {
    for (const [what, note] of [
      ["first start", "generates the default dataset, writes the data file"],
      ["second start", "reads the data file of the first"],
    ] as const) {
      const argv = [npmCli, "start", "--silent", "--", "--port", "$PORT", "--log-level", "silent", "--now", NOW, "--data", path.join(dir, "db.json")];
      const p = await startProc(`npm start (${what})`, argv, "/api/projects/");
      // npm runs the script through a shell: the server is the deepest descendant; it gets the SIGTERM.
      const server = descendantsOf(p.child.pid!).at(-1) ?? p.child.pid!;
      startups.push({ what: `ours, default dataset, \`npm start\` as typed, ${what}`, ms: p.startupMs, rssMb: rssMb(server), note: `npm + build + server; ${note}` });
      process.kill(server, "SIGTERM");
      await stopProc(p);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function phaseBigInMemory() {
  const p = await startOurs("ours 1M in memory", "big-memory", ["--in-memory", "--events", String(BIG)]);
  startups.push({ what: "ours, 1 M events, generated at start (--in-memory)", ms: p.startupMs, rssMb: p.rssAfterStartMb });
  for (const name of Object.keys(ANALYSES) as AnalysisName[]) {
    const ep = analysisEndpoint(name, true);
    const body = JSON.parse((await check(p.base, ep)).body) as { result: unknown[]; is_cached: boolean };
    if (body.is_cached) throw new Error(`${ep.name}: refresh=true answered from the cache`);
    if (name.startsWith("funnel")) {
      const steps = body.result as { count: number }[];
      notes.push(`Funnel over 1 M events, last 30 days: ${steps.map((s) => s.count).join(" → ")} persons.`);
    }
    await bench("ours 1M", p.base, ep, 1);
    await bench("ours 1M", p.base, ep, 10);
  }
  for (const name of ["trend dau", "funnel 3 steps"] as AnalysisName[]) {
    const ep = analysisEndpoint(name, false);
    await check(p.base, ep);
    await bench("ours 1M", p.base, ep);
  }
  await bench("ours 1M", p.base, READS.detail);
  notes.push(`RSS of our server with 1 M events after the analysis load: ${rssMb(p.serverPid).toFixed(0)} MiB.`);
  await stopProc(p);
}

async function phaseBigDataFile() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "analytics-mock-bench-"));
  try {
    const data = path.join(dir, "db.json");
    const first = await startOurs("ours 1M --data (first start)", "big-data-first", ["--data", data, "--events", String(BIG)]);
    startups.push({ what: "ours, 1 M events, first start with --data (generates, writes the files)", ms: first.startupMs, rssMb: first.rssAfterStartMb });
    const stopFirst = await stopProc(first);
    const sizes = readdirSync(dir).map((f) => `${f} ${(statSync(path.join(dir, f)).size / 1e6).toFixed(1)} MB`);
    notes.push(`Data files with 1 M events: ${sizes.join(", ")}. Stopping the first --data server (SIGTERM → exit, store flushed) took ${stopFirst.toFixed(0)} ms.`);
    const second = await startOurs("ours 1M --data (second start)", "big-data-second", ["--data", data]);
    startups.push({ what: "ours, 1 M events, second start from the --data files", ms: second.startupMs, rssMb: second.rssAfterStartMb });
    const patch = DEFAULT_MIX.find((e) => e.method === "PATCH")!;
    await check(second.base, patch);
    await bench("ours 1M --data", second.base, patch, 10);
    await bench("ours 1M --data", second.base, patch, 1);
    const stopSecond = await stopProc(second);
    notes.push(`Stopping the second --data server took ${stopSecond.toFixed(0)} ms.`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const IN_PROCESS_RUNS = 11;

interface InProcess {
  events: number;
  ms: Record<string, number>;
}
const inProcess: InProcess[] = [];

async function phaseInProcess(events: number) {
  const now = new Date(NOW);
  const { now: _generatedAt, ...doc } = generateFixtures({ seed: SEED, now, events });
  const clock = createClock(now.getTime());
  const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
  const service = createAnalysisService(store, clock);
  const project = store.projects.get("1")!;
  const ms: Record<string, number> = {};
  for (const [name, filter] of Object.entries(ANALYSES)) {
    const kind = filter.insight;
    for (let i = 0; i < 3; i++) service.run(project, kind, filter, { refresh: true }); // warm-up
    const times: number[] = [];
    for (let i = 0; i < IN_PROCESS_RUNS; i++) {
      const t = performance.now();
      service.run(project, kind, filter, { refresh: true });
      times.push(performance.now() - t);
    }
    ms[name] = median(times);
  }
  inProcess.push({ events: store.analysisData.events("1").length + store.analysisData.events("2").length, ms });
  log(`in-process at ${events} events: ${Object.entries(ms).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(", ")}`);
}

// ---------------------------------------------------------------------------------------------- report

const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }) : "–");
const rps = (n: number) => fmt(n, n < 20 ? 1 : 0);
const ms = (n: number) => (n < 10 ? fmt(n, 2) : n < 100 ? fmt(n, 1) : fmt(n, 0));
const find = (server: string, endpoint: string, c = 10) => results.find((r) => r.server === server && r.endpoint === endpoint && r.connections === c);
const findPrefix = (server: string, prefix: string, c = 10) => results.find((r) => r.server === server && r.endpoint.startsWith(prefix) && r.connections === c);

function machine(): string[] {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";
  return [
    `- nproc: ${os.availableParallelism?.() ?? os.cpus().length}; CPU: ${cpu}; RAM: ${fmt(os.totalmem() / 2 ** 30, 1)} GiB`,
    `- Node ${process.version}; autocannon ${pkgVersion("autocannon")}; Prism ${pkgVersion("@stoplight/prism-cli")}; express ${pkgVersion("express")}`,
    `- date: ${new Date().toISOString()}; load average (1/5/15 min) at the start: ${loadAtStart.map((l) => l.toFixed(2)).join(", ")}, at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(", ")}`,
  ];
}

function pkgVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

function report(): string {
  const lines: string[] = [];
  const L = (s = "") => lines.push(s);
  L("# Benchmark");
  L();
  L("Generated by `npm run bench` (`bench/run.ts`); do not edit by hand. Each server is a child process; autocannon");
  L(`runs in the parent (keep-alive, pipelining 1). Per endpoint: ${WARMUP} s warm-up discarded, then ${ROUNDS} rounds of ${DURATION} s;`);
  L("req/s is the median round (min–max across rounds), p50/p99 over all rounds' responses (every status counted).");
  L("Our server: `node " + OURS_COMMAND.join(" ").replace("$PORT", "P") + "` (what `npm start` runs after its build) plus the flags listed under the requests table;");
  L("Prism: `prism mock -v silent openapi/openapi.yaml`; express: `bench/express-hello.mjs`. Other processes may share the");
  L("machine: compare figures of the same run only.");
  if (PROFILE_DIR) {
    L();
    L("Profiled run (--profile): our server ran under `node --cpu-prof`; its figures carry the profiler's overhead.");
  }
  if (flags.note) {
    L();
    L(`Note: ${flags.note}`);
  }
  L();
  L("Machine:");
  L();
  for (const m of machine()) L(m);
  L();
  L("## Requests");
  L();
  L("| server | endpoint | c | req/s | (min–max) | p50 ms | p99 ms | bad |");
  L("|---|---|--:|--:|--:|--:|--:|--:|");
  for (const r of results) {
    L(`| ${r.server} | ${r.endpoint} | ${r.connections} | ${rps(r.rps)} | ${rps(r.rpsMin)}–${rps(r.rpsMax)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.unexpected + r.errors} |`);
  }
  L();
  L("`bad`: responses with another status than the endpoint's expected one (200/201/400/404) plus socket errors.");
  L("Servers: `ours` default dataset in memory; `ours 1M` 1,000,000 generated events in memory; `ours 1M --data` the same");
  L("dataset read from a data file (writes are real). Analyses with `refresh=true` are computed on every request.");
  L();
  L("## Ratios (same run, sequential phases)");
  L();
  L("| ratio | req/s | p50 |");
  L("|---|--:|--:|");
  const ratio = (label: string, a?: LoadResult, b?: LoadResult) => a && b && L(`| ${label} | ${fmt(a.rps / b.rps, 2)}× | ${fmt(a.p50 / b.p50, 2)}× |`);
  const express = find("express", "GET / (hello world)");
  ratio("ours ÷ Prism, GET /insights/?limit=100 (100 insights)", find("ours", "GET /insights/?limit=100"), find("prism", "GET /insights/?limit=100"));
  ratio("ours ÷ Prism, GET /insights/?limit=100 (as generated)", findPrefix("ours", "GET /insights/?limit=100 (as generated"), find("prism", "GET /insights/?limit=100"));
  ratio("ours ÷ Prism, GET /insights/:id/", find("ours", "GET /insights/:id/"), find("prism", "GET /insights/:id/"));
  ratio("ours ÷ bare express, GET /insights/:id/", find("ours", "GET /insights/:id/"), express);
  ratio("ours ÷ bare express, GET /insights/?limit=100", find("ours", "GET /insights/?limit=100"), express);
  ratio("Prism ÷ bare express, GET /insights/:id/", find("prism", "GET /insights/:id/"), express);
  L();
  L(`## Ratios, interleaved (${INTERLEAVED_ROUNDS} rounds of ${DURATION} s; the targets use these)`);
  L();
  L("Express, Prism and ours (default dataset, 100 insights) side by side; each round loads each in turn (c=10).");
  L();
  L("| ratio | median of the per-round ratios | per round | req/s per round (ours / other) |");
  L("|---|--:|---|---|");
  for (const r of interleaved) {
    L(`| ${r.label} | ${fmt(median(r.perRound), 2)}× | ${r.perRound.map((x) => fmt(x, 2)).join(", ")} | ${r.ours.map((o, i) => `${fmt(o)} / ${fmt(r.other[i]!)}`).join(", ")} |`);
  }
  L();
  L("## Start-up (spawn → first 200 on `GET /api/projects/`) and RSS");
  L();
  L("| server | start-up ms | RSS after start MiB | note |");
  L("|---|--:|--:|---|");
  for (const s of startups) L(`| ${s.what} | ${fmt(s.ms)} | ${fmt(s.rssMb)} | ${s.note ?? ""} |`);
  L();
  L("RSS: `VmRSS` of the serving process read right after its first 200.");
  L();
  L("## Analyses: growth with the number of events");
  L();
  const [small, big] = inProcess;
  L("In-process: `generateFixtures` → store → analysis service with `refresh` (the pure `computeTrends` / `computeFunnel`");
  L(`plus the cache-key hash), median of ${IN_PROCESS_RUNS} runs after 3 warm-up runs. HTTP: \`ours 1M\` at c=1, p50.`);
  L();
  L(`| analysis (project 1, last 30 days, daily) | in-process ${fmt(small?.events ?? NaN)} events ms | in-process ${fmt(big?.events ?? NaN)} events ms | growth | HTTP 1 M p50 ms (c=1) | HTTP 1 M cached p50 ms (c=10) |`);
  L("|---|--:|--:|--:|--:|--:|");
  for (const name of Object.keys(ANALYSES) as AnalysisName[]) {
    const a = small?.ms[name] ?? NaN;
    const b = big?.ms[name] ?? NaN;
    const http1 = find("ours 1M", analysisEndpoint(name, true).name, 1);
    const cached = find("ours 1M", analysisEndpoint(name, false).name);
    L(`| ${name} | ${ms(a)} | ${ms(b)} | ${fmt(b / a, 1)}× | ${http1 ? ms(http1.p50) : "–"} | ${cached ? ms(cached.p50) : "–"} |`);
  }
  L();
  L("## Targets (2 vCPU)");
  L();
  L("| target | measured | |");
  L("|---|---|---|");
  const target = (label: string, value: string, met: boolean | undefined) => L(`| ${label} | ${value} | ${met === undefined ? "n/a" : met ? "met" : "**missed**"} |`);
  const interleavedRatio = (label: string) => {
    const r = interleaved.find((x) => x.label === label);
    return r ? median(r.perRound) : undefined;
  };
  const target2 = (label: string, ratioLabel: string, min: number, show: (x: number) => string) => {
    const r = interleavedRatio(ratioLabel);
    if (r !== undefined) target(label, `${show(r)} (interleaved median; sequential: see the tables above)`, r >= min);
  };
  target2("GET /insights/?limit=100 ≥ 5× Prism req/s", "GET /insights/?limit=100 (100 insights): ours ÷ Prism", 5, (r) => `${fmt(r, 2)}×`);
  target2("GET /insights/:id/ ≥ 5× Prism req/s", "GET /insights/:id/: ours ÷ Prism", 5, (r) => `${fmt(r, 2)}×`);
  target2("GET /insights/:id/ ≥ 60 % of bare express req/s", "GET /insights/:id/: ours ÷ bare express", 0.6, (r) => `${fmt(100 * r)} %`);
  const patch10 = find("ours 1M --data", "PATCH /insights/:id/", 10);
  const patch1 = find("ours 1M --data", "PATCH /insights/:id/", 1);
  if (patch10) target("PATCH /insights/:id/ with 1 M events stored (--data) ≤ 5 ms p50, c=10", `${ms(patch10.p50)} ms (c=1: ${patch1 ? ms(patch1.p50) : "–"} ms)`, patch10.p50 <= 5);
  const su = (prefix: string) => startups.find((s) => s.what.startsWith(prefix));
  const sDefault = su("ours, default");
  if (sDefault) target("start-up, default dataset ≤ 1.5 s", `${fmt(sDefault.ms)} ms`, sDefault.ms <= 1500);
  const sGen = su("ours, 1 M events, generated");
  if (sGen) target("start-up, 1 M events, generated at start ≤ 10 s", `${fmt(sGen.ms)} ms`, sGen.ms <= 10_000);
  const sSecond = su("ours, 1 M events, second start");
  if (sSecond) target("start-up, 1 M events, from the data file ≤ 10 s", `${fmt(sSecond.ms)} ms`, sSecond.ms <= 10_000);
  for (const name of Object.keys(ANALYSES) as AnalysisName[]) {
    const limit = name.startsWith("funnel") ? 500 : 300;
    const http1 = find("ours 1M", analysisEndpoint(name, true).name, 1);
    const b = big?.ms[name] ?? NaN;
    const worst = Math.max(http1?.p50 ?? NaN, b);
    target(`${name} over 1 M events ≤ ${limit} ms`, `HTTP p50 ${http1 ? ms(http1.p50) : "–"} ms, in-process ${ms(b)} ms`, Number.isFinite(worst) ? worst <= limit : undefined);
    const growth = b / (small?.ms[name] ?? NaN);
    const sizeRatio = (big?.events ?? NaN) / (small?.events ?? NaN);
    target(`${name}: linear growth (≤ 1.3 × the ${fmt(sizeRatio, 1)}× event ratio)`, `${fmt(growth, 1)}×`, Number.isFinite(growth) ? growth <= 1.3 * sizeRatio : undefined);
  }
  const rssBig: [string, Startup | undefined][] = [
    ["in memory, generated", su("ours, 1 M events, generated")],
    ["--data, first start", su("ours, 1 M events, first start")],
    ["--data, second start", su("ours, 1 M events, second start")],
  ];
  for (const [what, s] of rssBig) if (s) target(`RSS after start with 1 M events (${what}) ≤ 1 GiB`, `${fmt(s.rssMb)} MiB`, s.rssMb <= 1024);
  L();
  if (notes.length) {
    L("## Notes");
    L();
    for (const n of notes) L(`- ${n}`);
    L();
  }
  L(`Total run time: ${fmt((performance.now() - t0Run) / 1000)} s.`);
  return lines.join("\n") + "\n";
}

// ---------------------------------------------------------------------------------------------- main

async function main() {
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  execSync("npm run build --silent", { cwd: ROOT, stdio: "inherit" });
  log(`rounds ${ROUNDS} × ${DURATION} s after a ${WARMUP} s warm-up; load average ${os.loadavg().map((l) => l.toFixed(2)).join(", ")}`);
  await phaseExpress();
  await phasePrism();
  await phaseDefault();
  await phaseInterleaved();
  await phaseBigInMemory();
  await phaseBigDataFile();
  await phaseInProcess(100_000);
  await phaseInProcess(BIG);
  const text = report();
  process.stdout.write(text);
  if (OUT !== "-") {
    writeFileSync(OUT, text);
    log(`written to ${path.relative(process.cwd(), OUT)}`);
  }
  if (!existsSync(OUT) && OUT !== "-") throw new Error("report not written");
}

main().then(
  () => process.exit(0),
  (e) => {
    for (const p of live) {
      for (const pid of new Set([p.serverPid, p.child.pid!])) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }
    }
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);

/**
 * Feature flag evaluation (issue 23): `npx tsx bench/flags.ts [--seconds S] [--connections C] [--flags N]
 * [--persons N]` (not part of `npm test`). Starts the built server (`dist/main.mjs`, built first) in memory over a
 * generated dataset of `--persons` persons (default 10,000) whose web project has `--flags` flags (default 50:
 * rollouts, multivariate experiments with payloads, person-property targets, a cohort target, group flags, flag
 * dependencies, continuity flags), then loads with autocannon at C connections (default 10):
 * - `POST /flags/?v=2` as posthog-js and posthog-node send it, each request for another known person (with its
 *   groups), target ≥ 3,000 req/s with p99 ≤ 20 ms;
 * - `GET /flags/definitions?send_cohorts` as posthog-node polls it, half with the current ETag (304), target
 *   ≥ 2,000 req/s.
 */
import autocannon from "autocannon";
type Options = Parameters<typeof autocannon>[0];
import { execSync, spawn } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchFlags } from "./flag-kinds.ts";
import { generateFixtures } from "../src/fixtures/generate.ts";
import { defaultApiKey } from "../src/fixtures/users.ts";
import { derivedProjectToken } from "../src/util/ids.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);
/** User + system CPU time of a process so far, in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;

const { values: args } = parseArgs({ options: { seconds: { type: "string" }, connections: { type: "string" }, flags: { type: "string" }, persons: { type: "string" } } });
const SECONDS = Number(args.seconds ?? 10);
const CONNECTIONS = Number(args.connections ?? 10);
const FLAG_COUNT = Number(args.flags ?? 50);
const PERSONS = Number(args.persons ?? 10_000);
const SEED = 42;
const NOW = new Date("2025-06-01T00:00:00Z");
const TOKEN = derivedProjectToken("1");
const TARGETS = { flags: { rps: 3000, p99: 20 }, definitions: { rps: 2000 } };

/** A port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The built server over a fixture file, in memory, logging nothing (a line per request would be part of what
 * is measured); resolves once it answers.
 */
async function startServer(fixtures: string) {
  const port = await freePort();
  const args = [...(process.env.FLAGS_BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), "dist/main.mjs", "--port", String(port), "--in-memory", "--fixtures", fixtures, "--log-level", "silent"];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ok = await fetch(`${base}/_mock/clock/`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, pid: child.pid!, stop: () => (child.kill("SIGTERM"), exited) };
}

/**
 * autocannon in a process of its own: in this one it shares the heap (and the collector) of the generated
 * dataset and held the server to a third of what it answers.
 */
function autocannonApart(options: Options): Promise<Awaited<ReturnType<typeof autocannon>>> {
  const script = `import("autocannon").then(async ({ default: autocannon }) => {
    const chunks = []; for await (const c of process.stdin) chunks.push(c);
    process.stdout.write(JSON.stringify(await autocannon(JSON.parse(Buffer.concat(chunks).toString()))));
  });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.end(JSON.stringify(options));
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited with ${code}`)))));
}

/** Server CPU per answered request is the figure a loaded machine disturbs least (throughput varies with load). */
async function load(url: string, opts: Partial<Options>, serverPid?: number) {
  const cpuBefore = serverPid === undefined ? 0 : cpuMs(serverPid);
  const result = await autocannonApart({ url, connections: CONNECTIONS, duration: SECONDS, ...opts });
  const cpuUsPerRequest = serverPid === undefined ? NaN : ((cpuMs(serverPid) - cpuBefore) * 1000) / result.requests.total;
  // 304s are answers here (the definitions' ETag), not failures.
  const failed = result["4xx"] + result["5xx"];
  return { rps: result.requests.average, p99: result.latency.p99, failed, notModified: result["3xx"], errors: result.errors, cpuUsPerRequest };
}

async function main() {
  execSync("npm run build --silent", { cwd: ROOT, stdio: "inherit" });
  const doc = generateFixtures({ seed: SEED, now: NOW, persons: PERSONS, events: PERSONS * 5 });
  doc.feature_flags = benchFlags(FLAG_COUNT);
  const dir = mkdtempSync(path.join(os.tmpdir(), "flags-bench-"));
  const file = path.join(dir, "fixtures.json");
  writeFileSync(file, JSON.stringify(doc));
  log(`${PERSONS} persons, ${FLAG_COUNT} flags, ${CONNECTIONS} connections × ${SECONDS} s; load average ${os.loadavg().map((l) => l.toFixed(2)).join(", ")}`);
  const server = await startServer(file);
  try {
    const people = doc.persons!.filter((p) => p.project_id === "1");
    const companies = doc.groups!.filter((g) => g.project_id === "1" && g.group_type_index === 0).map((g) => g.group_key);
    let next = 0;
    const bodyFor = () => {
      const p = people[next++ % people.length]!;
      return JSON.stringify({ token: TOKEN, distinct_id: p.distinct_ids[0], groups: { company: companies[next % companies.length] } });
    };
    const sample = (await (await fetch(`${server.base}/flags/?v=2`, { method: "POST", headers: { "content-type": "application/json" }, body: bodyFor() })).json()) as { flags: object };
    log(`a /flags answer holds ${Object.keys(sample.flags).length} flags`);
    await load(`${server.base}/flags/?v=2`, { duration: 2, method: "POST", headers: { "content-type": "application/json" }, body: bodyFor() });
    // Prepared bodies, each connection cycling through them: no per-request callback in the load generator,
    // which shares this machine's two cores with the server.
    const flags = await load(`${server.base}/flags/?v=2`, {
      requests: Array.from({ length: 2000 }, () => ({ method: "POST", headers: { "content-type": "application/json" }, body: bodyFor() })),
    }, server.pid);

    const auth = { authorization: `Bearer ${defaultApiKey(SEED)}` };
    const definitionsUrl = `${server.base}/flags/definitions?token=${TOKEN}&send_cohorts`;
    const first = await fetch(definitionsUrl, { headers: auth });
    const etag = first.headers.get("etag")!;
    const size = (await first.text()).length;
    const definitions = await load(definitionsUrl, { requests: [{ headers: auth }, { headers: { ...auth, "if-none-match": etag } }] }, server.pid);

    const line = (name: string, r: Awaited<ReturnType<typeof load>>, target: { rps: number; p99?: number }) => {
      const met = r.rps >= target.rps && (target.p99 === undefined || r.p99 <= target.p99) && r.failed === 0 && r.errors === 0;
      return `${name.padEnd(46)} ${r.rps.toFixed(0).padStart(6)} req/s  p99 ${String(r.p99).padStart(3)} ms  304 ${r.notModified}  4xx/5xx ${r.failed}  errors ${r.errors}  server CPU ${r.cpuUsPerRequest.toFixed(0)} µs/request  target ≥ ${target.rps}${target.p99 ? ` and p99 ≤ ${target.p99} ms` : ""}: ${met ? "met" : "MISSED"}`;
    };
    process.stdout.write(`${line("POST /flags/?v=2 (a known person, with a group)", flags, TARGETS.flags)}\n`);
    process.stdout.write(`${line(`GET /flags/definitions (${(size / 1024).toFixed(0)} KiB; half 304)`, definitions, TARGETS.definitions)}\n`);
    process.stdout.write(`server RSS after the load: ${rssMb(server.pid).toFixed(0)} MiB; load average ${os.loadavg().map((l) => l.toFixed(2)).join(", ")}\n`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);

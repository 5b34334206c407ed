/**
 * How long a cheap GET waits while one hostile request is in flight (issue 21): `npx tsx bench/probes.ts
 * [--events N] [--root DIR]` (not part of `npm test`; test/hostile/probes.test.ts asserts a generous bound).
 * For each probe of test/support/hostile-probes.ts, starts the built server afresh (`DIR/dist/main.mjs`, default
 * this checkout; `npm run build` first; a probe that broke the parser must not spoil the next row) with N
 * generated events in memory (default 200,000), sends the probe with a cheap GET 20 ms behind it, then a normal
 * HogQL query, and prints one row per probe. `--root` runs another checkout's
 * build, to compare before and after a change on the same machine.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { NORMAL_QUERY, PROBES, probeBeside, send } from "../test/support/hostile-probes.ts";

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: flags } = parseArgs({ options: { events: { type: "string" }, root: { type: "string" }, timeout: { type: "string" }, skip: { type: "string" } } });
/** Longest wait for one answer; a row says "> T s" past it (before issue 21, some probes held the server for minutes). */
const TIMEOUT_MS = Number(flags.timeout ?? 120) * 1000;
/** Probes to leave out, by their position (0-based), e.g. to resume a long run. */
const SKIP = new Set((flags.skip ?? "").split(",").filter(Boolean).map(Number));
const ROOT = path.resolve(flags.root ?? HERE);
const EVENTS = flags.events ?? "200000";

function startServer(): Promise<{ url: string; key: string; stop: () => void }> {
  const child = spawn(process.execPath, ["dist/main.mjs", "--port", "0", "--in-memory", "--events", EVENTS, "--log-level", "info"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const key = /API key: (phx_\S+)/.exec(out)?.[1];
      if (url && key) resolve({ url: url.replace(/\/$/, ""), key, stop: () => child.kill("SIGKILL") });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`server exited (${code}):\n${out}`)));
  });
}

console.log(`${ROOT}: ${EVENTS} events; load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log("| probe | answer | its time (ms) | cheap GET waited (ms) | normal HogQL after |");
console.log("|---|--:|--:|--:|---|");
for (const [n, probe] of PROBES.entries()) {
  if (SKIP.has(n)) continue;
  const { url, key, stop } = await startServer();
  let row: string;
  try {
    await send(url, key, NORMAL_QUERY); // the parser loaded and warm, as on a server in use
    const { probe: answer, cheap } = await probeBeside(url, key, probe, TIMEOUT_MS);
    const after = await send(url, key, NORMAL_QUERY, TIMEOUT_MS).then((r) => String(r.status), (e: Error) => e.message);
    row = `| ${probe.name} | ${answer.status} | ${answer.ms.toFixed(0)} | ${cheap.ms.toFixed(0)} | ${after} |`;
  } catch (e) {
    const timedOut = (e as Error).name === "TimeoutError";
    row = timedOut ? `| ${probe.name} | none | > ${TIMEOUT_MS / 1000} s | > ${TIMEOUT_MS / 1000} s | |` : `| ${probe.name} | ${(e as Error).message.slice(0, 60)} | | | |`;
  }
  stop();
  console.log(row);
}
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);

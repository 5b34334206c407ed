/**
 * How long a cheap GET waits while one hostile request is in flight (issue 21): `npx tsx bench/probes.ts
 * [--events N] [--root DIR]` (not part of `npm test`; test/hostile/probes.test.ts asserts a generous bound).
 * Starts the built server (`DIR/dist/main.mjs`, default this checkout; `npm run build` first) with N generated
 * events in memory (default 1,000,000), sends each probe of test/support/hostile-probes.ts with a cheap GET
 * 20 ms behind it, then a normal HogQL query, and prints one row per probe. `--root` runs another checkout's
 * build, to compare before and after a change on the same machine.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { NORMAL_QUERY, PROBES, probeBeside, send } from "../test/support/hostile-probes.ts";

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: flags } = parseArgs({ options: { events: { type: "string" }, root: { type: "string" } } });
const ROOT = path.resolve(flags.root ?? HERE);
const EVENTS = flags.events ?? "1000000";

const child = spawn(process.execPath, ["dist/main.mjs", "--port", "0", "--in-memory", "--events", EVENTS, "--log-level", "info"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
let out = "";
const started = new Promise<{ url: string; key: string }>((resolve, reject) => {
  const onData = (d: Buffer) => {
    out += d.toString();
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    const key = /API key: (phx_\S+)/.exec(out)?.[1];
    if (url && key) resolve({ url: url.replace(/\/$/, ""), key });
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  child.on("exit", (code) => reject(new Error(`server exited (${code}):\n${out}`)));
});

const { url, key } = await started;
console.log(`${ROOT}: ${EVENTS} events; load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log("| probe | answer | its time (ms) | cheap GET waited (ms) | normal HogQL after |");
console.log("|---|--:|--:|--:|---|");
for (const probe of PROBES) {
  let row: string;
  try {
    const { probe: answer, cheap } = await probeBeside(url, key, probe);
    const after = await send(url, key, NORMAL_QUERY).then((r) => String(r.status), (e: Error) => e.message);
    row = `| ${probe.name} | ${answer.status} | ${answer.ms.toFixed(0)} | ${cheap.ms.toFixed(0)} | ${after} |`;
  } catch (e) {
    row = `| ${probe.name} | ${(e as Error).message.slice(0, 60)} | | | |`;
  }
  console.log(row);
}
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
child.kill("SIGKILL");

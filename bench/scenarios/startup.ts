/**
 * Scenario "start-up and RSS": `npm start` as typed (first and second start), and 1,000,000 events in a
 * data file (first start writes it, second start reads it; a PATCH then rewrites only the small file).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIG, bench, check, descendantsOf, NOW, rssMb, startOurs, startProc, stopProc } from "../harness.ts";
import { DEFAULT_MIX } from "../requests.ts";
import { notes, startups } from "../results.ts";

/**
 * `npm start` as a user types it, timed to the first 200: npm itself, the build (prestart), then the server on its
 * default data file: generated and written on the first start, read back on the next.
 */
export async function npmStartAsTyped() {
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

export async function phaseBigDataFile() {
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

/**
 * The benchmark (issue 7): `npm run bench` (not part of `npm test`).
 *
 * In one run, on this machine: starts our server (default dataset; 1,000,000 events in memory; 1,000,000
 * events in a data file), Prism 5.14.2 `mock` on openapi/openapi.yaml and a bare express 5 hello world,
 * each as its own child process; loads each with autocannon from this process (keep-alive, a discarded
 * warm-up, then several rounds); measures start-up to the first 200 and RSS from /proc; times the analyses
 * in-process at 100 k and 1 M events; writes the tables to bench/README.md and prints them.
 *
 * The scenarios live in bench/scenarios/ (http.ts: HTTP ratios; analyses.ts: analyses growth; startup.ts:
 * start-up and RSS; groups-sessions.ts: group funnels and session breakdowns next to their counterparts) over a shared harness (bench/harness.ts); bench/report.ts writes the tables.
 *
 * Flags: --quick (short rounds, for trying the script), --rounds N, --duration S, --warmup S,
 *        --only http,analyses,startup,groups-sessions,capture,scale (some scenarios; the others' rows are left out),
 *        --scale N,N,… (event counts of the scale scenario; default 1000000,10000000),
 *        --out FILE (default bench/README.md; "-" prints only), --profile DIR (our server runs with
 *        node --cpu-prof, profiles land in DIR; read them with bench/profile-top.mjs), --note TEXT (a line
 *        added to the report, e.g. which of several runs it is).
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIG, DURATION, live, log, ONLY, OUT, PROFILE_DIR, ROOT, ROUNDS, WARMUP } from "./harness.ts";
import { report } from "./report.ts";
import { phaseBigInMemory, phaseInProcess } from "./scenarios/analyses.ts";
import { phaseCapture } from "./scenarios/capture.ts";
import { phaseGroupsAndSessions } from "./scenarios/groups-sessions.ts";
import { phaseDefault, phaseExpress, phaseInterleaved, phasePrism } from "./scenarios/http.ts";
import { phaseScale } from "./scenarios/scale.ts";
import { npmStartAsTyped, phaseBigDataFile } from "./scenarios/startup.ts";

async function main() {
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  execSync("npm run build --silent", { cwd: ROOT, stdio: "inherit" });
  log(`rounds ${ROUNDS} × ${DURATION} s after a ${WARMUP} s warm-up; load average ${os.loadavg().map((l) => l.toFixed(2)).join(", ")}; scenarios: ${[...ONLY].join(", ")}`);
  // The order of the single-file bench, kept so that figures stay comparable across runs.
  if (ONLY.has("http")) {
    await phaseExpress();
    await phasePrism();
    await phaseDefault();
  }
  if (ONLY.has("startup")) await npmStartAsTyped();
  if (ONLY.has("http")) await phaseInterleaved();
  if (ONLY.has("analyses")) await phaseBigInMemory();
  if (ONLY.has("startup")) await phaseBigDataFile();
  if (ONLY.has("analyses")) {
    await phaseInProcess(100_000);
    await phaseInProcess(BIG);
  }
  if (ONLY.has("groups-sessions")) await phaseGroupsAndSessions();
  if (ONLY.has("capture")) phaseCapture();
  if (ONLY.has("scale")) await phaseScale();
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

/**
 * Capture throughput and read-your-writes cost (issue 15): bench/capture.ts, run as its own process (it starts the
 * server on a data file and loads POST /batch/ with autocannon); its two result lines go into the report's notes.
 */
import { execFileSync } from "node:child_process";
import { log, ROOT } from "../harness.ts";
import { notes } from "../results.ts";

export function phaseCapture(): void {
  const out = execFileSync(process.execPath, ["--import", "tsx", "bench/capture.ts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  for (const line of out.split("\n").filter((l) => /^(POST \/batch\/|trend )/.test(l))) {
    log(line);
    notes.push(`capture: ${line}`);
  }
}

/**
 * Capture throughput and read-your-writes cost (issues 15, 21): bench/capture.ts, run as its own process (it starts
 * the server on a data file at each store size and loads POST /batch/ with autocannon); its result lines go into
 * the report's notes. The sizes: the bundled scenario plus the scale sizes up to 10 M (`--scale` picks them).
 */
import { execFileSync } from "node:child_process";
import { log, ROOT } from "../harness.ts";
import { notes } from "../results.ts";
import { SCALE_EVENTS } from "./scale.ts";

export function phaseCapture(): void {
  const sizes = ["bundled", ...SCALE_EVENTS.filter((n) => n <= 10_000_000)].join(",");
  const out = execFileSync(process.execPath, ["--import", "tsx", "bench/capture.ts", "--sizes", sizes], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  for (const line of out.split("\n").filter((l) => /^(POST \/batch\/|trend |capture target)/.test(l))) {
    log(line);
    notes.push(`capture: ${line}`);
  }
}

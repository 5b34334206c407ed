import { othersBusy } from "./load-sensing.ts";
import { activeReplay } from "./replay.ts";
import { scanSettings, worthSharing } from "./scan-settings.ts";
import { readyWorkers, type ScanWorker } from "./worker-pool.ts";

/** The thread count of the analysis running now, from its plan (withThreads, offMainThread); undefined outside one. */
let runThreads: number | undefined;

/**
 * The workers a scan posts to: all of them when the main thread only waits (offMainThread), else one fewer, as the
 * main thread takes a core itself (a third thread on two cores made the others wait for it to be scheduled).
 */
export const workersForScan = (ready: ScanWorker[]): ScanWorker[] =>
  activeReplay() || !scanSettings.mainCounts ? ready : ready.slice(0, Math.max(1, ready.length - 1));

/**
 * How many threads a scan of `rows` rows is cut for (1: the main thread alone). Inside a planned run every scan
 * takes the plan's count, fixed before the run began: a run started again, or a load that changed meanwhile, cuts
 * its scans exactly as before (a funnel's second pass read its first pass's parts as if cut otherwise, and actors
 * were merged or dropped). Outside one (direct callers, tests) it is the machine's count now.
 */
export function scanThreads(rows: number): number {
  if (!worthSharing(rows)) return 1;
  return runThreads ?? threadsNow(rows, false);
}

/**
 * The thread count to plan an analysis over `rows` rows with: the injected count (tests), else 1 when other jobs
 * keep every core busy, else the ready workers (`offMain`: the main thread only waits) or one fewer plus the main
 * thread.
 */
export function planThreads(rows: number, offMain: boolean): number {
  return worthSharing(rows) ? threadsNow(rows, offMain) : 1;
}

function threadsNow(rows: number, offMain: boolean): number {
  if (scanSettings.threads) return Math.max(1, scanSettings.threads(rows));
  if (othersBusy()) return 1;
  const ready = readyWorkers();
  return offMain || !scanSettings.mainCounts ? Math.max(1, ready.length) : 1 + workersForScan(ready).length;
}

/** Runs `compute` (synchronous) with its scans cut for `threads` threads, its plan's. */
export function withThreads<T>(threads: number, compute: () => T): T {
  const outer = runThreads;
  runThreads = threads;
  try {
    return compute();
  } finally {
    runThreads = outer;
  }
}

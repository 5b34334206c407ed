import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import { scanSettings, type ScanSettings } from "./scan-settings.ts";

/**
 * The scan workers: a thread per core, started on the first scan that wants them. A worker not yet started takes
 * no part, so no query waits for a worker's start-up.
 */
export interface ScanWorker {
  worker: Worker;
  port: MessagePort;
  /** [1]: 1 once the worker listens. */
  signal: Int32Array;
  /** The last job number posted to it. */
  seq: number;
  /** Replies read from the port while looking for another job's (jobs of one worker may be awaited in any order). */
  inbox: Map<number, { seq: number; result?: unknown }>;
}

/**
 * The worker's code: the bundle built beside this one (dist/scan-worker.mjs), or in the source tree the TypeScript
 * file (../scan-worker/scan-worker.ts), which a worker loads through tsx (../scan-worker/tsx-boot.mjs).
 */
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const WORKER_FILE = FROM_SOURCE ? new URL("../scan-worker/tsx-boot.mjs", import.meta.url) : new URL("./scan-worker.mjs", import.meta.url);
const WORKER_ENTRY = FROM_SOURCE ? new URL("../scan-worker/scan-worker.ts", import.meta.url).href : undefined;

let pool: ScanWorker[] = [];
/** Set when a worker failed before it listened (its file missing or broken): none is started again. */
let cannotStart = false;

const listens = (w: ScanWorker): boolean => Atomics.load(w.signal, 1) === 1;

function startWorker(): ScanWorker {
  const { port1, port2 } = new MessageChannel();
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(WORKER_FILE, { workerData: { port: port2, signal, entry: WORKER_ENTRY }, transferList: [port2] });
  worker.unref();
  port1.unref();
  const self: ScanWorker = { worker, port: port1, signal, seq: 0, inbox: new Map() };
  worker.on("exit", () => (pool = pool.filter((w) => w !== self)));
  // A worker that fails or dies exits and the other threads count without it (an unheard error would throw).
  worker.on("error", () => {
    if (!listens(self)) cannotStart = true;
  });
  return self;
}

/** The pool's workers that are ready now (starting the missing ones, which serve from a later scan on). */
export function readyWorkers(): ScanWorker[] {
  while (!cannotStart && pool.length < scanSettings.workers) pool.push(startWorker());
  return pool.filter(listens);
}

/** Starts the pool and resolves once every worker listens (tests; a server lets the first scans start it). */
export async function parallelScanReady(): Promise<number> {
  readyWorkers();
  while (pool.some((w) => !listens(w))) await new Promise((resolve) => setTimeout(resolve, 5));
  return pool.length;
}

/** Tests force the partitioned path on small data (`minRows: 0`) or turn it off (`workers: 0`). */
export function setParallelScan(next: Partial<ScanSettings>): void {
  Object.assign(scanSettings, next);
  if (pool.length > scanSettings.workers) for (const w of pool.splice(scanSettings.workers)) void w.worker.terminate();
}

/** Takes `workers` out of the pool and ends them (a job of theirs failed or timed out); new ones start on a later scan. */
export function replaceWorkers(workers: readonly ScanWorker[]): void {
  for (const w of workers) {
    pool = pool.filter((x) => x !== w);
    void w.worker.terminate();
  }
}

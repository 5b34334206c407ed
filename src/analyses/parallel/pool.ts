import { availableParallelism } from "node:os";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { projectFile } from "../../util/project-files.ts";
import { countRows, mergeCounts, type CountJob, type CountResult, type KernelColumns } from "./count-kernel.mjs";

/**
 * Row counting over every core: the rows [start, end) are cut into contiguous ranges (rows are in time order,
 * so each is a time range), one per worker plus one for the main thread, and the partial results merged
 * exactly (see count-kernel.mjs). Analyses are synchronous for their callers: the main thread counts its own
 * range, then waits on each worker's shared flag. A worker not yet started leaves its range to the main thread,
 * so no query waits for a worker's start-up.
 */
interface ScanWorker {
  worker: Worker;
  port: MessagePort;
  /** [0]: the last answered job's seq; [1]: 1 once the worker listens. */
  signal: Int32Array;
  seq: number;
}

const WORKER_FILE = projectFile("src/analyses/parallel/scan-worker.mjs");
/** A worker that has not answered by then is replaced and its range counted here (a safety net, never expected). */
const ANSWER_WAIT_MS = 30_000;

/**
 * Fewer rows than this stay on the main thread: posting a job and waiting for its answer costs about a tenth of a
 * millisecond, which a range of this size repays (measured: see the commit that set it).
 */
const DEFAULT_MIN_ROWS = 200_000;

const settings = { minRows: DEFAULT_MIN_ROWS, workers: Math.max(0, availableParallelism() - 1) };
let pool: ScanWorker[] = [];
/** Scans cut into several ranges so far: lets a test see that the partitioned path ran. */
let partitionedScans = 0;
export const partitionedScanCount = (): number => partitionedScans;

/** Tests force the partitioned path on small data (`minRows: 0`) or turn it off (`workers: 0`). */
export function setParallelScan(next: Partial<typeof settings>): void {
  Object.assign(settings, next);
  if (pool.length > settings.workers) for (const w of pool.splice(settings.workers)) void w.worker.terminate();
}

function startWorker(): ScanWorker {
  const { port1, port2 } = new MessageChannel();
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(WORKER_FILE, { workerData: { port: port2, signal }, transferList: [port2] });
  worker.unref();
  port1.unref();
  const self: ScanWorker = { worker, port: port1, signal, seq: 0 };
  worker.on("exit", () => (pool = pool.filter((w) => w !== self)));
  return self;
}

/** The pool's workers that are ready now (starting the missing ones, which serve from a later scan on). */
function readyWorkers(): ScanWorker[] {
  while (pool.length < settings.workers) pool.push(startWorker());
  return pool.filter((w) => Atomics.load(w.signal, 1) === 1);
}

/** Starts the pool and resolves once every worker listens (tests; a server lets the first scans start it). */
export async function parallelScanReady(): Promise<number> {
  readyWorkers();
  while (pool.some((w) => Atomics.load(w.signal, 1) !== 1)) await new Promise((resolve) => setTimeout(resolve, 5));
  return pool.length;
}

/** Only columns in shared memory go to workers: posting any other array would copy it. */
const inSharedMemory = (cols: KernelColumns): boolean =>
  [cols.ts, cols.name, cols.did, cols.shape, cols.voff, cols.vals].every((a) => a.buffer instanceof SharedArrayBuffer);

/** Equal contiguous row ranges of [start, end), `parts` of them (the last takes the remainder). */
export function splitRange(start: number, end: number, parts: number): [number, number][] {
  const size = Math.ceil((end - start) / parts);
  return Array.from({ length: parts }, (_, k) => [Math.min(end, start + k * size), Math.min(end, start + (k + 1) * size)]);
}

/** A scan started on the workers: `finish` counts the main thread's range, waits for the others and merges. */
export interface PendingCount {
  finish(): CountResult;
  /** How many ranges the rows were cut into (1: the main thread alone). */
  partitions: number;
}

/** Posts the workers' ranges of `job` now (they read `cols` as they are); the main thread's range waits for `finish`. */
export function startCount(cols: KernelColumns, job: CountJob): PendingCount {
  const rows = job.end - job.start;
  const workers = rows >= settings.minRows && rows > 0 && inSharedMemory(cols) ? readyWorkers() : [];
  const ranges = splitRange(job.start, job.end, workers.length + 1);
  if (ranges.length > 1) partitionedScans++;
  const posted = workers.map((w, k) => {
    const seq = ++w.seq;
    const [start, end] = ranges[k + 1]!;
    w.port.postMessage({ seq, cols, job: { ...job, start, end } });
    return { w, seq, range: { start, end } };
  });
  return {
    partitions: ranges.length,
    finish() {
      const [start, end] = ranges[0]!;
      const parts = [countRows(cols, { ...job, start, end })];
      for (const { w, seq, range } of posted) parts.push(answerOf(w, seq) ?? countRows(cols, { ...job, ...range }));
      return mergeCounts(parts);
    },
  };
}

/** Counts `job` over every core when its range is large enough, else on the main thread. */
export const countParallel = (cols: KernelColumns, job: CountJob): CountResult => startCount(cols, job).finish();

const nap = new Int32Array(new SharedArrayBuffer(4));

/** The worker's result for `seq`, or undefined (the worker is then retired) when it crashed or did not answer. */
function answerOf(w: ScanWorker, seq: number): CountResult | undefined {
  const deadline = performance.now() + ANSWER_WAIT_MS;
  for (;;) {
    const reply = receiveMessageOnPort(w.port)?.message as { seq: number; result?: CountResult } | undefined;
    if (reply?.seq === seq && reply.result) return reply.result;
    if (reply?.seq === seq || performance.now() > deadline) break;
    if (reply) continue;
    // The flag is set after the reply is posted: once it shows seq, the message is on its way (a short nap).
    const flag = Atomics.load(w.signal, 0);
    if (flag < seq) Atomics.wait(w.signal, 0, flag, Math.max(1, deadline - performance.now()));
    else Atomics.wait(nap, 0, 0, 1);
  }
  pool = pool.filter((x) => x !== w);
  void w.worker.terminate();
  return undefined;
}

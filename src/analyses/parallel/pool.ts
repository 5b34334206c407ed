import { availableParallelism, loadavg } from "node:os";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { projectFile } from "../../util/project-files.ts";
import { countChunks, countRows, markCounted, mergeCounts, type ChunkClaim, type CountJob, type CountResult, type KernelColumns } from "./count-kernel.mjs";

/**
 * Row counting over every core: the rows [start, end) are cut into contiguous chunks (rows are in time order,
 * so each is a time range) that the workers and the main thread take in turn, and the partial results are
 * merged exactly (see count-kernel.mjs). Analyses are synchronous for their callers: the main thread counts
 * chunks too, then waits on a shared counter until every chunk is counted. A worker not yet started takes no
 * part, so no query waits for a worker's start-up.
 */
interface ScanWorker {
  worker: Worker;
  port: MessagePort;
  /** [1]: 1 once the worker listens. */
  signal: Int32Array;
  seq: number;
}

const WORKER_FILE = projectFile("src/analyses/parallel/scan-worker.mjs");
/** A scan whose chunks are not all counted by then has its workers replaced and is recounted here (a safety net). */
const ANSWER_WAIT_MS = 30_000;

/**
 * Fewer rows than this stay on the main thread: 200,000 rows take about a millisecond to count on one core
 * (measured: 2 M rows in 10 ms), of which waking a worker and merging its result would take a good part.
 */
const DEFAULT_MIN_ROWS = 200_000;

const CORES = availableParallelism();

/**
 * `maxLoad`: above this one-minute load average no core is idle, and workers measured slower than the main thread
 * alone (at load 9–11 on 2 cores: 1.5–3× the single-threaded time), so the main thread counts alone.
 * `mainCounts: false` leaves every chunk to the workers (tests: the workers' results must then make the answer).
 */
const settings = { minRows: DEFAULT_MIN_ROWS, workers: Math.max(0, CORES - 1), maxLoad: CORES, mainCounts: true };
let pool: ScanWorker[] = [];
/** Set when a worker failed before it listened (its file missing or broken): none is started again. */
let cannotStart = false;
/** Scans cut into chunks, and chunks the workers counted, so far: lets a test see that the partitioned path ran. */
const stats = { partitioned: 0, workerChunks: 0 };
export const parallelScanStats = (): Readonly<typeof stats> => ({ ...stats });

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
  // A worker that fails or dies exits and the other threads count without it (an unheard error would throw).
  worker.on("error", () => {
    if (Atomics.load(signal, 1) !== 1) cannotStart = true;
  });
  return self;
}

/** The pool's workers that are ready now (starting the missing ones, which serve from a later scan on). */
function readyWorkers(): ScanWorker[] {
  while (!cannotStart && pool.length < settings.workers) pool.push(startWorker());
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

/**
 * Chunks per thread: threads take chunks until none is left, so a worker the machine schedules late (other jobs
 * on the cores) leaves its share to the others instead of holding the main thread up.
 */
const CHUNKS_PER_THREAD = 4;

/** A scan started on the workers: `finish` counts chunks on the main thread too, waits for the others and merges. */
export interface PendingCount {
  finish(): CountResult;
  /** How many chunks the rows were cut into (1: the main thread alone). */
  partitions: number;
}

/** Posts `job` to the workers now (they read `cols` as they are); the main thread joins in at `finish`. */
export function startCount(cols: KernelColumns, job: CountJob): PendingCount {
  const rows = job.end - job.start;
  const workers = rows >= settings.minRows && rows > 0 && inSharedMemory(cols) && loadavg()[0]! < settings.maxLoad ? readyWorkers() : [];
  if (workers.length === 0) return { partitions: 1, finish: () => countRows(cols, job) };
  stats.partitioned++;
  const ranges = splitRange(job.start, job.end, (workers.length + 1) * CHUNKS_PER_THREAD);
  // state: [next chunk, chunks counted, then per worker the chunks it took (-1: it failed)].
  const claim: ChunkClaim = { chunks: Float64Array.from(ranges.flat()), state: new Int32Array(new SharedArrayBuffer(4 * (2 + workers.length))) };
  const posted = workers.map((w, slot) => {
    const seq = ++w.seq;
    w.port.postMessage({ seq, cols, job, claim, slot });
    return { w, seq, slot };
  });
  return {
    partitions: ranges.length,
    finish() {
      const own = settings.mainCounts ? countChunks(cols, job, claim) : { result: null, taken: 0 };
      markCounted(claim, own.taken);
      const parts = own.result ? [own.result] : [];
      stats.workerChunks += ranges.length - own.taken;
      if (!allCounted(claim, ranges.length, posted.length)) return retireAndCount(posted, cols, job);
      for (const { w, seq, slot } of posted) {
        if (Atomics.load(claim.state, 2 + slot) === 0) continue;
        const answer = answerOf(w, seq);
        if (!answer) return retireAndCount(posted, cols, job);
        parts.push(answer);
      }
      return mergeCounts(parts);
    },
  };
}

/** Waits until every chunk is counted; false when a worker failed or the wait ran out (never expected). */
function allCounted(claim: ChunkClaim, total: number, workers: number): boolean {
  const deadline = performance.now() + ANSWER_WAIT_MS;
  for (;;) {
    for (let k = 0; k < workers; k++) if (Atomics.load(claim.state, 2 + k) < 0) return false;
    const done = Atomics.load(claim.state, 1);
    if (done >= total) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    Atomics.wait(claim.state, 1, done, left);
  }
}

/** The safety net: the workers of a failed scan are replaced and the rows counted on the main thread alone. */
function retireAndCount(posted: { w: ScanWorker }[], cols: KernelColumns, job: CountJob): CountResult {
  for (const { w } of posted) {
    pool = pool.filter((x) => x !== w);
    void w.worker.terminate();
  }
  return countRows(cols, job);
}

/** Counts `job` over every core when its range is large enough, else on the main thread. */
export const countParallel = (cols: KernelColumns, job: CountJob): CountResult => startCount(cols, job).finish();

const nap = new Int32Array(new SharedArrayBuffer(4));

/** The worker's posted result for `seq` (it is on its way once the worker counted its chunks); undefined if it crashed. */
function answerOf(w: ScanWorker, seq: number): CountResult | undefined {
  const deadline = performance.now() + ANSWER_WAIT_MS;
  for (;;) {
    const reply = receiveMessageOnPort(w.port)?.message as { seq: number; result?: CountResult } | undefined;
    if (reply?.seq === seq) return reply.result ?? undefined;
    if (reply) continue;
    if (performance.now() > deadline) return undefined;
    Atomics.wait(nap, 0, 0, 1);
  }
}

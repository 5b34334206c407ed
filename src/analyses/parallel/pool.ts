import { availableParallelism, loadavg } from "node:os";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { markCounted, mergeCounts, type ChunkClaim, type CountJob, type CountResult, type KernelColumns } from "./count-kernel.ts";
import { TASKS, type TaskName, type TaskRun } from "./tasks.ts";

/**
 * Scans over every core. A job is cut into parts that the workers and the main thread take in turn: contiguous
 * row chunks for counts (rows are in time order, so each is a time range), parts of the actors for per-actor work
 * (funnels); the partial results are merged exactly by the caller. Analyses are synchronous for their callers:
 * the main thread runs parts too, then waits on a shared counter until every part is done. A worker not yet
 * started takes no part, so no query waits for a worker's start-up.
 */
interface ScanWorker {
  worker: Worker;
  port: MessagePort;
  /** [1]: 1 once the worker listens. */
  signal: Int32Array;
  seq: number;
  /** Replies read from the port while looking for another job's (jobs of one worker may be awaited in any order). */
  inbox: Map<number, { seq: number; result?: unknown }>;
}

/**
 * The worker's code: the bundle built beside this one (dist/scan-worker.mjs), or in the source tree the TypeScript
 * file, which a worker loads through tsx (tsx-boot.mjs).
 */
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const WORKER_FILE = FROM_SOURCE ? new URL("./tsx-boot.mjs", import.meta.url) : new URL("./scan-worker.mjs", import.meta.url);
const WORKER_ENTRY = FROM_SOURCE ? new URL("./scan-worker.ts", import.meta.url).href : undefined;
/** A scan whose chunks are not all counted by then has its workers replaced and is recounted here (a safety net). */
const ANSWER_WAIT_MS = 30_000;

/**
 * Fewer rows than this stay on the main thread: 200,000 rows take about a millisecond to count on one core
 * (measured: 2 M rows in 10 ms), of which waking a worker and merging its result would take a good part.
 */
const DEFAULT_MIN_ROWS = 200_000;

const CORES = availableParallelism();

/**
 * `maxLoad`: when other jobs make this one-minute load average (ours left out) no core is idle, and workers measured
 * slower than the main thread alone (at load 9–11 on 2 cores: 1.5–3× the single-threaded time): it scans alone.
 * `mainCounts: false` leaves every chunk to the workers (tests: the workers' results must then make the answer).
 * A worker per core: a request's analysis leaves the main thread free (offMainThread) and the workers take every
 * core; a synchronous caller's main thread takes parts beside all but one of them (scanWorkers).
 */
const settings: { minRows: number; workers: number; maxLoad: number; mainCounts: boolean; threads: ((rows: number) => number) | undefined } = {
  minRows: DEFAULT_MIN_ROWS,
  workers: CORES,
  maxLoad: CORES,
  mainCounts: true,
  /** Tests: the thread count a scan is planned with, instead of the machine's load and the ready workers. */
  threads: undefined,
};
let pool: ScanWorker[] = [];
/** Set when a worker failed before it listened (its file missing or broken): none is started again. */
let cannotStart = false;
/** Scans cut into parts, and parts the workers and the main thread ran, so far: lets a test see which path ran. */
const stats = { partitioned: 0, workerChunks: 0, mainChunks: 0 };
export const parallelScanStats = (): Readonly<typeof stats> => ({ ...stats });

/** Tests force the partitioned path on small data (`minRows: 0`) or turn it off (`workers: 0`). */
export function setParallelScan(next: Partial<typeof settings>): void {
  Object.assign(settings, next);
  if (pool.length > settings.workers) for (const w of pool.splice(settings.workers)) void w.worker.terminate();
}

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
const inSharedMemory = (cols: object): boolean =>
  Object.values(cols).every((a) => !ArrayBuffer.isView(a) || a.buffer instanceof SharedArrayBuffer);

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

/** (time, this process's CPU time), both in ms, about one a second over the last minute. */
const cpuSamples: [number, number][] = [];

/**
 * This process's own part of the load average: its threads' CPU time per second over about the last minute (the
 * load average's own span). Our scans would otherwise count as other jobs, and a busy server would stop using its
 * workers exactly when it needs them.
 */
function ownLoad(): number {
  const now = performance.now();
  const { user, system } = process.cpuUsage();
  const used = (user + system) / 1000;
  if (cpuSamples.length === 0 || now - cpuSamples[cpuSamples.length - 1]![0] >= 1000) cpuSamples.push([now, used]);
  while (cpuSamples.length > 2 && now - cpuSamples[1]![0] >= 60_000) cpuSamples.shift();
  const [since, usedThen] = cpuSamples[0]!;
  return now - since < 1000 ? 0 : (used - usedThen) / (now - since);
}

/** Whether other jobs keep every core busy: the load average without our own part reaches `maxLoad`. */
const othersBusy = (): boolean => loadavg()[0]! - ownLoad() >= settings.maxLoad;

/**
 * The workers a scan posts to: all of them when the main thread only waits (offMainThread), else one fewer, as the
 * main thread takes a core itself (a third thread on two cores made the others wait for it to be scheduled).
 */
const scanWorkers = (ready: ScanWorker[]): ScanWorker[] => (replay || !settings.mainCounts ? ready : ready.slice(0, Math.max(1, ready.length - 1)));

/** The thread count of the analysis running now, from its plan (withThreads, offMainThread); undefined outside one. */
let runThreads: number | undefined;

/**
 * How many threads a scan of `rows` rows is cut for (1: the main thread alone). Inside a planned run every scan
 * takes the plan's count, fixed before the run began: a run started again, or a load that changed meanwhile, cuts
 * its scans exactly as before (a funnel's second pass read its first pass's parts as if cut otherwise, and actors
 * were merged or dropped). Outside one (direct callers, tests) it is the machine's count now.
 */
export function scanThreads(rows: number): number {
  if (rows < settings.minRows || rows <= 0) return 1;
  return runThreads ?? threadsNow(rows, false);
}

/** Rows [start, end) cut for the threads of a scan of them (scanThreads), as the chunk bounds startTask takes. */
function rowChunks(start: number, end: number): Float64Array {
  return Float64Array.from(splitRange(start, end, scanThreads(end - start) * CHUNKS_PER_THREAD).flat());
}

/** Starts `task` over the rows [start, end), cut into row chunks for the run's threads (rowChunks). */
export function startRowTask<C extends object, J, R>(task: TaskName, cols: C, job: J, start: number, end: number): PendingTask<R> {
  const chunks = rowChunks(start, end);
  return startTask<C, J, R>(task, cols, job, chunks.length / 2, end - start, chunks);
}

/**
 * The thread count to plan an analysis over `rows` rows with: the injected count (tests), else 1 when other jobs
 * keep every core busy, else the ready workers (`offMain`: the main thread only waits) or one fewer plus the main
 * thread.
 */
export function planThreads(rows: number, offMain: boolean): number {
  return rows < settings.minRows || rows <= 0 ? 1 : threadsNow(rows, offMain);
}

function threadsNow(rows: number, offMain: boolean): number {
  if (settings.threads) return Math.max(1, settings.threads(rows));
  if (othersBusy()) return 1;
  const ready = readyWorkers();
  return offMain || !settings.mainCounts ? Math.max(1, ready.length) : 1 + scanWorkers(ready).length;
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

/** A task started on the workers: `finish` runs parts on the main thread too, waits for the others, and gives every thread's result. */
export interface PendingTask<R> {
  finish(): R[];
  /** How many parts the job was cut into (1: the main thread alone). */
  partitions: number;
}

/**
 * Posts `task` over `parts` parts to the ready workers now (they read `cols` as they are); the main thread joins in
 * at `finish`. Without a worker (too few rows, a busy machine, columns outside shared memory) the main thread runs
 * every part at `finish`.
 */
export function startTask<C extends object, J, R>(task: TaskName, cols: C, job: J, parts: number, rows: number, chunks?: Float64Array): PendingTask<R> {
  const run = TASKS[task] as unknown as TaskRun<C, J, R>;
  const workers = rows >= settings.minRows && rows > 0 && inSharedMemory(cols) && !othersBusy() ? scanWorkers(readyWorkers()) : [];
  const alone = (): R[] => {
    const own = run(cols, job, newClaim(0, chunks));
    stats.mainChunks += own.taken;
    return own.result === null ? [] : [own.result];
  };
  if (replay) return replayed(replay, workers, alone, (ready) => postToWorkers<R>(task, cols, job, parts, ready, chunks, alone));
  if (workers.length === 0) return { partitions: 1, finish: alone };
  stats.partitioned++;
  const claim = newClaim(workers.length, chunks);
  const posted = workers.map((w, slot) => {
    const seq = ++w.seq;
    w.port.postMessage({ seq, task, cols, job, claim, slot });
    return { w, seq, slot };
  });
  return {
    partitions: parts,
    finish() {
      const own: { result: R | null; taken: number } = settings.mainCounts ? run(cols, job, claim) : { result: null, taken: 0 };
      markCounted(claim, own.taken);
      const results: R[] = own.result === null ? [] : [own.result];
      stats.workerChunks += parts - own.taken;
      stats.mainChunks += own.taken;
      if (!allCounted(claim, parts, posted.length)) return retire(posted, alone);
      for (const { w, seq, slot } of posted) {
        if (Atomics.load(claim.state, 2 + slot) === 0) continue;
        const answer = answerOf<R>(w, seq);
        if (answer === undefined) return retire(posted, alone);
        results.push(answer);
      }
      return results;
    },
  };
}

/**
 * Off the main thread: an analysis run through `offMainThread` leaves every scan to the workers, and is suspended
 * (a SUSPENDED throw out of the scan's `finish`) until the answers are in, then run again from the start with them:
 * the n-th scan of a run takes the n-th answer. Analyses are synchronous and pure over their inputs, so a run
 * started again asks for the same scans in the same order (the caller keeps the data and the clock the same).
 */
interface Replay {
  answers: Map<number, unknown[]>;
  posted: Map<number, Promise<unknown[]>>;
  next: number;
}
let replay: Replay | undefined;
const SUSPENDED = Symbol("waiting for the scan workers");

function replayed<R>(r: Replay, workers: ScanWorker[], alone: () => R[], post: (workers: ScanWorker[]) => Promise<R[]>): PendingTask<R> {
  const n = r.next++;
  const known = r.answers.get(n) as R[] | undefined;
  if (known) return { partitions: 1, finish: () => known };
  if (workers.length === 0) return { partitions: 1, finish: () => remember(r, n, alone()) };
  r.posted.set(n, post(workers));
  return {
    partitions: workers.length,
    finish: () => {
      throw SUSPENDED;
    },
  };
}

const remember = <R>(r: Replay, n: number, answer: R[]): R[] => (r.answers.set(n, answer), answer);

/**
 * Runs `compute` with its scans on the workers while the event loop stays free; `unchanged` tells whether the data
 * is still the data the run started on (else it starts over, and after a few tries computes on the main thread).
 */
export async function offMainThread<T>(compute: () => T, unchanged: () => boolean, threads: number): Promise<T> {
  const r: Replay = { answers: new Map(), posted: new Map(), next: 0 };
  for (let attempt = 0; attempt < MAX_REPLAYS; attempt++) {
    r.next = 0;
    replay = r;
    try {
      return withThreads(threads, compute);
    } catch (e) {
      if (e !== SUSPENDED) throw e;
    } finally {
      replay = undefined;
    }
    for (const [n, answer] of r.posted) r.answers.set(n, await answer);
    r.posted.clear();
    // New data: its scans are asked again (the plan stays: it depends on the request, not on the rows).
    if (!unchanged()) r.answers.clear();
  }
  return withThreads(threads, compute);
}

/** An `unchanged` for offMainThread: whether `version()` is still what it was at the previous call (first: at this one). */
export function sameVersion(version: () => number): () => boolean {
  let seen = version();
  return () => {
    const now = version();
    return now === seen || ((seen = now), false);
  };
}

/** Runs of one analysis before it gives up on the workers: every scan of a run needs one, and writes start it over. */
const MAX_REPLAYS = 16;

/** Posts a job to the workers alone and resolves with their answers, without blocking the event loop. */
async function postToWorkers<R>(task: TaskName, cols: object, job: unknown, parts: number, workers: ScanWorker[], chunks: Float64Array | undefined, alone: () => R[]): Promise<R[]> {
  stats.partitioned++;
  stats.workerChunks += parts;
  const claim = newClaim(workers.length, chunks);
  const posted = workers.map((w, slot) => {
    const seq = ++w.seq;
    w.port.postMessage({ seq, task, cols, job, claim, slot });
    return { w, seq, slot };
  });
  const deadline = performance.now() + ANSWER_WAIT_MS;
  for (;;) {
    if (posted.some(({ slot }) => Atomics.load(claim.state, 2 + slot) < 0) || performance.now() > deadline) return retire(posted, alone);
    const done = Atomics.load(claim.state, 1);
    if (done >= parts) break;
    await waitAsync(claim.state, 1, done, 50);
  }
  const results: R[] = [];
  for (const { w, seq, slot } of posted) {
    if (Atomics.load(claim.state, 2 + slot) === 0) continue;
    let reply = replyNow<R>(w, seq);
    while (reply === undefined && performance.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      reply = replyNow<R>(w, seq);
    }
    if (reply?.result === undefined) return retire(posted, alone);
    results.push(reply.result);
  }
  return results;
}

/** Atomics.waitAsync (ES2024; in Node since 16): resolves when `a[i]` leaves `value` or after `ms`. */
const waitAsync = (a: Int32Array, i: number, value: number, ms: number): Promise<unknown> => {
  const waited = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, ms: number): { async: boolean; value: unknown } }).waitAsync(a, i, value, ms);
  return waited.async ? (waited.value as Promise<unknown>) : Promise.resolve(waited.value);
};

/** state: [next part to take, parts done, then per worker the parts it took (-1: it failed)]; `chunks`: row chunks' bounds. */
const newClaim = (workers: number, chunks: Float64Array = new Float64Array(0)): ChunkClaim => ({ chunks, state: new Int32Array(new SharedArrayBuffer(4 * (2 + workers))) });

/** A scan started on the workers: `finish` counts chunks on the main thread too, waits for the others and merges. */
export interface PendingCount {
  finish(): CountResult;
  /** How many chunks the rows were cut into (1: the main thread alone). */
  partitions: number;
}

/** Posts `job` to the workers now, cut into contiguous row chunks (time ranges); the main thread joins in at `finish`. */
export function startCount(cols: KernelColumns, job: CountJob): PendingCount {
  const rows = job.end - job.start;
  const ranges = splitRange(job.start, job.end, (settings.workers + 1) * CHUNKS_PER_THREAD);
  const pending = startTask<KernelColumns, CountJob, CountResult>("count", cols, job, ranges.length, rows, Float64Array.from(ranges.flat()));
  return { partitions: pending.partitions, finish: () => mergeCounts(pending.finish()) };
}

/** Waits until every part is done; false when a worker failed or the wait ran out (never expected). */
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

/** The safety net: the workers of a failed task are replaced and the task runs on the main thread alone. */
function retire<R>(posted: { w: ScanWorker }[], alone: () => R[]): R[] {
  for (const { w } of posted) {
    pool = pool.filter((x) => x !== w);
    void w.worker.terminate();
  }
  return alone();
}

/** Counts `job` over every core when its range is large enough, else on the main thread. */
export const countParallel = (cols: KernelColumns, job: CountJob): CountResult => startCount(cols, job).finish();

const nap = new Int32Array(new SharedArrayBuffer(4));

/** The worker's reply for `seq` if it has arrived (crashed: no result); replies for other jobs wait in its inbox. */
function replyNow<R>(w: ScanWorker, seq: number): { result?: R } | undefined {
  const kept = w.inbox.get(seq);
  if (kept) {
    w.inbox.delete(seq);
    return kept as { result?: R };
  }
  for (;;) {
    const reply = receiveMessageOnPort(w.port)?.message as { seq: number; result?: R } | undefined;
    if (reply === undefined || reply.seq === seq) return reply;
    w.inbox.set(reply.seq, reply);
  }
}

/** The worker's posted result for `seq` (it is on its way once the worker counted its chunks); undefined if it crashed. */
function answerOf<R>(w: ScanWorker, seq: number): R | undefined {
  const deadline = performance.now() + ANSWER_WAIT_MS;
  for (;;) {
    const reply = replyNow<R>(w, seq);
    if (reply) return reply.result;
    if (performance.now() > deadline) return undefined;
    Atomics.wait(nap, 0, 0, 1);
  }
}

import { markCounted, newClaim, partsDone, partsDoneChange, partsTakenBy, splitRange, waitAllDone, type ChunkClaim } from "./claims.ts";
import { othersBusy } from "./load-sensing.ts";
import { activeReplay, replayedScan } from "./replay.ts";
import type { PendingTask, ScanTask, TaskRun } from "./scan-task.ts";
import { scanSettings, scanStats, worthSharing } from "./scan-settings.ts";
import { scanThreads, workersForScan } from "./thread-count.ts";
import { readyWorkers, replaceWorkers, type ScanWorker } from "./worker-pool.ts";
import { awaitReply, awaitReplyBlocking } from "./worker-replies.ts";

/**
 * Scans over every core. A job is cut into parts that the workers and the main thread take in turn: contiguous
 * row chunks (rows are in time order, so each is a time range), or parts of the actors for per-actor work
 * (funnels); the partial results are merged exactly by the caller. Analyses are synchronous for their callers:
 * the main thread runs parts too, then waits on a shared counter until every part is done.
 */

/** A scan whose parts are not all done by then has its workers replaced and is run again here (a safety net). */
const ANSWER_WAIT_MS = 30_000;

/**
 * Chunks per thread: threads take chunks until none is left, so a worker the machine schedules late (other jobs
 * on the cores) leaves its share to the others instead of holding the main thread up.
 */
export const CHUNKS_PER_THREAD = 4;

/** Only columns in shared memory go to workers: posting any other array would copy it. */
const inSharedMemory = (cols: object): boolean =>
  Object.values(cols).every((a) => !ArrayBuffer.isView(a) || a.buffer instanceof SharedArrayBuffer);

/** A job posted to one worker: the number of its answer, and its slot in the claim. */
interface PostedJob {
  w: ScanWorker;
  seq: number;
  slot: number;
}

/** Posts the job to each of `workers`, each in its own slot of `claim`. */
function postJob(workers: ScanWorker[], task: string, cols: object, job: unknown, claim: ChunkClaim): PostedJob[] {
  return workers.map((w, slot) => {
    const seq = ++w.seq;
    w.port.postMessage({ seq, task, cols, job, claim, slot });
    return { w, seq, slot };
  });
}

/** Runs every part of the job on the main thread, with a claim of its own; its result as a list. */
function runOnMainThread<C, J, R>(run: TaskRun<C, J, R>, cols: C, job: J, chunks: Float64Array | undefined): R[] {
  const own = run(cols, job, newClaim(0, chunks));
  scanStats.mainChunks += own.taken;
  return own.result === null ? [] : [own.result];
}

/** The safety net: the workers of a failed job are replaced and the job runs on the main thread alone. */
function replaceWorkersAndRunHere<R>(posted: readonly PostedJob[], runHere: () => R[]): R[] {
  replaceWorkers(posted.map(({ w }) => w));
  return runHere();
}

/** Rows [start, end) cut for the threads of a scan of them (scanThreads), as the chunk bounds startTask takes. */
function rowChunks(start: number, end: number): Float64Array {
  return Float64Array.from(splitRange(start, end, scanThreads(end - start) * CHUNKS_PER_THREAD).flat());
}

/** Starts `task` over the rows [start, end), cut into row chunks for the run's threads (rowChunks). */
export function startRowTask<C extends object, J, R>(task: ScanTask<C, J, R>, cols: C, job: J, start: number, end: number): PendingTask<R> {
  const chunks = rowChunks(start, end);
  return startTask(task, cols, job, chunks.length / 2, end - start, chunks);
}

/**
 * Posts `task` over `parts` parts to the ready workers now (they read `cols` as they are); the main thread joins in
 * at `finish`. Without a worker (too few rows, a busy machine, columns outside shared memory) the main thread runs
 * every part at `finish`.
 */
export function startTask<C extends object, J, R>(task: ScanTask<C, J, R>, cols: C, job: J, parts: number, rows: number, chunks?: Float64Array): PendingTask<R> {
  const workers = worthSharing(rows) && inSharedMemory(cols) && !othersBusy() ? workersForScan(readyWorkers()) : [];
  const runHere = (): R[] => runOnMainThread(task.run, cols, job, chunks);
  const replay = activeReplay();
  if (replay) return replayedScan(replay, workers, runHere, (ready) => postToWorkers<R>(task.name, cols, job, parts, ready, chunks, runHere));
  if (workers.length === 0) return { partitions: 1, finish: runHere };
  scanStats.partitioned++;
  const claim = newClaim(workers.length, chunks);
  const posted = postJob(workers, task.name, cols, job, claim);
  return { partitions: parts, finish: () => finishBesideWorkers(task.run, cols, job, claim, parts, posted, runHere) };
}

/** The main thread takes parts too (unless `mainCounts` is off), waits for the workers, and gathers every thread's result. */
function finishBesideWorkers<C, J, R>(run: TaskRun<C, J, R>, cols: C, job: J, claim: ChunkClaim, parts: number, posted: PostedJob[], runHere: () => R[]): R[] {
  const own: { result: R | null; taken: number } = scanSettings.mainCounts ? run(cols, job, claim) : { result: null, taken: 0 };
  markCounted(claim, own.taken);
  const results: R[] = own.result === null ? [] : [own.result];
  scanStats.workerChunks += parts - own.taken;
  scanStats.mainChunks += own.taken;
  if (!waitAllDone(claim, parts, posted.length, performance.now() + ANSWER_WAIT_MS)) return replaceWorkersAndRunHere(posted, runHere);
  for (const { w, seq, slot } of posted) {
    if (partsTakenBy(claim, slot) === 0) continue;
    const answer = awaitReplyBlocking<R>(w, seq, performance.now() + ANSWER_WAIT_MS);
    if (answer === undefined) return replaceWorkersAndRunHere(posted, runHere);
    results.push(answer);
  }
  return results;
}

/** Posts a job to the workers alone and resolves with their answers, without blocking the event loop. */
async function postToWorkers<R>(task: string, cols: object, job: unknown, parts: number, workers: ScanWorker[], chunks: Float64Array | undefined, runHere: () => R[]): Promise<R[]> {
  scanStats.partitioned++;
  scanStats.workerChunks += parts;
  const claim = newClaim(workers.length, chunks);
  const posted = postJob(workers, task, cols, job, claim);
  const deadline = performance.now() + ANSWER_WAIT_MS;
  for (;;) {
    if (posted.some(({ slot }) => partsTakenBy(claim, slot) < 0) || performance.now() > deadline) return replaceWorkersAndRunHere(posted, runHere);
    const done = partsDone(claim);
    if (done >= parts) break;
    await partsDoneChange(claim, done, 50);
  }
  const results: R[] = [];
  for (const { w, seq, slot } of posted) {
    if (partsTakenBy(claim, slot) === 0) continue;
    const reply = await awaitReply<R>(w, seq, deadline);
    if (reply?.result === undefined) return replaceWorkersAndRunHere(posted, runHere);
    results.push(reply.result);
  }
  return results;
}

import { claimEach, type ChunkClaim } from "./claims.ts";

/**
 * What a scan thread runs over a job's parts: the main thread and the workers run the very same function. It takes
 * the parts of a job still unclaimed (claimEach) and returns this thread's result, or null when it took none.
 */
export interface TaskRun<C, J, R> {
  (cols: C, job: J, claim: ChunkClaim): { result: R | null; taken: number };
}

/**
 * A task with the name the workers know it by: a worker receives the name and looks the task up in its table
 * (src/analyses/scan-worker/task-table.ts), which lists every task an analysis kind defines.
 */
export interface ScanTask<C, J, R> {
  name: string;
  run: TaskRun<C, J, R>;
}

/** A task started on the workers: `finish` runs parts on the main thread too, waits for the others, and gives every thread's result. */
export interface PendingTask<R> {
  finish(): R[];
  /** How many parts the job was cut into (1: the main thread alone). */
  partitions: number;
}

/** How many row chunks a claim holds (tasks over row chunks). */
export const rowChunkCount = (_job: unknown, claim: ChunkClaim): number => claim.chunks.length / 2;

/** How many parts of the actors a job is cut into (tasks over parts of the actors). */
export const jobPartCount = (job: { parts: number }): number => job.parts;

/** A task whose parts each give a result of their own, merged by the caller in any order (its list for one thread). */
export function listTask<C, J, R>(name: string, total: (job: J, claim: ChunkClaim) => number, part: (cols: C, job: J, k: number, claim: ChunkClaim) => R): ScanTask<C, J, R[]> {
  const run: TaskRun<C, J, R[]> = (cols, job, claim) => {
    const result: R[] = [];
    const taken = claimEach(claim, total(job, claim), (k) => result.push(part(cols, job, k, claim)));
    return { result: taken ? result : null, taken };
  };
  return { name, run };
}

/** A task whose row chunks add into one tally per thread (made on its first chunk), merged by the caller. */
export function tallyTask<C, J, R>(name: string, make: (job: J) => R, add: (cols: C, job: J, start: number, end: number, into: R) => void): ScanTask<C, J, R> {
  const run: TaskRun<C, J, R> = (cols, job, claim) => {
    let tally: R | null = null;
    const taken = claimEach(claim, claim.chunks.length / 2, (k) => add(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, (tally ??= make(job))));
    return { result: tally, taken };
  };
  return { name, run };
}

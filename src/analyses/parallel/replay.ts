import type { PendingTask } from "./scan-task.ts";
import type { ScanWorker } from "./worker-pool.ts";

/**
 * Off the main thread (off-main-thread.ts): an analysis run that way leaves every scan to the workers, and is
 * suspended (a SUSPENDED throw out of the scan's `finish`) until the answers are in, then run again from the start
 * with them: the n-th scan of a run takes the n-th answer. Analyses are synchronous and pure over their inputs, so
 * a run started again asks for the same scans in the same order.
 */
export interface Replay {
  answers: Map<number, unknown[]>;
  posted: Map<number, Promise<unknown[]>>;
  /** The number the run's next scan takes. */
  next: number;
}

export const SUSPENDED = Symbol("waiting for the scan workers");

let active: Replay | undefined;

/** The replay of the run going on now; undefined outside offMainThread. */
export const activeReplay = (): Replay | undefined => active;

/** Runs `compute` as one run of `replay` (its scans answered from it, or posted to the workers). */
export function runReplaying<T>(replay: Replay, compute: () => T): T {
  replay.next = 0;
  active = replay;
  try {
    return compute();
  } finally {
    active = undefined;
  }
}

/**
 * The replay's next scan: its answer when a previous run got it; without a worker, the main thread's answer, kept;
 * else posted to `workers`, with a `finish` that suspends the run.
 */
export function replayedScan<R>(replay: Replay, workers: ScanWorker[], runOnMainThread: () => R[], post: (workers: ScanWorker[]) => Promise<R[]>): PendingTask<R> {
  const n = replay.next++;
  const known = replay.answers.get(n) as R[] | undefined;
  if (known) return { partitions: 1, finish: () => known };
  if (workers.length === 0) return { partitions: 1, finish: () => keptAnswer(replay, n, runOnMainThread()) };
  replay.posted.set(n, post(workers));
  return {
    partitions: workers.length,
    finish: () => {
      throw SUSPENDED;
    },
  };
}

const keptAnswer = <R>(replay: Replay, n: number, answer: R[]): R[] => (replay.answers.set(n, answer), answer);

import { funnelChunkRows, funnelPart, type ChunkRows, type FunnelColumns, type FunnelPartJob, type FunnelRowsJob, type PartResult } from "../funnels/partition.ts";
import { correlateRows, type CorrelationColumns, type CorrelationJob } from "../correlation/partition.ts";
import { firstSeenRows, type FirstSeenColumns, type FirstSeenJob } from "../retention/partition.ts";
import { pathsPart, type PartEdges, type PathsColumns, type PathsPartJob } from "../paths/partition.ts";
import { countChunks, type ChunkClaim, type CountJob, type CountResult, type KernelColumns } from "./count-kernel.mjs";

/**
 * What a scan thread can run, by name: the main thread and the workers (scan-worker.ts) look the task up here,
 * so both run the very same code. A task takes the parts of a job still unclaimed (`claim.state[0]` is the next
 * one, taken with Atomics.add, so each part runs on exactly one thread) and returns this thread's result, or
 * null when it took none.
 */
export interface TaskRun<C, J, R> {
  (cols: C, job: J, claim: ChunkClaim): { result: R | null; taken: number };
}

/** The funnel's row chunks this thread takes (pass 1): each chunk's kept rows by part, put in chunk order by the caller. */
export const funnelRowChunks: TaskRun<FunnelColumns, FunnelRowsJob, ChunkRows[]> = (cols, job, claim) => {
  const result: ChunkRows[] = [];
  const total = claim.chunks.length / 2;
  for (let k = Atomics.add(claim.state, 0, 1); k < total; k = Atomics.add(claim.state, 0, 1)) result.push(funnelChunkRows(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, k));
  return { result: result.length ? result : null, taken: result.length };
};

/** The funnel's parts of the actors this thread takes (pass 2): counted attempts or trends tallies, merged by the caller. */
export const funnelParts: TaskRun<FunnelColumns, FunnelPartJob, PartResult[]> = (cols, job, claim) => {
  const result: PartResult[] = [];
  for (let k = Atomics.add(claim.state, 0, 1); k < job.parts; k = Atomics.add(claim.state, 0, 1)) result.push(funnelPart(cols, job, k));
  return { result: result.length ? result : null, taken: result.length };
};

/** Event correlation's row chunks this thread takes: one bitset per name over actor slots, OR'ed by the caller. */
export const correlateChunks: TaskRun<CorrelationColumns, CorrelationJob, Int32Array> = (cols, job, claim) => {
  let bits: Int32Array | null = null;
  let taken = 0;
  const total = claim.chunks.length / 2;
  for (let k = Atomics.add(claim.state, 0, 1); k < total; k = Atomics.add(claim.state, 0, 1), taken++) {
    bits ??= new Int32Array(job.names * job.words);
    correlateRows(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, bits);
  }
  return { result: bits, taken };
};

/** First-seen row chunks this thread takes: one time per distinct id, the earlier kept by the caller. */
export const firstSeenChunks: TaskRun<FirstSeenColumns, FirstSeenJob, Float64Array> = (cols, job, claim) => {
  let first: Float64Array | null = null;
  let taken = 0;
  const total = claim.chunks.length / 2;
  for (let k = Atomics.add(claim.state, 0, 1); k < total; k = Atomics.add(claim.state, 0, 1), taken++) {
    first ??= new Float64Array(job.distinctIds).fill(Infinity);
    firstSeenRows(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, first);
  }
  return { result: first, taken };
};

/** The paths' parts this thread takes: edge tallies, summed by the caller in any order. */
export const pathsParts: TaskRun<PathsColumns, PathsPartJob, PartEdges[]> = (cols, job, claim) => {
  const result: PartEdges[] = [];
  for (let k = Atomics.add(claim.state, 0, 1); k < job.parts; k = Atomics.add(claim.state, 0, 1)) result.push(pathsPart(cols, job, k));
  return { result: result.length ? result : null, taken: result.length };
};

export const TASKS = {
  count: countChunks as TaskRun<KernelColumns, CountJob, CountResult>,
  funnelRows: funnelRowChunks,
  funnel: funnelParts,
  paths: pathsParts,
  correlate: correlateChunks,
  firstSeen: firstSeenChunks,
} as const;

export type TaskName = keyof typeof TASKS;

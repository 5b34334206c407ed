import { funnelChunkRows, funnelPart, type ChunkRows, type FunnelColumns, type FunnelPartJob, type FunnelRowsJob, type PartResult } from "../funnels/partition.ts";
import { correlateRows, type CorrelationColumns, type CorrelationJob } from "../correlation/partition.ts";
import { firstSeenRows, type FirstSeenColumns, type FirstSeenJob } from "../shared/first-seen-rows.ts";
import { newItemCodes, pathsActorsPart, pathsChunkRows, pathsItemRows, pathsPart, type PartActors, type PartEdges, type PathsActorsJob, type PathsChunkRows, type PathsColumns, type PathsItemCodes, type PathsItemsColumns, type PathsItemsJob, type PathsPartJob, type PathsRowsJob } from "../paths/partition.ts";
import { newSummaryTally, summaryRows, type SummaryColumns, type SummaryJob, type SummaryTally } from "../../store/event-summary.ts";
import { countChunks, type ChunkClaim, type CountJob, type CountResult, type KernelColumns } from "./count-kernel.ts";

/**
 * What a scan thread can run, by name: the main thread and the workers (scan-worker.ts) look the task up here,
 * so both run the very same code. A task takes the parts of a job still unclaimed (`claim.state[0]` is the next
 * one, taken with Atomics.add, so each part runs on exactly one thread) and returns this thread's result, or
 * null when it took none.
 */
export interface TaskRun<C, J, R> {
  (cols: C, job: J, claim: ChunkClaim): { result: R | null; taken: number };
}

/** Claims parts 0 … total−1 until none is left, running `each` on every part claimed; how many it ran. */
function claimEach(claim: ChunkClaim, total: number, each: (k: number) => void): number {
  let taken = 0;
  for (let k = Atomics.add(claim.state, 0, 1); k < total; k = Atomics.add(claim.state, 0, 1), taken++) each(k);
  return taken;
}

/** A task whose parts each give a result of their own, merged by the caller in any order (its list for one thread). */
const listTask =
  <C, J, R>(total: (job: J, claim: ChunkClaim) => number, part: (cols: C, job: J, k: number, claim: ChunkClaim) => R): TaskRun<C, J, R[]> =>
  (cols, job, claim) => {
    const result: R[] = [];
    const taken = claimEach(claim, total(job, claim), (k) => result.push(part(cols, job, k, claim)));
    return { result: taken ? result : null, taken };
  };

/** A task whose row chunks add into one tally per thread (made on its first chunk), merged by the caller. */
const tallyTask =
  <C, J, R>(make: (job: J) => R, add: (cols: C, job: J, start: number, end: number, into: R) => void): TaskRun<C, J, R> =>
  (cols, job, claim) => {
    let tally: R | null = null;
    const taken = claimEach(claim, claim.chunks.length / 2, (k) => add(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, (tally ??= make(job))));
    return { result: tally, taken };
  };

const chunkCount = (_job: unknown, claim: ChunkClaim) => claim.chunks.length / 2;
const partCount = (job: { parts: number }) => job.parts;

/** The funnel's row chunks (pass 1): each chunk's kept rows by part, put in chunk order by the caller. */
export const funnelRowChunks = listTask<FunnelColumns, FunnelRowsJob, ChunkRows>(chunkCount, (cols, job, k, claim) => funnelChunkRows(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, k));

/** The funnel's parts of the actors (pass 2): counted attempts or trends tallies. */
export const funnelParts = listTask<FunnelColumns, FunnelPartJob, PartResult>(partCount, (cols, job, k) => funnelPart(cols, job, k));

/** The paths' row items (pass 0): each thread's chunks' codes and the detail values they use. */
export const pathsItemChunks = tallyTask<PathsItemsColumns, PathsItemsJob, PathsItemCodes>(newItemCodes, pathsItemRows);

/** The paths' row chunks (pass 1): each chunk's rows with an item by part, put in chunk order by the caller. */
export const pathsRowChunks = listTask<PathsColumns, PathsRowsJob, PathsChunkRows>(chunkCount, (cols, job, k, claim) => pathsChunkRows(cols, job, claim.chunks[2 * k]!, claim.chunks[2 * k + 1]!, k));

/** The paths' parts (pass 2): edge tallies, summed by the caller. */
export const pathsParts = listTask<PathsColumns, PathsPartJob, PartEdges>(partCount, (cols, job, k) => pathsPart(cols, job, k));

/** The paths' parts for an actors request (pass 2): each person's count for the point. */
export const pathsActorsParts = listTask<PathsColumns, PathsActorsJob, PartActors>(partCount, (cols, job, k) => pathsActorsPart(cols, job, k));

/** Event correlation's row chunks: one bitset per name over actor slots, OR'ed by the caller. */
export const correlateChunks = tallyTask<CorrelationColumns, CorrelationJob, Int32Array>((job) => new Int32Array(job.names * job.words), correlateRows);

/** First-seen row chunks: one time per distinct id, the earlier kept by the caller. */
export const firstSeenChunks = tallyTask<FirstSeenColumns, FirstSeenJob, Float64Array>((job) => new Float64Array(job.distinctIds).fill(Infinity), firstSeenRows);

/** The taxonomy's row chunks (src/store/event-summary.ts): one tally per thread, merged by the caller. */
export const summaryChunks = tallyTask<SummaryColumns, SummaryJob, SummaryTally>(newSummaryTally, summaryRows);

export const TASKS = {
  count: countChunks as TaskRun<KernelColumns, CountJob, CountResult>,
  funnelRows: funnelRowChunks,
  funnel: funnelParts,
  pathsItems: pathsItemChunks,
  pathsRows: pathsRowChunks,
  paths: pathsParts,
  pathsActors: pathsActorsParts,
  correlate: correlateChunks,
  firstSeen: firstSeenChunks,
  summary: summaryChunks,
} as const;

export type TaskName = keyof typeof TASKS;

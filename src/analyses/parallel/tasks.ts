import { funnelPart, type FunnelColumns, type FunnelPartJob } from "../funnels/partition.ts";
import type { TrendTally } from "../funnels/viz.ts";
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

/** The funnel's parts this thread takes: conversion trends tallies, summed by the caller in any order. */
export const funnelParts: TaskRun<FunnelColumns, FunnelPartJob, TrendTally[]> = (cols, job, claim) => {
  const result: TrendTally[] = [];
  for (let k = Atomics.add(claim.state, 0, 1); k < job.parts; k = Atomics.add(claim.state, 0, 1)) result.push(funnelPart(cols, job, k));
  return { result: result.length ? result : null, taken: result.length };
};

/** The paths' parts this thread takes: edge tallies, summed by the caller in any order. */
export const pathsParts: TaskRun<PathsColumns, PathsPartJob, PartEdges[]> = (cols, job, claim) => {
  const result: PartEdges[] = [];
  for (let k = Atomics.add(claim.state, 0, 1); k < job.parts; k = Atomics.add(claim.state, 0, 1)) result.push(pathsPart(cols, job, k));
  return { result: result.length ? result : null, taken: result.length };
};

export const TASKS = {
  count: countChunks as TaskRun<KernelColumns, CountJob, CountResult>,
  funnel: funnelParts,
  paths: pathsParts,
} as const;

export type TaskName = keyof typeof TASKS;

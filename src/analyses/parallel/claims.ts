/**
 * How the threads of a scan share its parts out: a job's parts (row chunks, or parts of the actors) are taken one
 * at a time from a counter in shared memory, so each part runs on exactly one thread and a thread the machine
 * schedules late leaves its share to the others.
 */

/** Chunks of rows shared out between threads: boundaries, and [next chunk to take, chunks counted] in shared memory. */
export interface ChunkClaim {
  chunks: Float64Array;
  state: Int32Array;
}

/** A claim's state: [next part to take, parts done, then per worker slot the parts it took (-1: it failed)]. */
const NEXT_PART = 0;
const PARTS_DONE = 1;
const FIRST_WORKER_SLOT = 2;

/** A claim for `workers` worker slots besides the main thread; `chunks`: row chunks' bounds (none: parts of the actors). */
export const newClaim = (workers: number, chunks: Float64Array = new Float64Array(0)): ChunkClaim => ({
  chunks,
  state: new Int32Array(new SharedArrayBuffer(4 * (FIRST_WORKER_SLOT + workers))),
});

/** Claims parts 0 … total−1 until none is left, running `each` on every part claimed; how many it ran. */
export function claimEach(claim: ChunkClaim, total: number, each: (k: number) => void): number {
  let taken = 0;
  for (let k = Atomics.add(claim.state, NEXT_PART, 1); k < total; k = Atomics.add(claim.state, NEXT_PART, 1), taken++) each(k);
  return taken;
}

/** Marks `taken` chunks counted (after this thread's result is on its way) and wakes the waiting main thread. */
export function markCounted(claim: ChunkClaim, taken: number): void {
  if (taken === 0) return;
  Atomics.add(claim.state, PARTS_DONE, taken);
  Atomics.notify(claim.state, PARTS_DONE);
}

/** How many parts the threads have done so far. */
export const partsDone = (claim: ChunkClaim): number => Atomics.load(claim.state, PARTS_DONE);

/** How many parts the worker in `slot` took: 0 none (it sends no answer), -1 it failed. */
export const partsTakenBy = (claim: ChunkClaim, slot: number): number => Atomics.load(claim.state, FIRST_WORKER_SLOT + slot);

/** Records what the worker in `slot` took (-1: it failed, and the waiting main thread is woken to see it). */
export function recordWorkerParts(claim: ChunkClaim, slot: number, taken: number | "failed"): void {
  Atomics.store(claim.state, FIRST_WORKER_SLOT + slot, taken === "failed" ? -1 : taken);
  if (taken === "failed") Atomics.notify(claim.state, PARTS_DONE);
  else markCounted(claim, taken);
}

/**
 * Blocks the main thread until every part is done or `deadlineMs` (performance.now()) passes; false when a worker
 * failed or the wait ran out (never expected).
 */
export function waitAllDone(claim: ChunkClaim, total: number, workers: number, deadlineMs: number): boolean {
  for (;;) {
    for (let slot = 0; slot < workers; slot++) if (partsTakenBy(claim, slot) < 0) return false;
    const done = partsDone(claim);
    if (done >= total) return true;
    const left = deadlineMs - performance.now();
    if (left <= 0) return false;
    Atomics.wait(claim.state, PARTS_DONE, done, left);
  }
}

/** Atomics.waitAsync (ES2024; in Node since 16): resolves when the parts done leave `done` or after `ms`. */
export function partsDoneChange(claim: ChunkClaim, done: number, ms: number): Promise<unknown> {
  type WaitAsync = (a: Int32Array, i: number, v: number, ms: number) => { async: boolean; value: unknown };
  const waited = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(claim.state, PARTS_DONE, done, ms);
  return waited.async ? (waited.value as Promise<unknown>) : Promise.resolve(waited.value);
}

/** Equal contiguous row ranges of [start, end), `parts` of them (the last takes the remainder). */
export function splitRange(start: number, end: number, parts: number): [number, number][] {
  const size = Math.ceil((end - start) / parts);
  return Array.from({ length: parts }, (_, k) => [Math.min(end, start + k * size), Math.min(end, start + (k + 1) * size)]);
}

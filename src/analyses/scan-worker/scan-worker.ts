/**
 * A scan worker: runs the parts of a job it claims over a column snapshot in shared memory (read in place), with
 * the code the main thread runs (task-table.ts). Bundled as dist/scan-worker.mjs; in the source tree tsx-boot.mjs loads it.
 *
 * Protocol: { seq, task, cols, job, claim, slot } arrives on workerData.port; the worker runs parts while any is
 * left, posts { seq, result } when it took one, then records in claim.state[2 + slot] how many it took (-1: it
 * failed) and adds them to the parts done, claim.state[1]. signal[1] becomes 1 once it listens.
 */
import { workerData, type MessagePort } from "node:worker_threads";
import { recordWorkerParts, type ChunkClaim } from "../parallel/claims.ts";
import { TASK_BY_NAME } from "./task-table.ts";

interface Job {
  seq: number;
  task: string;
  cols: never;
  job: never;
  claim: ChunkClaim;
  slot: number;
}

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };
port.on("message", ({ seq, task, cols, job, claim, slot }: Job) => {
  let reply: { seq: number; result?: unknown; crash?: string };
  let taken = 0;
  try {
    const run = TASK_BY_NAME.get(task);
    if (run === undefined) throw new Error(`no scan task named "${task}" in the worker's table`);
    const done = run(cols, job, claim);
    taken = done.taken;
    reply = { seq, result: done.result };
  } catch (e) {
    reply = { seq, crash: e instanceof Error ? e.message : String(e) };
  }
  // A job that arrives after the other threads took every part costs nothing and is not waited for.
  if (taken > 0) port.postMessage(reply);
  recordWorkerParts(claim, slot, reply.crash ? "failed" : taken);
});
Atomics.store(signal, 1, 1);

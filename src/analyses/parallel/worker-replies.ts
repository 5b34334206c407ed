import { receiveMessageOnPort } from "node:worker_threads";
import type { ScanWorker } from "./worker-pool.ts";

/** A worker's reply to one job: its result, or none when it crashed. */
export interface WorkerReply<R> {
  seq: number;
  result?: R;
}

/** The worker's reply for `seq` if it has arrived; replies for other jobs wait in its inbox. */
export function replyIfArrived<R>(w: ScanWorker, seq: number): WorkerReply<R> | undefined {
  const kept = w.inbox.get(seq);
  if (kept) {
    w.inbox.delete(seq);
    return kept as WorkerReply<R>;
  }
  for (;;) {
    const reply = receiveMessageOnPort(w.port)?.message as WorkerReply<R> | undefined;
    if (reply === undefined || reply.seq === seq) return reply;
    w.inbox.set(reply.seq, reply);
  }
}

/** A cell no thread ever changes: waiting on it blocks the main thread for a set time without spinning. */
const PAUSE_CELL = new Int32Array(new SharedArrayBuffer(4));

/**
 * Blocks until the worker's result for `seq` arrives (it is on its way once the worker marked its parts done);
 * undefined if it crashed or `deadlineMs` (performance.now()) passed.
 */
export function awaitReplyBlocking<R>(w: ScanWorker, seq: number, deadlineMs: number): R | undefined {
  for (;;) {
    const reply = replyIfArrived<R>(w, seq);
    if (reply) return reply.result;
    if (performance.now() > deadlineMs) return undefined;
    Atomics.wait(PAUSE_CELL, 0, 0, 1);
  }
}

/** Waits, yielding to the event loop, until the worker's reply for `seq` arrives or `deadlineMs` passes. */
export async function awaitReply<R>(w: ScanWorker, seq: number, deadlineMs: number): Promise<WorkerReply<R> | undefined> {
  let reply = replyIfArrived<R>(w, seq);
  while (reply === undefined && performance.now() < deadlineMs) {
    await new Promise((resolve) => setImmediate(resolve));
    reply = replyIfArrived<R>(w, seq);
  }
  return reply;
}

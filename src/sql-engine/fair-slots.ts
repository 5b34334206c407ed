/**
 * The engine's query slots, shared fairly between keys (projects). A plain FIFO let one project's hundred
 * background queries take every slot and queue ahead of everyone (issue 38: another project's cheap query had
 * no answer in 10 s). Here each key runs at most `perKey` queries at once, one less than the slots by default
 * (the engine has 3: a project's blocking query still runs beside its own slow background one), so a slot is
 * always left for another project's query: it starts at once, and answers within its own time limit whatever
 * the first project queued. A freed slot goes to the waiting key served least recently (a key
 * never served first), each key's own queries in the order they came. ClickHouse spreads one query over every
 * core (`max_threads`), so a project alone loses little by leaving a slot unused.
 */
import { SqlEngineError } from "../core/sql-errors.ts";

type Grant = () => void;

export interface FairSlots {
  /** Waits for a slot for `key`; resolves with its release. A waiter leaves the queue when its signal aborts. */
  acquire(signal?: AbortSignal, key?: string): Promise<() => void>;
  /** Queries of `key` running and waiting (for measurements and tests). */
  load(key?: string): { running: number; waiting: number };
}

/** Keys share `slots`; one key holds at most `perKey` of them (default: all but one, at least one). */
export function createFairSlots(slots: number, perKey = Math.max(1, slots - 1)): FairSlots {
  let free = slots;
  const running = new Map<string, number>();
  const queues = new Map<string, Grant[]>();
  /** When each key with queries running or waiting was last given a slot (a count of grants). */
  const lastServed = new Map<string, number>();
  let grants = 0;

  const runningOf = (key: string) => running.get(key) ?? 0;

  function start(key: string): () => void {
    free--;
    running.set(key, runningOf(key) + 1);
    lastServed.set(key, ++grants);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      free++;
      const left = runningOf(key) - 1;
      if (left > 0) running.set(key, left);
      else running.delete(key);
      forgetIdle(key);
      dispatch();
    };
  }

  /** A key with nothing running or waiting is forgotten (the maps hold only keys in use). */
  function forgetIdle(key: string): void {
    if (!running.has(key) && !queues.has(key)) lastServed.delete(key);
  }

  /** The waiting key under its share that was served least recently, if any. */
  function nextKey(): string | undefined {
    let best: string | undefined;
    for (const key of queues.keys()) {
      if (runningOf(key) >= perKey) continue;
      if (best === undefined || (lastServed.get(key) ?? 0) < (lastServed.get(best) ?? 0)) best = key;
    }
    return best;
  }

  /** Grants the free slots, one at a time, each to the next key. */
  function dispatch(): void {
    for (let key = nextKey(); free > 0 && key !== undefined; key = nextKey()) {
      const queue = queues.get(key)!;
      const grant = queue.shift()!;
      if (queue.length === 0) queues.delete(key);
      grant();
    }
  }

  function leave(key: string, grant: Grant): void {
    const queue = queues.get(key);
    if (!queue) return;
    const at = queue.indexOf(grant);
    if (at >= 0) queue.splice(at, 1);
    if (queue.length === 0) queues.delete(key);
    forgetIdle(key);
  }

  return {
    acquire(signal, key = "") {
      if (signal?.aborted) return Promise.reject(new SqlEngineError("cancelled", "The query was cancelled."));
      if (free > 0 && runningOf(key) < perKey && !queues.has(key)) return Promise.resolve(start(key));
      return new Promise((resolve, reject) => {
        const grant: Grant = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(start(key));
        };
        const onAbort = () => {
          leave(key, grant);
          reject(new SqlEngineError("cancelled", "The query was cancelled."));
        };
        const queue = queues.get(key);
        if (queue) queue.push(grant);
        else queues.set(key, [grant]);
        signal?.addEventListener("abort", onAbort, { once: true });
        dispatch();
      });
    },
    load: (key = "") => ({ running: runningOf(key), waiting: queues.get(key)?.length ?? 0 }),
  };
}

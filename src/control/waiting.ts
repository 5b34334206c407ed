import type { EventEmitter } from "node:events";

export const WAIT_STATUSES = ["matched", "timed_out"] as const;
export type WaitStatus = (typeof WAIT_STATUSES)[number];

/** How long a wait may last: the default when none is given, and the most a caller may ask. */
export const WAIT_DEFAULT_MS = 5_000;
export const WAIT_MAX_MS = 60_000;

export interface WaitOutcome<T> {
  status: WaitStatus;
  found: T[];
}

/**
 * Resolves as soon as `find()` returns at least `count` items, re-checking only when `wakeup` emits `event`
 * (never on a timer), or after `timeoutMs` with what it finds then. An aborted signal (the client hung up)
 * releases the waiter at once: its listener and timer are gone, so waits never pile up.
 */
export function waitFor<T>(find: () => T[], count: number, timeoutMs: number, wakeup: { emitter: EventEmitter; event: string }, signal?: AbortSignal): Promise<WaitOutcome<T>> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (status: WaitStatus, found: T[]) => {
      clearTimeout(timer);
      wakeup.emitter.off(wakeup.event, check);
      signal?.removeEventListener("abort", abandon);
      resolve({ status, found });
    };
    function check() {
      const found = find();
      if (found.length >= count) finish("matched", found);
    }
    function abandon() {
      finish("timed_out", []);
    }
    if (signal?.aborted) return abandon();
    const found = find();
    if (found.length >= count) return resolve({ status: "matched", found });
    timer = setTimeout(() => finish("timed_out", find()), timeoutMs);
    wakeup.emitter.on(wakeup.event, check);
    signal?.addEventListener("abort", abandon, { once: true });
  });
}

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

/** An announcement a waiter listens for. */
export interface Signal {
  emitter: EventEmitter;
  event: string;
}

/**
 * What wakes a waiter. `event` is emitted with each batch of new items. With `matchIn`, a wake-up matches only the
 * batch it brings and adds its matches to what the waiter holds; `stillHeld` says whether an item is still in a
 * bounded log (items leave it oldest first). Each append then costs a waiter the batch's size, and an answer
 * (matched or timed out) what it holds, never the whole log: 800 waits answered at once would each read it.
 * Without `matchIn`, every wake-up runs `find`. `resync`: announcements that earlier items changed (the log
 * cleared, the verdicts judged anew); the waiter finds what it holds again.
 */
export interface Wakeup<T, B> extends Signal {
  matchIn?: (batch: B) => T[];
  stillHeld?: (item: T) => boolean;
  resync?: Signal[];
}

/** Matching items in log order; those that left the log are dropped from the front, in amortised constant time. */
class Held<T> {
  #items: T[] = [];
  #head = 0;
  constructor(private readonly stillHeld: (item: T) => boolean = () => true) {}
  reset(items: T[]): void {
    this.#items = items;
    this.#head = 0;
  }
  add(items: T[]): void {
    for (const item of items) this.#items.push(item);
    while (this.#head < this.#items.length && !this.stillHeld(this.#items[this.#head]!)) this.#head++;
    if (this.#head > this.#items.length / 2) this.reset(this.#items.slice(this.#head));
  }
  get size(): number {
    return this.#items.length - this.#head;
  }
  list(): T[] {
    this.add([]);
    return this.#items.slice(this.#head);
  }
}

/**
 * Resolves as soon as at least `count` items are found, re-checking only when woken (never on a timer), or after
 * `timeoutMs` with what is found then. An aborted signal (the client hung up) releases the waiter at once: its
 * listeners and timer are gone, so waits never pile up.
 */
export function waitFor<T, B = unknown>(find: () => T[], count: number, timeoutMs: number, wakeup: Wakeup<T, B>, signal?: AbortSignal): Promise<WaitOutcome<T>> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const held = new Held<T>(wakeup.stillHeld);
    const finish = (status: WaitStatus, found: T[]) => {
      clearTimeout(timer);
      wakeup.emitter.off(wakeup.event, woken);
      for (const r of wakeup.resync ?? []) r.emitter.off(r.event, refind);
      signal?.removeEventListener("abort", abandon);
      resolve({ status, found });
    };
    function woken(batch: B) {
      if (wakeup.matchIn) held.add(wakeup.matchIn(batch));
      else held.reset(find());
      if (held.size >= count) finish("matched", held.list());
    }
    function refind() {
      held.reset(find());
    }
    function abandon() {
      finish("timed_out", []);
    }
    if (signal?.aborted) return abandon();
    refind();
    if (held.size >= count) return resolve({ status: "matched", found: held.list() });
    timer = setTimeout(() => finish("timed_out", wakeup.matchIn ? held.list() : find()), timeoutMs);
    wakeup.emitter.on(wakeup.event, woken);
    for (const r of wakeup.resync ?? []) r.emitter.on(r.event, refind);
    signal?.addEventListener("abort", abandon, { once: true });
  });
}

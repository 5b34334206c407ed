import v8 from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * V8 collects its old generation when allocation asks for room, and returns pages to the system only then: after a
 * burst of requests (a load of captured events) the garbage they left stays in the heap, and in the process's RSS,
 * for as long as the server stays idle; V8's own memory reducer does not start for a heap that stops allocating.
 * So once requests have been quiet for `quietMs` and the heap has grown by `growthBytes` since the last collection (its committed size: V8's own
 * collections during the burst free objects but keep the pages),
 * one full collection runs. What it costs and saves: bench/capture-memory.ts.
 */
export interface QuietCollectorOptions {
  quietMs: number;
  growthBytes: number;
  /** Tests: a collector to observe, and the heap's committed bytes. */
  collect?: () => void;
  heapCommitted?: () => number;
  now?: () => number;
}

export interface QuietCollector {
  /** A request was answered: the quiet starts again. */
  touch(): void;
  /** Full collections run so far. */
  readonly collections: number;
  stop(): void;
}

const committedHeapBytes = () => v8.getHeapStatistics().total_heap_size;

let exposedCollector: (() => void) | undefined;
/** The collector --expose-gc would give, reached without the flag (a context created with it on has `gc`). */
function fullCollection(): () => void {
  if (exposedCollector) return exposedCollector;
  const given = (globalThis as { gc?: () => void }).gc;
  if (given) return (exposedCollector = given);
  v8.setFlagsFromString("--expose-gc");
  exposedCollector = runInNewContext("gc") as () => void;
  v8.setFlagsFromString("--no-expose-gc");
  return exposedCollector;
}

export function quietCollector(options: QuietCollectorOptions): QuietCollector {
  const heapCommitted = options.heapCommitted ?? committedHeapBytes;
  const now = options.now ?? (() => performance.now());
  let lastTouch = now();
  let committedAfterCollection = heapCommitted();
  let timer: NodeJS.Timeout | undefined;
  let collections = 0;

  const check = () => {
    timer = undefined;
    const quietFor = now() - lastTouch;
    if (quietFor < options.quietMs) return arm(options.quietMs - quietFor);
    const committed = heapCommitted();
    // A collection V8 ran meanwhile lowers the mark growth is measured from.
    if (committed - committedAfterCollection < options.growthBytes) return void (committedAfterCollection = Math.min(committedAfterCollection, committed));
    const collect = options.collect ?? fullCollection();
    collect();
    collect();
    collections++;
    committedAfterCollection = heapCommitted();
  };
  const arm = (ms: number) => {
    timer = setTimeout(check, ms);
    timer.unref();
  };
  return {
    touch() {
      lastTouch = now();
      if (!timer) arm(options.quietMs);
    },
    get collections() {
      return collections;
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

import { runReplaying, SUSPENDED, type Replay } from "./replay.ts";
import { withThreads } from "./thread-count.ts";

/** Runs of one analysis before it gives up on the workers: every scan of a run needs one, and writes start it over. */
const MAX_REPLAYS = 16;

/**
 * Runs `compute` with its scans on the workers while the event loop stays free (replay.ts); `unchanged` tells
 * whether the data is still the data the run started on (else it starts over, and after a few tries computes on
 * the main thread).
 */
export async function offMainThread<T>(compute: () => T, unchanged: () => boolean, threads: number): Promise<T> {
  const replay: Replay = { answers: new Map(), posted: new Map(), next: 0 };
  for (let attempt = 0; attempt < MAX_REPLAYS; attempt++) {
    try {
      return runReplaying(replay, () => withThreads(threads, compute));
    } catch (e) {
      if (e !== SUSPENDED) throw e;
    }
    for (const [n, answer] of replay.posted) replay.answers.set(n, await answer);
    replay.posted.clear();
    // New data: its scans are asked again (the plan stays: it depends on the request, not on the rows).
    if (!unchanged()) replay.answers.clear();
  }
  return withThreads(threads, compute);
}

/** An `unchanged` for offMainThread: whether `version()` is still what it was at the previous call (first: at this one). */
export function sameVersion(version: () => number): () => boolean {
  let seen = version();
  return () => {
    const now = version();
    return now === seen || ((seen = now), false);
  };
}

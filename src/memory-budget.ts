import os from "node:os";
import v8 from "node:v8";

/**
 * Generating the dataset holds the fixture document and the state built from it at once: measured at 1 M events,
 * the state keeps ~300 bytes of JavaScript heap per event and the document about as much again while it is turned
 * into the state. Asking for more than the heap allows would end in V8's "heap out of memory" abort, so such a
 * start is refused up front with what it needs and how to give it.
 */
const BYTES_PER_GENERATED_EVENT = 600;
const BASE_BYTES = 150 * 2 ** 20;
/** Headroom: the collector needs room to work before the limit. */
const USABLE_SHARE = 0.9;

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);

/** The estimated heap a generated dataset of `events` events needs, in bytes. */
export const generationBytes = (events: number): number => BASE_BYTES + events * BYTES_PER_GENERATED_EVENT;

/** Null when `events` fits this process's heap; else the one-line reason, with the flag that raises the limit. */
export function generationRefusal(events: number, heapLimit = v8.getHeapStatistics().heap_size_limit, physical = os.totalmem()): string | null {
  const need = generationBytes(events);
  if (need <= heapLimit * USABLE_SHARE) return null;
  const suggestedMiB = Math.ceil((need / USABLE_SHARE) / 2 ** 20 / 512) * 512;
  const raise =
    suggestedMiB * 2 ** 20 < physical * 0.8
      ? `start with NODE_OPTIONS=--max-old-space-size=${suggestedMiB} (this machine has ${gib(physical)} GiB)`
      : `this machine has ${gib(physical)} GiB, too little for it`;
  return `--events ${events.toLocaleString("en-US")} needs about ${gib(need)} GiB of JavaScript heap, more than this process may use (${gib(heapLimit)} GiB): ${raise}, or pass fewer --events`;
}

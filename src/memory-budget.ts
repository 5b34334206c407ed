import os from "node:os";
import v8 from "node:v8";

/**
 * What generating `--events N` needs with the column store (src/store/event-table.ts): heap and peak memory grow
 * with the events, from runs at 2 M and 10 M (bench/NOTES.md). Asking for more than the heap allows would end in V8's "heap out of memory"
 * abort, more than the machine has in swapping or the kernel's OOM kill: such a start is refused up front with
 * what it needs and how to give it.
 */
const HEAP_BYTES_PER_EVENT = 45;
const HEAP_BASE_BYTES = 150 * 2 ** 20;
const PEAK_BYTES_PER_EVENT = 230;
const PEAK_BASE_BYTES = 200 * 2 ** 20;
/** Headroom: the collector needs room to work before the heap limit. */
const USABLE_HEAP_SHARE = 0.9;
/** The rest of the machine (the OS, the client under test) keeps a fifth of its memory. */
const USABLE_MEMORY_SHARE = 0.8;

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(1);

/** The estimated JavaScript heap a generated dataset of `events` events needs, in bytes. */
export const generationHeapBytes = (events: number): number => HEAP_BASE_BYTES + events * HEAP_BYTES_PER_EVENT;
/** The estimated peak memory (RSS) of generating it, in bytes. */
export const generationPeakBytes = (events: number): number => PEAK_BASE_BYTES + events * PEAK_BYTES_PER_EVENT;

/** Null when `events` fits this process and machine; else the one-line reason, with what would make it fit. */
export function generationRefusal(events: number, heapLimit = v8.getHeapStatistics().heap_size_limit, physical = os.totalmem()): string | null {
  const count = `--events ${events.toLocaleString("en-US")}`;
  const peak = generationPeakBytes(events);
  if (peak > physical * USABLE_MEMORY_SHARE) {
    return `${count} needs about ${gib(peak)} GiB of memory at its peak, more than this machine can give (${gib(physical)} GiB, of which 80 % is used at most): pass fewer --events`;
  }
  const heap = generationHeapBytes(events);
  if (heap <= heapLimit * USABLE_HEAP_SHARE) return null;
  const suggestedMiB = Math.ceil(heap / USABLE_HEAP_SHARE / 2 ** 20 / 512) * 512;
  return `${count} needs about ${gib(heap)} GiB of JavaScript heap, more than this process may use (${gib(heapLimit)} GiB): start with NODE_OPTIONS=--max-old-space-size=${suggestedMiB}, or pass fewer --events`;
}

import { splitRange } from "./claims.ts";
import { countTask, mergeCounts, type CountJob, type CountResult, type KernelColumns } from "./count-kernel.ts";
import { scanSettings } from "./scan-settings.ts";
import { CHUNKS_PER_THREAD, startTask } from "./start-task.ts";

/** A scan started on the workers: `finish` counts chunks on the main thread too, waits for the others and merges. */
export interface PendingCount {
  finish(): CountResult;
  /** How many chunks the rows were cut into (1: the main thread alone). */
  partitions: number;
}

/** Posts `job` to the workers now, cut into contiguous row chunks (time ranges); the main thread joins in at `finish`. */
export function startCount(cols: KernelColumns, job: CountJob): PendingCount {
  const rows = job.end - job.start;
  const ranges = splitRange(job.start, job.end, (scanSettings.workers + 1) * CHUNKS_PER_THREAD);
  const pending = startTask(countTask, cols, job, ranges.length, rows, Float64Array.from(ranges.flat()));
  return { partitions: pending.partitions, finish: () => mergeCounts(pending.finish()) };
}

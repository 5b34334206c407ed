import { availableParallelism } from "node:os";

/** Fewer rows than this stay on the main thread: waking a worker and merging its result would cost a good part of the count. */
const DEFAULT_MIN_ROWS = 200_000;

const CORES = availableParallelism();

/**
 * `maxLoad`: when other jobs make this one-minute load average (ours left out) no core is idle, workers are slower
 * than the main thread alone, so it scans alone. `mainCounts: false` leaves every chunk to the workers (tests: the
 * workers' results must then make the answer). A worker per core: a request's analysis leaves the main thread free
 * (offMainThread) and the workers take every core; a synchronous caller's main thread takes parts beside all but
 * one of them (workersForScan).
 */
export const scanSettings: { minRows: number; workers: number; maxLoad: number; mainCounts: boolean; threads: ((rows: number) => number) | undefined } = {
  minRows: DEFAULT_MIN_ROWS,
  workers: CORES,
  maxLoad: CORES,
  mainCounts: true,
  /** Tests: the thread count a scan is planned with, instead of the machine's load and the ready workers. */
  threads: undefined,
};

export type ScanSettings = typeof scanSettings;

/** Whether a scan of `rows` rows is large enough to share out between threads. */
export const worthSharing = (rows: number): boolean => rows >= scanSettings.minRows && rows > 0;

/** Scans cut into parts, and parts the workers and the main thread ran, so far: lets a test see which path ran. */
export const scanStats = { partitioned: 0, workerChunks: 0, mainChunks: 0 };
export const parallelScanStats = (): Readonly<typeof scanStats> => ({ ...scanStats });

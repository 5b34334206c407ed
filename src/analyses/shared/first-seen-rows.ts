import { passes, type KernelColumns, type KernelFilter } from "../parallel/count-kernel.ts";

/**
 * When each distinct id first did one of some events (first-time retention, first-time trend maths), over row
 * chunks on any thread (../parallel/): per chunk the first time of each id's wanted rows; chunks merge by the
 * earlier time, exact whatever thread read which chunk.
 */
/** The kernel's columns: the filter reads the rows' property shapes and values. */
export type FirstSeenColumns = KernelColumns;

export interface FirstSeenJob {
  /** 1 at the name ids wanted; null = every name. */
  wanted: Uint8Array | null;
  /** A wanted row must pass it too (null: no condition). */
  filter: KernelFilter | null;
  distinctIds: number;
}

/** Lowers `first[d]` to the time of each wanted row of [start, end). */
export function firstSeenRows(cols: FirstSeenColumns, job: FirstSeenJob, start: number, end: number, first: Float64Array): void {
  const { ts, name, did } = cols;
  const { wanted, filter } = job;
  for (let i = start; i < end; i++) {
    if (wanted !== null && wanted[name[i]!] === 0) continue;
    const d = did[i]!;
    if (ts[i]! < first[d]! && (filter === null || passes(filter, cols, i))) first[d] = ts[i]!;
  }
}

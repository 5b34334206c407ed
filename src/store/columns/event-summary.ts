import type { ScanSnapshot } from "./column-arrays.ts";

/**
 * What the taxonomy needs from a table's rows, in one pass (EventTable.summarize) or over row chunks on any thread
 * (the scan workers' "summary" task): per event name its count, first/last instants and the count in a time
 * window; per property key how many events set it and how many of those values are of each kind; and per shape
 * the names seen with it, from which each key's event names follow. Chunks merge exactly (sums, min/max, OR),
 * whatever thread read which chunk. No imports beyond types: the worker bundle runs this file.
 */

/** The snapshot's columns, each shape's key ids flattened, and each value id's kind: all in shared memory. */
export interface SummaryColumns extends Pick<ScanSnapshot, "ts" | "name" | "shape" | "valueStart" | "vals"> {
  /** Shape s's key ids are shapeKeys[shapeStart[s] … shapeStart[s + 1]), in the order its events hold their values. */
  shapeStart: Int32Array;
  shapeKeys: Int32Array;
  /** Each value id's kind, 0 … kinds − 1, or −1: it gives none. */
  valueKinds: Int8Array;
}

export interface SummaryJob {
  /** Dictionary sizes when the scan started: every id in its rows is below them. */
  names: number;
  keys: number;
  shapes: number;
  kinds: number;
  /** The window `nameRecent` counts, both ends included. */
  since: number;
  until: number;
}

/** One thread's tally; the sizes are read from the arrays (a tally of an earlier scan may be smaller, never larger). */
export interface SummaryTally {
  nameCount: Float64Array;
  nameRecent: Float64Array;
  nameFirst: Float64Array;
  nameLast: Float64Array;
  keyCount: Float64Array;
  /** keys × kinds. */
  keyKinds: Float64Array;
  /** A bitset of names per shape: shapes × ⌈names / 32⌉ words. */
  shapeNames: Int32Array;
}

/** A summary's inputs, from EventTable.summaryScan: what the rows function reads, and the lists its ids index. */
export interface SummaryScan {
  cols: SummaryColumns;
  job: SummaryJob;
  rows: number;
  names: readonly string[];
  keys: readonly string[];
}

export interface EventSummary {
  names: readonly string[];
  nameCount: Float64Array;
  nameRecent: Float64Array;
  nameFirst: Float64Array;
  nameLast: Float64Array;
  keys: readonly string[];
  keyCount: Float64Array;
  keyKinds: Float64Array;
  /** The name ids each key was seen on. */
  keyNames: Set<number>[];
}

const wordsFor = (names: number) => Math.ceil(names / 32);

export const newSummaryTally = (job: SummaryJob): SummaryTally => ({
  nameCount: new Float64Array(job.names),
  nameRecent: new Float64Array(job.names),
  nameFirst: new Float64Array(job.names).fill(Infinity),
  nameLast: new Float64Array(job.names).fill(-Infinity),
  keyCount: new Float64Array(job.keys),
  keyKinds: new Float64Array(job.keys * job.kinds),
  shapeNames: new Int32Array(job.shapes * wordsFor(job.names)),
});

/** Adds the rows [start, end) into `t`. */
export function summaryRows(cols: SummaryColumns, job: SummaryJob, start: number, end: number, t: SummaryTally): void {
  const { ts, name, shape, valueStart, vals, shapeStart, shapeKeys, valueKinds } = cols;
  const { kinds, since, until } = job;
  const words = wordsFor(t.nameCount.length);
  for (let i = start; i < end; i++) {
    const n = name[i]!;
    const time = ts[i]!;
    t.nameCount[n]!++;
    if (time >= since && time <= until) t.nameRecent[n]!++;
    if (time < t.nameFirst[n]!) t.nameFirst[n] = time;
    if (time > t.nameLast[n]!) t.nameLast[n] = time;
    const s = shape[i]!;
    t.shapeNames[s * words + (n >>> 5)]! |= 1 << (n & 31);
    const from = shapeStart[s]!;
    const values = valueStart[i]! - from;
    for (let p = from; p < shapeStart[s + 1]!; p++) {
      const key = shapeKeys[p]!;
      const kind = valueKinds[vals[values + p]!]!;
      t.keyCount[key]!++;
      if (kind >= 0) t.keyKinds[key * kinds + kind]!++;
    }
  }
}

/** The threads' tallies as one, sized for `job` (the latest scan's: dictionaries only grow). */
export function mergeSummaryTallies(parts: readonly SummaryTally[], job: SummaryJob): SummaryTally {
  const into = newSummaryTally(job);
  const words = wordsFor(job.names);
  for (const t of parts) {
    addInto(into.nameCount, t.nameCount);
    addInto(into.nameRecent, t.nameRecent);
    addInto(into.keyCount, t.keyCount);
    addInto(into.keyKinds, t.keyKinds);
    t.nameFirst.forEach((time, n) => (into.nameFirst[n] = Math.min(into.nameFirst[n]!, time)));
    t.nameLast.forEach((time, n) => (into.nameLast[n] = Math.max(into.nameLast[n]!, time)));
    const partWords = wordsFor(t.nameCount.length);
    for (let s = 0; s * partWords < t.shapeNames.length; s++) {
      for (let w = 0; w < partWords; w++) into.shapeNames[s * words + w]! |= t.shapeNames[s * partWords + w]!;
    }
  }
  return into;
}

function addInto(into: Float64Array, add: Float64Array): void {
  for (let i = 0; i < add.length; i++) into[i]! += add[i]!;
}

/** The summary of a scan's tally: each key's event names are the names seen with any shape that holds it. */
export function summaryOf(scan: SummaryScan, t: SummaryTally): EventSummary {
  const { shapeStart, shapeKeys } = scan.cols;
  const words = wordsFor(scan.job.names);
  const keyNames = Array.from({ length: scan.job.keys }, () => new Set<number>());
  for (let s = 0; s < scan.job.shapes; s++) {
    const seen = namesInBitset(t.shapeNames, s * words, words);
    if (seen.length === 0) continue;
    for (let p = shapeStart[s]!; p < shapeStart[s + 1]!; p++) for (const n of seen) keyNames[shapeKeys[p]!]!.add(n);
  }
  const { nameCount, nameRecent, nameFirst, nameLast, keyCount, keyKinds } = t;
  return { names: scan.names, nameCount, nameRecent, nameFirst, nameLast, keys: scan.keys, keyCount, keyKinds, keyNames };
}

function namesInBitset(bits: Int32Array, from: number, words: number): number[] {
  const names: number[] = [];
  for (let w = 0; w < words; w++) for (let b = 0, word = bits[from + w]!; word !== 0; b++, word >>>= 1) if (word & 1) names.push(w * 32 + b);
  return names;
}

/** Shapes' key lists as one flat list with offsets, in shared memory (what the workers read). */
export function flattenShapes(shapes: readonly Uint32Array[]): { shapeStart: Int32Array; shapeKeys: Int32Array } {
  const shapeStart = new Int32Array(new SharedArrayBuffer(4 * (shapes.length + 1)));
  shapes.forEach((keys, s) => (shapeStart[s + 1] = shapeStart[s]! + keys.length));
  const shapeKeys = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, shapeStart[shapes.length]!)));
  shapes.forEach((keys, s) => shapeKeys.set(keys, shapeStart[s]!));
  return { shapeStart, shapeKeys };
}

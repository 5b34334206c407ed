import { cutPath, type PathCut } from "./items.ts";

/**
 * Paths over one part of the persons (actor slot mod `parts`), from each row's item id: the persons' rows grouped
 * with a counting sort, split into sessions and cut as the general scan does, and the edges tallied. Edges add up
 * over persons (times in whole milliseconds sum exactly), so parts run on any thread and their tallies are summed.
 */
export interface PathsColumns {
  ts: Float64Array;
  did: Uint32Array;
  slotOfDid: Int32Array;
  /** The part of each distinct id's actor (../shared/actor-table.ts). */
  partOfDid: Uint8Array;
  /** Item id of each row of [start, end), at index row − start; −1: the row is no path item. */
  item: Int32Array;
}

/** Pass 1 over row chunks: each chunk's rows with an item, grouped by the part of their person. */
export interface PathsRowsJob {
  /** The first row of the range: `item` is indexed from it. */
  start: number;
  parts: number;
}

/** One chunk's rows with an item, part after part (part p's at [offsets[p], offsets[p + 1]), in time order); shared memory. */
export interface PathsChunkRows {
  chunk: number;
  offsets: Int32Array;
  rows: Int32Array;
}

/** Pass 2 over the parts of the persons, each reading only its own rows of every chunk. */
export interface PathsPartJob {
  start: number;
  /** Pass 1's chunks, in chunk (time) order. */
  chunks: PathsChunkRows[];
  parts: number;
  actors: number;
  sessionGapMs: number;
  /** Item ids: the points, and `ellipsis` (the item count) for the cut middle. */
  cut: PathCut<number>;
}

/** Edge (position k, source item, target item) as the key (k · span + source) · span + target, span = ellipsis + 1. */
export interface PartEdges {
  keys: Float64Array;
  values: Float64Array;
  totals: Float64Array;
}

export function pathsPart(cols: PathsColumns, job: PathsPartJob, part: number): PartEdges {
  const { offsets, row } = rowsOfPart(cols, job, part);
  const span = job.cut.ellipsis + 1;
  const tally = new Map<number, { value: number; total: number }>();
  const count = (items: number[], times: number[]) => {
    for (let k = 1; k < items.length; k++) {
      const key = ((k - 1) * span + items[k - 1]!) * span + items[k]!;
      let edge = tally.get(key);
      if (!edge) tally.set(key, (edge = { value: 0, total: 0 }));
      edge.value++;
      edge.total += times[k]! - times[k - 1]!;
    }
  };
  const emit = (items: number[], times: number[]) => {
    const path = cutPath(items, times, job.cut);
    if (path) count(path.items, path.times);
  };
  // One pair of arrays serves every session: cutPath copies what it keeps.
  const items: number[] = [];
  const times: number[] = [];
  for (let a = 0; a + 1 < offsets.length; a++) {
    items.length = times.length = 0;
    for (let k = offsets[a]!; k < offsets[a + 1]!; k++) {
      const i = row[k]!;
      const t = cols.ts[i]!;
      if (times.length > 0 && t - times[times.length - 1]! >= job.sessionGapMs) {
        emit(items, times);
        items.length = times.length = 0;
      }
      items.push(cols.item[i - job.start]!);
      times.push(t);
    }
    if (times.length > 0) emit(items, times);
  }
  const keys = Float64Array.from(tally.keys());
  return { keys, values: Float64Array.from(tally.values(), (e) => e.value), totals: Float64Array.from(tally.values(), (e) => e.total) };
}

/** Pass 1: the rows [from, to) with an item, grouped by the part of their person (one read counts, one places). */
export function pathsChunkRows(cols: PathsColumns, job: PathsRowsJob, from: number, to: number, chunk: number): PathsChunkRows {
  const { parts, start } = job;
  const offsets = new Int32Array(parts + 1);
  for (let i = from; i < to; i++) if (cols.item[i - start]! >= 0) offsets[cols.partOfDid[cols.did[i]!]! + 1]!++;
  for (let p = 0; p < parts; p++) offsets[p + 1]! += offsets[p]!;
  const rows = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, offsets[parts]!)));
  const fill = offsets.slice(0, parts);
  for (let i = from; i < to; i++) if (cols.item[i - start]! >= 0) rows[fill[cols.partOfDid[cols.did[i]!]!]!++] = i;
  return { chunk, offsets, rows };
}

/** The part's rows, grouped by person (stable: chunks come in time order, so each person's rows stay in it). */
function rowsOfPart(cols: PathsColumns, job: PathsPartJob, part: number): { offsets: Int32Array; row: Int32Array } {
  const { parts } = job;
  const locals = Math.ceil(Math.max(0, job.actors - part) / parts);
  const offsets = new Int32Array(locals + 1);
  const localOf = (i: number): number => (cols.slotOfDid[cols.did[i]!]! - part) / parts;
  for (const { offsets: at, rows } of job.chunks) for (let k = at[part]!; k < at[part + 1]!; k++) offsets[localOf(rows[k]!) + 1]!++;
  for (let a = 0; a < locals; a++) offsets[a + 1]! += offsets[a]!;
  const fill = offsets.slice(0, locals);
  const row = new Int32Array(offsets[locals]!);
  for (const { offsets: at, rows } of job.chunks) for (let k = at[part]!; k < at[part + 1]!; k++) row[fill[localOf(rows[k]!)]!++] = rows[k]!;
  return { offsets, row };
}

/** The parts' edge tallies summed, by key. */
export function mergePartEdges(parts: readonly PartEdges[]): Map<number, { value: number; total: number }> {
  const sum = new Map<number, { value: number; total: number }>();
  for (const p of parts) {
    p.keys.forEach((key, j) => {
      const edge = sum.get(key);
      if (edge) {
        edge.value += p.values[j]!;
        edge.total += p.totals[j]!;
      } else sum.set(key, { value: p.values[j]!, total: p.totals[j]! });
    });
  }
  return sum;
}

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

export interface PathsPartJob {
  start: number;
  end: number;
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

/** The part's rows with an item, grouped by person (stable, so each person's rows stay in time order). */
function rowsOfPart(cols: PathsColumns, job: PathsPartJob, part: number): { offsets: Int32Array; row: Int32Array } {
  const { parts, start, end } = job;
  const locals = Math.ceil(Math.max(0, job.actors - part) / parts);
  const offsets = new Int32Array(locals + 1);
  const localOf = (i: number): number => {
    if (cols.item[i - start]! < 0) return -1;
    const d = cols.did[i]!;
    return cols.partOfDid[d] === part ? (cols.slotOfDid[d]! - part) / parts : -1;
  };
  for (let i = start; i < end; i++) {
    const a = localOf(i);
    if (a >= 0) offsets[a + 1]!++;
  }
  for (let a = 0; a < locals; a++) offsets[a + 1]! += offsets[a]!;
  const fill = offsets.slice(0, locals);
  const row = new Int32Array(offsets[locals]!);
  for (let i = start; i < end; i++) {
    const a = localOf(i);
    if (a >= 0) row[fill[a]!++] = i;
  }
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

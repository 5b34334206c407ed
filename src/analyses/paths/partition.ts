import { passes, type KernelColumns, type KernelFilter } from "../parallel/count-kernel.ts";
import { cutPath, pointMatches, type PathCut, type PathPoint } from "./items.ts";

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
}

/**
 * Pass 0 over row chunks: each row's item where its event name alone decides it, else which detail value (a page
 * view's URL, a screen's name) decides it, that value marked as used. Items follow from strings, which the main
 * thread alone holds: it makes the items of the values marked (a few thousand URLs), not of millions of rows.
 */
export type PathsItemsColumns = Pick<KernelColumns, "name" | "did" | "shape" | "valueStart" | "vals">;

export interface PathsItemsJob {
  /** Per event name id: 1 a page view's URL is its item's detail, 2 a screen's name, 0 the name alone. */
  detailOf: Uint8Array;
  /** Per shape, where the URL and the screen name sit in its key list (−1: absent). */
  urlPos: Int32Array;
  screenPos: Int32Array;
  /** Per event name id, the item of a row without a detail value (−1: none). */
  itemOfName: Int32Array;
  /** The paths' own filter: a row it drops is no item. */
  filter: KernelFilter | null;
  /** Detail slots there are (2 · the values in the dictionary). */
  slots: number;
}

/** What one thread's chunks of pass 0 found: per chunk (by its first row) each row's code, and the slots used. */
export interface PathsItemCodes {
  /** Per chunk: its first row, and per row the item (≥ 0), none (−1), or −2 − the detail slot its item waits on. */
  chunks: { from: number; codes: Int32Array }[];
  /** The detail slots the rows read, once each. */
  slots: number[];
  /** 1 at each slot in `slots` (shared memory: the answer carries it back without a copy). */
  seen: Uint8Array;
}

/** Kinds of detail a row's item reads (PathsItemsJob.detailOf). */
export const URL_DETAIL = 1;
export const SCREEN_DETAIL = 2;

/** The detail slot of a value id read as a URL or a screen name. */
export const detailSlot = (valueId: number, detail: number): number => 2 * valueId + detail - 1;

export const newItemCodes = (job: PathsItemsJob): PathsItemCodes => ({ chunks: [], slots: [], seen: new Uint8Array(new SharedArrayBuffer(Math.max(1, job.slots))) });

/** Pass 0 over the rows [from, to) into this thread's codes. */
export function pathsItemRows(cols: PathsItemsColumns, job: PathsItemsJob, from: number, to: number, into: PathsItemCodes): void {
  const { name, shape, valueStart, vals } = cols;
  const codes = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, to - from)));
  for (let i = from; i < to; i++) {
    const n = name[i]!;
    const detail = job.detailOf[n]!;
    const pos = detail === URL_DETAIL ? job.urlPos[shape[i]!]! : detail === SCREEN_DETAIL ? job.screenPos[shape[i]!]! : -1;
    let code = job.itemOfName[n]!;
    if (pos >= 0) {
      const slot = detailSlot(vals[valueStart[i]! + pos]!, detail);
      if (into.seen[slot] === 0) {
        into.seen[slot] = 1;
        into.slots.push(slot);
      }
      code = -2 - slot;
    }
    codes[i - from] = code !== -1 && job.filter !== null && !passes(job.filter, cols, i) ? -1 : code;
  }
  into.chunks.push({ from, codes });
}

/** Pass 1 over row chunks: each chunk's rows with an item, grouped by the part of their person. */
export interface PathsRowsJob {
  parts: number;
  /** Pass 0's codes of each chunk, in chunk order. */
  codes: Int32Array[];
  /** The item of each detail slot pass 0 marked (detailSlot). */
  itemOfDetail: Int32Array;
}

/**
 * One chunk's rows with an item, part after part (part p's at [offsets[p], offsets[p + 1]), in time order), and
 * each one's item; shared memory.
 */
export interface PathsChunkRows {
  chunk: number;
  offsets: Int32Array;
  rows: Int32Array;
  items: Int32Array;
}

/** Pass 2 over the parts of the persons, each reading only its own rows of every chunk. */
export interface PathsPartJob {
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
  const span = job.cut.ellipsis + 1;
  const tally = new Map<number, { value: number; total: number }>();
  forEachPartPath(cols, job, part, (_slot, items, times) => {
    for (let k = 1; k < items.length; k++) {
      const key = ((k - 1) * span + items[k - 1]!) * span + items[k]!;
      let edge = tally.get(key);
      if (!edge) tally.set(key, (edge = { value: 0, total: 0 }));
      edge.value++;
      edge.total += times[k]! - times[k - 1]!;
    }
  });
  const keys = Float64Array.from(tally.keys());
  return { keys, values: Float64Array.from(tally.values(), (e) => e.value), totals: Float64Array.from(tally.values(), (e) => e.total) };
}

/** Pass 2 for an actors request: per person of the part, how many times its paths count for the point. */
export interface PathsActorsJob extends PathsPartJob {
  point: PathPoint<number>;
}

/** Actor slots and their counts (none zero). */
export interface PartActors {
  slots: Int32Array;
  counts: Float64Array;
}

export function pathsActorsPart(cols: PathsColumns, job: PathsActorsJob, part: number): PartActors {
  const counts = new Map<number, number>();
  forEachPartPath(cols, job, part, (slot, items) => {
    const n = pointMatches(items, job.point);
    if (n > 0) counts.set(slot, (counts.get(slot) ?? 0) + n);
  });
  return { slots: Int32Array.from(counts.keys()), counts: Float64Array.from(counts.values()) };
}

/**
 * Each cut path of the part's persons, with its person's actor slot: a person's rows split into sessions at the
 * gap and cut as the general scan cuts them. The arrays passed are the cut's own (cutPath copies what it keeps).
 */
function forEachPartPath(cols: PathsColumns, job: PathsPartJob, part: number, visit: (slot: number, items: number[], times: number[]) => void): void {
  const { offsets, row, item } = rowsOfPart(cols, job, part);
  const items: number[] = [];
  const times: number[] = [];
  const emit = (slot: number) => {
    const path = cutPath(items, times, job.cut);
    if (path) visit(slot, path.items, path.times);
    items.length = times.length = 0;
  };
  for (let a = 0; a + 1 < offsets.length; a++) {
    const slot = a * job.parts + part;
    for (let k = offsets[a]!; k < offsets[a + 1]!; k++) {
      const t = cols.ts[row[k]!]!;
      if (times.length > 0 && t - times[times.length - 1]! >= job.sessionGapMs) emit(slot);
      items.push(item[k]!);
      times.push(t);
    }
    if (times.length > 0) emit(slot);
  }
}

/** Pass 1: the rows [from, to) with an item, grouped by the part of their person (one read counts, one places). */
export function pathsChunkRows(cols: PathsColumns, job: PathsRowsJob, from: number, to: number, chunk: number): PathsChunkRows {
  const { parts, itemOfDetail } = job;
  const codes = job.codes[chunk]!;
  const itemAt = (i: number): number => {
    const code = codes[i - from]!;
    return code <= -2 ? itemOfDetail[-2 - code]! : code;
  };
  const offsets = new Int32Array(parts + 1);
  for (let i = from; i < to; i++) if (itemAt(i) >= 0) offsets[cols.partOfDid[cols.did[i]!]! + 1]!++;
  for (let p = 0; p < parts; p++) offsets[p + 1]! += offsets[p]!;
  const rows = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, offsets[parts]!)));
  const items = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, offsets[parts]!)));
  const fill = offsets.slice(0, parts);
  for (let i = from; i < to; i++) {
    const item = itemAt(i);
    if (item < 0) continue;
    const at = fill[cols.partOfDid[cols.did[i]!]!]!++;
    rows[at] = i;
    items[at] = item;
  }
  return { chunk, offsets, rows, items };
}

/** The part's rows and their items, grouped by person (stable: chunks come in time order, so each person's rows stay in it). */
function rowsOfPart(cols: PathsColumns, job: PathsPartJob, part: number): { offsets: Int32Array; row: Int32Array; item: Int32Array } {
  const { parts } = job;
  const locals = Math.ceil(Math.max(0, job.actors - part) / parts);
  const offsets = new Int32Array(locals + 1);
  const localOf = (i: number): number => (cols.slotOfDid[cols.did[i]!]! - part) / parts;
  for (const { offsets: at, rows } of job.chunks) for (let k = at[part]!; k < at[part + 1]!; k++) offsets[localOf(rows[k]!) + 1]!++;
  for (let a = 0; a < locals; a++) offsets[a + 1]! += offsets[a]!;
  const fill = offsets.slice(0, locals);
  const row = new Int32Array(offsets[locals]!);
  const item = new Int32Array(offsets[locals]!);
  for (const { offsets: at, rows, items } of job.chunks) {
    for (let k = at[part]!; k < at[part + 1]!; k++) {
      const j = fill[localOf(rows[k]!)]!++;
      row[j] = rows[k]!;
      item[j] = items[k]!;
    }
  }
  return { offsets, row, item };
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

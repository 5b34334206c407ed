/**
 * The typed arrays that hold a table's events, one per field, in shared memory so that scan workers read them where
 * they are. A column set is replaced, never rewritten below the rows it holds, when events are inserted or removed
 * or the arrays grow: a row read before a change keeps reading what it read.
 */
import type { UuidWords } from "./uuid-words.ts";

/** The columns of one table; replaced, never rewritten below `rowsWritten`, when events are inserted or removed. */
export interface ColumnArrays {
  /** Epoch ms, ascending. */
  ts: Float64Array;
  /** Ids in the dictionaries (src/store/columns/dictionaries.ts): event name, distinct id, elements chain, shape. */
  name: Uint32Array;
  did: Uint32Array;
  /** Four words per event (src/store/columns/uuid-words.ts). */
  uuid: Uint32Array;
  chain: Uint32Array;
  shape: Uint32Array;
  /** Where the event's value ids start in `vals` (as many as its shape has keys). */
  valueStart: Uint32Array;
  /** Property value ids, each event's in the order of its shape's keys. */
  vals: Uint32Array;
  /** The log number of the batch that wrote each row (src/store/log.ts): what the table's followers select by. */
  seq: Uint32Array;
  /** How far rows and values have been written: a table may append in place only at these marks. */
  rowsWritten: number;
  valuesWritten: number;
  /** Set once a second table reads these arrays (share): no change in place below `rowsWritten` from then on. */
  shared: boolean;
}

/**
 * What a scan reads: the columns and the row count when it started. Rows below `length` are never rewritten
 * (the table copies before any change there), so workers may read them while capture appends or a deletion
 * builds new columns.
 */
export interface ScanSnapshot {
  ts: Float64Array;
  name: Uint32Array;
  did: Uint32Array;
  shape: Uint32Array;
  valueStart: Uint32Array;
  vals: Uint32Array;
  length: number;
  /** Dictionary sizes at the start: every id in the rows is below them. */
  names: number;
  distinctIds: number;
  shapes: number;
}

/** One event encoded: what `writeRow` writes (its value ids go to the end of `vals`). */
export interface EncodedEvent {
  ts: number;
  name: number;
  did: number;
  uuid: UuidWords;
  chain: number;
  shape: number;
  values: number[];
  seq: number;
}

/** Columns live in shared memory: scan workers read them where they are, without a copy. */
export const sharedFloat64 = (length: number) => new Float64Array(new SharedArrayBuffer(length * 8));
export const sharedUint32 = (length: number) => new Uint32Array(new SharedArrayBuffer(length * 4));

/** The columns with one entry per row (the uuid has four, `vals` its own length). */
const ONE_PER_ROW = ["ts", "name", "did", "chain", "shape", "valueStart", "seq"] as const;

export const emptyColumns = (rowCapacity: number, valueCapacity: number): ColumnArrays => ({
  ts: sharedFloat64(rowCapacity),
  name: sharedUint32(rowCapacity),
  did: sharedUint32(rowCapacity),
  uuid: sharedUint32(rowCapacity * 4),
  chain: sharedUint32(rowCapacity),
  shape: sharedUint32(rowCapacity),
  valueStart: sharedUint32(rowCapacity),
  vals: sharedUint32(valueCapacity),
  seq: sharedUint32(rowCapacity),
  rowsWritten: 0,
  valuesWritten: 0,
  shared: false,
});

/** Capacity for `n` items plus a sixteenth (at least 1,024): what a trimmed table keeps for appends. */
export const roomFor = (n: number) => n + Math.max(1024, Math.ceil(n / 16));

/** Capacity for at least `needed` items when `current` is full: growth by half, not doubling (a doubled table of ten million rows would strand a gigabyte). */
export const grownCapacity = (needed: number, current: number, minimum: number) => Math.max(needed, Math.ceil(current * 1.5), minimum);

/** The first `rows` rows and `values` value ids of `from` in new arrays of these capacities. */
export function copiedColumns(from: ColumnArrays, rows: number, values: number, rowCapacity: number, valueCapacity: number): ColumnArrays {
  const next = emptyColumns(rowCapacity, valueCapacity);
  copyRows(from, 0, rows, next, 0);
  next.vals.set(from.vals.subarray(0, values));
  next.rowsWritten = rows;
  next.valuesWritten = values;
  return next;
}

/** Rows `start` to `end` (excluded) of `from` to `to` from row `at` on, value ids aside. */
export function copyRows(from: ColumnArrays, start: number, end: number, to: ColumnArrays, at: number): void {
  if (start === end) return;
  for (const key of ONE_PER_ROW) (to[key] as Uint32Array).set((from[key] as Uint32Array).subarray(start, end), at);
  to.uuid.set(from.uuid.subarray(start * 4, end * 4), at * 4);
}

function copyRow(from: ColumnArrays, i: number, to: ColumnArrays, j: number): void {
  to.ts[j] = from.ts[i]!;
  to.name[j] = from.name[i]!;
  to.did[j] = from.did[i]!;
  to.chain[j] = from.chain[i]!;
  to.shape[j] = from.shape[i]!;
  to.seq[j] = from.seq[i]!;
  to.uuid.set(from.uuid.subarray(i * 4, i * 4 + 4), j * 4);
}

/** Writes an event at row `i`, its value ids at `valuesAt` in `vals`. */
export function writeRow(cols: ColumnArrays, i: number, e: EncodedEvent, valuesAt: number): void {
  cols.ts[i] = e.ts;
  cols.name[i] = e.name;
  cols.did[i] = e.did;
  cols.uuid.set(e.uuid, i * 4);
  cols.chain[i] = e.chain;
  cols.shape[i] = e.shape;
  cols.seq[i] = e.seq;
  cols.valueStart[i] = valuesAt;
  cols.vals.set(e.values, valuesAt);
}

/**
 * The rows of `from` (`rows` rows, `values` value ids) with `late` inserted, in new arrays: `late` sorted by time,
 * `late[j]` going before the stored row `at[j]` (ascending), after any inserted before it. Rows are copied in runs.
 */
export function withInsertedRows(from: ColumnArrays, rows: number, values: number, late: readonly EncodedEvent[], at: Int32Array): ColumnArrays {
  const k = late.length;
  const extraValues = late.reduce((sum, e) => sum + e.values.length, 0);
  const next = emptyColumns(Math.max(from.ts.length, rows + k), Math.max(from.vals.length, values + extraValues));
  next.vals.set(from.vals.subarray(0, values));
  let valuesAt = values;
  for (let j = 0; j <= k; j++) {
    const start = j === 0 ? 0 : at[j - 1]!;
    const end = j === k ? rows : at[j]!;
    copyRows(from, start, end, next, start + j);
    if (j === k) break;
    writeRow(next, end + j, late[j]!, valuesAt);
    valuesAt += late[j]!.values.length;
  }
  next.rowsWritten = rows + k;
  next.valuesWritten = valuesAt;
  return next;
}

/** The rows at positions `kept` (ascending) of `from` in new arrays, their value ids packed; `shapes` gives each row's value count. */
export function withRowsKept(from: ColumnArrays, kept: readonly number[], shapes: readonly Uint32Array[], valueCapacity: number): ColumnArrays {
  const next = emptyColumns(Math.max(1024, kept.length), valueCapacity);
  let valuesAt = 0;
  kept.forEach((i, j) => {
    copyRow(from, i, next, j);
    const count = shapes[from.shape[i]!]!.length;
    next.vals.set(from.vals.subarray(from.valueStart[i]!, from.valueStart[i]! + count), valuesAt);
    next.valueStart[j] = valuesAt;
    valuesAt += count;
  });
  next.rowsWritten = kept.length;
  next.valuesWritten = valuesAt;
  return next;
}

/**
 * A project's events as columns (src/store/columns/): typed arrays for the timestamps and the dictionary ids of every
 * string, and the properties as a "shape" (the event's key list, shared by all events with the same keys) plus one
 * value id per key: a third of the memory the events took as objects (figures: bench/NOTES.md). A scan reads
 * numbers, not objects; a row is materialised as an object (`EventRow`) only for what is read.
 *
 * Rows keep a reference to the column set they were read from: appending writes past every existing row,
 * and every other change (an out-of-order insert, a deletion, growth) builds new arrays, so a row read before
 * a change keeps reading what it read. Tables made by `share()` share the arrays until one of them changes.
 */
import { copiedColumns, emptyColumns, grownCapacity, roomFor, withInsertedRows, withRowsKept, writeRow, type ColumnArrays, type EncodedEvent, type ScanSnapshot } from "./columns/column-arrays.ts";
import { EventDictionaries } from "./columns/dictionaries.ts";
import { flattenShapes, newSummaryTally, summaryOf, summaryRows, type EventSummary, type SummaryScan } from "./columns/event-summary.ts";
import { positionsByName, runsAfter, upperBound } from "./columns/row-positions.ts";
import { UuidIndex, type UuidWork } from "./columns/uuid-index.ts";
import { marksOddUuid, uuidTextOfWords } from "./columns/uuid-words.ts";
import { encodeEvent } from "./encode-event.ts";
import { EventRow } from "./event-row.ts";
import type { EventRecord, Properties } from "./schema.ts";

export class EventTable {
  #cols: ColumnArrays;
  #length = 0;
  #valuesLength = 0;
  /** Changes whenever the rows do (the lookups below are rebuilt then). */
  #generation = 0;
  #byName: { generation: number; positions: Map<number, Int32Array> } | undefined;
  /** The key `propertyAt` read last and its positions in the shapes: a scan reads the same key event after event. */
  #recentKey: string | undefined;
  #recentKeyPositions: Int32Array | undefined;
  /**
   * Capture deduplicates every event by uuid: built by a bulk load's trim (else at the first lookup), then kept
   * current by appends and inserts; dropped when rows are removed (rebuilt at the next lookup). A `share()` copy
   * builds its own when asked.
   */
  #byUuid: UuidIndex | undefined;
  readonly #uuidWork: UuidWork = { rows: 0 };

  constructor(
    readonly projectId: string,
    readonly dict: EventDictionaries = new EventDictionaries(),
    capacity = 1024,
  ) {
    this.#cols = emptyColumns(capacity, capacity * 8);
  }

  get length(): number {
    return this.#length;
  }

  /** The rows' arrays, exactly `length` long (views, not copies): what the column snapshot writes. */
  columnsForSnapshot(): { rows: number; vals: number; arrays: (Float64Array | Uint32Array)[] } {
    const c = this.#cols;
    const n = this.#length;
    return {
      rows: n,
      vals: this.#valuesLength,
      arrays: [c.ts.subarray(0, n), c.name.subarray(0, n), c.did.subarray(0, n), c.uuid.subarray(0, n * 4), c.chain.subarray(0, n), c.shape.subarray(0, n), c.valueStart.subarray(0, n), c.vals.subarray(0, this.#valuesLength), c.seq.subarray(0, n)],
    };
  }

  /** A table over arrays read from a column snapshot, in `columnsForSnapshot` order. */
  static fromSnapshot(projectId: string, dict: EventDictionaries, rows: number, vals: number, arrays: (Float64Array | Uint32Array)[]): EventTable {
    const [ts, name, did, uuid, chain, shape, valueStart, values, seq] = arrays;
    const table = new EventTable(projectId, dict, 0);
    table.#cols = { ts: ts as Float64Array, name: name as Uint32Array, did: did as Uint32Array, uuid: uuid as Uint32Array, chain: chain as Uint32Array, shape: shape as Uint32Array, valueStart: valueStart as Uint32Array, vals: values as Uint32Array, seq: seq as Uint32Array, rowsWritten: rows, valuesWritten: vals, shared: false };
    table.#length = rows;
    table.#valuesLength = vals;
    return table;
  }

  /** Epoch ms of the event at `i` (ascending in i). */
  timestampAt(i: number): number {
    return this.#cols.ts[i]!;
  }
  nameIdAt(i: number): number {
    return this.#cols.name[i]!;
  }
  distinctIdIdAt(i: number): number {
    return this.#cols.did[i]!;
  }
  nameIdOf(name: string): number | undefined {
    return this.dict.names.find(name);
  }
  distinctIdIdOf(distinctId: string): number | undefined {
    return this.dict.distinctIds.find(distinctId);
  }
  /** The scan columns as they are now (valid up to `length`; read-only for callers). */
  scanColumns(): { ts: Float64Array; name: Uint32Array; did: Uint32Array; names: number; distinctIds: number } {
    const cols = this.#cols;
    return { ts: cols.ts, name: cols.name, did: cols.did, names: this.dict.names.values.length, distinctIds: this.dict.distinctIds.values.length };
  }
  /**
   * The columns and row count as they are now, for scans that may outlive this turn (workers): from here on
   * the table copies its arrays before changing a row below `length` (as after `share()`).
   */
  scanSnapshot(): ScanSnapshot {
    const c = this.#cols;
    c.shared = true;
    const d = this.dict;
    return { ts: c.ts, name: c.name, did: c.did, shape: c.shape, valueStart: c.valueStart, vals: c.vals, length: this.#length, names: d.names.values.length, distinctIds: d.distinctIds.values.length, shapes: d.shapes.length };
  }
  /** Where a property key sits in each shape's key list (-1: absent), for shapes 0 … `shapes`-1. */
  keyPositions(key: string): Int32Array {
    const keyId = this.dict.keys.find(key);
    return keyId === undefined ? new Int32Array(this.dict.shapes.length).fill(-1) : this.dict.keyPositionsInShapes(keyId);
  }
  /** A property value by its id (as stored in `vals`). */
  valueOfId(id: number): unknown {
    return this.dict.values.values[id];
  }
  /** The ids of the stored values a breakdown shows as no value: null and the empty string. */
  emptyValueIds(): number[] {
    const empty = this.dict.values.findString("");
    return empty === undefined ? [this.dict.values.id(null)] : [this.dict.values.id(null), empty];
  }
  /** Values in the dictionary (shared by the store's tables): every value id in the rows is below it. */
  valueCount(): number {
    return this.dict.values.values.length;
  }

  nameOfId(id: number): string {
    return this.dict.names.values[id]!;
  }
  distinctIdOfId(id: number): string {
    return this.dict.distinctIds.values[id]!;
  }

  /**
   * One row object that a scan moves from event to event (`moveTo`), for visitors that read the event only
   * during their call: a scan of millions then makes no object per event.
   */
  cursor(): EventRow {
    return new EventRow(this, this.#cols, 0);
  }

  /** The event at `i` as a row object (undefined past the end, as an array's `at`). */
  at(i: number): EventRow | undefined {
    if (i < 0) i += this.#length;
    return i >= 0 && i < this.#length ? new EventRow(this, this.#cols, i) : undefined;
  }

  *[Symbol.iterator](): IterableIterator<EventRow> {
    const cols = this.#cols;
    const n = this.#length;
    for (let i = 0; i < n; i++) yield new EventRow(this, cols, i);
  }

  /** The log number of the batch that wrote the event at `i`. */
  seqAt(i: number): number {
    return this.#cols.seq[i]!;
  }

  /**
   * The rows written after log number `seq`, as ascending runs of positions ([from, to) pairs): what a follower
   * that applied `seq` has yet to apply. Read it from a table that no longer changes (`share`).
   */
  runsAfter(seq: number): number[] {
    return runsAfter(this.#cols.seq, this.#length, seq);
  }

  /** Adds an event at its place by timestamp; ties keep arrival order. `seq`: the log number of its batch. */
  add(event: EventRecord, seq = 0): void {
    const encoded = encodeEvent(this.dict, event, seq);
    if (this.#appendable(encoded)) this.#append(encoded);
    else this.#insertAll([encoded]);
  }

  /**
   * Adds events as `add` one by one would. Those older than the newest stored one (an SDK's queued events) go in
   * together: one copy of the table for the batch, where `add` copies it for each.
   */
  addAll(events: readonly EventRecord[], seq: number | ArrayLike<number> = 0): void {
    const late: EncodedEvent[] = [];
    for (let k = 0; k < events.length; k++) {
      const encoded = encodeEvent(this.dict, events[k]!, typeof seq === "number" ? seq : seq[k]!);
      if (late.length === 0 && this.#appendable(encoded)) this.#append(encoded);
      else late.push(encoded);
    }
    if (late.length) this.#insertAll(late);
  }

  /** Keeps the events whose distinct id passes; true when any was removed. */
  retainDistinctIds(keep: (distinctId: string) => boolean): boolean {
    const verdict = new Map<number, boolean>();
    const dids = this.#cols.did;
    const n = this.#length;
    const kept: number[] = [];
    for (let i = 0; i < n; i++) {
      const did = dids[i]!;
      let ok = verdict.get(did);
      if (ok === undefined) verdict.set(did, (ok = keep(this.dict.distinctIds.values[did]!)));
      if (ok) kept.push(i);
    }
    if (kept.length === n) return false;
    this.#byUuid = undefined;
    this.#replaceColumns(withRowsKept(this.#cols, kept, this.dict.shapes, Math.max(8192, this.#valuesLength)));
    return true;
  }

  /**
   * A table with the same rows that changes independently of this one, in O(1): both share the arrays, the
   * first to append does so in place, the other copies them when it changes (see ColumnArrays.rowsWritten).
   */
  share(): EventTable {
    const copy = new EventTable(this.projectId, this.dict, 0);
    copy.#cols = this.#cols;
    copy.#length = this.#length;
    copy.#valuesLength = this.#valuesLength;
    this.#cols.shared = true;
    return copy;
  }

  /**
   * A summary's inputs over the rows now (src/store/columns/event-summary.ts): the scan snapshot's columns, the shapes'
   * key lists flattened, and `valueKinds`, each value id's kind (0 … kinds − 1, −1 for none; it covers every value id
   * now). `since`/`until`: the window of the names' recent counts.
   */
  summaryScan(valueKinds: Int8Array, kinds: number, since: number, until: number): SummaryScan {
    const snap = this.scanSnapshot();
    const { ts, name, shape, valueStart, vals } = snap;
    const keys = this.dict.keys.values;
    const job = { names: snap.names, keys: keys.length, shapes: snap.shapes, kinds, since, until };
    const cols = { ts, name, shape, valueStart, vals, ...flattenShapes(this.dict.shapes.slice(0, snap.shapes)), valueKinds };
    return { cols, job, rows: snap.length, names: this.dict.names.values, keys };
  }

  /** The summary of every row in one pass on this thread: what the scan workers' "summary" task gives in parts. */
  summarize(valueKinds: Int8Array, kinds: number, since: number, until: number): EventSummary {
    const scan = this.summaryScan(valueKinds, kinds, since, until);
    const tally = newSummaryTally(scan.job);
    summaryRows(scan.cols, scan.job, 0, scan.rows, tally);
    return summaryOf(scan, tally);
  }

  /**
   * After a bulk load: the arrays cut to the rows plus a sixteenth of room, and the uuid index built. Without the
   * room the first captured event copied the whole table, and without the index the first lookup built it, both
   * inside a capture request.
   */
  trim(): void {
    const rows = roomFor(this.#length);
    const values = roomFor(this.#valuesLength);
    const cols = this.#cols;
    if (cols.ts.length > rows || cols.vals.length > values) this.#copyColumns(Math.min(rows, cols.ts.length), Math.min(values, cols.vals.length));
    this.#byUuid ??= UuidIndex.build(this.#cols.uuid, this.#length, this.#uuidWork);
  }

  /** Moves every timestamp by `offsetMs` (in place unless another table shares the arrays). */
  shiftTimestamps(offsetMs: number): void {
    if (this.#cols.shared) this.#copyColumns(this.#length, this.#valuesLength);
    const ts = this.#cols.ts;
    for (let i = 0; i < this.#length; i++) ts[i] = ts[i]! + offsetMs;
    this.#generation++;
  }

  /** Positions of one event name's events, ascending (built once per change of the rows). */
  positionsOfName(name: string): Int32Array {
    const id = this.dict.names.find(name);
    if (id === undefined) return new Int32Array(0);
    if (this.#byName?.generation !== this.#generation) this.#byName = { generation: this.#generation, positions: positionsByName(this.#cols.name, this.#length) };
    return this.#byName.positions.get(id) ?? new Int32Array(0);
  }

  /** Position of the event with this uuid (the first, should two share it), or -1; through the uuid index. */
  positionOfUuid(uuid: string): number {
    const words = this.dict.findUuidWords(uuid);
    if (words === null) return -1;
    const col = this.#cols.uuid;
    this.#byUuid ??= UuidIndex.build(col, this.#length, this.#uuidWork);
    return this.#byUuid.find(col, words[0], words[1], words[2], words[3]);
  }

  /** Uuid rows read so far by the uuid index (builds and lookups): lets a test bound the work of one lookup. */
  get uuidRowsRead(): number {
    return this.#uuidWork.rows;
  }

  /** Reads one property of the event at `i` without materialising the others. */
  propertyAt(i: number, key: string, cols: ColumnArrays = this.#cols): unknown {
    let byShape = this.#recentKey === key ? this.#recentKeyPositions : undefined;
    const shape = cols.shape[i]!;
    if (byShape === undefined || byShape.length <= shape) {
      const keyId = this.dict.keys.find(key);
      if (keyId === undefined) return undefined;
      byShape = this.dict.keyPositionsInShapes(keyId);
      this.#recentKey = key;
      this.#recentKeyPositions = byShape;
    }
    const pos = byShape[shape]!;
    return pos < 0 ? undefined : this.dict.values.values[cols.vals[cols.valueStart[i]! + pos]!];
  }

  /** The properties object of the event at `i`. */
  propertiesAt(i: number, cols: ColumnArrays = this.#cols): Properties {
    const keys = this.dict.shapes[cols.shape[i]!]!;
    const start = cols.valueStart[i]!;
    const out: Properties = {};
    for (let k = 0; k < keys.length; k++) out[this.dict.keys.values[keys[k]!]!] = this.dict.values.values[cols.vals[start + k]!];
    return out;
  }

  uuidAt(i: number, cols: ColumnArrays = this.#cols): string {
    const j = i * 4;
    const w = cols.uuid;
    return marksOddUuid(w[j], w[j + 1], w[j + 2]) ? this.dict.oddUuids.values[w[j + 3]!]! : uuidTextOfWords(w, j);
  }

  #ensureCapacity(rows: number, values: number): void {
    const cols = this.#cols;
    const mine = cols.rowsWritten === this.#length && cols.valuesWritten === this.#valuesLength;
    if (mine && cols.ts.length >= rows && cols.vals.length >= values) return;
    this.#copyColumns(grownCapacity(rows, cols.ts.length, 1024), grownCapacity(values, cols.vals.length, 8192));
  }

  /** Moves the rows into new arrays of these capacities (this table's own from then on). */
  #copyColumns(rowCapacity: number, valueCapacity: number): void {
    this.#cols = copiedColumns(this.#cols, this.#length, this.#valuesLength, rowCapacity, valueCapacity);
  }

  #append(e: EncodedEvent): void {
    this.#ensureCapacity(this.#length + 1, this.#valuesLength + e.values.length);
    const cols = this.#cols;
    writeRow(cols, this.#length, e, this.#valuesLength);
    this.#valuesLength += e.values.length;
    this.#byUuid?.add(cols.uuid, this.#length);
    this.#length++;
    cols.rowsWritten = this.#length;
    cols.valuesWritten = this.#valuesLength;
    this.#generation++;
  }

  #appendable(e: EncodedEvent): boolean {
    const n = this.#length;
    return n === 0 || this.#cols.ts[n - 1]! <= e.ts;
  }

  /**
   * Out-of-order events: new arrays, the stored rows copied in runs between the new ones (rows read earlier keep
   * the old arrays). Sorted stably by time, each goes after the stored events of its time, as `add` places it.
   */
  #insertAll(late: EncodedEvent[]): void {
    late.sort((a, b) => a.ts - b.ts);
    const at = Int32Array.from(late, (e) => upperBound(this.#cols.ts, this.#length, e.ts));
    const next = withInsertedRows(this.#cols, this.#length, this.#valuesLength, late, at);
    this.#replaceColumns(next);
    if (this.#byUuid) {
      this.#byUuid.shiftForInserts(at);
      for (let j = 0; j < late.length; j++) this.#byUuid.add(next.uuid, at[j]! + j);
    }
  }

  /** Takes new arrays holding every row (a rebuild): the rows changed. */
  #replaceColumns(next: ColumnArrays): void {
    this.#cols = next;
    this.#length = next.rowsWritten;
    this.#valuesLength = next.valuesWritten;
    this.#generation++;
  }
}

/**
 * A project's events as columns: typed arrays for the timestamps and the dictionary ids of every string, and
 * the properties as a "shape" (the event's key list, shared by all events with the same keys) plus one value
 * id per key. Ten million events take ~1 GiB instead of the ~3 GiB their objects took, and a scan reads
 * numbers, not objects. A row is materialised as an object (`EventRow`) only for what is read.
 *
 * Rows keep a reference to the column set they were read from: appending writes past every existing row,
 * and every other change (an out-of-order insert, a deletion, growth) builds new arrays, so a row read before
 * a change keeps reading what it read. Tables made by `share()` share the arrays until one of them changes.
 */
import type { EventRecord, Properties } from "./schema.ts";
import { flattenShapes, newSummaryTally, summaryOf, summaryRows, type EventSummary, type SummaryScan } from "./event-summary.ts";
import { UuidIndex, type UuidWork } from "./uuid-index.ts";

/** The columns of one table; replaced, never rewritten below `length`, when events are inserted or removed. */
interface Columns {
  ts: Float64Array;
  name: Uint32Array;
  did: Uint32Array;
  /** Four words per event: the uuid's 128 bits, or ODD_UUID ×3 and an index into `oddUuids`. */
  uuid: Uint32Array;
  chain: Uint32Array;
  shape: Uint32Array;
  /** Where the event's value ids start in `vals` (as many as its shape has keys). */
  voff: Uint32Array;
  vals: Uint32Array;
  /** The log number of the batch that wrote each row (src/store/log.ts): what the table's followers select by. */
  seq: Uint32Array;
  /** How far rows and values have been written: a table may append in place only at this mark. */
  hw: number;
  vhw: number;
  /** Set once a second table reads these arrays (share): no change in place below `hw` from then on. */
  shared: boolean;
}

const ODD_UUID = 0xffffffff;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
/** Value of a lower-case hex digit's char code, -1 for anything else. */
const NIBBLE = Int8Array.from({ length: 128 }, (_, c) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1));

/** The four words of a canonical lower-case uuid (8-4-4-4-12), or null: one pass over the characters. */
function canonicalUuidWords(uuid: string): [number, number, number, number] | null {
  if (uuid.length !== 36) return null;
  const words: [number, number, number, number] = [0, 0, 0, 0];
  let nibbles = 0;
  for (let i = 0; i < 36; i++) {
    const c = uuid.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return null;
      continue;
    }
    const v = c < 128 ? NIBBLE[c]! : -1;
    if (v < 0) return null;
    const w = nibbles >>> 3;
    words[w] = ((words[w]! << 4) | v) >>> 0;
    nibbles++;
  }
  return words;
}

/** A string dictionary: id ↔ value, append-only (tables sharing one never see each other's ids change). */
class Dictionary<T> {
  readonly values: T[] = [];
  readonly #ids = new Map<T, number>();
  constructor(initial: readonly T[] = []) {
    for (const v of initial) this.id(v);
  }
  id(value: T): number {
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.#ids.set(value, id);
    }
    return id;
  }
  find(value: T): number | undefined {
    return this.#ids.get(value);
  }
}

/** Property values by id: strings and numbers by value, objects and lists by their JSON (frozen, shared). */
class ValueDictionary {
  readonly values: unknown[] = [false, true, null];
  readonly #strings = new Map<string, number>();
  readonly #numbers = new Map<number, number>();
  readonly #json = new Map<string, number>();

  /** Adds a value at the next id (restoring a snapshot: the lists hold each value once). */
  append(value: unknown): void {
    const before = this.values.length;
    if (this.id(value) !== before) throw new Error("column snapshot: a dictionary value is listed twice");
  }

  id(value: unknown): number {
    switch (typeof value) {
      case "boolean":
        return value ? 1 : 0;
      case "string":
        return this.#intern(this.#strings, value, value);
      case "number":
        return this.#intern(this.#numbers, value, value);
      default:
        if (value === null) return 2;
        return this.#intern(this.#json, JSON.stringify(value), value, true);
    }
  }

  /** The id of a string value already stored, else undefined. */
  findString(value: string): number | undefined {
    return this.#strings.get(value);
  }

  /** `freeze`: an object or list, frozen when first stored (its one copy is shared by every event with it). */
  #intern<K>(map: Map<K, number>, key: K, value: unknown, freeze = false): number {
    let id = map.get(key);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(freeze ? deepFreeze(value) : value);
      map.set(key, id);
    }
    return id;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

interface ShapeNode {
  id: number;
  next: Map<number, ShapeNode>;
}

/** The dictionaries as plain lists (the column snapshot's header): ids are list positions. */
export interface DictionaryLists {
  names: string[];
  distinctIds: string[];
  chains: string[];
  keys: string[];
  /** From id 3 on (0–2 are false, true, null). */
  values: unknown[];
  shapes: number[][];
  oddUuids: string[];
}

/** What tables of one store share: every dictionary (append-only). */
export class EventDictionaries {
  readonly names = new Dictionary<string>();
  readonly distinctIds = new Dictionary<string>();
  readonly chains = new Dictionary<string>([""]);
  readonly keys = new Dictionary<string>();
  readonly values = new ValueDictionary();
  /** Each shape's key ids, in the order the event had them. */
  readonly shapes: Uint32Array[] = [];
  /** Shapes by key list, as a trie of key ids: no signature string built per event. */
  readonly #shapeTrie: ShapeNode = { id: -1, next: new Map() };
  readonly oddUuids = new Dictionary<string>();

  toLists(): DictionaryLists {
    return {
      names: this.names.values,
      distinctIds: this.distinctIds.values,
      chains: this.chains.values,
      keys: this.keys.values,
      values: this.values.values.slice(3),
      shapes: this.shapes.map((s) => Array.from(s)),
      oddUuids: this.oddUuids.values,
    };
  }

  /** Dictionaries with these lists' ids (each list's position is its id). */
  static fromLists(lists: DictionaryLists): EventDictionaries {
    const dict = new EventDictionaries();
    const fill = (d: Dictionary<string>, values: readonly string[]) => {
      values.forEach((v, i) => (d.values.length === i ? d.id(v) : undefined));
      if (d.values.length !== values.length) throw new Error("column snapshot: a dictionary lists a value twice");
    };
    fill(dict.names, lists.names);
    fill(dict.distinctIds, lists.distinctIds);
    fill(dict.chains, lists.chains);
    fill(dict.keys, lists.keys);
    fill(dict.oddUuids, lists.oddUuids);
    for (const v of lists.values) dict.values.append(v);
    for (const s of lists.shapes) dict.shapeId(s);
    return dict;
  }

  shapeId(keyIds: readonly number[]): number {
    let node = this.#shapeTrie;
    for (const key of keyIds) {
      let child = node.next.get(key);
      if (!child) node.next.set(key, (child = { id: -1, next: new Map() }));
      node = child;
    }
    if (node.id === -1) {
      node.id = this.shapes.length;
      this.shapes.push(Uint32Array.from(keyIds));
    }
    return node.id;
  }
}

/** Columns live in shared memory: scan workers read them where they are, without a copy. */
export const sharedFloat64 = (length: number) => new Float64Array(new SharedArrayBuffer(length * 8));
export const sharedUint32 = (length: number) => new Uint32Array(new SharedArrayBuffer(length * 4));

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
  voff: Uint32Array;
  vals: Uint32Array;
  length: number;
  /** Dictionary sizes at the start: every id in the rows is below them. */
  names: number;
  distinctIds: number;
  shapes: number;
}

const emptyColumns = (capacity: number, vals: number): Columns => ({
  ts: sharedFloat64(capacity),
  name: sharedUint32(capacity),
  did: sharedUint32(capacity),
  uuid: sharedUint32(capacity * 4),
  chain: sharedUint32(capacity),
  shape: sharedUint32(capacity),
  voff: sharedUint32(capacity),
  vals: sharedUint32(vals),
  seq: sharedUint32(capacity),
  hw: 0,
  vhw: 0,
  shared: false,
});

/** One event encoded: what `insertAt` writes (values separately, they go to the end of `vals`). */
interface Encoded {
  ts: number;
  name: number;
  did: number;
  uuid: [number, number, number, number];
  chain: number;
  shape: number;
  values: number[];
  seq: number;
}

export class EventTable {
  #cols: Columns;
  #length = 0;
  #valsLength = 0;
  /** Changes whenever the rows do (the lookups below are rebuilt then). */
  #generation = 0;
  #byName: { generation: number; positions: Map<number, Int32Array> } | undefined;
  #posByShape = new Map<number, Int32Array>();
  #lastKey: string | undefined;
  #lastPositions: Int32Array | undefined;
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
      vals: this.#valsLength,
      arrays: [c.ts.subarray(0, n), c.name.subarray(0, n), c.did.subarray(0, n), c.uuid.subarray(0, n * 4), c.chain.subarray(0, n), c.shape.subarray(0, n), c.voff.subarray(0, n), c.vals.subarray(0, this.#valsLength), c.seq.subarray(0, n)],
    };
  }

  /** A table over arrays read from a column snapshot, in `columnsForSnapshot` order. */
  static fromSnapshot(projectId: string, dict: EventDictionaries, rows: number, vals: number, arrays: (Float64Array | Uint32Array)[]): EventTable {
    const [ts, name, did, uuid, chain, shape, voff, values, seq] = arrays;
    const table = new EventTable(projectId, dict, 0);
    table.#cols = { ts: ts as Float64Array, name: name as Uint32Array, did: did as Uint32Array, uuid: uuid as Uint32Array, chain: chain as Uint32Array, shape: shape as Uint32Array, voff: voff as Uint32Array, vals: values as Uint32Array, seq: seq as Uint32Array, hw: rows, vhw: vals, shared: false };
    table.#length = rows;
    table.#valsLength = vals;
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
    return { ts: c.ts, name: c.name, did: c.did, shape: c.shape, voff: c.voff, vals: c.vals, length: this.#length, names: d.names.values.length, distinctIds: d.distinctIds.values.length, shapes: d.shapes.length };
  }
  /** Where a property key sits in each shape's key list (-1: absent), for shapes 0 … `shapes`-1. */
  keyPositions(key: string): Int32Array {
    const keyId = this.dict.keys.find(key);
    return keyId === undefined ? new Int32Array(this.dict.shapes.length).fill(-1) : this.#positionsInShapes(keyId);
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
    const col = this.#cols.seq;
    const runs: number[] = [];
    for (let i = 0; i < this.#length; i++) {
      if (col[i]! <= seq) continue;
      let end = i + 1;
      while (end < this.#length && col[end]! > seq) end++;
      runs.push(i, end);
      i = end;
    }
    return runs;
  }

  /** Adds an event at its place by timestamp; ties keep arrival order. `seq`: the log number of its batch. */
  add(event: EventRecord, seq = 0): void {
    const encoded = this.#encode(event, seq);
    if (this.#appendable(encoded)) this.#append(encoded);
    else this.#insertAll([encoded]);
  }

  /**
   * Adds events as `add` one by one would. Those older than the newest stored one (an SDK's queued events) go in
   * together: one copy of the table for the batch, where `add` copies it for each.
   */
  addAll(events: readonly EventRecord[], seq: number | ArrayLike<number> = 0): void {
    const late: Encoded[] = [];
    for (let k = 0; k < events.length; k++) {
      const encoded = this.#encode(events[k]!, typeof seq === "number" ? seq : seq[k]!);
      if (late.length === 0 && this.#appendable(encoded)) this.#append(encoded);
      else late.push(encoded);
    }
    if (late.length) this.#insertAll(late);
  }

  /** Keeps the events whose distinct id passes; true when any was removed. */
  retainDistinctIds(keep: (distinctId: string) => boolean): boolean {
    const verdict = new Map<number, boolean>();
    const src = this.#cols;
    const n = this.#length;
    const kept: number[] = [];
    for (let i = 0; i < n; i++) {
      const did = src.did[i]!;
      let ok = verdict.get(did);
      if (ok === undefined) verdict.set(did, (ok = keep(this.dict.distinctIds.values[did]!)));
      if (ok) kept.push(i);
    }
    if (kept.length === n) return false;
    this.#byUuid = undefined;
    const cols = emptyColumns(Math.max(1024, kept.length), Math.max(8192, this.#valsLength));
    let v = 0;
    kept.forEach((from, to) => {
      copyRow(src, from, cols, to);
      const count = this.dict.shapes[src.shape[from]!]!.length;
      cols.vals.set(src.vals.subarray(src.voff[from]!, src.voff[from]! + count), v);
      cols.voff[to] = v;
      v += count;
    });
    cols.hw = kept.length;
    cols.vhw = v;
    this.#cols = cols;
    this.#length = kept.length;
    this.#valsLength = v;
    this.#generation++;
    return true;
  }

  /**
   * A table with the same rows that changes independently of this one, in O(1): both share the arrays, the
   * first to append does so in place, the other copies them when it changes (see Columns.hw).
   */
  share(): EventTable {
    const copy = new EventTable(this.projectId, this.dict, 0);
    copy.#cols = this.#cols;
    copy.#length = this.#length;
    copy.#valsLength = this.#valsLength;
    this.#cols.shared = true;
    return copy;
  }

  /**
   * A summary's inputs over the rows now (src/store/event-summary.ts): the scan snapshot's columns, the shapes' key
   * lists flattened, and `valueKinds`, each value id's kind (0 … kinds − 1, −1 for none; it covers every value id
   * now). `since`/`until`: the window of the names' recent counts.
   */
  summaryScan(valueKinds: Int8Array, kinds: number, since: number, until: number): SummaryScan {
    const snap = this.scanSnapshot();
    const { ts, name, shape, voff, vals } = snap;
    const keys = this.dict.keys.values;
    const job = { names: snap.names, keys: keys.length, shapes: snap.shapes, kinds, since, until };
    const cols = { ts, name, shape, voff, vals, ...flattenShapes(this.dict.shapes.slice(0, snap.shapes)), valueKinds };
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
   * room the first captured event copied the whole table (seconds at ten million rows), and without the index
   * the first lookup built it, both inside a capture request.
   */
  trim(): void {
    const rows = roomFor(this.#length);
    const vals = roomFor(this.#valsLength);
    const cols = this.#cols;
    if (cols.ts.length > rows || cols.vals.length > vals) this.#copyColumns(Math.min(rows, cols.ts.length), Math.min(vals, cols.vals.length));
    this.#byUuid ??= UuidIndex.build(this.#cols.uuid, this.#length, this.#uuidWork);
  }

  /** Moves every timestamp by `offsetMs` (in place unless another table shares the arrays). */
  shiftTimestamps(offsetMs: number): void {
    if (this.#cols.shared) this.#copyColumns(this.#length, this.#valsLength);
    const ts = this.#cols.ts;
    for (let i = 0; i < this.#length; i++) ts[i] = ts[i]! + offsetMs;
    this.#generation++;
  }

  /** Positions of one event name's events, ascending (built once per change of the rows). */
  positionsOfName(name: string): Int32Array {
    const id = this.dict.names.find(name);
    if (id === undefined) return new Int32Array(0);
    if (this.#byName?.generation !== this.#generation) {
      const counts = new Map<number, number>();
      const names = this.#cols.name;
      for (let i = 0; i < this.#length; i++) counts.set(names[i]!, (counts.get(names[i]!) ?? 0) + 1);
      const positions = new Map<number, Int32Array>();
      const fill = new Map<number, number>();
      for (const [nameId, count] of counts) {
        positions.set(nameId, new Int32Array(count));
        fill.set(nameId, 0);
      }
      for (let i = 0; i < this.#length; i++) {
        const nameId = names[i]!;
        const at = fill.get(nameId)!;
        positions.get(nameId)![at] = i;
        fill.set(nameId, at + 1);
      }
      this.#byName = { generation: this.#generation, positions };
    }
    return this.#byName.positions.get(id) ?? new Int32Array(0);
  }

  /** Position of the event with this uuid (the first, should two share it), or -1; through the uuid index. */
  positionOfUuid(uuid: string): number {
    const words = this.#uuidWords(uuid, false);
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
  propertyAt(i: number, key: string, cols: Columns = this.#cols): unknown {
    // A scan reads the same key event after event: its shape positions are kept for the next call.
    let byShape = this.#lastKey === key ? this.#lastPositions : undefined;
    const shape = cols.shape[i]!;
    if (byShape === undefined || byShape.length <= shape) {
      const keyId = this.dict.keys.find(key);
      if (keyId === undefined) return undefined;
      byShape = this.#positionsInShapes(keyId);
      this.#lastKey = key;
      this.#lastPositions = byShape;
    }
    const pos = byShape[shape]!;
    return pos < 0 ? undefined : this.dict.values.values[cols.vals[cols.voff[i]! + pos]!];
  }

  /** The properties object of the event at `i`. */
  propertiesAt(i: number, cols: Columns = this.#cols): Properties {
    const keys = this.dict.shapes[cols.shape[i]!]!;
    const start = cols.voff[i]!;
    const out: Properties = {};
    for (let k = 0; k < keys.length; k++) out[this.dict.keys.values[keys[k]!]!] = this.dict.values.values[cols.vals[start + k]!];
    return out;
  }

  uuidAt(i: number, cols: Columns = this.#cols): string {
    const j = i * 4;
    const w = cols.uuid;
    if (w[j] === ODD_UUID && w[j + 1] === ODD_UUID && w[j + 2] === ODD_UUID) return this.dict.oddUuids.values[w[j + 3]!]!;
    let s = "";
    for (let k = 0; k < 4; k++) {
      const x = w[j + k]!;
      s += HEX[x >>> 24]! + HEX[(x >>> 16) & 255]! + HEX[(x >>> 8) & 255]! + HEX[x & 255]!;
    }
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }

  /** Where a key sits in each shape's key list, -1 when absent; cached per key until new shapes appear. */
  #positionsInShapes(keyId: number): Int32Array {
    let byShape = this.#posByShape.get(keyId);
    const shapes = this.dict.shapes;
    if (!byShape || byShape.length < shapes.length) {
      byShape = new Int32Array(shapes.length);
      for (let s = 0; s < shapes.length; s++) byShape[s] = shapes[s]!.indexOf(keyId);
      this.#posByShape.set(keyId, byShape);
    }
    return byShape;
  }

  #encode(event: EventRecord, seq: number): Encoded {
    const dict = this.dict;
    const keyIds: number[] = [];
    const values: number[] = [];
    const props = event.properties;
    for (const key in props) {
      const value = props[key];
      if (value === undefined) continue;
      keyIds.push(dict.keys.id(key));
      values.push(dict.values.id(value));
    }
    return {
      ts: event.timestamp,
      name: dict.names.id(event.event),
      did: dict.distinctIds.id(event.distinct_id),
      uuid: this.#uuidWords(event.uuid, true)!,
      chain: dict.chains.id(event.elements_chain ?? ""),
      shape: dict.shapeId(keyIds),
      values,
      seq,
    };
  }

  #uuidWords(uuid: string, intern: boolean): [number, number, number, number] | null {
    const words = canonicalUuidWords(uuid);
    if (words !== null && !(words[0] === ODD_UUID && words[1] === ODD_UUID && words[2] === ODD_UUID)) return words;
    const id = intern ? this.dict.oddUuids.id(uuid) : this.dict.oddUuids.find(uuid);
    return id === undefined ? null : [ODD_UUID, ODD_UUID, ODD_UUID, id];
  }

  #ensureCapacity(rows: number, vals: number): void {
    const cols = this.#cols;
    const mine = cols.hw === this.#length && cols.vhw === this.#valsLength;
    if (mine && cols.ts.length >= rows && cols.vals.length >= vals) return;
    // Growth by half, not doubling: at ten million rows a doubled table would strand a gigabyte.
    this.#copyColumns(Math.max(rows, Math.ceil(cols.ts.length * 1.5), 1024), Math.max(vals, Math.ceil(cols.vals.length * 1.5), 8192));
  }

  /** Moves the rows into new arrays of these capacities (this table's own from then on). */
  #copyColumns(rows: number, vals: number): void {
    const cols = this.#cols;
    const next = emptyColumns(rows, vals);
    for (const key of ["ts", "name", "did", "chain", "shape", "voff", "seq"] as const) (next[key] as Uint32Array).set((cols[key] as Uint32Array).subarray(0, this.#length));
    next.uuid.set(cols.uuid.subarray(0, this.#length * 4));
    next.vals.set(cols.vals.subarray(0, this.#valsLength));
    next.hw = this.#length;
    next.vhw = this.#valsLength;
    this.#cols = next;
  }

  #append(e: Encoded): void {
    this.#ensureCapacity(this.#length + 1, this.#valsLength + e.values.length);
    this.#write(this.#cols, this.#length, e);
    this.#byUuid?.add(this.#cols.uuid, this.#length);
    this.#length++;
    this.#cols.hw = this.#length;
    this.#cols.vhw = this.#valsLength;
    this.#generation++;
  }

  #appendable(e: Encoded): boolean {
    const n = this.#length;
    return n === 0 || this.#cols.ts[n - 1]! <= e.ts;
  }

  /** Where an event of time `ts` goes: after every stored event of that time or earlier. */
  #upperBound(ts: number): number {
    const col = this.#cols.ts;
    let lo = 0;
    let hi = this.#length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (col[mid]! <= ts) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Out-of-order events: new arrays, the stored rows copied in runs between the new ones (rows read earlier keep
   * the old arrays). Sorted stably by time, each goes after the stored events of its time, as `add` places it.
   */
  #insertAll(late: Encoded[]): void {
    late.sort((a, b) => a.ts - b.ts);
    const src = this.#cols;
    const n = this.#length;
    const k = late.length;
    const extraVals = late.reduce((sum, e) => sum + e.values.length, 0);
    const next = emptyColumns(Math.max(src.ts.length, n + k), Math.max(src.vals.length, this.#valsLength + extraVals));
    next.vals.set(src.vals.subarray(0, this.#valsLength));
    const at = Int32Array.from(late, (e) => this.#upperBound(e.ts));
    for (let j = 0; j <= k; j++) {
      const from = j === 0 ? 0 : at[j - 1]!;
      const to = j === k ? n : at[j]!;
      copyRows(src, from, to, next, from + j);
      if (j < k) this.#write(next, to + j, late[j]!);
    }
    this.#cols = next;
    this.#length += k;
    next.hw = this.#length;
    next.vhw = this.#valsLength;
    if (this.#byUuid) {
      this.#byUuid.shiftForInserts(at);
      for (let j = 0; j < k; j++) this.#byUuid.add(next.uuid, at[j]! + j);
    }
    this.#generation++;
  }

  #write(cols: Columns, i: number, e: Encoded): void {
    cols.ts[i] = e.ts;
    cols.name[i] = e.name;
    cols.did[i] = e.did;
    cols.uuid.set(e.uuid, i * 4);
    cols.chain[i] = e.chain;
    cols.shape[i] = e.shape;
    cols.seq[i] = e.seq;
    cols.voff[i] = this.#valsLength;
    cols.vals.set(e.values, this.#valsLength);
    this.#valsLength += e.values.length;
  }
}

/** Capacity for `n` items plus a sixteenth (at least 1,024): what a trimmed table keeps for appends. */
const roomFor = (n: number) => n + Math.max(1024, Math.ceil(n / 16));

/** Rows `start` to `end` (excluded) of `from` to `to` from row `at` on, values aside. */
function copyRows(from: Columns, start: number, end: number, to: Columns, at: number): void {
  if (start === end) return;
  for (const key of ["ts", "name", "did", "chain", "shape", "voff", "seq"] as const) (to[key] as Uint32Array).set((from[key] as Uint32Array).subarray(start, end), at);
  to.uuid.set(from.uuid.subarray(start * 4, end * 4), at * 4);
}

function copyRow(from: Columns, i: number, to: Columns, j: number): void {
  to.ts[j] = from.ts[i]!;
  to.name[j] = from.name[i]!;
  to.did[j] = from.did[i]!;
  to.chain[j] = from.chain[i]!;
  to.shape[j] = from.shape[i]!;
  to.seq[j] = from.seq[i]!;
  to.uuid.set(from.uuid.subarray(i * 4, i * 4 + 4), j * 4);
}

/**
 * One stored event as an EventRecord: its fields are read from the columns when asked. `prop(key)` reads one
 * property without building the object (what analyses use).
 */
export class EventRow implements EventRecord {
  constructor(
    readonly table: EventTable,
    private readonly cols: Columns,
    /** Position in the table when read (rows are never moved under a row object, except a cursor's). */
    public position: number,
  ) {}

  get project_id(): string {
    return this.table.projectId;
  }
  get uuid(): string {
    return this.table.uuidAt(this.position, this.cols);
  }
  get event(): string {
    return this.table.dict.names.values[this.cols.name[this.position]!]!;
  }
  get distinct_id(): string {
    return this.table.dict.distinctIds.values[this.cols.did[this.position]!]!;
  }
  get timestamp(): number {
    return this.cols.ts[this.position]!;
  }
  get elements_chain(): string {
    return this.table.dict.chains.values[this.cols.chain[this.position]!]!;
  }
  /** The log number of the batch that wrote it (not part of the record). */
  get seq(): number {
    return this.cols.seq[this.position]!;
  }
  /** Built on each read (rows are made by the million and must stay three fields small): read it once. */
  get properties(): Properties {
    return this.table.propertiesAt(this.position, this.cols);
  }
  prop(key: string): unknown {
    return this.table.propertyAt(this.position, key, this.cols);
  }
  /** The plain record (for JSON: getters are not own properties). */
  toJSON(): EventRecord {
    return {
      uuid: this.uuid,
      project_id: this.project_id,
      event: this.event,
      distinct_id: this.distinct_id,
      timestamp: this.timestamp,
      properties: this.properties,
      elements_chain: this.elements_chain,
    };
  }
}

/**
 * The events encoder over the column store's dictionaries (src/store/event-table.ts): every string, key and
 * property value is encoded once per dictionary id and an event's line is joined from those pieces, instead of
 * building its properties object and serialising it (most of an event's encoding time). It reads the arrays
 * `EventTable.columnsForSnapshot()` lists (the column snapshot's documented order) and the dictionaries' lists;
 * an event whose shape the fast path cannot reproduce exactly (integer-like keys, which an object reorders, or
 * `__proto__`) is encoded through the row API, and each call checks its first event against the row API too:
 * a change of the column layout makes the whole call take the row path instead of writing wrong rows.
 */
import type { EventRow } from "../../store/event-row.ts";
import type { EventTable } from "../../store/event-table.ts";
import type { EventRecord } from "../../store/schema.ts";
import { encodeEvents, eventFields, LoadBuffer, micros, nativeBlock, nativeColumn, nativeString, put, putVarUInt, type EventFields } from "./encode.ts";
import { rawText } from "../../core/property-text.ts";

interface ShapeInfo {
  /** Reproducible by joining cached pieces (else: the row API). */
  fast: boolean;
  /** `"key":` pieces as bytes, in the shape's order; each after the first starts with its comma. */
  keys: Uint8Array[];
  /** Position in the shape of each materialised key, -1 when absent. */
  materialized: Int32Array;
  /** Position of `$groups` and of each `$group_N`, -1 when absent. */
  groups: number;
  groupSlots: Int32Array;
  /** Whether the shape has a `$group_N` key (then the group cache is keyed by every group value, else by `$groups`). */
  anySlot: boolean;
}

const INTEGER_LIKE = /^(0|[1-9]\d*)$/;
const DASH = 0x2d;
const UUID_LENGTH = 36;
const ODD_UUID = 0xffffffff;
const HEX_DIGITS = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const EMPTY_STRING = nativeString("");
/** Column indexes in the events file (EVENT_FILE_COLUMNS). */
const COLUMN = { team: 0, uuid: 1, event: 2, properties: 3, timestamp: 4, distinctId: 5, chain: 6, groups: 7 } as const;
const GROUP_SLOTS = 5;

const bytesOf = (text: string): Buffer => Buffer.from(text);

/** Writes the low `digits` hex digits of `value`, lower case, most significant first. */
function putHex(buf: Uint8Array, at: number, value: number, digits: number): number {
  for (let d = digits - 1; d >= 0; d--) buf[at++] = HEX_DIGITS[(value >>> (d * 4)) & 15]!;
  return at;
}

/**
 * Per table dictionary: the pieces already encoded, as bytes (dictionaries only grow, so ids keep their pieces).
 * A block is copied from those bytes, column after column, into the output's chunks: building lines as strings
 * and converting them cost more than half of the encoding, most of it in garbage collection over the store's
 * large heap. Events whose shape the pieces cannot make have their values read through the row API.
 */
export class ColumnEncoder {
  readonly #names: Uint8Array[] = [];
  readonly #distinctIds: Uint8Array[] = [];
  readonly #chains: Uint8Array[] = [];
  readonly #valueJson: Uint8Array[] = [];
  readonly #valueRaw: Uint8Array[] = [];
  readonly #shapes: ShapeInfo[] = [];
  /** The five group keys as Native strings: by `$groups` value id + 1 (the usual shape), or by every group value id. */
  readonly #groupsByValue: Uint8Array[][] = [];
  readonly #groupsBySlots = new Map<string, Uint8Array[]>();
  /** Calls that fell back to the row API (a layout the fast path does not know). */
  fallbacks = 0;

  constructor(
    readonly table: EventTable,
    readonly materialized: readonly string[],
    readonly groupKeys: ((event: EventRecord) => string)[],
  ) {}

  /** Events [from, to) as `encodeEvents` writes them (one Native block), through the dictionaries. */
  encode(row: EventRow, from: number, to: number, teamId: number, out: LoadBuffer): void {
    if (from >= to) return;
    const { arrays, rows } = this.table.columnsForSnapshot();
    const cols = arrays as Columns;
    if (arrays.length !== 9 || rows < to || !this.#agrees(row, from, teamId, cols)) {
      this.fallbacks++;
      return encodeEvents(row, from, to, teamId, this.groupKeys, this.materialized, out);
    }
    this.#block(row, from, to, teamId, cols, out);
  }

  #agrees(row: EventRow, i: number, teamId: number, cols: Columns): boolean {
    // One event's bytes: small chunks, not the 1 MiB ones a file takes (two per slice were most of the garbage).
    const viaRows = new LoadBuffer(4096);
    encodeEvents(row, i, i + 1, teamId, this.groupKeys, this.materialized, viaRows);
    const fast = new LoadBuffer(4096);
    this.#block(row, i, i + 1, teamId, cols, fast);
    return viaRows.bytes().equals(fast.bytes());
  }

  #block(row: EventRow, from: number, to: number, teamId: number, cols: Columns, out: LoadBuffer): void {
    const [ts, name, did, uuid, chain, shape, valueStart, vals, seq] = cols;
    const n = to - from;
    const infos: ShapeInfo[] = new Array(n);
    // The few events the pieces cannot make: their values through the row API, by their index in the block.
    const slow = new Map<number, EventFields>();
    for (let k = 0; k < n; k++) {
      const info = (infos[k] = this.#shape(shape[from + k]!));
      if (!info.fast) {
        row.position = from + k;
        slow.set(k, eventFields(row, this.groupKeys, this.materialized));
      }
    }
    const strings = (column: number, piece: (i: number, k: number) => Uint8Array, value: (f: EventFields) => string) => {
      nativeColumn(out, column);
      for (let k = 0; k < n; k++) {
        const f = slow.get(k);
        if (f) out.putString(value(f));
        else out.putBytes(piece(from + k, k));
      }
    };

    nativeBlock(out, n);
    nativeColumn(out, COLUMN.team);
    for (let k = 0; k < n; k++) out.putInt64(teamId);
    nativeColumn(out, COLUMN.uuid);
    for (let i = from; i < to; i++) this.#putUuid(out, uuid, i, row);
    nativeColumn(out, COLUMN.event);
    for (let i = from; i < to; i++) out.putBytes(this.#name(name[i]!));
    nativeColumn(out, COLUMN.properties);
    for (let k = 0; k < n; k++) {
      const f = slow.get(k);
      if (f) out.putString(f.properties);
      else this.#putProperties(out, infos[k]!, vals, valueStart[from + k]!);
    }
    nativeColumn(out, COLUMN.timestamp);
    for (let i = from; i < to; i++) out.putInt64(micros(ts[i]!));
    nativeColumn(out, COLUMN.distinctId);
    for (let i = from; i < to; i++) out.putBytes(this.#distinctId(did[i]!));
    nativeColumn(out, COLUMN.chain);
    for (let i = from; i < to; i++) out.putBytes(this.#chain(chain[i]!));
    for (let g = 0; g < GROUP_SLOTS; g++) strings(COLUMN.groups + g, (i, k) => this.#groups(infos[k]!, vals, valueStart[i]!)[g]!, (f) => f.groups[g]!);
    for (let m = 0; m < this.materialized.length; m++) {
      strings(
        COLUMN.groups + GROUP_SLOTS + m,
        (i, k) => {
          const at = infos[k]!.materialized[m]!;
          return at < 0 ? EMPTY_STRING : this.#raw(vals[valueStart[i]! + at]!);
        },
        (f) => f.materialized[m]!,
      );
    }
    nativeColumn(out, COLUMN.groups + GROUP_SLOTS + this.materialized.length);
    for (let i = from; i < to; i++) out.putUInt32(seq[i]!);
  }

  /** An event's properties JSON, joined from its shape's key pieces and its values' JSON pieces. */
  #putProperties(out: LoadBuffer, info: ShapeInfo, vals: Uint32Array, off: number): void {
    const keys = info.keys;
    let size = 2;
    for (let k = 0; k < keys.length; k++) size += keys[k]!.length + this.#json(vals[off + k]!).length;
    const buf = out.reserve(size + 5);
    let at = putVarUInt(buf, out.offset, size);
    buf[at++] = 0x7b; // {
    for (let k = 0; k < keys.length; k++) at = put(buf, put(buf, at, keys[k]!), this.#json(vals[off + k]!));
    buf[at++] = 0x7d; // }
    out.commit(at);
  }

  /** The uuid's text (8-4-4-4-12) from its four words; an odd uuid, kept as text in the dictionary, through the row. */
  #putUuid(out: LoadBuffer, words: Uint32Array, i: number, row: EventRow): void {
    const j = i * 4;
    if (words[j] === ODD_UUID && words[j + 1] === ODD_UUID && words[j + 2] === ODD_UUID) {
      row.position = i;
      return out.putString(row.uuid);
    }
    const buf = out.reserve(UUID_LENGTH + 1);
    const w1 = words[j + 1]!;
    const w2 = words[j + 2]!;
    let at = out.offset;
    buf[at++] = UUID_LENGTH;
    at = putHex(buf, at, words[j]!, 8);
    buf[at++] = DASH;
    at = putHex(buf, at, w1 >>> 16, 4);
    buf[at++] = DASH;
    at = putHex(buf, at, w1 & 0xffff, 4);
    buf[at++] = DASH;
    at = putHex(buf, at, w2 >>> 16, 4);
    buf[at++] = DASH;
    at = putHex(buf, at, w2 & 0xffff, 4);
    out.commit(putHex(buf, at, words[j + 3]!, 8));
  }

  #shape(id: number): ShapeInfo {
    let info = this.#shapes[id];
    if (!info) {
      const keys = [...this.table.dict.shapes[id]!].map((k) => this.table.dict.keys.values[k]!);
      const groupSlots = Int32Array.from([0, 1, 2, 3, 4], (g) => keys.indexOf(`$group_${g}`));
      info = {
        fast: !keys.some((k) => INTEGER_LIKE.test(k) || k === "__proto__"),
        keys: keys.map((k, at) => bytesOf(`${at === 0 ? "" : ","}${JSON.stringify(k)}:`)),
        materialized: Int32Array.from(this.materialized, (k) => keys.indexOf(k)),
        groups: keys.indexOf("$groups"),
        groupSlots,
        anySlot: groupSlots.some((at) => at >= 0),
      };
      this.#shapes[id] = info;
    }
    return info;
  }

  /** The five group slots, read by the group readers from the few properties they look at (cached per value ids). */
  #groups(info: ShapeInfo, vals: Uint32Array, off: number): Uint8Array[] {
    const groupsId = info.groups < 0 ? -1 : vals[off + info.groups]!;
    if (!info.anySlot) return (this.#groupsByValue[groupsId + 1] ??= this.#groupPieces(groupsId, [-1, -1, -1, -1, -1]));
    const slotIds = Array.from(info.groupSlots, (at) => (at < 0 ? -1 : vals[off + at]!));
    const cacheKey = `${groupsId},${slotIds.join(",")}`;
    let pieces = this.#groupsBySlots.get(cacheKey);
    if (!pieces) this.#groupsBySlots.set(cacheKey, (pieces = this.#groupPieces(groupsId, slotIds)));
    return pieces;
  }

  #groupPieces(groupsId: number, slotIds: number[]): Uint8Array[] {
    const values = this.table.dict.values.values;
    const properties: Record<string, unknown> = {};
    if (groupsId >= 0) properties.$groups = values[groupsId];
    for (let g = 0; g < GROUP_SLOTS; g++) if (slotIds[g]! >= 0) properties[`$group_${g}`] = values[slotIds[g]!];
    const record = { properties } as EventRecord;
    return this.groupKeys.map((read) => nativeString(read(record)));
  }

  #json(v: number): Uint8Array {
    return (this.#valueJson[v] ??= bytesOf(JSON.stringify(this.table.dict.values.values[v])));
  }
  #raw(v: number): Uint8Array {
    return (this.#valueRaw[v] ??= nativeString(rawText(this.table.dict.values.values[v])));
  }
  #name(id: number): Uint8Array {
    return (this.#names[id] ??= nativeString(this.table.dict.names.values[id]!));
  }
  #distinctId(id: number): Uint8Array {
    return (this.#distinctIds[id] ??= nativeString(this.table.dict.distinctIds.values[id]!));
  }
  #chain(id: number): Uint8Array {
    return (this.#chains[id] ??= nativeString(this.table.dict.chains.values[id]!));
  }
}

/** The arrays `EventTable.columnsForSnapshot()` lists, in its order. */
type Columns = [ts: Float64Array, name: Uint32Array, did: Uint32Array, uuid: Uint32Array, chain: Uint32Array, shape: Uint32Array, valueStart: Uint32Array, vals: Uint32Array, seq: Uint32Array];

/**
 * The events encoder over the column store's dictionaries (src/store/event-table.ts): every string, key and
 * property value is encoded once per dictionary id and an event's line is joined from those pieces, instead of
 * building its properties object and serialising it (~2 µs of the ~8–10 µs an event took). It reads the arrays
 * `EventTable.columnsForSnapshot()` lists (the column snapshot's documented order) and the dictionaries' lists;
 * an event whose shape the fast path cannot reproduce exactly (integer-like keys, which an object reorders, or
 * `__proto__`) is encoded through the row API, and each call checks its first event against the row API too:
 * a change of the column layout makes the whole call take the row path instead of writing wrong rows.
 */
import type { EventRow, EventTable } from "../../store/event-table.ts";
import type { EventRecord } from "../../store/schema.ts";
import { encodeEvents, rawText, tsv, TsvBuffer } from "./encode.ts";

interface ShapeInfo {
  /** Reproducible by joining cached pieces (else: the row API). */
  fast: boolean;
  /** `"key":` pieces as bytes, TSV-escaped, in the shape's order; each after the first starts with its comma. */
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
const TAB = 0x09;
const NEWLINE = 0x0a;
const DASH = 0x2d;
const ODD_UUID = 0xffffffff;
const HEX_DIGITS = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
/** Bytes a line needs beyond its pieces: the uuid (36), the timestamp (≤ 24), tabs and the newline (≤ 32). */
const LINE_SLACK = 96;

const bytesOf = (text: string): Buffer => Buffer.from(text);

/** Copies a piece into `buf` at `at`; small pieces (most) byte by byte, cheaper than a call into `set`. */
function put(buf: Uint8Array, at: number, piece: Uint8Array): number {
  const n = piece.length;
  if (n > 16) buf.set(piece, at);
  else for (let j = 0; j < n; j++) buf[at + j] = piece[j]!;
  return at + n;
}

/** Writes the low `digits` hex digits of `value`, lower case, most significant first. */
function putHex(buf: Uint8Array, at: number, value: number, digits: number): number {
  for (let d = digits - 1; d >= 0; d--) buf[at++] = HEX_DIGITS[(value >>> (d * 4)) & 15]!;
  return at;
}

/** Writes ASCII text (digits of a number) into `buf` at `at`. */
function putAscii(buf: Uint8Array, at: number, text: string): number {
  for (let j = 0; j < text.length; j++) buf[at + j] = text.charCodeAt(j);
  return at + text.length;
}

/**
 * Per table dictionary: the pieces already encoded, as UTF-8 bytes (dictionaries only grow, so ids keep their
 * pieces). A line is copied from those bytes into the output's chunk: building it as a string and converting
 * it cost more than half of the encoding, most of it in garbage collection over the store's large heap.
 */
export class ColumnEncoder {
  readonly #names: Uint8Array[] = [];
  readonly #distinctIds: Uint8Array[] = [];
  readonly #chains: Uint8Array[] = [];
  readonly #valueJson: Uint8Array[] = [];
  readonly #valueRaw: Uint8Array[] = [];
  readonly #shapes: ShapeInfo[] = [];
  /** The five group keys joined by tabs: by `$groups` value id (the usual shape), or by every group value id. */
  readonly #groupsByValue: Uint8Array[] = [];
  readonly #groupsBySlots = new Map<string, Uint8Array>();
  readonly #noValue = new Uint8Array(0);
  /** Calls that fell back to the row API (a layout the fast path does not know). */
  fallbacks = 0;

  constructor(
    readonly table: EventTable,
    readonly materialized: readonly string[],
    readonly groupKeys: ((event: EventRecord) => string)[],
  ) {}

  /** Events [from, to) as `encodeEvents` writes them, through the dictionaries. */
  encode(row: EventRow, from: number, to: number, teamId: number, out: TsvBuffer): void {
    if (from >= to) return;
    const { arrays, rows } = this.table.columnsForSnapshot();
    const cols = arrays as Columns;
    if (arrays.length !== 8 || rows < to || !this.#agrees(row, from, teamId, cols)) {
      this.fallbacks++;
      return encodeEvents(row, from, to, teamId, this.groupKeys, this.materialized, out);
    }
    const team = bytesOf(`${teamId}\t`);
    for (let i = from; i < to; i++) this.#write(row, i, team, teamId, cols, out);
  }

  #agrees(row: EventRow, i: number, teamId: number, cols: Columns): boolean {
    const fast = new TsvBuffer();
    this.#write(row, i, bytesOf(`${teamId}\t`), teamId, cols, fast);
    return `${this.#viaRows(row, i, teamId)}\n` === fast.bytes().toString();
  }

  /** One event's line, copied from cached pieces (or through the row API for a shape the pieces cannot make). */
  #write(row: EventRow, i: number, team: Uint8Array, teamId: number, cols: Columns, out: TsvBuffer): void {
    const [ts, name, did, uuid, chain, shape, voff, vals] = cols;
    const info = this.#shape(shape[i]!);
    if (!info.fast) return out.line(this.#viaRows(row, i, teamId));
    const off = voff[i]!;
    const keys = info.keys;
    const materialized = info.materialized;
    const nameBytes = this.#name(name[i]!);
    const didBytes = this.#distinctId(did[i]!);
    const chainBytes = this.#chain(chain[i]!);
    const groupBytes = this.#groups(info, vals, off);
    let size = LINE_SLACK + team.length + nameBytes.length + didBytes.length + chainBytes.length + groupBytes.length + materialized.length;
    for (let k = 0; k < keys.length; k++) size += keys[k]!.length + this.#json(vals[off + k]!).length;
    for (let m = 0; m < materialized.length; m++) size += materialized[m]! < 0 ? 0 : this.#raw(vals[off + materialized[m]!]!).length;

    const buf = out.reserve(size);
    let at = put(buf, out.offset, team);
    at = this.#putUuid(buf, at, uuid, i, row);
    buf[at++] = TAB;
    at = put(buf, at, nameBytes);
    buf[at++] = TAB;
    buf[at++] = 0x7b; // {
    for (let k = 0; k < keys.length; k++) at = put(buf, put(buf, at, keys[k]!), this.#json(vals[off + k]!));
    buf[at++] = 0x7d; // }
    buf[at++] = TAB;
    at = putAscii(buf, at, String(ts[i]! / 1000));
    buf[at++] = TAB;
    at = put(buf, at, didBytes);
    buf[at++] = TAB;
    at = put(buf, at, chainBytes);
    buf[at++] = TAB;
    at = put(buf, at, groupBytes);
    for (let m = 0; m < materialized.length; m++) {
      buf[at++] = TAB;
      if (materialized[m]! >= 0) at = put(buf, at, this.#raw(vals[off + materialized[m]!]!));
    }
    buf[at++] = NEWLINE;
    out.commit(at, 1);
  }

  /** The uuid's text (8-4-4-4-12) from its four words; an odd uuid, kept as text in the dictionary, through the row. */
  #putUuid(buf: Uint8Array, at: number, words: Uint32Array, i: number, row: EventRow): number {
    const j = i * 4;
    if (words[j] === ODD_UUID && words[j + 1] === ODD_UUID && words[j + 2] === ODD_UUID) {
      row.position = i;
      return put(buf, at, bytesOf(row.uuid));
    }
    const w1 = words[j + 1]!;
    const w2 = words[j + 2]!;
    at = putHex(buf, at, words[j]!, 8);
    buf[at++] = DASH;
    at = putHex(buf, at, w1 >>> 16, 4);
    buf[at++] = DASH;
    at = putHex(buf, at, w1 & 0xffff, 4);
    buf[at++] = DASH;
    at = putHex(buf, at, w2 >>> 16, 4);
    buf[at++] = DASH;
    at = putHex(buf, at, w2 & 0xffff, 4);
    return putHex(buf, at, words[j + 3]!, 8);
  }

  /** One event's line through the row API (what the fast path must equal). */
  #viaRows(row: EventRow, i: number, teamId: number): string {
    let text = "";
    encodeEvents(row, i, i + 1, teamId, this.groupKeys, this.materialized, { line: (t: string) => void (text = t) } as unknown as TsvBuffer);
    return text;
  }

  #shape(id: number): ShapeInfo {
    let info = this.#shapes[id];
    if (!info) {
      const keys = [...this.table.dict.shapes[id]!].map((k) => this.table.dict.keys.values[k]!);
      const groupSlots = Int32Array.from([0, 1, 2, 3, 4], (g) => keys.indexOf(`$group_${g}`));
      info = {
        fast: !keys.some((k) => INTEGER_LIKE.test(k) || k === "__proto__"),
        keys: keys.map((k, at) => bytesOf(tsv(`${at === 0 ? "" : ","}${JSON.stringify(k)}:`))),
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
  #groups(info: ShapeInfo, vals: Uint32Array, off: number): Uint8Array {
    const groupsId = info.groups < 0 ? -1 : vals[off + info.groups]!;
    if (!info.anySlot) {
      // Keyed by the `$groups` value id + 1 (0: no `$groups`).
      return (this.#groupsByValue[groupsId + 1] ??= this.#groupText(groupsId, [-1, -1, -1, -1, -1]));
    }
    const slotIds = Array.from(info.groupSlots, (at) => (at < 0 ? -1 : vals[off + at]!));
    const cacheKey = `${groupsId},${slotIds.join(",")}`;
    let text = this.#groupsBySlots.get(cacheKey);
    if (!text) this.#groupsBySlots.set(cacheKey, (text = this.#groupText(groupsId, slotIds)));
    return text;
  }

  #groupText(groupsId: number, slotIds: number[]): Uint8Array {
    const values = this.table.dict.values.values;
    const properties: Record<string, unknown> = {};
    if (groupsId >= 0) properties.$groups = values[groupsId];
    for (let g = 0; g < 5; g++) if (slotIds[g]! >= 0) properties[`$group_${g}`] = values[slotIds[g]!];
    const record = { properties } as EventRecord;
    return bytesOf(this.groupKeys.map((read) => tsv(read(record))).join("\t"));
  }

  #json(v: number): Uint8Array {
    return (this.#valueJson[v] ??= bytesOf(tsv(JSON.stringify(this.table.dict.values.values[v]))));
  }
  #raw(v: number): Uint8Array {
    return (this.#valueRaw[v] ??= bytesOf(tsv(rawText(this.table.dict.values.values[v]))));
  }
  #name(id: number): Uint8Array {
    return (this.#names[id] ??= bytesOf(tsv(this.table.dict.names.values[id]!)));
  }
  #distinctId(id: number): Uint8Array {
    return (this.#distinctIds[id] ??= bytesOf(tsv(this.table.dict.distinctIds.values[id]!)));
  }
  #chain(id: number): Uint8Array {
    return (this.#chains[id] ??= bytesOf(tsv(this.table.dict.chains.values[id]!)));
  }
}

/** The arrays `EventTable.columnsForSnapshot()` lists, in its order. */
type Columns = [ts: Float64Array, name: Uint32Array, did: Uint32Array, uuid: Uint32Array, chain: Uint32Array, shape: Uint32Array, voff: Uint32Array, vals: Uint32Array];

/**
 * The store's records as the files the mirror loads (the columns of src/sql-engine/mirror/schema.ts, in their
 * load order): events in ClickHouse's Native format, persons and groups as TSV. Everything is written as bytes
 * into 1 MiB chunks: keeping a million line strings alive, or one string of a million lines, cost more than the
 * encoding itself in garbage collection, and one growing buffer a copy per growth.
 */
import { groupLookup, type GroupData } from "../../analyses/shared/groups.ts";
import { VIRTUAL_PERSON_PROPERTIES } from "../../core/virtual-person-properties.ts";
import type { EventRow } from "../../store/event-row.ts";
import type { EventRecord, GroupRecord, PersonRecord } from "../../store/schema.ts";
import { EVENT_FILE_COLUMNS } from "./schema.ts";
import { rawText } from "../../core/property-text.ts";

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** A TSV field: backslash, tab and line breaks escaped as ClickHouse's TabSeparated reads them. */
export const tsv = (s: string): string => (SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : s);

/** An instant (epoch ms) as DateTime64 text: seconds since the epoch with the milliseconds. */
const instant = (ms: number) => String(ms / 1000);

/** Bytes a chunk holds: large enough that a chunk per ~1,600 events is all the allocation a file needs. */
const CHUNK_BYTES = 1 << 20;
const TWO_32 = 2 ** 32;

/** Copies a piece into `buf` at `at`; small pieces (most) byte by byte, cheaper than a call into `set`. */
export function put(buf: Uint8Array, at: number, piece: Uint8Array): number {
  const n = piece.length;
  if (n > 16) buf.set(piece, at);
  else for (let j = 0; j < n; j++) buf[at + j] = piece[j]!;
  return at + n;
}

/** Writes `n` as ClickHouse's VarUInt (LEB128): the length before each Native string. */
export function putVarUInt(buf: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[at++] = n;
  return at;
}

/** A Native string: its length, then its UTF-8 bytes (pieces the encoder caches are kept in this form). */
export function nativeString(text: string): Buffer {
  const bytes = Buffer.from(text);
  const out = Buffer.allocUnsafe(bytes.length + 5);
  const at = putVarUInt(out, 0, bytes.length);
  return out.subarray(0, put(out, at, bytes));
}

/**
 * Chunks of loads whose bytes are on disk, kept for the next file: a fresh 1 MiB buffer per chunk (~120 per file)
 * is external memory that makes V8 collect the whole heap again and again, and at ten million events the heap is
 * the store's gigabytes (encoding there was much slower than over a small heap).
 */
const spareChunks: Buffer[] = [];
/** At most two files' worth is kept (one encoding while the other loads). */
const MAX_SPARE_CHUNKS = 256;

/** Frees the kept chunks once a sync is done, so an idle server holds none. */
export const dropSpareChunks = (): void => {
  spareChunks.length = 0;
};

/** The bytes of a file to load, in chunks: lines of text (TSV) or values written in place (Native). */
export class LoadBuffer {
  #chunks: Buffer[] = [];
  #chunk: Buffer = Buffer.alloc(0);
  /** The whole chunks this buffer took, given back by `release`. */
  #owned: Buffer[] = [];
  #used = 0;
  rows = 0;

  /** `chunkBytes`: a small buffer (one event's check) takes small chunks and none of the spares. */
  constructor(readonly chunkBytes = CHUNK_BYTES) {}

  line(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; the newline one more.
    this.reserve(text.length * 3 + 1);
    this.#used += this.#chunk.write(text, this.#used);
    this.#chunk[this.#used++] = 0x0a;
    this.rows++;
  }

  /**
   * Room for `bytes` more bytes: the chunk to write them into, from `offset`; `commit` then says how far was
   * written (the events encoder copies cached pieces straight in).
   */
  reserve(bytes: number): Buffer {
    if (this.#used + bytes > this.#chunk.length) {
      this.#seal();
      if (bytes > this.chunkBytes || this.chunkBytes !== CHUNK_BYTES) this.#chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, bytes));
      else this.#owned.push((this.#chunk = spareChunks.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES)));
    }
    return this.#chunk;
  }

  /** Gives the chunks back for the next file once these bytes are written out; the buffer is empty after. */
  release(): void {
    for (const chunk of this.#owned) if (spareChunks.length < MAX_SPARE_CHUNKS) spareChunks.push(chunk);
    this.#owned = [];
    this.#chunks = [];
    this.#chunk = Buffer.alloc(0);
    this.#used = 0;
  }

  get offset(): number {
    return this.#used;
  }

  commit(end: number): void {
    this.#used = end;
  }

  /** A piece of bytes as it is (a cached Native string, with its length). */
  putBytes(piece: Uint8Array): void {
    this.#used = put(this.reserve(piece.length), this.#used, piece);
  }

  putString(text: string): void {
    this.putBytes(nativeString(text));
  }

  putVarUInt(n: number): void {
    this.#used = putVarUInt(this.reserve(10), this.#used, n);
  }

  putUInt32(n: number): void {
    this.reserve(4).writeUInt32LE(n, this.#used);
    this.#used += 4;
  }

  /** A little-endian Int64 of a safe integer (two's complement through the high word for negatives). */
  putInt64(n: number): void {
    const buf = this.reserve(8);
    const high = Math.floor(n / TWO_32);
    buf.writeUInt32LE(n - high * TWO_32, this.#used);
    buf.writeInt32LE(high, this.#used + 4);
    this.#used += 8;
  }

  /** The bytes written so far, as chunks (for a vectored write) or joined. */
  chunks(): Buffer[] {
    this.#seal();
    return this.#chunks;
  }

  bytes(): Buffer {
    const chunks = this.chunks();
    if (chunks.length > 1) this.#chunks = [Buffer.concat(chunks)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }

  get length(): number {
    return this.chunks().reduce((n, c) => n + c.length, 0);
  }

  #seal(): void {
    if (this.#used > 0) this.#chunks.push(this.#chunk.subarray(0, this.#used));
    this.#chunk = this.#chunk.subarray(this.#used);
    this.#used = 0;
  }
}

/**
 * A Native block's header (the Native format without block info, as `file()` reads it): the number of columns
 * and of rows; each column then starts with `nativeColumn`'s name and type, followed by its values.
 */
export function nativeBlock(out: LoadBuffer, rows: number): void {
  out.putVarUInt(EVENT_FILE_COLUMNS.length);
  out.putVarUInt(rows);
  out.rows += rows;
}

const COLUMN_HEADERS = EVENT_FILE_COLUMNS.map((c) => Buffer.concat([nativeString(c.name), nativeString(c.type)]));

/** The header of the events file's column at `index` (EVENT_FILE_COLUMNS). */
export const nativeColumn = (out: LoadBuffer, index: number) => out.putBytes(COLUMN_HEADERS[index]!);

/** An instant (epoch ms) as a DateTime64(6) value: microseconds. */
export const micros = (ms: number) => Math.round(ms * 1000);

/** Reads an event's `$group_0` … `$group_4` the way the analyses do (src/analyses/shared/groups.ts). */
export function groupKeyReaders(groups: GroupData): ((event: EventRecord) => string)[] {
  const lookup = groupLookup(groups);
  const typed = new Set(groups.types.map((t) => t.group_type_index));
  return [0, 1, 2, 3, 4].map((i) => {
    const keyOf = lookup.keyOf(i);
    // Without a group type, only a hand-written `$group_N` property can name a group: read that alone.
    if (!typed.has(i)) return (event) => rawText(event.properties[`$group_${i}`]);
    return (event) => keyOf(event) ?? "";
  });
}

/** One event's values in the events file's order (EVENT_FILE_COLUMNS), team apart. */
export interface EventFields {
  uuid: string;
  event: string;
  properties: string;
  timestampMs: number;
  distinctId: string;
  elementsChain: string;
  groups: string[];
  materialized: string[];
  seq: number;
}

/** An event's values through the row API (the cursor at its position): what the dictionary encoder must equal. */
export function eventFields(row: EventRow, groupKeys: ((event: EventRecord) => string)[], materialized: readonly string[]): EventFields {
  const properties = row.properties;
  const record = { properties } as EventRecord;
  return {
    uuid: row.uuid,
    event: row.event,
    properties: JSON.stringify(properties),
    timestampMs: row.timestamp,
    distinctId: row.distinct_id,
    elementsChain: row.elements_chain,
    groups: groupKeys.map((key) => key(record)),
    materialized: materialized.map((key) => rawText(properties[key])),
    seq: row.seq,
  };
}

/**
 * Events at positions [from, to) of a table as one Native block, through one moving cursor: the columns of
 * EVENTS_LOAD, the group slots and then the materialised properties (`materialized`, in that order).
 */
export function encodeEvents(row: EventRow, from: number, to: number, teamId: number, groupKeys: ((event: EventRecord) => string)[], materialized: readonly string[], out: LoadBuffer): void {
  if (from >= to) return;
  const rows: EventFields[] = [];
  for (let i = from; i < to; i++) {
    row.position = i;
    rows.push(eventFields(row, groupKeys, materialized));
  }
  writeEventsBlock(out, teamId, rows);
}

/** Rows of event values as one Native block. */
export function writeEventsBlock(out: LoadBuffer, teamId: number, rows: readonly EventFields[]): void {
  const strings = (column: number, value: (f: EventFields) => string) => {
    nativeColumn(out, column);
    for (const f of rows) out.putString(value(f));
  };
  nativeBlock(out, rows.length);
  nativeColumn(out, 0);
  for (let k = 0; k < rows.length; k++) out.putInt64(teamId);
  strings(1, (f) => f.uuid);
  strings(2, (f) => f.event);
  strings(3, (f) => f.properties);
  nativeColumn(out, 4);
  for (const f of rows) out.putInt64(micros(f.timestampMs));
  strings(5, (f) => f.distinctId);
  strings(6, (f) => f.elementsChain);
  const groups = rows[0]?.groups.length ?? 0;
  for (let g = 0; g < groups; g++) strings(7 + g, (f) => f.groups[g]!);
  const materialized = rows[0]?.materialized.length ?? 0;
  for (let m = 0; m < materialized; m++) strings(7 + groups + m, (f) => f.materialized[m]!);
  nativeColumn(out, 7 + groups + materialized);
  for (const f of rows) out.putUInt32(f.seq);
}

/** A project's persons and their distinct ids, ordered by person id (the text is hashed to detect change). */
export function encodePersons(persons: Iterable<PersonRecord>, teamId: number): { persons: LoadBuffer; distinctIds: LoadBuffer } {
  const sorted = [...persons].sort((a, b) => a.id - b.id);
  const out = { persons: new LoadBuffer(), distinctIds: new LoadBuffer() };
  for (const p of sorted) {
    const virtual = [...VIRTUAL_PERSON_PROPERTIES.values()].map((derive) => `\t${tsv(derive(p.properties))}`).join("");
    out.persons.line(`${teamId}\t${tsv(p.uuid)}\t${instant(Date.parse(p.created_at))}\t${tsv(JSON.stringify(p.properties))}\t${p.is_identified ? "true" : "false"}${virtual}`);
    for (const d of p.distinct_ids) out.distinctIds.line(`${teamId}\t${tsv(d)}\t${tsv(p.uuid)}`);
  }
  return out;
}

export function encodeGroups(groups: Iterable<GroupRecord>, teamId: number): LoadBuffer {
  const out = new LoadBuffer();
  for (const g of groups) out.line(`${teamId}\t${g.group_type_index}\t${tsv(g.group_key)}\t${instant(Date.parse(g.created_at))}\t${tsv(JSON.stringify(g.properties))}`);
  return out;
}

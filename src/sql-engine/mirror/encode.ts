/**
 * The store's records as ClickHouse TSV (the columns of src/sql-engine/mirror/schema.ts, in their load order).
 * Rows are written as bytes into 1 MiB chunks: keeping a million line strings alive, or one string of a million
 * lines, cost 4–8× the encoding itself in garbage collection, and one growing buffer a copy per growth (measured).
 */
import { groupLookup, type GroupData } from "../../analyses/shared/groups.ts";
import type { EventRow } from "../../store/event-table.ts";
import type { EventRecord, GroupRecord, PersonRecord } from "../../store/schema.ts";

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** A TSV field: backslash, tab and line breaks escaped as ClickHouse's TabSeparated reads them. */
export const tsv = (s: string): string => (SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : s);

/** An instant (epoch ms) as DateTime64 text: seconds since the epoch with the milliseconds. */
const instant = (ms: number) => String(ms / 1000);

/** Bytes a chunk holds: large enough that a chunk per ~1,600 events is all the allocation a file needs. */
const CHUNK_BYTES = 1 << 20;

export class TsvBuffer {
  #chunks: Buffer[] = [];
  #chunk: Buffer = Buffer.alloc(0);
  #used = 0;
  rows = 0;

  line(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; the newline one more.
    this.reserve(text.length * 3 + 1);
    this.#used += this.#chunk.write(text, this.#used);
    this.#chunk[this.#used++] = 0x0a;
    this.rows++;
  }

  /**
   * Room for `bytes` more bytes: the chunk to write them into, from `offset`; `commit` then says how far was
   * written and how many lines that was (the dictionary encoder copies cached pieces straight in).
   */
  reserve(bytes: number): Buffer {
    if (this.#used + bytes > this.#chunk.length) {
      this.#seal();
      this.#chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
    }
    return this.#chunk;
  }

  get offset(): number {
    return this.#used;
  }

  commit(end: number, lines: number): void {
    this.#used = end;
    this.rows += lines;
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

/** What ClickHouse escapes when it writes a JSON string back: quote, backslash, controls, U+2028/9, surrogates. */
const NEEDS_JSON_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A string's JSON text without quotes, as ClickHouse's JSONExtractRaw writes it (upper-case \u00XX, \u2028 escaped). */
function jsonStringBody(s: string): string {
  return s.replace(/["\\\u0000-\u001f\u2028\u2029]/g, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
}

/**
 * What the real service materialises a property as: `replaceRegexpAll(JSONExtractRaw(properties, key), '^"|"$',
 * '')` over the properties' JSON, computed here from the value (a string's escaped text without its quotes, any
 * other value's JSON, "" when absent) so that ClickHouse need not parse the JSON once per column. A test holds it
 * against ClickHouse's expression. Known difference: ClickHouse writes numbers back from their parsed value, so
 * a number of 1e21 or more reads `1e21` there and `1e+21` here, and one beyond 64 bits reads "" there.
 */
export function rawText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return NEEDS_JSON_ESCAPE.test(value) ? jsonStringBody(value) : value;
  return clickhouseJson(JSON.stringify(value)).replace(/^"|"$/g, "");
}

/** JSON text with its escapes written as ClickHouse writes them (JSON.stringify writes \u001f, leaves U+2028 raw). */
function clickhouseJson(json: string): string {
  if (!/\\u|[\u2028\u2029]/.test(json)) return json;
  return json
    .replace(/\\(?:["\\/bfnrt]|u([0-9a-f]{4}))/g, (escape, hex: string | undefined) => (hex === undefined ? escape : `\\u${hex.toUpperCase()}`))
    .replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/**
 * Events at positions [from, to) of a table, through one moving cursor (no object per event): the columns of
 * EVENTS_LOAD, the group slots and then the materialised properties (`materialized`, in that order).
 */
export function encodeEvents(row: EventRow, from: number, to: number, teamId: number, groupKeys: ((event: EventRecord) => string)[], materialized: readonly string[], out: TsvBuffer): void {
  const team = String(teamId);
  // The properties object is built once per event and read by every column that needs a property: a row's
  // `prop(key)` keeps one key's positions, so eleven keys in turn would look each up again.
  const record = { properties: {} } as EventRecord;
  for (let i = from; i < to; i++) {
    row.position = i;
    const props = row.properties;
    record.properties = props;
    // One array joined: a flat string (a chain of += makes a rope that costs more to write out).
    const fields = [team, row.uuid, tsv(row.event), tsv(JSON.stringify(props)), instant(row.timestamp), tsv(row.distinct_id), tsv(row.elements_chain)];
    for (const key of groupKeys) fields.push(tsv(key(record)));
    for (const key of materialized) fields.push(tsv(rawText(props[key])));
    out.line(fields.join("\t"));
  }
}

/** A project's persons and their distinct ids, ordered by person id (the text is hashed to detect change). */
export function encodePersons(persons: Iterable<PersonRecord>, teamId: number): { persons: TsvBuffer; distinctIds: TsvBuffer } {
  const sorted = [...persons].sort((a, b) => a.id - b.id);
  const out = { persons: new TsvBuffer(), distinctIds: new TsvBuffer() };
  for (const p of sorted) {
    out.persons.line(`${teamId}\t${tsv(p.uuid)}\t${instant(Date.parse(p.created_at))}\t${tsv(JSON.stringify(p.properties))}\t${p.is_identified ? "true" : "false"}`);
    for (const d of p.distinct_ids) out.distinctIds.line(`${teamId}\t${tsv(d)}\t${tsv(p.uuid)}`);
  }
  return out;
}

export function encodeGroups(groups: Iterable<GroupRecord>, teamId: number): TsvBuffer {
  const out = new TsvBuffer();
  for (const g of groups) out.line(`${teamId}\t${g.group_type_index}\t${tsv(g.group_key)}\t${instant(Date.parse(g.created_at))}\t${tsv(JSON.stringify(g.properties))}`);
  return out;
}

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
import { encodeEvents, rawText, tsv, type TsvBuffer } from "./encode.ts";

interface ShapeInfo {
  /** Reproducible by joining cached pieces (else: the row API). */
  fast: boolean;
  /** `"key":` pieces, TSV-escaped, in the shape's order. */
  keys: string[];
  /** Position in the shape of each materialised key, -1 when absent. */
  materialized: Int32Array;
  /** Position of `$groups` and of each `$group_N`, -1 when absent. */
  groups: number;
  groupSlots: Int32Array;
}

const INTEGER_LIKE = /^(0|[1-9]\d*)$/;

/** Per table dictionary: the pieces already encoded (dictionaries only grow, so ids keep their pieces). */
export class ColumnEncoder {
  readonly #names: string[] = [];
  readonly #distinctIds: string[] = [];
  readonly #chains: string[] = [];
  readonly #valueJson: string[] = [];
  readonly #valueRaw: string[] = [];
  readonly #shapes: ShapeInfo[] = [];
  readonly #groupKeys = new Map<string, string[]>();
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
    const [ts, name, did, , chain, shape, voff, vals] = arrays as [Float64Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
    if (arrays.length !== 8 || rows < to || !this.#agrees(row, from, teamId, ts, name, did, chain, shape, voff, vals)) {
      this.fallbacks++;
      return encodeEvents(row, from, to, teamId, this.groupKeys, this.materialized, out);
    }
    for (let i = from; i < to; i++) out.line(this.#line(row, i, teamId, ts, name, did, chain, shape, voff, vals));
  }

  #agrees(row: EventRow, i: number, teamId: number, ...cols: [Float64Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array]): boolean {
    return this.#viaRows(row, i, teamId) === this.#line(row, i, teamId, ...cols);
  }

  #line(row: EventRow, i: number, teamId: number, ts: Float64Array, name: Uint32Array, did: Uint32Array, chain: Uint32Array, shape: Uint32Array, voff: Uint32Array, vals: Uint32Array): string {
    const info = this.#shape(shape[i]!);
    if (!info.fast) return this.#viaRows(row, i, teamId);
    row.position = i;
    const off = voff[i]!;
    const n = info.keys.length;
    let props = "{";
    for (let k = 0; k < n; k++) props += (k === 0 ? "" : ",") + info.keys[k]! + this.#json(vals[off + k]!);
    props += "}";
    const fields = [String(teamId), row.uuid, this.#name(name[i]!), props, String(ts[i]! / 1000), this.#distinctId(did[i]!), this.#chain(chain[i]!)];
    const groups = this.#groups(info, vals, off);
    for (const key of groups) fields.push(key);
    for (let m = 0; m < info.materialized.length; m++) {
      const at = info.materialized[m]!;
      fields.push(at < 0 ? "" : this.#raw(vals[off + at]!));
    }
    return fields.join("\t");
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
      info = {
        fast: !keys.some((k) => INTEGER_LIKE.test(k) || k === "__proto__"),
        keys: keys.map((k) => tsv(`${JSON.stringify(k)}:`)),
        materialized: Int32Array.from(this.materialized, (k) => keys.indexOf(k)),
        groups: keys.indexOf("$groups"),
        groupSlots: Int32Array.from([0, 1, 2, 3, 4], (g) => keys.indexOf(`$group_${g}`)),
      };
      this.#shapes[id] = info;
    }
    return info;
  }

  /** The five group slots, read by the group readers from the few properties they look at (cached per value ids). */
  #groups(info: ShapeInfo, vals: Uint32Array, off: number): string[] {
    const ids = [info.groups, ...info.groupSlots].map((at) => (at < 0 ? -1 : vals[off + at]!));
    const cacheKey = ids.join(",");
    let keys = this.#groupKeys.get(cacheKey);
    if (!keys) {
      const values = this.table.dict.values.values;
      const properties: Record<string, unknown> = {};
      if (ids[0]! >= 0) properties.$groups = values[ids[0]!];
      for (let g = 0; g < 5; g++) if (ids[g + 1]! >= 0) properties[`$group_${g}`] = values[ids[g + 1]!];
      const record = { properties } as EventRecord;
      keys = this.groupKeys.map((read) => tsv(read(record)));
      this.#groupKeys.set(cacheKey, keys);
    }
    return keys;
  }

  #json(v: number): string {
    return (this.#valueJson[v] ??= tsv(JSON.stringify(this.table.dict.values.values[v])));
  }
  #raw(v: number): string {
    return (this.#valueRaw[v] ??= tsv(rawText(this.table.dict.values.values[v])));
  }
  #name(id: number): string {
    return (this.#names[id] ??= tsv(this.table.dict.names.values[id]!));
  }
  #distinctId(id: number): string {
    return (this.#distinctIds[id] ??= tsv(this.table.dict.distinctIds.values[id]!));
  }
  #chain(id: number): string {
    return (this.#chains[id] ??= tsv(this.table.dict.chains.values[id]!));
  }
}

import type { SnapshotColumns } from "./event-read.ts";

// Tables over a column table's value ids (its dictionary's, shared by every property), filled once and kept: the
// dictionary only grows and an id's value never changes, so a later query evaluates only the values added since.

export type Table = Int8Array | Uint8Array | Int32Array | Float64Array;

/** Per-value tables kept per event table. */
interface Kept<T> {
  table: T;
  filled: number;
}
const kept = new WeakMap<object, Map<string, Kept<Table>>>();
/** Tables kept per event table, the least recently used dropped first (each is a few bytes per dictionary value). */
const MAX_KEPT = 16;

/**
 * A table over every value id now, from the one kept under `name` (extended to the new ids) or made; `name`
 * undefined: made and not kept. Undefined when more than `maxValues` ids would need evaluating.
 */
export function keptTable<T extends Table>(events: SnapshotColumns, name: string | undefined, maxValues: number, make: (length: number) => T, valueOf: (id: number) => number): T | undefined {
  const count = events.valueCount();
  let byName = kept.get(events);
  if (!byName) kept.set(events, (byName = new Map()));
  const old = name === undefined ? undefined : (byName.get(name) as Kept<T> | undefined);
  const from = old?.filled ?? 0;
  if (count - from > maxValues) return undefined;
  let table = old?.table;
  if (table === undefined || table.length < count) {
    // Room to grow: capture adds values, and a running scan keeps reading the table it was given.
    const grown = make(Math.max(1, Math.ceil(count * 1.25)));
    if (table) grown.set(table.subarray(0, from));
    table = grown;
  }
  for (let id = from; id < count; id++) table[id] = valueOf(id);
  if (name !== undefined) {
    byName.delete(name);
    byName.set(name, { table, filled: count });
    if (byName.size > MAX_KEPT) byName.delete(byName.keys().next().value!);
  }
  return table;
}


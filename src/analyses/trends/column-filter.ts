import type { EventRecord } from "../../store/schema.ts";
import type { KernelFilter } from "../parallel/count-kernel.mjs";
import type { ActorTable } from "../shared/actor-table.ts";
import type { SnapshotColumns } from "../shared/event-read.ts";
import { filterTreeOf, type FilterTree, type RowPredicate } from "../shared/property-filter.ts";
import { numericForm } from "../shared/property-operators.ts";

/**
 * A series' property conditions as the count kernel tests them: per value id of one event property, or per
 * distinct id for what depends on the person alone. Each table holds the verdicts of the filter's own compiled
 * predicate (on a one-property event, or on the person), so operators and type coercion are the general scan's.
 */
export interface TableSource {
  events: SnapshotColumns;
  /** Shapes in the snapshot: the positions tables' length. */
  shapes: number;
  /** Distinct ids in the snapshot, resolved to actors when a person condition needs them. */
  actors: () => ActorTable;
  /**
   * Most dictionary values a table may cover: a table costs one call per value (of every property), the general
   * scan about one per row of the range and condition; past it that scan runs (small ranges pay nothing).
   */
  maxValues: number;
}

/** The kernel filter of `rest` (null: no condition), or undefined when a condition needs the general scan. */
export function kernelFilterOf(rest: RowPredicate, source: TableSource): KernelFilter | null | undefined {
  const tree = filterTreeOf(rest);
  if (tree === undefined) return undefined;
  if (tree.kind === "and" && tree.of.length === 0) return null;
  return converted(tree, source);
}

/** A subtree over the person alone, or over one event property, is one table; others are AND/OR of their children's. */
function converted(tree: FilterTree, source: TableSource): KernelFilter | undefined {
  const reads = readsOf(tree);
  if (reads === "person") return { kind: "did", accept: personVerdicts(tree.test, source.actors()) };
  if (reads !== undefined) return valueLeaf(reads, tree.test, source);
  if (tree.kind !== "and" && tree.kind !== "or") return undefined;
  const of = tree.of.map((child) => converted(child, source));
  return of.every((c) => c !== undefined) ? { kind: tree.kind, of: of as KernelFilter[] } : undefined;
}

/** "person" when only the person is read, the key when only one event property is, else undefined. */
function readsOf(tree: FilterTree): string | undefined {
  if (tree.kind === "person") return "person";
  if (tree.kind === "event") return `event:${tree.key}`;
  const each = new Set(tree.of.map(readsOf));
  return each.size === 1 ? [...each][0] : undefined;
}

function valueLeaf(reads: string, test: RowPredicate, source: TableSource): KernelFilter | undefined {
  const key = reads.slice("event:".length);
  const { events } = source;
  const count = events.valueCount();
  if (count > source.maxValues) return undefined;
  // A null-prototype bag: a key absent from it reads undefined, as from a stored row.
  const properties: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const probe = { properties } as EventRecord;
  const absent = test(probe, undefined) ? 1 : 0;
  const accept = sharedBytes(count);
  for (let id = 0; id < count; id++) {
    properties[key] = events.valueOfId(id);
    accept[id] = test(probe, undefined) ? 1 : 0;
  }
  return { kind: "value", keyPos: events.keyPositions(key).slice(0, source.shapes), accept, absent };
}

/** 1 per distinct id whose actor's person passes (each person tested once). */
function personVerdicts(test: RowPredicate, table: ActorTable): Uint8Array {
  const bySlot = table.actors.map((actor) => (test(undefined, actor.person) ? 1 : 0));
  const accept = sharedBytes(table.slotOfDid.length);
  table.slotOfDid.forEach((slot, d) => (accept[d] = bySlot[slot]!));
  return accept;
}

/** The number of each value id as the property maths read it (numericForm: NaN when not a number); undefined past `maxValues`. */
export function numbersOfValues(source: TableSource): Float64Array | undefined {
  const { events } = source;
  const count = events.valueCount();
  if (count > source.maxValues) return undefined;
  const num = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, count)));
  for (let id = 0; id < count; id++) num[id] = numericForm(events.valueOfId(id));
  return num;
}

const sharedBytes = (length: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(Math.max(1, length)));

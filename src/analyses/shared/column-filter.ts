import type { EventRecord } from "../../store/schema.ts";
import type { KernelFilter } from "../parallel/count-kernel.ts";
import type { ActorTable } from "./actor-table.ts";
import type { SnapshotColumns } from "./event-read.ts";
import { filterTreeOf, type FilterTree, type RowPredicate } from "./property-filter.ts";
import { keptTable } from "./kept-tables.ts";

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
   * Most dictionary values a table may newly evaluate: a table costs one call per value (of every property) not yet
   * kept, the general scan about one per row of the range and condition; past it that scan runs (small ranges pay
   * nothing).
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
  if (reads !== undefined) return valueLeaf(tree, reads.slice("event:".length), source);
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

function valueLeaf(tree: FilterTree, key: string, source: TableSource): KernelFilter | undefined {
  const { events } = source;
  // A null-prototype bag: a key absent from it reads undefined, as from a stored row.
  const properties: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const probe = { properties } as EventRecord;
  const name = tree.kind !== "person" && tree.sig !== undefined ? `filter:${tree.sig}` : undefined;
  const verdict = (id: number): number => {
    properties[key] = events.valueOfId(id);
    return tree.test(probe, undefined) ? 1 : 0;
  };
  const accept = keptTable(events, name, source.maxValues, (n) => new Uint8Array(new SharedArrayBuffer(n)), verdict);
  if (accept === undefined) return undefined;
  delete properties[key];
  return { kind: "value", keyPos: events.keyPositions(key).slice(0, source.shapes), accept, absent: tree.test(probe, undefined) ? 1 : 0 };
}

/** 1 per distinct id whose actor's person passes (each person tested once). */
function personVerdicts(test: RowPredicate, table: ActorTable): Uint8Array {
  const bySlot = table.actors.map((actor) => (test(undefined, actor.person) ? 1 : 0));
  const accept = sharedBytes(table.slotOfDid.length);
  table.slotOfDid.forEach((slot, d) => (accept[d] = bySlot[slot]!));
  return accept;
}

const sharedBytes = (length: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(Math.max(1, length)));

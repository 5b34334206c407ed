import type { ScanSnapshot } from "../../store/columns/column-arrays.ts";
import type { EventList, EventRecord } from "../../store/schema.ts";

/** What a column table offers beyond `at`: reads by position without making a row (src/store/event-table.ts). */
export interface EventColumns extends EventList {
  timestampAt(i: number): number;
  nameIdAt(i: number): number;
  distinctIdIdAt(i: number): number;
  nameIdOf(name: string): number | undefined;
  nameOfId(id: number): string;
  /** A row moved by assigning `position`, for visitors that keep nothing of the event after their call. */
  cursor(): EventRecord & { position: number };
  /** Raw columns for tight loops (read-only); `names`/`distinctIds` bound the ids in them. */
  scanColumns(): { ts: Float64Array; name: Uint32Array; did: Uint32Array; names: number; distinctIds: number };
  distinctIdOfId(id: number): string;
}

export const isColumnar = (events: EventList): events is EventColumns => typeof (events as Partial<EventColumns>).timestampAt === "function";

/** A column table whose columns scan workers can read in place (shared memory), with its dictionaries. */
export interface SnapshotColumns extends EventColumns {
  scanSnapshot(): ScanSnapshot;
  keyPositions(key: string): Int32Array;
  distinctIdIdOf(distinctId: string): number | undefined;
  valueOfId(id: number): unknown;
  emptyValueIds(): number[];
  /** Values in the dictionary now: every value id in the rows is below it. */
  valueCount(): number;
}

export const hasSnapshots = (events: EventList): events is SnapshotColumns =>
  isColumnar(events) && typeof (events as Partial<SnapshotColumns>).scanSnapshot === "function";

/** The timestamp of the event at `i`, without making a row where the list is a column table. */
export const timestampAt = (events: EventList, i: number): number => (isColumnar(events) ? events.timestampAt(i) : events.at(i)!.timestamp);

/**
 * The events as the general scan reads them: a column table keeps its row reads (cursors, ids), but not the
 * snapshots the column kernels need, so every kernel declines it. A plain list is already that.
 */
export function generalScanView(events: EventList): EventList {
  return isColumnar(events) ? new RowReads(events) : events;
}

class RowReads implements EventColumns {
  constructor(private readonly table: EventColumns) {}
  get length(): number {
    return this.table.length;
  }
  at(index: number): EventRecord | undefined {
    return this.table.at(index);
  }
  [Symbol.iterator](): Iterator<EventRecord> {
    return this.table[Symbol.iterator]();
  }
  timestampAt(i: number): number {
    return this.table.timestampAt(i);
  }
  nameIdAt(i: number): number {
    return this.table.nameIdAt(i);
  }
  distinctIdIdAt(i: number): number {
    return this.table.distinctIdIdAt(i);
  }
  nameIdOf(name: string): number | undefined {
    return this.table.nameIdOf(name);
  }
  nameOfId(id: number): string {
    return this.table.nameOfId(id);
  }
  cursor(): EventRecord & { position: number } {
    return this.table.cursor();
  }
  scanColumns(): ReturnType<EventColumns["scanColumns"]> {
    return this.table.scanColumns();
  }
  distinctIdOfId(id: number): string {
    return this.table.distinctIdOfId(id);
  }
}

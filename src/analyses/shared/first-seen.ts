import type { ActorTable } from "./actor-table.ts";
import type { EventMatcher } from "./entity-match.ts";
import type { SnapshotColumns } from "./event-read.ts";
import type { FirstSeenColumns, FirstSeenJob } from "./first-seen-rows.ts";
import { startRowTask } from "../parallel/start-task.ts";
import { firstSeenTask } from "./first-seen-task.ts";
import { ALWAYS } from "./property-filter.ts";
import { kernelFilterOf } from "./column-filter.ts";

/**
 * Per actor slot of `table`, the time of its first event among the snapshot's rows before `before` that `matcher`
 * accepts (Infinity: none); undefined when its condition needs the general scan.
 */
export function firstSeenByActor(events: SnapshotColumns, matcher: EventMatcher, before: number, table: ActorTable): Float64Array | undefined {
  const snap = events.scanSnapshot();
  const end = Math.min(snap.length, firstRowAtOrAfter(snap.ts, snap.length, before));
  const filter = matcher.rest === ALWAYS ? null : kernelFilterOf(matcher.rest, { events, shapes: snap.shapes, actors: () => table, maxValues: end });
  if (filter === undefined) return undefined;
  let wanted: Uint8Array | null = null;
  if (matcher.names !== null) {
    wanted = new Uint8Array(snap.names);
    for (let id = 0; id < snap.names; id++) if (matcher.names.has(events.nameOfId(id))) wanted[id] = 1;
  }
  const job: FirstSeenJob = { wanted, filter, distinctIds: snap.distinctIds };
  const cols: FirstSeenColumns = { ts: snap.ts, name: snap.name, did: snap.did, shape: snap.shape, valueStart: snap.valueStart, vals: snap.vals };
  const parts = startRowTask(firstSeenTask, cols, job, 0, end).finish();
  const bySlot = new Float64Array(table.actors.length).fill(Infinity);
  for (const first of parts) {
    for (let d = 0; d < snap.distinctIds; d++) {
      const slot = table.slotOfDid[d]!;
      if (first[d]! < bySlot[slot]!) bySlot[slot] = first[d]!;
    }
  }
  return bySlot;
}

/** The first row whose time is ≥ t (rows are in time order). */
function firstRowAtOrAfter(ts: Float64Array, length: number, t: number): number {
  let [lo, hi] = [0, length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

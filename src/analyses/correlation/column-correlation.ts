import type { CountedActors } from "../funnels/column-funnel.ts";
import { startRowTask } from "../parallel/start-task.ts";
import { correlateTask } from "./scan-tasks.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import type { SnapshotColumns } from "../shared/event-read.ts";
import { indexRange } from "../shared/scan.ts";
import type { ActorCounts } from "./odds.ts";
import type { CorrelationColumns, CorrelationJob } from "./partition.ts";
import { mergeCorrelationBits } from "./partition.ts";

/** Most bitset words a thread may allocate (32 MiB): past it the main thread visits the spans instead. */
const MAX_BITSET_WORDS = 8 << 20;

/**
 * Event correlation's table over every core (partition.ts): per event name, the successful and failed entrants who
 * did it inside their span, from bitsets over actor slots. Undefined when the bitsets would be too large.
 */
export function columnEventCounts(
  events: SnapshotColumns,
  columns: Pick<CountedActors, "table" | "slots">,
  entrants: ReadonlyMap<number, { converted: boolean; from: number; to: number }>,
  window: QueryWindow,
  skipped: (name: string) => boolean,
): Map<string, ActorCounts> | undefined {
  const snap = events.scanSnapshot();
  const { table, slots } = columns;
  const actors = table.actors.length;
  const words = Math.ceil(actors / 32);
  if (words * snap.names > MAX_BITSET_WORDS) return undefined;
  const from = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, actors))).fill(NaN);
  const to = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, actors))).fill(NaN);
  const converted = new Uint8Array(actors);
  for (const slot of slots) {
    const entrant = entrants.get(table.actors[slot]!.id)!;
    [from[slot], to[slot], converted[slot]] = [entrant.from, entrant.to, entrant.converted ? 1 : 0];
  }
  const job: CorrelationJob = { skipped: Uint8Array.from({ length: snap.names }, (_, id) => (skipped(events.nameOfId(id)) ? 1 : 0)), from, to, names: snap.names, words };
  const cols: CorrelationColumns = { ts: snap.ts, name: snap.name, did: snap.did, slotOfDid: table.slotOfDid };
  const [start, end] = indexRange(events, window.from, window.to).map((i) => Math.min(i, snap.length)) as [number, number];
  const bits = mergeCorrelationBits(startRowTask(correlateTask, cols, job, start, end).finish());
  const counts = new Map<string, ActorCounts>();
  for (let n = 0; n < snap.names; n++) {
    let [success, failure] = [0, 0];
    for (let w = 0; w < words; w++) {
      for (let x = bits[n * words + w]!; x !== 0; x &= x - 1) {
        if (converted[w * 32 + (31 - Math.clz32(x & -x))] === 1) success++;
        else failure++;
      }
    }
    if (success + failure > 0) counts.set(events.nameOfId(n), { success, failure });
  }
  return counts;
}

/**
 * Event correlation over row chunks (time ranges), on any thread (../parallel/): per event name id, a bitset over
 * actor slots of the entrants who did an event of that name inside their span. The chunks' bitsets are OR'ed, so
 * the merge is exact whatever thread counted which chunk; the caller counts each name's successes and failures.
 */
export interface CorrelationColumns {
  ts: Float64Array;
  name: Uint32Array;
  did: Uint32Array;
  /** Actor slot per distinct-id id (../shared/actor-table.ts). */
  slotOfDid: Int32Array;
}

export interface CorrelationJob {
  /** Per name id: 1 when never correlated (a step's name, an excluded name). */
  skipped: Uint8Array;
  /** Per actor slot, its span's exclusive bounds (NaN: not an entrant, so no row falls inside). */
  from: Float64Array;
  to: Float64Array;
  /** Names (ids below this) and 32-bit words per name's bitset. */
  names: number;
  words: number;
}

/** Adds the rows [start, end) into `bits` (`names` × `words` words). */
export function correlateRows(cols: CorrelationColumns, job: CorrelationJob, start: number, end: number, bits: Int32Array): void {
  const { ts, name, did, slotOfDid } = cols;
  const { skipped, from, to, words } = job;
  for (let i = start; i < end; i++) {
    const n = name[i]!;
    if (skipped[n] === 1) continue;
    const slot = slotOfDid[did[i]!]!;
    const t = ts[i]!;
    if (t > from[slot]! && t < to[slot]!) bits[n * words + (slot >>> 5)]! |= 1 << (slot & 31);
  }
}

/** The threads' bitsets OR'ed, into a copy: an analysis run again off the main thread merges the same answers again. */
export function mergeCorrelationBits(parts: readonly Int32Array[]): Int32Array {
  const [first, ...rest] = parts;
  const bits = first!.slice();
  for (const p of rest) for (let k = 0; k < bits.length; k++) bits[k]! |= p[k]!;
  return bits;
}

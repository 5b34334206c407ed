/** Finding rows in a table's columns: by time, by event name, by the log number that wrote them. */

/** Where an event of time `time` goes among the first `rows` rows: after every stored event of that time or earlier. */
export function upperBound(ts: Float64Array, rows: number, time: number): number {
  let lo = 0;
  let hi = rows;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! <= time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The positions of each event name id's rows among the first `rows`, ascending: two passes, one array per name. */
export function positionsByName(names: Uint32Array, rows: number): Map<number, Int32Array> {
  const counts = new Map<number, number>();
  for (let i = 0; i < rows; i++) counts.set(names[i]!, (counts.get(names[i]!) ?? 0) + 1);
  const positions = new Map<number, Int32Array>();
  const filled = new Map<number, number>();
  for (const [nameId, count] of counts) {
    positions.set(nameId, new Int32Array(count));
    filled.set(nameId, 0);
  }
  for (let i = 0; i < rows; i++) {
    const nameId = names[i]!;
    const at = filled.get(nameId)!;
    positions.get(nameId)![at] = i;
    filled.set(nameId, at + 1);
  }
  return positions;
}

/** The rows among the first `rows` written after log number `after`, as ascending runs of positions ([from, to) pairs). */
export function runsAfter(seqs: Uint32Array, rows: number, after: number): number[] {
  const runs: number[] = [];
  for (let i = 0; i < rows; i++) {
    if (seqs[i]! <= after) continue;
    let end = i + 1;
    while (end < rows && seqs[end]! > after) end++;
    runs.push(i, end);
    i = end;
  }
  return runs;
}

// The trend counting loop over a column snapshot's rows [start, end): plain JavaScript, so that the main thread
// and the scan workers run the very same code (a worker has no TypeScript loader). No closure per row: the name
// test is one read of a byte per name id, the bucket is kept while the timestamps stay inside it.
//
// Modes: "count" events per bucket; "unique" a bitset per bucket over distinct-id ids (the caller maps ids to
// persons once per id, not per event); "breakdown" events per bucket per value id of one property (code 0: the
// event lacks it, else value id + 1).

/** Bucket of `t` among `edges` (starts, then the end of the last): the last edge ≤ t, -1 outside. */
function bucketOf(edges, t) {
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (edges[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1 < edges.length - 1 ? lo - 1 : -1;
}

/** An empty tally for `job`'s mode: what the ranges one thread counts add into. */
export function newTally(job) {
  const buckets = job.edges.length - 1;
  if (job.mode === "count") return { mode: "count", counts: new Float64Array(buckets) };
  if (job.mode === "unique") return { mode: "unique", bits: new Int32Array(buckets * job.words) };
  return { mode: "breakdown", byValue: new Map() };
}

/** Adds the rows [start, end) of `job` into `tally`. */
export function tallyRows(cols, job, start, end, tally) {
  const { ts, name, did, shape, voff, vals } = cols;
  const { wanted, edges, keyPos, words } = job;
  const buckets = edges.length - 1;
  const counts = tally.mode === "count" ? tally.counts : null;
  const bits = tally.mode === "unique" ? tally.bits : null;
  const byValue = tally.mode === "breakdown" ? tally.byValue : null;
  let b = -1;
  let lo = Infinity;
  let hi = -Infinity;
  let lastCode = -1;
  let lastRow = null;
  for (let i = start; i < end; i++) {
    if (wanted !== null && wanted[name[i]] === 0) continue;
    const t = ts[i];
    if (t < lo || t >= hi) {
      b = bucketOf(edges, t);
      if (b < 0) {
        lo = Infinity;
        hi = -Infinity;
        continue;
      }
      lo = edges[b];
      hi = edges[b + 1];
    }
    if (counts !== null) counts[b]++;
    else if (bits !== null) {
      const d = did[i];
      bits[b * words + (d >>> 5)] |= 1 << (d & 31);
    } else {
      const p = keyPos[shape[i]];
      const code = p < 0 ? 0 : vals[voff[i] + p] + 1;
      if (code !== lastCode) {
        lastRow = byValue.get(code);
        if (lastRow === undefined) byValue.set(code, (lastRow = new Float64Array(buckets)));
        lastCode = code;
      }
      lastRow[b]++;
    }
  }
}

/** A tally as a result (breakdown rows as two lists: what a worker posts back). */
export function tallyResult(tally) {
  if (tally.mode !== "breakdown") return tally;
  return { mode: "breakdown", codes: Int32Array.from(tally.byValue.keys()), rows: [...tally.byValue.values()] };
}

/** The rows [job.start, job.end) counted in one pass. */
export function countRows(cols, job) {
  const tally = newTally(job);
  tallyRows(cols, job, job.start, job.end, tally);
  return tallyResult(tally);
}

/**
 * Counts chunks of `job` until none is left: `claim.chunks` holds chunk k's rows at [2k, 2k+1], `claim.state[0]`
 * the next chunk to take (taken with Atomics.add, so every chunk is counted by exactly one thread) and
 * `claim.state[1]` how many are counted. Returns this thread's result, or null when it took no chunk.
 */
export function countChunks(cols, job, claim) {
  const { chunks, state } = claim;
  const total = chunks.length / 2;
  let tally = null;
  let taken = 0;
  for (let k = Atomics.add(state, 0, 1); k < total; k = Atomics.add(state, 0, 1)) {
    tally ??= newTally(job);
    tallyRows(cols, job, chunks[2 * k], chunks[2 * k + 1], tally);
    taken++;
  }
  return { result: tally === null ? null : tallyResult(tally), taken };
}

/** Marks `taken` chunks counted (after this thread's result is on its way) and wakes the waiting main thread. */
export function markCounted(claim, taken) {
  if (taken === 0) return;
  Atomics.add(claim.state, 1, taken);
  Atomics.notify(claim.state, 1);
}

/** One result from the partial results of disjoint row ranges: counts summed, bitsets or'ed, rows by code summed. */
export function mergeCounts(parts) {
  const [first, ...rest] = parts;
  if (first.mode === "count") {
    for (const p of rest) for (let k = 0; k < first.counts.length; k++) first.counts[k] += p.counts[k];
    return first;
  }
  if (first.mode === "unique") {
    for (const p of rest) for (let k = 0; k < first.bits.length; k++) first.bits[k] |= p.bits[k];
    return first;
  }
  const rows = new Map();
  for (const p of parts)
    p.codes.forEach((code, j) => {
      const row = rows.get(code);
      if (row === undefined) rows.set(code, p.rows[j]);
      else for (let k = 0; k < row.length; k++) row[k] += p.rows[j][k];
    });
  return { mode: "breakdown", codes: Int32Array.from(rows.keys()), rows: [...rows.values()] };
}

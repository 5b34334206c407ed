// The trend counting loop over a column snapshot's rows [start, end), run by the main thread and the scan workers
// alike. No closure per row: the name test is one read of a byte per name id, and a bucket is a run of rows.
//
// Modes: "count" events per bucket; "unique" a bitset per bucket over distinct-id ids (the caller maps ids to
// persons once per id, not per event); "breakdown" events per bucket per value id of one property (code 0: the
// event lacks it, else value id + 1), or by a person property's code per distinct id (`didCode`).

/** The first row of [lo, hi) whose time is ≥ t (rows are in time order). */
function firstRowAtOrAfter(ts, lo, hi, t) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An empty tally for `job`'s mode: what the ranges one thread counts add into. */
export function newTally(job) {
  const buckets = job.edges.length - 1;
  if (job.mode === "count") return { mode: "count", counts: new Float64Array(buckets) };
  if (job.mode === "unique") return { mode: "unique", bits: new Int32Array(buckets * job.words) };
  return { mode: "breakdown", byValue: new Map() };
}

/**
 * Adds the rows [start, end) of `job` into `tally`. Rows are in time order, so each bucket is a run of rows found
 * by two binary searches: the loops read the name column (and the ids they count), never the timestamps.
 */
export function tallyRows(cols, job, start, end, tally) {
  const { edges } = job;
  for (let b = 0, from = firstRowAtOrAfter(cols.ts, start, end, edges[0]); b < edges.length - 1 && from < end; b++) {
    const to = firstRowAtOrAfter(cols.ts, from, end, edges[b + 1]);
    if (to > from) tallyBucket(cols, job, from, to, b, tally);
    from = to;
  }
}

/** Adds the rows [from, to), all in bucket `b`. */
function tallyBucket(cols, job, from, to, b, tally) {
  const { name, did, shape, voff, vals } = cols;
  const { wanted, keyPos, words, didCode } = job;
  if (tally.mode === "count") {
    let n = 0;
    if (wanted === null) n = to - from;
    else for (let i = from; i < to; i++) n += wanted[name[i]];
    tally.counts[b] += n;
  } else if (tally.mode === "unique") {
    const bits = tally.bits;
    const base = b * words;
    for (let i = from; i < to; i++) {
      if (wanted !== null && wanted[name[i]] === 0) continue;
      const d = did[i];
      bits[base + (d >>> 5)] |= 1 << (d & 31);
    }
  } else {
    const byValue = tally.byValue;
    const buckets = job.edges.length - 1;
    let lastCode = -1;
    let lastRow = null;
    for (let i = from; i < to; i++) {
      if (wanted !== null && wanted[name[i]] === 0) continue;
      let code;
      if (didCode !== null) code = didCode[did[i]];
      else {
        const p = keyPos[shape[i]];
        code = p < 0 ? 0 : vals[voff[i] + p] + 1;
      }
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

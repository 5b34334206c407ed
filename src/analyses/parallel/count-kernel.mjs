// The trend counting loop over a column snapshot's rows [start, end), run by the main thread and the scan workers
// alike. No closure per row: the name test is one read of a byte per name id, and a bucket is a run of rows.
//
// Modes: "count" events per bucket; "unique" a bitset per bucket over distinct-id ids (the caller maps ids to
// persons once per id, not per event), or over session codes (`sessionOf`: each value id's code, `keyPos`: where the
// session id sits); "breakdown" events per bucket per value id of one property (code 0: the event lacks it, else
// value id + 1), or by a person property's code per distinct id (`didCode`); "values" the numbers of one property
// (`mathPos`, `num`) in row order, kept per chunk so that the caller aggregates them in the general scan's order
// (with a breakdown: each value's code beside it); "actorCounts" events per bucket per distinct id (`words` counters
// a bucket), which the caller adds up per person. `filter`, when set, tests each row first. `groupOf`, when set,
// gives each row's group (of the aggregation's type): rows in none are not counted, and "unique" counts groups.

/**
 * Whether row `i` passes `f`: AND/OR nodes over leaves that read one property's value id (`accept[id]`, `absent`
 * when the row lacks the key) or the distinct id (`accept[did]`: person properties, cohorts).
 */
export function passes(f, cols, i) {
  switch (f.kind) {
    case "value": {
      const p = f.keyPos[cols.shape[i]];
      return (p < 0 ? f.absent : f.accept[cols.vals[cols.voff[i] + p]]) === 1;
    }
    case "did":
      return f.accept[cols.did[i]] === 1;
    case "and":
      for (const c of f.of) if (!passes(c, cols, i)) return false;
      return true;
    default:
      for (const c of f.of) if (passes(c, cols, i)) return true;
      return false;
  }
}

/** Whether row `i` is counted: its name wanted and the filter passed. */
const counted = (cols, job, i) =>
  (job.wanted === null || job.wanted[cols.name[i]] === 1) && (job.filter === null || passes(job.filter, cols, i)) && (job.groupOf === null || job.groupOf[i] >= 0);

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
  if (job.mode === "values") return { mode: "values", parts: [], part: null };
  if (job.mode === "actorCounts") return { mode: "actorCounts", counts: new Int32Array(buckets * job.words) };
  return { mode: "breakdown", byValue: new Map() };
}

/** values: the rows that follow belong to chunk `k` (its values stay apart from other chunks'). */
function openPart(tally, job, k) {
  if (tally.mode !== "values") return;
  const buckets = job.edges.length - 1;
  tally.part = { chunk: k, values: [], codes: codesOf(job) ? [] : null, starts: new Int32Array(buckets), ends: new Int32Array(buckets) };
  tally.parts.push(tally.part);
}

const codesOf = (job) => job.keyPos !== null || job.didCode !== null;

/** The breakdown code of row `i`: the person property's code of its distinct id, else its value id + 1 (0: none). */
function codeAt(cols, job, i) {
  if (job.didCode !== null) return job.didCode[cols.did[i]];
  const p = job.keyPos[cols.shape[i]];
  return p < 0 ? 0 : cols.vals[cols.voff[i] + p] + 1;
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
  const { name, did } = cols;
  const { wanted, words, filter } = job;
  if (tally.mode === "count") {
    let n = 0;
    if (filter !== null || job.groupOf !== null) for (let i = from; i < to; i++) n += counted(cols, job, i) ? 1 : 0;
    else if (wanted === null) n = to - from;
    else for (let i = from; i < to; i++) n += wanted[name[i]];
    tally.counts[b] += n;
  } else if (tally.mode === "unique") {
    const bits = tally.bits;
    const base = b * words;
    const { sessionOf, keyPos, groupOf } = job;
    for (let i = from; i < to; i++) {
      if (wanted !== null && wanted[name[i]] === 0) continue;
      if (filter !== null && !passes(filter, cols, i)) continue;
      let d;
      if (groupOf !== null) {
        d = groupOf[i];
        if (d < 0) continue;
      } else if (sessionOf === null) d = did[i];
      else {
        const p = keyPos[cols.shape[i]];
        d = p < 0 ? job.noSession : sessionOf[cols.vals[cols.voff[i] + p]];
      }
      bits[base + (d >>> 5)] |= 1 << (d & 31);
    }
  } else if (tally.mode === "actorCounts") {
    const base = b * words;
    for (let i = from; i < to; i++) if (counted(cols, job, i)) tally.counts[base + did[i]]++;
  } else if (tally.mode === "values") tallyValues(cols, job, from, to, b, tally.part);
  else tallyBreakdown(cols, job, from, to, b, tally.byValue);
}

/** Events per bucket per breakdown code (the code read inline: the commonest breakdown's hot loop). */
function tallyBreakdown(cols, job, from, to, b, byValue) {
  const { name, did, shape, voff, vals } = cols;
  const { wanted, keyPos, didCode, filter } = job;
  const buckets = job.edges.length - 1;
  let lastCode = -1;
  let lastRow = null;
  for (let i = from; i < to; i++) {
    if (wanted !== null && wanted[name[i]] === 0) continue;
    if (filter !== null && !passes(filter, cols, i)) continue;
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

/**
 * The property's numbers in row order (a bucket's rows are one run of them). Without a breakdown a row without a
 * number adds nothing; with one it is kept as NaN, as its key still makes a (zero) row.
 */
function tallyValues(cols, job, from, to, b, part) {
  const { shape, voff, vals } = cols;
  const { mathPos, num } = job;
  const codes = part.codes;
  part.starts[b] = part.values.length;
  for (let i = from; i < to; i++) {
    if (!counted(cols, job, i)) continue;
    const p = mathPos[shape[i]];
    const v = p < 0 ? NaN : num[vals[voff[i] + p]];
    if (codes === null) {
      if (v === v) part.values.push(v);
    } else {
      part.values.push(v);
      codes.push(codeAt(cols, job, i));
    }
  }
  part.ends[b] = part.values.length;
}

/** A tally as a result (breakdown rows as two lists: what a worker posts back). */
export function tallyResult(tally) {
  if (tally.mode === "values") return { mode: "values", parts: tally.parts.map(packedPart) };
  if (tally.mode !== "breakdown") return tally;
  return { mode: "breakdown", codes: Int32Array.from(tally.byValue.keys()), rows: [...tally.byValue.values()] };
}

/** A values part in typed arrays (what a worker posts back cheaply). */
const packedPart = (p) => ({ chunk: p.chunk, values: Float64Array.from(p.values), codes: p.codes && Int32Array.from(p.codes), starts: p.starts, ends: p.ends });

/** The rows [job.start, job.end) counted in one pass. */
export function countRows(cols, job) {
  const tally = newTally(job);
  openPart(tally, job, 0);
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
    openPart(tally, job, k);
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

/**
 * One result from the partial results of disjoint row ranges: counts summed, bitsets or'ed, rows by code summed,
 * values' parts in chunk (row) order.
 */
export function mergeCounts(parts) {
  const [first, ...rest] = parts;
  if (first.mode === "values") return { mode: "values", parts: parts.flatMap((p) => p.parts).sort((a, b) => a.chunk - b.chunk) };
  // Into copies: an analysis run again off the main thread merges the same answers again (pool.ts, offMainThread).
  if (first.mode === "count" || first.mode === "actorCounts") {
    const counts = first.counts.slice();
    for (const p of rest) for (let k = 0; k < counts.length; k++) counts[k] += p.counts[k];
    return { mode: first.mode, counts };
  }
  if (first.mode === "unique") {
    const bits = first.bits.slice();
    for (const p of rest) for (let k = 0; k < bits.length; k++) bits[k] |= p.bits[k];
    return { mode: "unique", bits };
  }
  const rows = new Map();
  for (const p of parts)
    p.codes.forEach((code, j) => {
      const row = rows.get(code);
      if (row === undefined) rows.set(code, p.rows[j].slice());
      else for (let k = 0; k < row.length; k++) row[k] += p.rows[j][k];
    });
  return { mode: "breakdown", codes: Int32Array.from(rows.keys()), rows: [...rows.values()] };
}

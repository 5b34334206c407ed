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

export function countRows(cols, job) {
  const { ts, name, did, shape, voff, vals } = cols;
  const { start, end, wanted, edges, mode, keyPos, words } = job;
  const buckets = edges.length - 1;
  const counts = mode === "count" ? new Float64Array(buckets) : null;
  const bits = mode === "unique" ? new Int32Array(buckets * words) : null;
  const byValue = mode === "breakdown" ? new Map() : null;
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
  if (counts !== null) return { mode, counts };
  if (bits !== null) return { mode, bits };
  return { mode, codes: Int32Array.from(byValue.keys()), rows: [...byValue.values()] };
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

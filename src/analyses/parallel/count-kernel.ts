import type { ScanSnapshot } from "../../store/columns/column-arrays.ts";
import type { ChunkClaim } from "./claims.ts";
import type { ScanTask } from "./scan-task.ts";

/**
 * The trend counting loop over a column snapshot's rows [start, end), run by the main thread and the scan workers
 * alike (scan-worker.ts bundles it). No closure per row: the name test is one read of a byte per name id, and a
 * bucket is a run of rows.
 *
 * Modes: "count" events per bucket; "unique" a bitset per bucket over distinct-id ids (the caller maps ids to
 * persons once per id, not per event), or over session codes (`sessionOf`: each value id's code, `keyPos`: where the
 * session id sits); "breakdown" events per bucket per value id of one property (code 0: the event lacks it, else
 * value id + 1), or by a person property's code per distinct id (`didCode`); "values" the numbers of one property
 * (`mathPos`, `num`) in row order, kept per chunk so that the caller aggregates them in the general scan's order
 * (with a breakdown: each value's code beside it); "actorCounts" events per bucket per distinct id (`words` counters
 * a bucket), which the caller adds up per person. `filter`, when set, tests each row first. `groupOf`, when set,
 * gives each row's group (of the aggregation's type): rows in none are not counted, and "unique" counts groups.
 */
export type KernelColumns = Pick<ScanSnapshot, "ts" | "name" | "did" | "shape" | "valueStart" | "vals">;

export interface CountJob {
  start: number;
  end: number;
  /** 1 at the name ids counted; null = every name. */
  wanted: Uint8Array | null;
  /** Bucket starts, then the end of the last bucket. */
  edges: Float64Array;
  mode: "count" | "unique" | "breakdown" | "values" | "actorCounts";
  /** breakdown (and values with a breakdown): the property's position in each shape's key list, -1 where absent. */
  keyPos: Int32Array | null;
  /** unique: 32-bit words per bucket in the bitset (distinct ids / 32, rounded up); actorCounts: distinct ids. */
  words: number;
  /** breakdown by a person property: the value code of each distinct id (0: none), read instead of `keyPos`. */
  didCode: Int32Array | null;
  /** Rows counted only where it passes; null = every row (of the wanted names). */
  filter: KernelFilter | null;
  /** values: the math property's position in each shape's key list (-1: absent). */
  mathPos: Int32Array | null;
  /** values: the number of each value id (NaN: not a number, skipped). */
  num: Float64Array | null;
  /** unique over sessions: each value id's session code (`keyPos`: where the session id sits); null = distinct ids. */
  sessionOf: Int32Array | null;
  /** unique over sessions: the code of an event without a session id. */
  noSession: number;
  /** Group aggregation: each row's group id of the type (-1: none, not counted); unique then counts groups. */
  groupOf: Int32Array | null;
}

/**
 * A row filter: AND/OR of leaves. "value": 1 in `accept` at the value ids of `keyPos`'s property that pass, `absent`
 * the verdict for a row without it; "did": 1 in `accept` at the distinct-id ids whose person passes.
 */
export type KernelFilter =
  | { kind: "and" | "or"; of: KernelFilter[] }
  | { kind: "value"; keyPos: Int32Array; accept: Uint8Array; absent: 0 | 1 }
  | { kind: "did"; accept: Uint8Array };

/** A chunk's property values in row order: bucket b's are [starts[b], ends[b]); `codes`: each one's breakdown code. */
export interface ValuesPart {
  chunk: number;
  values: Float64Array;
  codes: Int32Array | null;
  starts: Int32Array;
  ends: Int32Array;
}

export type CountResult =
  | { mode: "count"; counts: Float64Array }
  | { mode: "unique"; bits: Int32Array }
  | { mode: "breakdown"; codes: Int32Array; rows: Float64Array[] }
  | { mode: "values"; parts: ValuesPart[] }
  | { mode: "actorCounts"; counts: Int32Array };

/** A values part being filled: its numbers (and codes) grow as rows come, packed into a ValuesPart once counted. */
interface OpenPart {
  chunk: number;
  values: number[];
  codes: number[] | null;
  starts: Int32Array;
  ends: Int32Array;
}

/** What the ranges one thread counts add into; as a result once counted (tallyResult). */
type Tally =
  | { mode: "count"; counts: Float64Array }
  | { mode: "unique"; bits: Int32Array }
  | { mode: "breakdown"; byValue: Map<number, Float64Array> }
  | { mode: "values"; parts: OpenPart[]; part: OpenPart | null }
  | { mode: "actorCounts"; counts: Int32Array };

/**
 * Whether row `i` passes `f`: AND/OR nodes over leaves that read one property's value id (`accept[id]`, `absent`
 * when the row lacks the key) or the distinct id (`accept[did]`: person properties, cohorts).
 */
export function passes(f: KernelFilter, cols: Pick<KernelColumns, "shape" | "valueStart" | "vals" | "did">, i: number): boolean {
  switch (f.kind) {
    case "value": {
      const p = f.keyPos[cols.shape[i]!]!;
      return (p < 0 ? f.absent : f.accept[cols.vals[cols.valueStart[i]! + p]!]) === 1;
    }
    case "did":
      return f.accept[cols.did[i]!] === 1;
    case "and":
      for (const c of f.of) if (!passes(c, cols, i)) return false;
      return true;
    default:
      for (const c of f.of) if (passes(c, cols, i)) return true;
      return false;
  }
}

/** Whether row `i` is counted: its name wanted and the filter passed. */
const counted = (cols: KernelColumns, job: CountJob, i: number): boolean =>
  (job.wanted === null || job.wanted[cols.name[i]!] === 1) && (job.filter === null || passes(job.filter, cols, i)) && (job.groupOf === null || job.groupOf[i]! >= 0);

/** The first row of [lo, hi) whose time is ≥ t (rows are in time order). */
function firstRowAtOrAfter(ts: Float64Array, lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An empty tally for `job`'s mode: what the ranges one thread counts add into. */
function newTally(job: CountJob): Tally {
  const buckets = job.edges.length - 1;
  if (job.mode === "count") return { mode: "count", counts: new Float64Array(buckets) };
  if (job.mode === "unique") return { mode: "unique", bits: new Int32Array(buckets * job.words) };
  if (job.mode === "values") return { mode: "values", parts: [], part: null };
  if (job.mode === "actorCounts") return { mode: "actorCounts", counts: new Int32Array(buckets * job.words) };
  return { mode: "breakdown", byValue: new Map() };
}

/** values: the rows that follow belong to chunk `k` (its values stay apart from other chunks'). */
function openPart(tally: Tally, job: CountJob, k: number): void {
  if (tally.mode !== "values") return;
  const buckets = job.edges.length - 1;
  tally.part = { chunk: k, values: [], codes: codesOf(job) ? [] : null, starts: new Int32Array(buckets), ends: new Int32Array(buckets) };
  tally.parts.push(tally.part);
}

const codesOf = (job: CountJob): boolean => job.keyPos !== null || job.didCode !== null;

/** The breakdown code of row `i`: the person property's code of its distinct id, else its value id + 1 (0: none). */
function codeAt(cols: KernelColumns, job: CountJob, i: number): number {
  if (job.didCode !== null) return job.didCode[cols.did[i]!]!;
  const p = job.keyPos![cols.shape[i]!]!;
  return p < 0 ? 0 : cols.vals[cols.valueStart[i]! + p]! + 1;
}

/**
 * Adds the rows [start, end) of `job` into `tally`. Rows are in time order, so each bucket is a run of rows found
 * by two binary searches: the loops read the name column (and the ids they count), never the timestamps.
 */
function tallyRows(cols: KernelColumns, job: CountJob, start: number, end: number, tally: Tally): void {
  const { edges } = job;
  for (let b = 0, from = firstRowAtOrAfter(cols.ts, start, end, edges[0]!); b < edges.length - 1 && from < end; b++) {
    const to = firstRowAtOrAfter(cols.ts, from, end, edges[b + 1]!);
    if (to > from) tallyBucket(cols, job, from, to, b, tally);
    from = to;
  }
}

/** Adds the rows [from, to), all in bucket `b`. */
function tallyBucket(cols: KernelColumns, job: CountJob, from: number, to: number, b: number, tally: Tally): void {
  if (tally.mode === "count") tally.counts[b]! += countBucket(cols, job, from, to);
  else if (tally.mode === "unique") markUnique(cols, job, from, to, b * job.words, tally.bits);
  else if (tally.mode === "actorCounts") countPerActor(cols, job, from, to, b * job.words, tally.counts);
  else if (tally.mode === "values") tallyValues(cols, job, from, to, b, tally.part!);
  else tallyBreakdown(cols, job, from, to, b, tally.byValue);
}

/** How many rows of [from, to) are counted (without a filter or groups: the wanted names read alone). */
function countBucket(cols: KernelColumns, job: CountJob, from: number, to: number): number {
  const { name } = cols;
  const { wanted } = job;
  let n = 0;
  if (job.filter !== null || job.groupOf !== null) for (let i = from; i < to; i++) n += counted(cols, job, i) ? 1 : 0;
  else if (wanted === null) n = to - from;
  else for (let i = from; i < to; i++) n += wanted[name[i]!]!;
  return n;
}

/** Sets the bit of each counted row's distinct id, group or session code in the bitset at `bits[base]`. */
function markUnique(cols: KernelColumns, job: CountJob, from: number, to: number, base: number, bits: Int32Array): void {
  const { name, did, shape, valueStart, vals } = cols;
  const { wanted, filter, sessionOf, keyPos, groupOf } = job;
  for (let i = from; i < to; i++) {
    if (wanted !== null && wanted[name[i]!] === 0) continue;
    if (filter !== null && !passes(filter, cols, i)) continue;
    let d: number;
    if (groupOf !== null) {
      d = groupOf[i]!;
      if (d < 0) continue;
    } else if (sessionOf === null) d = did[i]!;
    else {
      const p = keyPos![shape[i]!]!;
      d = p < 0 ? job.noSession : sessionOf[vals[valueStart[i]! + p]!]!;
    }
    bits[base + (d >>> 5)]! |= 1 << (d & 31);
  }
}

/** Adds each counted row to its distinct id's counter among those at `counts[base]`. */
function countPerActor(cols: KernelColumns, job: CountJob, from: number, to: number, base: number, counts: Int32Array): void {
  const { did } = cols;
  for (let i = from; i < to; i++) if (counted(cols, job, i)) counts[base + did[i]!]!++;
}

/** Events per bucket per breakdown code (the code read inline: the commonest breakdown's hot loop). */
function tallyBreakdown(cols: KernelColumns, job: CountJob, from: number, to: number, b: number, byValue: Map<number, Float64Array>): void {
  const { name, did, shape, valueStart, vals } = cols;
  const { wanted, keyPos, didCode, filter } = job;
  const buckets = job.edges.length - 1;
  let lastCode = -1;
  let lastRow: Float64Array | undefined;
  for (let i = from; i < to; i++) {
    if (wanted !== null && wanted[name[i]!] === 0) continue;
    if (filter !== null && !passes(filter, cols, i)) continue;
    let code: number;
    if (didCode !== null) code = didCode[did[i]!]!;
    else {
      const p = keyPos![shape[i]!]!;
      code = p < 0 ? 0 : vals[valueStart[i]! + p]! + 1;
    }
    if (code !== lastCode) {
      lastRow = byValue.get(code);
      if (lastRow === undefined) byValue.set(code, (lastRow = new Float64Array(buckets)));
      lastCode = code;
    }
    // Set by the first row: codes are ≥ 0, so it differs from the initial lastCode.
    lastRow![b]!++;
  }
}

/**
 * The property's numbers in row order (a bucket's rows are one run of them). Without a breakdown a row without a
 * number adds nothing; with one it is kept as NaN, as its key still makes a (zero) row.
 */
function tallyValues(cols: KernelColumns, job: CountJob, from: number, to: number, b: number, part: OpenPart): void {
  const { shape, valueStart, vals } = cols;
  const mathPos = job.mathPos!;
  const num = job.num!;
  const codes = part.codes;
  part.starts[b] = part.values.length;
  for (let i = from; i < to; i++) {
    if (!counted(cols, job, i)) continue;
    const p = mathPos[shape[i]!]!;
    const v = p < 0 ? NaN : num[vals[valueStart[i]! + p]!]!;
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
function tallyResult(tally: Tally): CountResult {
  if (tally.mode === "values") return { mode: "values", parts: tally.parts.map(packedPart) };
  if (tally.mode !== "breakdown") return tally;
  return { mode: "breakdown", codes: Int32Array.from(tally.byValue.keys()), rows: [...tally.byValue.values()] };
}

/** A values part in typed arrays (what a worker posts back cheaply). */
const packedPart = (p: OpenPart): ValuesPart => ({
  chunk: p.chunk,
  values: Float64Array.from(p.values),
  codes: p.codes === null ? null : Int32Array.from(p.codes),
  starts: p.starts,
  ends: p.ends,
});

/** The rows [job.start, job.end) counted in one pass. */
export function countRows(cols: KernelColumns, job: CountJob): CountResult {
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
export function countChunks(cols: KernelColumns, job: CountJob, claim: ChunkClaim): { result: CountResult | null; taken: number } {
  const { chunks, state } = claim;
  const total = chunks.length / 2;
  let tally: Tally | null = null;
  let taken = 0;
  for (let k = Atomics.add(state, 0, 1); k < total; k = Atomics.add(state, 0, 1)) {
    tally ??= newTally(job);
    openPart(tally, job, k);
    tallyRows(cols, job, chunks[2 * k]!, chunks[2 * k + 1]!, tally);
    taken++;
  }
  return { result: tally === null ? null : tallyResult(tally), taken };
}

/** The counting loop as a scan task, by the name the workers know it by. */
export const countTask: ScanTask<KernelColumns, CountJob, CountResult> = { name: "count", run: countChunks };

/**
 * One result from the partial results of disjoint row ranges: counts summed, bitsets or'ed, rows by code summed,
 * values' parts in chunk (row) order.
 */
export function mergeCounts(parts: CountResult[]): CountResult {
  const first = parts[0]!;
  const rest = parts.slice(1);
  switch (first.mode) {
    case "values":
      return { mode: "values", parts: ofMode(parts, "values").flatMap((p) => p.parts).sort((a, b) => a.chunk - b.chunk) };
    // Into copies: an analysis run again off the main thread merges the same answers again (off-main-thread.ts).
    case "count":
      return { mode: "count", counts: addedInto(first.counts.slice(), ofMode(rest, "count")) };
    case "actorCounts":
      return { mode: "actorCounts", counts: addedInto(first.counts.slice(), ofMode(rest, "actorCounts")) };
    case "unique":
      return { mode: "unique", bits: oredInto(first.bits.slice(), ofMode(rest, "unique")) };
    case "breakdown":
      return mergeBreakdowns(ofMode(parts, "breakdown"));
  }
}

/** `parts` as results of `mode`: the partial results of one job all have the job's mode. */
function ofMode<M extends CountResult["mode"]>(parts: CountResult[], mode: M): Extract<CountResult, { mode: M }>[] {
  const same = parts.filter((p): p is Extract<CountResult, { mode: M }> => p.mode === mode);
  if (same.length !== parts.length) throw new Error(`count results of other modes merged into a "${mode}" result`);
  return same;
}

/** `counts` with each of `others`' counts added in. */
function addedInto<A extends Float64Array | Int32Array>(counts: A, others: readonly { counts: ArrayLike<number> }[]): A {
  for (const p of others) for (let k = 0; k < counts.length; k++) counts[k]! += p.counts[k]!;
  return counts;
}

/** `bits` with each of `others`' bitsets or'ed in. */
function oredInto(bits: Int32Array, others: readonly { bits: Int32Array }[]): Int32Array {
  for (const p of others) for (let k = 0; k < bits.length; k++) bits[k]! |= p.bits[k]!;
  return bits;
}

/** The rows of every part summed by breakdown code (a code's first row copied, the others added to it). */
function mergeBreakdowns(parts: readonly { codes: Int32Array; rows: Float64Array[] }[]): CountResult {
  const rows = new Map<number, Float64Array>();
  for (const p of parts)
    p.codes.forEach((code, j) => {
      const add = p.rows[j]!;
      const row = rows.get(code);
      if (row === undefined) rows.set(code, add.slice());
      else for (let k = 0; k < row.length; k++) row[k]! += add[k]!;
    });
  return { mode: "breakdown", codes: Int32Array.from(rows.keys()), rows: [...rows.values()] };
}

/** Types of count-kernel.mjs (plain JavaScript, run by the main thread and by the scan workers alike). */
export interface KernelColumns {
  ts: Float64Array;
  name: Uint32Array;
  did: Uint32Array;
  shape: Uint32Array;
  voff: Uint32Array;
  vals: Uint32Array;
}

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

/** Chunks of rows shared out between threads: boundaries, and [next chunk to take, chunks counted] in shared memory. */
export interface ChunkClaim {
  chunks: Float64Array;
  state: Int32Array;
}

/** Whether row `i` passes `f` (reads `shape`, `voff`, `vals` and `did`). */
export function passes(f: KernelFilter, cols: Pick<KernelColumns, "shape" | "voff" | "vals" | "did">, i: number): boolean;
export function countRows(cols: KernelColumns, job: CountJob): CountResult;
export function countChunks(cols: KernelColumns, job: CountJob, claim: ChunkClaim): { result: CountResult | null; taken: number };
export function markCounted(claim: ChunkClaim, taken: number): void;
export function mergeCounts(parts: CountResult[]): CountResult;

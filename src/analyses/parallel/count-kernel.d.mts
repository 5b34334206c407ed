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
  mode: "count" | "unique" | "breakdown";
  /** breakdown: the property's position in each shape's key list, -1 where absent. */
  keyPos: Int32Array | null;
  /** unique: 32-bit words per bucket in the bitset (distinct ids / 32, rounded up). */
  words: number;
  /** breakdown by a person property: the value code of each distinct id (0: none), read instead of `keyPos`. */
  didCode: Int32Array | null;
}

export type CountResult =
  | { mode: "count"; counts: Float64Array }
  | { mode: "unique"; bits: Int32Array }
  | { mode: "breakdown"; codes: Int32Array; rows: Float64Array[] };

/** Chunks of rows shared out between threads: boundaries, and [next chunk to take, chunks counted] in shared memory. */
export interface ChunkClaim {
  chunks: Float64Array;
  state: Int32Array;
}

export function countRows(cols: KernelColumns, job: CountJob): CountResult;
export function countChunks(cols: KernelColumns, job: CountJob, claim: ChunkClaim): { result: CountResult | null; taken: number };
export function markCounted(claim: ChunkClaim, taken: number): void;
export function mergeCounts(parts: CountResult[]): CountResult;

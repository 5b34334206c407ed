/**
 * Position of an event by uuid in one column table (src/store/event-table.ts), for capture's deduplication.
 * An open-addressing hash (linear probing) whose slots hold only `position + 1` (0 = empty) in one typed array:
 * the key is not copied, a probe compares the table's own four uuid words at that position, so the index stays a
 * small fraction of a Map of uuid strings (figures: bench/NOTES.md).
 */

/** murmur3's 32-bit finaliser: spreads the bits that differ (a uuid's random tail, a counter) over the hash. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const hashOf = (w0: number, w1: number, w2: number, w3: number) => mix(w0 ^ mix(w1 ^ mix(w2 ^ mix(w3))));

/** Fuller than this, probes get long; the slots double. */
const MAX_LOAD = 0.7;

/** Work done by an index, for tests that bound it: uuid rows read, by builds and by probes. */
export interface UuidWork {
  rows: number;
}

export class UuidIndex {
  #slots: Uint32Array;
  #count = 0;

  private constructor(
    capacity: number,
    private readonly work: UuidWork,
  ) {
    this.#slots = new Uint32Array(capacity);
  }

  /** The index of the first `rows` rows of a uuid column (four words per row); the first of equal uuids wins. */
  static build(words: Uint32Array, rows: number, work: UuidWork): UuidIndex {
    const index = new UuidIndex(capacityFor(rows), work);
    for (let i = 0; i < rows; i++) index.add(words, i);
    return index;
  }

  /** Position of the row with these words, or -1. */
  find(words: Uint32Array, w0: number, w1: number, w2: number, w3: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let s = hashOf(w0, w1, w2, w3) & mask; ; s = (s + 1) & mask) {
      const held = slots[s]!;
      if (held === 0) return -1;
      const j = (held - 1) * 4;
      this.work.rows++;
      if (words[j] === w0 && words[j + 1] === w1 && words[j + 2] === w2 && words[j + 3] === w3) return held - 1;
    }
  }

  /** Indexes the row at `position` (already written to `words`); an equal uuid at a later position gives way. */
  add(words: Uint32Array, position: number): void {
    if (this.#count + 1 > this.#slots.length * MAX_LOAD) this.#grow(words);
    const slots = this.#slots;
    const mask = slots.length - 1;
    const k = position * 4;
    const w0 = words[k]!;
    const w1 = words[k + 1]!;
    const w2 = words[k + 2]!;
    const w3 = words[k + 3]!;
    this.work.rows++;
    for (let s = hashOf(w0, w1, w2, w3) & mask; ; s = (s + 1) & mask) {
      const held = slots[s]!;
      if (held === 0) {
        slots[s] = position + 1;
        this.#count++;
        return;
      }
      const j = (held - 1) * 4;
      this.work.rows++;
      if (words[j] === w0 && words[j + 1] === w1 && words[j + 2] === w2 && words[j + 3] === w3) {
        if (position < held - 1) slots[s] = position + 1;
        return;
      }
    }
  }

  /**
   * Rows inserted before stored ones: `at` (ascending) are the insertion points in the old positions, so a row at
   * old position p moves up by the number of points at or before p. One pass over the slots for the lot.
   */
  shiftForInserts(at: Int32Array): void {
    const slots = this.#slots;
    const first = at[0]!;
    for (let s = 0; s < slots.length; s++) {
      const held = slots[s]!;
      if (held > first) slots[s] = held + pointsUpTo(at, held - 1);
    }
  }

  #grow(words: Uint32Array): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    this.#count = 0;
    for (const held of old) if (held !== 0) this.add(words, held - 1);
  }
}

/** How many of the ascending `points` are at most `p`. */
function pointsUpTo(points: Int32Array, p: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid]! <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Slots for `rows` rows under MAX_LOAD, a power of two (the probe wraps with a mask). */
function capacityFor(rows: number): number {
  let capacity = 1024;
  while (rows >= capacity * MAX_LOAD) capacity *= 2;
  return capacity;
}

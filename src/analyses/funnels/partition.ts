import { makeBuckets, type Buckets } from "../shared/buckets.ts";
import type { Interval } from "../shared/context.ts";
import { passes, type KernelColumns, type KernelFilter } from "../parallel/count-kernel.ts";
import { bestAttemptOf, forEachAttemptStart, type AttemptRules, type JourneyEvents, type ReachedSteps } from "./attempts.ts";
import { touchTakes } from "./touch.ts";
import { newTrendTally, tallyActor, type TrendTally } from "./viz.ts";

/**
 * A funnel read straight from a column snapshot over every core, for funnels whose steps and exclusions are decided
 * by the event name alone; the same attempts as the single-threaded collection (journeys.ts). Two passes:
 * 1. row chunks (time ranges): each chunk keeps the rows that matter, grouped by the part of the actors (actor slot
 *    mod `parts`) they belong to, in shared memory;
 * 2. parts of the actors: each part reads its rows of every chunk in chunk order (so each actor's journey comes
 *    whole and in time order) and gives its actors' counted attempts, or its conversion trends tally.
 * Every row is read once, by one thread, whatever the number of parts.
 */
/** The kernel's columns (conditions and breakdowns read the rows' property shapes and values), and the actors'. */
export interface FunnelColumns extends KernelColumns {
  /** Actor slot per distinct-id id, and its part (../shared/actor-table.ts). */
  slotOfDid: Int32Array;
  partOfDid: Uint8Array;
  /** Groups as actors: each row's group id of the type, the actor's slot (-1: in none, the row drops out). */
  groupOf: Int32Array | null;
}

/** The actor slot of row `i`: its group's, or its distinct id's person's. */
const slotAt = (cols: FunnelColumns, i: number): number => (cols.groupOf === null ? cols.slotOfDid[cols.did[i]!]! : cols.groupOf[i]!);

/** The part of row `i`'s actor (slot mod parts), −1 when the row has no actor (an event in no group). */
const partAt = (cols: FunnelColumns, parts: number, i: number): number => {
  if (cols.groupOf === null) return cols.partOfDid[cols.did[i]!]!;
  const slot = cols.groupOf[i]!;
  return slot < 0 ? -1 : slot % parts;
};

/**
 * A breakdown by one event property, first_touch or last_touch: an actor's value is the first (last) one its step
 * events carry. `keyPos`: the property's position in each shape; `none`: 1 at the value ids that are no value, as
 * the breakdown's own rule (breakdownText) says of them.
 */
export interface FunnelPartBreakdown {
  keyPos: Int32Array;
  none: Uint8Array;
  last: boolean;
}

/** A step or exclusion with a property condition: its bit is set on the rows of its names that pass `filter`. */
export interface FunnelCondition {
  bit: number;
  exclusion: boolean;
  /** 1 at the name ids it accepts; null = every name. */
  names: Uint8Array | null;
  filter: KernelFilter;
}

/** Pass 1: which rows matter and the steps and exclusions each sets; the chunks' bounds come with the claim. */
export interface FunnelRowsJob {
  /** Per name id, the step bits and the exclusion bits the name sets alone. */
  stepBits: Int32Array;
  exclusionBits: Int32Array;
  conditions: FunnelCondition[];
  /** The funnel's own property conditions (and test accounts): a row failing them is no event of the funnel's. */
  global: KernelFilter | null;
  /** Strict funnels keep every event: any event breaks them. */
  keepAll: boolean;
  parts: number;
}

/**
 * One chunk's kept rows, part after part (those of part p at [offsets[p], offsets[p + 1]), in time order), with
 * each one's step and exclusion bits; in shared memory, so pass 2's threads read them in place.
 */
export interface ChunkRows {
  chunk: number;
  offsets: Int32Array;
  rows: Int32Array;
  /** Null when the names alone give the bits (FunnelPartJob's tables). */
  steps: Int32Array | null;
  exclusions: Int32Array | null;
}

/** Pass 2: per part, every chunk's rows of that part. */
export interface FunnelPartJob {
  /** Pass 1's chunks, in chunk (time) order. */
  chunks: ChunkRows[];
  /** The bits each name sets, for chunks that keep none of their own. */
  stepBits: Int32Array;
  exclusionBits: Int32Array;
  rules: AttemptRules;
  parts: number;
  /** Actor slots are below this. */
  actors: number;
  /** "best": each actor's counted attempt (steps, time to convert); else conversion trends over these periods. */
  want: "best" | TrendPeriods;
  breakdown: FunnelPartBreakdown | null;
}

/** The entrance periods of conversion trends, and the steps converted from and to. */
export interface TrendPeriods {
  interval: Interval;
  edges: number[];
  from: number;
  to: number;
  fromStep: number;
  toStep: number;
}

/** A part's counted attempts, actor by actor: flat arrays, as a worker posts them. */
export interface PartBest {
  slots: Int32Array;
  /** With a breakdown: the actor's value id + 1 (0: none). */
  codes: Int32Array;
  levels: Int32Array;
  /** `rules.stepCount` per actor: the reached steps' times, then NaN. */
  times: Float64Array;
  /** With optional steps, per actor: the steps its attempt went through (bits) and how many times it has. */
  bits: Int32Array;
  timed: Int32Array;
}

export type PartResult = PartBest | TrendTally;

/** Per row of a chunk: its part + 1 (0: not kept), and its bits; pass 1's second read reads these alone. Per thread. */
let partOfRow = new Uint8Array(1 << 16);
let stepsOfRow = new Int32Array(1 << 16);
let exclusionsOfRow = new Int32Array(1 << 16);

/**
 * Pass 1 over the rows [start, end): the kept rows, grouped by part (one read finds them, one places them). Without
 * a property condition the names alone give the bits, which pass 2 then reads from the names again.
 */
export function funnelChunkRows(cols: FunnelColumns, job: FunnelRowsJob, start: number, end: number, chunk: number): ChunkRows {
  if (partOfRow.length < end - start) [partOfRow, stepsOfRow, exclusionsOfRow] = [new Uint8Array(end - start), new Int32Array(end - start), new Int32Array(end - start)];
  const offsets = new Int32Array(job.parts + 1);
  const byName = job.conditions.length === 0 && job.global === null;
  if (byName) markByName(cols, job, start, end, offsets);
  else markByConditions(cols, job, start, end, offsets);
  for (let p = 0; p < job.parts; p++) offsets[p + 1]! += offsets[p]!;
  // One place more than the kept rows: the rows not kept are written there, so that the loop has no branch (which
  // way a row goes is unpredictable, and mispredictions cost more than the writes).
  const kept = offsets[job.parts]!;
  const rows = new Int32Array(new SharedArrayBuffer(4 * (kept + 1)));
  const steps = byName ? null : new Int32Array(new SharedArrayBuffer(4 * (kept + 1)));
  const exclusions = byName ? null : new Int32Array(new SharedArrayBuffer(4 * (kept + 1)));
  // fill[mark]: where the next row of part mark − 1 goes; mark 0 (not kept) writes at `kept` and stays there.
  const fill = new Int32Array(job.parts + 1);
  fill[0] = kept;
  fill.set(offsets.subarray(0, job.parts), 1);
  const marks = partOfRow;
  for (let i = start; i < end; i++) {
    const mark = marks[i - start]!;
    const at = fill[mark]!;
    rows[at] = i;
    fill[mark] = at + ((mark + 255) >>> 8);
  }
  if (steps !== null) {
    fill[0] = kept;
    fill.set(offsets.subarray(0, job.parts), 1);
    for (let i = start; i < end; i++) {
      const mark = marks[i - start]!;
      const at = fill[mark]!;
      steps[at] = stepsOfRow[i - start]!;
      exclusions![at] = exclusionsOfRow[i - start]!;
      fill[mark] = at + ((mark + 255) >>> 8);
    }
  }
  return { chunk, offsets, rows, steps, exclusions };
}

/** Marks the rows kept by their names alone, counting them per part into offsets[part + 1]; no branch per row. */
function markByName(cols: FunnelColumns, job: FunnelRowsJob, start: number, end: number, offsets: Int32Array): void {
  const { name } = cols;
  const { stepBits, exclusionBits, parts } = job;
  const all = job.keepAll ? 1 : 0;
  const marks = partOfRow;
  for (let i = start; i < end; i++) {
    const nameId = name[i]!;
    const p = partAt(cols, parts, i);
    // 1 when the name sets a bit (bits are small and positive: −bits has its sign bit set), or when all are kept;
    // 0 without an actor (p >> 31 is −1 then).
    const keep = (all | (-(stepBits[nameId]! | exclusionBits[nameId]!) >>> 31)) & ~(p >> 31);
    offsets[p + 1]! += keep;
    marks[i - start] = keep * (p + 1);
  }
}

/** Marks the rows kept under the conditions and the funnel's own filter, with each one's bits. */
function markByConditions(cols: FunnelColumns, job: FunnelRowsJob, start: number, end: number, offsets: Int32Array): void {
  const { name } = cols;
  const { stepBits, exclusionBits, conditions, global, keepAll, parts } = job;
  const [marks, stepMarks, exclusionMarks] = [partOfRow, stepsOfRow, exclusionsOfRow];
  for (let i = start; i < end; i++) {
    const nameId = name[i]!;
    let steps = stepBits[nameId]!;
    let exclusions = exclusionBits[nameId]!;
    for (let c = 0; c < conditions.length; c++) {
      const condition = conditions[c]!;
      if ((condition.names === null || condition.names[nameId] === 1) && passes(condition.filter, cols, i)) {
        if (condition.exclusion) exclusions |= condition.bit;
        else steps |= condition.bit;
      }
    }
    const p = partAt(cols, parts, i);
    if (p >= 0 && (keepAll || (steps | exclusions) !== 0) && (global === null || passes(global, cols, i))) {
      offsets[p + 1]!++;
      marks[i - start] = p + 1;
      stepMarks[i - start] = steps;
      exclusionMarks[i - start] = exclusions;
    } else marks[i - start] = 0;
  }
}

/** Pass 2: the counted attempts, or the conversion trends tally, of the actors in part `part` of `job`. */
export function funnelPart(cols: FunnelColumns, job: FunnelPartJob, part: number): PartResult {
  const journeys = byActor(cols, job, part);
  return job.want === "best" ? bestOfPart(journeys, job, part) : trendTally(journeys, job, job.want);
}

interface Journeys {
  /** Per actor index in the part: [offset, offset of the next) into the arrays below. */
  offsets: Int32Array;
  /** Per actor index, with a breakdown: its value id + 1 (0: none). */
  code: Int32Array;
  ts: Float64Array;
  steps: Int32Array;
  exclusions: Int32Array;
}

/**
 * The journeys' arrays, reused by every part this thread runs (a part is done with them before it returns its
 * result): allocating tens of megabytes per part slowed strict funnels, which keep every row.
 */
let journeyScratch = { ts: new Float64Array(0), steps: new Int32Array(0), exclusions: new Int32Array(0) };

/**
 * The part's rows of every chunk, counting-sorted by actor (stable, and chunks come in time order: each actor's
 * events stay in time order), reading times and masks as it goes. An actor's index in the part is slot div parts.
 */
function byActor(cols: FunnelColumns, job: FunnelPartJob, part: number): Journeys {
  const { parts } = job;
  const locals = Math.ceil(Math.max(0, job.actors - part) / parts);
  const offsets = new Int32Array(locals + 1);
  let n = 0;
  for (const { offsets: at, rows } of job.chunks) {
    for (let k = at[part]!; k < at[part + 1]!; k++) offsets[(((slotAt(cols, rows[k]!) - part) / parts) | 0) + 1]!++;
    n += at[part + 1]! - at[part]!;
  }
  for (let a = 0; a < locals; a++) offsets[a + 1]! += offsets[a]!;
  const fill = offsets.slice(0, locals);
  if (journeyScratch.ts.length < n) {
    const size = Math.ceil(n * 1.25);
    journeyScratch = { ts: new Float64Array(size), steps: new Int32Array(size), exclusions: new Int32Array(size) };
  }
  const { ts, steps, exclusions } = journeyScratch;
  const { breakdown } = job;
  const code = new Int32Array(breakdown ? locals : 0);
  for (const chunk of job.chunks) {
    const { offsets: at, rows } = chunk;
    for (let k = at[part]!; k < at[part + 1]!; k++) {
      const i = rows[k]!;
      const a = ((slotAt(cols, i) - part) / parts) | 0;
      const to = fill[a]!++;
      ts[to] = cols.ts[i]!;
      steps[to] = chunk.steps === null ? job.stepBits[cols.name[i]!]! : chunk.steps[k]!;
      exclusions[to] = chunk.exclusions === null ? job.exclusionBits[cols.name[i]!]! : chunk.exclusions[k]!;
      if (breakdown && steps[to] !== 0) {
        const value = valueCode(cols, breakdown, i);
        if (touchTakes(breakdown.last, code[a] !== 0, value !== 0)) code[a] = value;
      }
    }
  }
  return { offsets, code, ts, steps, exclusions };
}

/** The breakdown value of row i: its id + 1, or 0 when the row has none (missing, or a value that is none). */
function valueCode(cols: FunnelColumns, breakdown: FunnelPartBreakdown, i: number): number {
  const p = breakdown.keyPos[cols.shape[i]!]!;
  if (p < 0) return 0;
  const id = cols.vals[cols.valueStart[i]! + p]!;
  return breakdown.none[id] === 1 ? 0 : id + 1;
}

/** Each actor's journey, with its index in the part. */
function forEachJourney(j: Journeys, visit: (journey: JourneyEvents, a: number) => void): void {
  for (let a = 0; a + 1 < j.offsets.length; a++) {
    const [from, to] = [j.offsets[a]!, j.offsets[a + 1]!];
    if (from < to) visit({ ts: j.ts.subarray(from, to), steps: j.steps.subarray(from, to), exclusions: j.exclusions.subarray(from, to) }, a);
  }
}

/** Each actor's counted attempt, as journeys.ts' callers pick it (bestAttemptOf), in slot order. */
function bestOfPart(j: Journeys, job: FunnelPartJob, part: number): PartBest {
  const stepCount = job.rules.stepCount;
  const slots: number[] = [];
  const codes: number[] = [];
  const levels: number[] = [];
  const times: number[] = [];
  const bits: number[] = [];
  const timed: number[] = [];
  forEachJourney(j, (journey, a) => {
    const best = bestAttemptOf(journey, job.rules);
    if (!best) return;
    slots.push(a * job.parts + part);
    if (job.breakdown) codes.push(j.code[a]!);
    levels.push(best.level);
    for (let k = 0; k < stepCount; k++) times.push(best.times[k] ?? NaN);
    if (best.bits !== undefined) {
      bits.push(best.bits);
      timed.push(best.times.length);
    }
  });
  const ints = (list: number[]) => Int32Array.from(list);
  return { slots: ints(slots), codes: ints(codes), levels: ints(levels), times: Float64Array.from(times), bits: ints(bits), timed: ints(timed) };
}

/** Conversion trends add up over actors, so a part gives its tally alone. */
function trendTally(j: Journeys, job: FunnelPartJob, periods: TrendPeriods): TrendTally {
  const buckets: Buckets = makeBuckets(periods.interval, periods.edges, periods.from, periods.to);
  const tally = newTrendTally(buckets.length);
  forEachJourney(j, (journey) => tallyActor((visit) => forEachAttemptStart(journey, job.rules, visit), buckets, periods, tally));
  return tally;
}

/** The parts' trends tallies summed (counts of actors: exact in any order). */
export function mergeTrendTallies(parts: readonly TrendTally[], periods: number): TrendTally {
  const sum = newTrendTally(periods);
  for (const p of parts) {
    for (let b = 0; b < periods; b++) {
      sum.entered[b]! += p.entered[b]!;
      sum.converted[b]! += p.converted[b]!;
    }
  }
  return sum;
}

/** The parts' counted attempts, in actor slot order, with each one's actor slot and (with a breakdown) value code. */
export function mergeBest(parts: readonly PartBest[], stepCount: number): { slots: number[]; codes: number[]; attempts: ReachedSteps[] } {
  const all: [slot: number, code: number, attempt: ReachedSteps][] = [];
  for (const p of parts) {
    p.slots.forEach((slot, k) => {
      const level = p.levels[k]!;
      // Optional steps: the attempt's required steps alone have times (optional-steps.ts).
      const optional = p.bits.length > 0;
      const times = Array.from(p.times.subarray(k * stepCount, k * stepCount + (optional ? p.timed[k]! : level)));
      all.push([slot, p.codes[k] ?? 0, optional ? { level, times, bits: p.bits[k]! } : { level, times }]);
    });
  }
  all.sort((a, b) => a[0] - b[0]);
  return { slots: all.map(([slot]) => slot), codes: all.map(([, code]) => code), attempts: all.map(([, , attempt]) => attempt) };
}

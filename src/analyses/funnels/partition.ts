import type { JourneyEvents } from "./attempts.ts";
import { makeBuckets, type Buckets } from "../shared/buckets.ts";
import type { Interval } from "../shared/context.ts";
import { bestAttemptOf, forEachAttemptStart, type Attempt, type AttemptRules } from "./attempts.ts";
import { newTrendTally, tallyActor, type TrendTally } from "./viz.ts";

/**
 * A funnel over one part of the actors (actor slot mod `parts`), read straight from a column snapshot: the same
 * attempts as the single-threaded collection (journeys.ts) for funnels whose steps and exclusions are decided by
 * the event name alone. Every part is independent (an actor's journey lies whole in one part), so the parts run
 * on any thread (../parallel/) and their attempts are only put back in order.
 */
export interface FunnelColumns {
  ts: Float64Array;
  name: Uint32Array;
  did: Uint32Array;
  /** Actor slot per distinct-id id, and its part (../shared/actor-table.ts). */
  slotOfDid: Int32Array;
  partOfDid: Uint8Array;
  /** With a breakdown: the rows' property shapes and values (see the event table). */
  shape?: Uint32Array;
  voff?: Uint32Array;
  vals?: Uint32Array;
}

/**
 * A breakdown by one event property, first_touch or last_touch: an actor's value is the first (last) one its step
 * events carry. `keyPos`: the property's position in each shape; `empty`: value ids shown as no value.
 */
export interface FunnelPartBreakdown {
  keyPos: Int32Array;
  empty: Int32Array;
  last: boolean;
}

export interface FunnelPartJob {
  /** The date range's rows. */
  start: number;
  end: number;
  /** Per name id, the step bits and the exclusion bits the name sets. */
  stepBits: Int32Array;
  exclusionBits: Int32Array;
  /** Strict funnels keep every event: any event breaks them. */
  keepAll: boolean;
  rules: AttemptRules;
  /** "best": the attempt counted per actor (steps, time to convert); else conversion trends over these periods. */
  attempts: "best" | TrendPeriods;
  parts: number;
  /** Actor slots are below this. */
  actors: number;
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

export type PartResult = PartAttempts | TrendTally;

/** One part's counted attempts, actor by actor: flat arrays, as a worker posts them. */
export interface PartAttempts {
  /** Per actor with an attempt: the row of its first kept event, the attempt's level and its step times (`rules.stepCount` of them, the unreached ones NaN). */
  firstRow: Float64Array;
  level: Int32Array;
  times: Float64Array;
  /** With a breakdown, per actor: its value id + 1 (0: no value). */
  code: Int32Array;
}

/** The counted attempts, or the trends tally, of the actors in part `part` of `job`. */
export function funnelPart(cols: FunnelColumns, job: FunnelPartJob, part: number): PartResult {
  const kept = keptRows(cols, job, part);
  const journeys = byActor(cols, job, kept, part);
  return job.attempts === "best" ? bestByActor(journeys, job) : trendTally(journeys, job, job.attempts);
}

interface Kept {
  n: number;
  row: Int32Array;
  local: Int32Array;
}

/** The rows of the range that matter to the funnel and belong to the part, with each one's actor index in the part. */
function keptRows(cols: FunnelColumns, job: FunnelPartJob, part: number): Kept {
  const { name, did, slotOfDid, partOfDid } = cols;
  const { stepBits, exclusionBits, keepAll, parts } = job;
  let row: Int32Array = new Int32Array(1 << 14);
  let local: Int32Array = new Int32Array(1 << 14);
  let n = 0;
  for (let i = job.start; i < job.end; i++) {
    const nameId = name[i]!;
    if (!keepAll && (stepBits[nameId]! | exclusionBits[nameId]!) === 0) continue;
    const d = did[i]!;
    if (partOfDid[d] !== part) continue;
    const slot = slotOfDid[d]!;
    if (n === row.length) [row, local] = [grown(row), grown(local)];
    row[n] = i;
    local[n++] = (slot - part) / parts;
  }
  return { n, row, local };
}

const grown = (a: Int32Array): Int32Array<ArrayBuffer> => {
  const next = new Int32Array(a.length * 2);
  next.set(a);
  return next;
};

interface Journeys {
  /** Per actor index in the part: [offset, offset of the next) into the arrays below. */
  offsets: Int32Array;
  firstRow: Float64Array;
  /** Per actor index: the breakdown value's id + 1 (0: none). */
  code: Int32Array;
  ts: Float64Array;
  steps: Int32Array;
  exclusions: Int32Array;
}

/** Counting sort by actor (stable: each actor's events stay in time order), reading times and masks as it goes. */
function byActor(cols: FunnelColumns, job: FunnelPartJob, kept: Kept, part: number): Journeys {
  const locals = Math.ceil(Math.max(0, job.actors - part) / job.parts);
  const offsets = new Int32Array(locals + 1);
  for (let k = 0; k < kept.n; k++) offsets[kept.local[k]! + 1]!++;
  for (let a = 0; a < locals; a++) offsets[a + 1]! += offsets[a]!;
  const fill = offsets.slice(0, locals);
  const firstRow = new Float64Array(locals).fill(-1);
  const code = new Int32Array(job.breakdown ? locals : 0);
  const ts = new Float64Array(kept.n);
  const steps = new Int32Array(kept.n);
  const exclusions = new Int32Array(kept.n);
  for (let k = 0; k < kept.n; k++) {
    const a = kept.local[k]!;
    const i = kept.row[k]!;
    if (firstRow[a] === -1) firstRow[a] = i;
    const at = fill[a]!++;
    const nameId = cols.name[i]!;
    ts[at] = cols.ts[i]!;
    steps[at] = job.stepBits[nameId]!;
    exclusions[at] = job.exclusionBits[nameId]!;
    // Rows come in time order: the first value seen is the first touch, the last one the last touch.
    if (job.breakdown && steps[at] !== 0 && (job.breakdown.last || code[a] === 0)) code[a] = valueCode(cols, job.breakdown, i) || code[a]!;
  }
  return { offsets, firstRow, code, ts, steps, exclusions };
}

/** The breakdown value of row i: its id + 1, or 0 when the row has none (missing, null, empty). */
function valueCode(cols: FunnelColumns, breakdown: FunnelPartBreakdown, i: number): number {
  const p = breakdown.keyPos[cols.shape![i]!]!;
  if (p < 0) return 0;
  const id = cols.vals![cols.voff![i]! + p]!;
  return breakdown.empty.includes(id) ? 0 : id + 1;
}

/** Each actor's journey, with its index in the part. */
function forEachJourney(j: Journeys, visit: (journey: JourneyEvents, a: number) => void): void {
  for (let a = 0; a + 1 < j.offsets.length; a++) {
    const [from, to] = [j.offsets[a]!, j.offsets[a + 1]!];
    if (from < to) visit({ ts: j.ts.subarray(from, to), steps: j.steps.subarray(from, to), exclusions: j.exclusions.subarray(from, to) }, a);
  }
}

function bestByActor(j: Journeys, job: FunnelPartJob): PartAttempts {
  const stepCount = job.rules.stepCount;
  const firstRow: number[] = [];
  const level: number[] = [];
  const times: number[] = [];
  const code: number[] = [];
  forEachJourney(j, (journey, a) => {
    const best = bestAttemptOf(journey, job.rules);
    if (!best) return;
    firstRow.push(j.firstRow[a]!);
    if (job.breakdown) code.push(j.code[a]!);
    level.push(best.level);
    for (let s = 0; s < stepCount; s++) times.push(s < best.level ? best.times[s]! : NaN);
  });
  return { firstRow: Float64Array.from(firstRow), level: Int32Array.from(level), times: Float64Array.from(times), code: Int32Array.from(code) };
}

/** Conversion trends add up over actors, so a part gives its tally alone. */
function trendTally(j: Journeys, job: FunnelPartJob, periods: TrendPeriods): TrendTally {
  const buckets: Buckets = makeBuckets(periods.interval, periods.edges, periods.from, periods.to);
  const tally = newTrendTally(buckets.length);
  forEachJourney(j, (journey) => tallyActor((visit) => forEachAttemptStart(journey, job.rules, visit), buckets, periods, tally));
  return tally;
}

/**
 * The parts' counted attempts in the order the single-threaded collection meets the actors (by their first kept
 * row): sums over them (mean conversion times) then add up in the same order, to the same bits.
 */
export function mergeBestAttempts(parts: readonly PartAttempts[], stepCount: number): { attempt: Attempt; code: number }[] {
  const actors: { firstRow: number; attempt: Attempt; code: number }[] = [];
  for (const p of parts) {
    for (let a = 0; a < p.firstRow.length; a++) {
      const level = p.level[a]!;
      const times = Array.from(p.times.subarray(a * stepCount, a * stepCount + level));
      actors.push({ firstRow: p.firstRow[a]!, attempt: { level, times, indexes: [] }, code: p.code[a] ?? 0 });
    }
  }
  return actors.sort((x, y) => x.firstRow - y.firstRow);
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

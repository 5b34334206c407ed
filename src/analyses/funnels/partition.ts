import { makeBuckets, type Buckets } from "../shared/buckets.ts";
import type { Interval } from "../shared/context.ts";
import { forEachAttemptStart, type AttemptRules, type JourneyEvents } from "./attempts.ts";
import { newTrendTally, tallyActor, type TrendTally } from "./viz.ts";

/**
 * Conversion trends over one part of the actors (actor slot mod `parts`), read straight from a column snapshot:
 * the attempts of the single-threaded collection (journeys.ts) for funnels whose steps and exclusions are decided
 * by the event name alone, tallied per entrance period. Every part is independent (an actor's journey lies whole
 * in one part) and tallies add up, so the parts run on any thread (../parallel/) and are summed.
 */
export interface FunnelColumns {
  ts: Float64Array;
  name: Uint32Array;
  did: Uint32Array;
  /** Actor slot per distinct-id id, and its part (../shared/actor-table.ts). */
  slotOfDid: Int32Array;
  partOfDid: Uint8Array;
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
  periods: TrendPeriods;
  parts: number;
  /** Actor slots are below this. */
  actors: number;
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

/** The conversion trends tally of the actors in part `part` of `job`. */
export function funnelPart(cols: FunnelColumns, job: FunnelPartJob, part: number): TrendTally {
  const kept = keptRows(cols, job, part);
  return trendTally(byActor(cols, job, kept, part), job);
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
  const ts = new Float64Array(kept.n);
  const steps = new Int32Array(kept.n);
  const exclusions = new Int32Array(kept.n);
  for (let k = 0; k < kept.n; k++) {
    const a = kept.local[k]!;
    const i = kept.row[k]!;
    const at = fill[a]!++;
    const nameId = cols.name[i]!;
    ts[at] = cols.ts[i]!;
    steps[at] = job.stepBits[nameId]!;
    exclusions[at] = job.exclusionBits[nameId]!;
  }
  return { offsets, ts, steps, exclusions };
}

/** Each actor's journey, with its index in the part. */
function forEachJourney(j: Journeys, visit: (journey: JourneyEvents, a: number) => void): void {
  for (let a = 0; a + 1 < j.offsets.length; a++) {
    const [from, to] = [j.offsets[a]!, j.offsets[a + 1]!];
    if (from < to) visit({ ts: j.ts.subarray(from, to), steps: j.steps.subarray(from, to), exclusions: j.exclusions.subarray(from, to) }, a);
  }
}

/** Conversion trends add up over actors, so a part gives its tally alone. */
function trendTally(j: Journeys, job: FunnelPartJob): TrendTally {
  const { periods } = job;
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

import type { Journey } from "./journeys.ts";
import { bestWithOptionalSteps } from "./optional-steps.ts";

/** What attempts read of a journey: its events' times and step and exclusion masks (a scan worker has no more). */
export type JourneyEvents = Pick<Journey, "ts" | "steps" | "exclusions" | "starts">;

/**
 * Attempts of one actor (reference: analytics §5.2, §5.3). Every step-1 event starts an attempt (any step
 * event, for unordered funnels); later steps are matched greedily — the earliest fitting event — and must
 * all fall within the window measured from step 1, inclusive (§11 item 8). An event fills one step per
 * attempt; events sharing a timestamp may fill consecutive steps in either array order, as PostHog's
 * funnel UDF plays all their permutations. An exclusion event between the attempt's step a and step b
 * (or the window's end when b is not reached) voids the attempt (§5.3, §11 item 10).
 */
export interface Attempt {
  /** Steps reached, 1 … stepCount. */
  level: number;
  /** Timestamp of each reached step's event. */
  times: number[];
  /** Journey index of each reached step's event. */
  indexes: number[];
  /**
   * With optional steps (optional-steps.ts): bit k set when the attempt went through step k; `level` is then the
   * furthest step entered and `times` and `indexes` hold its required steps only.
   */
  bits?: number;
}

/** A counted attempt as the steps and time-to-convert views read it: the steps reached and their times. */
export type ReachedSteps = Pick<Attempt, "level" | "times" | "bits">;

/** Whether the counted attempt went through step k (0-based): all steps up to its level, unless some are optional. */
export const reachesStep = (attempt: ReachedSteps, k: number): boolean =>
  attempt.bits === undefined ? attempt.level > k : (attempt.bits & (1 << k)) !== 0;

export interface AttemptRules {
  stepCount: number;
  windowMs: number;
  orderType: "ordered" | "strict" | "unordered";
  /** Bit x of a journey's exclusion mask is exclusion x. */
  exclusions: readonly { fromStep: number; toStep: number }[];
  /** Bit k set when step k is optional (steps funnels, ordered or strict, without exclusions); absent or 0: none. */
  optional?: number;
}

/** Scratch arrays reused across journeys (evaluation is synchronous): no allocation per actor. */
class Scratch {
  groupStart = new Int32Array(64);
  next = new Int32Array(64);
  indexes = new Int32Array(32);
  ensure(n: number, lists: number): void {
    if (this.groupStart.length < n) this.groupStart = new Int32Array(n * 2);
    if (this.next.length < (n + 1) * lists) this.next = new Int32Array((n + 1) * lists * 2);
  }
}

const scratch = new Scratch();

/** The valid (not excluded) attempts of a journey, in start order. */
export function attemptsOf(journey: JourneyEvents, rules: AttemptRules): Attempt[] {
  const attempts: Attempt[] = [];
  forEachAttempt(journey, rules, (level, indexes) => attempts.push(copy(journey, level, indexes)));
  return attempts;
}

/**
 * Visits each valid attempt's level and start time, in start order, copying nothing (conversion trends). Returns
 * whether an ordered or strict attempt was voided by an exclusion it then went past (an excluded event followed by
 * the attempt's next step): PostHog's trends UDF then drops the actor's unconverted entries (funnel-udf trends.rs
 * "fully_excluded"; test_funnel_trends.py::test_excluded_completion).
 */
export function forEachAttemptStart(journey: JourneyEvents, rules: AttemptRules, visit: (level: number, startedAt: number) => void): boolean {
  let fullyExcluded = false;
  const visitEach: Visit = (level, indexes, voided) => {
    if (voided === VOIDED_PAST) fullyExcluded = rules.orderType !== "unordered";
    else if (voided === NOT_VOIDED) visit(level, journey.ts[indexes[0]!]!);
  };
  forEachAttempt(journey, rules, visitEach, undefined, true);
  return fullyExcluded;
}

/**
 * The attempt that counts for the actor: the furthest; among those the first to reach that step, and of
 * those the latest start (the most recent step-1 event, as the UDF's lineage). Unordered: the first run.
 * Ordered and strict: when an excluded attempt got further than every valid one, the actor is out of the funnel
 * altogether (PostHog test_funnel.py::test_excluded_completion), whereas an excluded attempt no further than a valid
 * one does not matter (test_funnel_exclusion_multiple_possible_no_end_event2).
 */
export function bestAttemptOf(journey: JourneyEvents, rules: AttemptRules): Attempt | undefined {
  if (rules.optional) return bestWithOptionalSteps(journey, rules);
  let best: Attempt | undefined;
  let bestIndexes: number[] = [];
  let furthestExcluded = 0;
  const bound = levelBound(journey, rules);
  // Once the best attempt is as far as any can get, a later one could only win by reaching that step sooner
  // (or as soon, starting later): impossible once it starts after the best one reached it, as every attempt
  // reaches its steps at or after its start. Unordered funnels keep the first of the furthest attempts.
  const cannotImprove = (start: number) =>
    best !== undefined && best.level === bound && (rules.orderType === "unordered" || journey.ts[start]! > best.times[1]!);
  forEachAttempt(
    journey,
    rules,
    (level, indexes, excluded) => {
      if (excluded) {
        furthestExcluded = Math.max(furthestExcluded, level);
        return;
      }
      const reachedAt = journey.ts[indexes[level - 1]!]!;
      const startedAt = journey.ts[indexes[0]!]!;
      if (best && !isBetter(level, reachedAt, startedAt, best, rules.orderType)) return;
      bestIndexes = Array.from(indexes.subarray(0, level));
      best = { level, times: [startedAt, reachedAt], indexes: bestIndexes };
    },
    cannotImprove,
    true,
  );
  // Unordered funnels only void the excluded attempts (test_funnel_unordered.py::test_funnel_exclusions_full_window).
  if (best && rules.orderType !== "unordered" && furthestExcluded > best.level) return undefined;
  return best && { level: best.level, times: bestIndexes.map((i) => journey.ts[i]!), indexes: bestIndexes };
}

/**
 * The furthest level any attempt of the journey can reach: ordered and strict attempts need an event of each
 * step up to it, unordered ones an event of as many distinct steps.
 */
function levelBound(journey: JourneyEvents, rules: AttemptRules): number {
  let seen = 0;
  for (let i = 0; i < journey.steps.length; i++) seen |= journey.steps[i]!;
  if (rules.orderType === "unordered") {
    let distinct = 0;
    for (let k = 0; k < rules.stepCount; k++) if ((seen & (1 << k)) !== 0) distinct++;
    return distinct;
  }
  let level = 0;
  while (level < rules.stepCount && (seen & (1 << level)) !== 0) level++;
  return level;
}

export function bestAttempt(attempts: readonly Attempt[], orderType: AttemptRules["orderType"]): Attempt | undefined {
  let best: Attempt | undefined;
  for (const a of attempts) if (!best || isBetter(a.level, a.times[a.level - 1]!, a.times[0]!, best, orderType)) best = a;
  return best;
}

function isBetter(level: number, reachedAt: number, startedAt: number, best: Attempt, orderType: AttemptRules["orderType"]): boolean {
  if (level !== best.level) return level > best.level;
  if (orderType === "unordered") return false;
  const bestReachedAt = best.times.at(-1)!;
  return reachedAt < bestReachedAt || (reachedAt === bestReachedAt && startedAt >= best.times[0]!);
}

function copy(journey: JourneyEvents, level: number, indexes: Int32Array): Attempt {
  const list = Array.from(indexes.subarray(0, level));
  return { level, times: list.map((i) => journey.ts[i]!), indexes: list };
}

/** How exclusions treat an attempt: not voided, voided after its furthest step, or voided before a step it still reached. */
const NOT_VOIDED = 0;
const VOIDED_AT_END = 1;
const VOIDED_PAST = 2;
type Voiding = typeof NOT_VOIDED | typeof VOIDED_AT_END | typeof VOIDED_PAST;

type Visit = (level: number, indexes: Int32Array, voided: Voiding) => void;

/**
 * Visits each valid attempt in start order (with `withExcluded`, the excluded ones too, flagged); `stop`, asked
 * before each start, ends the walk early.
 */
function forEachAttempt(journey: JourneyEvents, rules: AttemptRules, visit: Visit, stop?: (start: number) => boolean, withExcluded = false): void {
  const n = journey.ts.length;
  const lists = (rules.orderType === "ordered" ? rules.stepCount : 0) + rules.exclusions.length;
  scratch.ensure(n, lists);
  if (scratch.indexes.length < rules.stepCount) scratch.indexes = new Int32Array(rules.stepCount);
  prepare(journey, rules, n);
  const step = rules.orderType === "strict" ? strict : rules.orderType === "unordered" ? unordered : ordered;
  for (let i = 0; i < n; i++) {
    const mask = journey.steps[i]!;
    if (rules.orderType === "unordered" ? mask === 0 : (mask & 1) === 0) continue;
    if (journey.starts !== undefined && journey.starts[i] === 0) continue;
    if (stop?.(i)) return;
    const level = step(journey, i, rules);
    const voided = voidingOf(journey, level, rules);
    if (voided === NOT_VOIDED || withExcluded) visit(level, scratch.indexes, voided);
  }
}

/** groupStart and the "next event with bit b at or after i" tables, in the scratch arrays. */
function prepare(journey: JourneyEvents, rules: AttemptRules, n: number): void {
  const { groupStart, next } = scratch;
  for (let i = 0; i < n; i++) groupStart[i] = i > 0 && journey.ts[i] === journey.ts[i - 1] ? groupStart[i - 1]! : i;
  const tables: [Int32Array, number][] = [];
  if (rules.orderType === "ordered") for (let k = 0; k < rules.stepCount; k++) tables.push([journey.steps, 1 << k]);
  rules.exclusions.forEach((_, x) => tables.push([journey.exclusions, 1 << x]));
  tables.forEach(([masks, bit], t) => {
    const base = t * (n + 1);
    next[base + n] = n;
    for (let i = n - 1; i >= 0; i--) next[base + i] = (masks[i]! & bit) !== 0 ? i : next[base + i + 1]!;
  });
}

/** First index ≥ the group start of `from` whose table bit is set and that is not a step of this attempt. */
function nextFree(table: number, from: number, level: number, n: number): number {
  const base = table * (n + 1);
  let c = scratch.next[base + scratch.groupStart[from]!]!;
  while (c < n && isUsed(c, level)) c = scratch.next[base + c + 1]!;
  return c;
}

function isUsed(c: number, level: number): boolean {
  for (let k = 0; k < level; k++) if (scratch.indexes[k] === c) return true;
  return false;
}

function ordered(journey: JourneyEvents, start: number, rules: AttemptRules): number {
  const { ts } = journey;
  const deadline = ts[start]! + rules.windowMs;
  scratch.indexes[0] = start;
  let level = 1;
  for (; level < rules.stepCount; level++) {
    const c = nextFree(level, scratch.indexes[level - 1]!, level, ts.length);
    if (c >= ts.length || ts[c]! > deadline) break;
    scratch.indexes[level] = c;
  }
  return level;
}

/** Strict: step k+1 must be the actor's very next event, of any kind (§5.2). */
function strict(journey: JourneyEvents, start: number, rules: AttemptRules): number {
  const { ts, steps } = journey;
  const deadline = ts[start]! + rules.windowMs;
  scratch.indexes[0] = start;
  let level = 1;
  for (; level < rules.stepCount; level++) {
    const c = scratch.indexes[level - 1]! + 1;
    if (c >= ts.length || (steps[c]! & (1 << level)) === 0 || ts[c]! > deadline) break;
    scratch.indexes[level] = c;
  }
  return level;
}

/** Unordered: distinct steps completed within the window from this event, in the order they happened. */
function unordered(journey: JourneyEvents, start: number, rules: AttemptRules): number {
  const { ts, steps } = journey;
  const deadline = ts[start]! + rules.windowMs;
  const all = rules.stepCount >= 31 ? -1 : (1 << rules.stepCount) - 1;
  let assigned = 0;
  let level = 0;
  for (let c = start; c < ts.length && ts[c]! <= deadline && level < rules.stepCount; c++) {
    const open = steps[c]! & all & ~assigned;
    if (open === 0) continue;
    assigned |= open & -open;
    scratch.indexes[level++] = c;
  }
  return level;
}

function voidingOf(journey: JourneyEvents, level: number, rules: AttemptRules): Voiding {
  // Most funnels have no exclusions: nothing can void the attempt, and its steps need not be read.
  if (rules.exclusions.length === 0) return NOT_VOIDED;
  const { ts } = journey;
  const n = ts.length;
  const firstTable = rules.orderType === "ordered" ? rules.stepCount : 0;
  const deadline = ts[scratch.indexes[0]!]! + rules.windowMs;
  const furthestAt = ts[scratch.indexes[level - 1]!]!;
  let voided: Voiding = NOT_VOIDED;
  rules.exclusions.forEach(({ fromStep, toStep }, x) => {
    if (level <= fromStep || voided === VOIDED_PAST) return;
    // Strictly before the step-b event (§5.3): one at the same instant does not void the attempt
    // (test_funnel.py::test_multiple_events_same_timestamp_exclusions); without step b, up to the window's end.
    const reached = level > toStep;
    const upper = reached ? ts[scratch.indexes[toStep]!]! : deadline;
    const c = nextFree(firstTable + x, scratch.indexes[fromStep]!, level, n);
    if (c < n && (reached ? ts[c]! < upper : ts[c]! <= upper)) voided = ts[c]! < furthestAt ? VOIDED_PAST : VOIDED_AT_END;
  });
  return voided;
}

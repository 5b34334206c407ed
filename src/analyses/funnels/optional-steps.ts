/** What the walk reads of a journey and of the rules (attempts.ts' JourneyEvents and AttemptRules, which call it). */
interface Events {
  ts: Float64Array;
  steps: Int32Array;
}
interface Rules {
  stepCount: number;
  windowMs: number;
  orderType: string;
  optional?: number;
}

/** The counted attempt, as attempts.ts' Attempt: furthest step entered, required steps' times and events, steps gone through. */
export interface OptionalAttempt {
  level: number;
  times: number[];
  indexes: number[];
  bits: number;
}

/**
 * The counted attempt of a funnel with optional steps (a series' `optionalInFunnel`), as PostHog's funnel UDF walks
 * one actor's events (funnel-udf/src/steps.rs, `optional_steps`): in time order, an event of step s continues the
 * latest entry into step s−1, or, when s−1 is optional and not entered within the window, into the step before it,
 * down to the previous required step. The attempt kept is the first to enter the furthest step; its `bits` are the
 * steps it went through (a step's count is the actors whose bits have it: test_funnel_udf.py::
 * test_funnel_with_optional_steps), `level` the furthest step entered and `times` the times of its required steps
 * only (the UDF's timings). Events at one instant that match different steps are tried one step at a time, lowest
 * first, an event filling one step of an attempt. Strict funnels start over at any event that is not the next step.
 * Unordered funnels, exclusions and trends take no optional steps (validation.ts).
 */
export function bestWithOptionalSteps(journey: Events, rules: Rules): OptionalAttempt | undefined {
  const walk = new Walk(rules);
  const { ts, steps } = journey;
  for (let i = 0; i < ts.length; ) {
    let end = i + 1;
    while (end < ts.length && ts[end] === ts[i]) end++;
    walk.enterAt(ts[i]!);
    if (sameSteps(steps, i, end)) for (let e = i; e < end; e++) walk.event(journey, e, steps[e]!, false);
    else for (const [e, bit] of oneStepEach(steps, i, end)) walk.event(journey, e, bit, true);
    if (walk.converted()) break;
    i = end;
  }
  return walk.best();
}

/** The entry into a step: when its attempt started, the steps it went through, its required steps' times and events. */
interface Entry {
  start: number;
  bits: number;
  times: number[];
  indexes: number[];
}

class Walk {
  /** entered[s]: the latest entry into step s (1-based); entered[0] is the instant being read. */
  readonly entered: (Entry | undefined)[];
  furthest = 0;
  kept: Entry | undefined;

  constructor(readonly rules: Rules) {
    this.entered = new Array<Entry | undefined>(rules.stepCount + 1).fill(undefined);
  }

  enterAt(ts: number): void {
    this.entered[0] = { start: ts, bits: 0, times: [], indexes: [] };
  }

  converted(): boolean {
    return this.entered[this.rules.stepCount] !== undefined;
  }

  isOptional(step: number): boolean {
    return ((this.rules.optional ?? 0) & (1 << (step - 1))) !== 0;
  }

  /** Event e matching the steps of `mask`: each step, the last first, continues the entry it can follow. */
  event(journey: Events, e: number, mask: number, oneOfMany: boolean): void {
    const at = journey.ts[e]!;
    for (let step = this.rules.stepCount; step >= 1; step--) {
      if ((mask & (1 << (step - 1))) === 0) continue;
      const from = this.entryBefore(step, at);
      if (!from || this.entered[step]?.start === from.start) continue;
      // An event fills one step of an attempt when events of one instant are tried one step at a time.
      if (oneOfMany && from.indexes.includes(e)) continue;
      const required = !this.isOptional(step);
      const entry: Entry = {
        start: from.start,
        bits: from.bits | (1 << (step - 1)),
        times: required ? [...from.times, at] : from.times,
        indexes: required ? [...from.indexes, e] : from.indexes,
      };
      this.entered[step] = entry;
      if (step > this.furthest) [this.furthest, this.kept] = [step, entry];
    }
    if (!oneOfMany && this.rules.orderType === "strict") {
      for (let step = 1; step <= this.rules.stepCount; step++) if ((mask & (1 << (step - 1))) === 0) this.entered[step] = undefined;
    }
  }

  /** The entry step `step` continues at time `at`: that of step−1, or past optional steps not entered in the window. */
  entryBefore(step: number, at: number): Entry | undefined {
    let previous = step - 1;
    const inWindow = (entry: Entry | undefined) => entry !== undefined && at - entry.start <= this.rules.windowMs;
    while (previous > 0 && !inWindow(this.entered[previous]) && this.isOptional(previous)) previous--;
    const entry = this.entered[previous];
    return inWindow(entry) ? entry : undefined;
  }

  best(): OptionalAttempt | undefined {
    const kept = this.kept;
    return kept && { level: this.furthest, times: kept.times, indexes: kept.indexes, bits: kept.bits };
  }
}

/** Whether the events [from, to) all match the same steps. */
function sameSteps(steps: Int32Array, from: number, to: number): boolean {
  for (let e = from + 1; e < to; e++) if (steps[e] !== steps[from]) return false;
  return true;
}

/** Each event of [from, to) once per step it matches, as [event, step bit], by step then event order. */
function oneStepEach(steps: Int32Array, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  for (let e = from; e < to; e++) for (let bit = 1; bit !== 0 && bit <= steps[e]!; bit <<= 1) if ((steps[e]! & bit) !== 0) out.push([e, bit]);
  return out.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

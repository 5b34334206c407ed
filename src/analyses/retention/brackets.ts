import { reject } from "../../core/analysis-errors.ts";
import { decodeJsonish, type Loose } from "../shared/filter-read.ts";

/**
 * Custom brackets (PostHog retention_query_runner.py, `retentionCustomBrackets`): the periods after the cohort's are
 * grouped into brackets of the given sizes, each one value of the row after value 0 (the cohort itself).
 */
export type Brackets = readonly number[];

/** Brackets a request may ask for: one value each after the cohort's, as total_intervals' 100 values. */
export const MAX_BRACKETS = 100;

/**
 * `retention_custom_brackets`: a list of whole sizes of 0 or more (a 0 bracket never counts anyone, as in PostHog);
 * absent, null or empty means none (PostHog `is_custom_bracket_retention`).
 */
export function readBrackets(filter: Loose): Brackets | undefined {
  const key = "retention_custom_brackets";
  const value = decodeJsonish(filter[key], key);
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > MAX_BRACKETS || !value.every((size) => Number.isInteger(size) && (size as number) >= 0)) {
    throw reject.invalid(key, `${key} must be a list of at most ${MAX_BRACKETS} whole numbers, each 0 or more.`);
  }
  return value.length === 0 ? undefined : (value as number[]);
}

/** "Day 0", then each bracket's periods counted from 1: "Day 1-4", or "Day 7" for a one-period bracket (PostHog `get_bracket_labels`). */
export function bracketLabels(period: string, brackets: Brackets): string[] {
  const labels = [`${period} 0`];
  let first = 1;
  for (const size of brackets) {
    const last = first + size - 1;
    labels.push(first === last ? `${period} ${first}` : `${period} ${first}-${last}`);
    first += size;
  }
  return labels;
}

/**
 * The bracket (1-based) of a return `distance` periods after the cohort's, or -1: in the cohort's own period or
 * before it, or after the last bracket (PostHog `_get_custom_bracket_intervals_from_base_expr`, a multiIf over the
 * brackets' running totals).
 */
export function bracketOf(distance: number, brackets: Brackets): number {
  if (distance <= 0) return -1;
  let total = 0;
  for (let k = 0; k < brackets.length; k++) {
    total += brackets[k]!;
    if (distance <= total) return k + 1;
  }
  return -1;
}

/**
 * The brackets an actor returned in (index 0, its cohort, always set). PostHog measures every return from the
 * actor's first cohort period in the window (`start_event_timestamps[1]`), whichever cohort row is read: an actor
 * in several recurring cohorts has the same brackets in each. Returns are the window's periods that qualified.
 */
export function bracketReturns(cohorts: Uint8Array, returns: Uint8Array, brackets: Brackets): Uint8Array {
  const hits = new Uint8Array(brackets.length + 1);
  const anchor = cohorts.indexOf(1);
  if (anchor < 0) return hits;
  hits[0] = 1;
  returns.forEach((returned, period) => {
    const bracket = returned === 1 ? bracketOf(period - anchor, brackets) : -1;
    if (bracket > 0) hits[bracket] = 1;
  });
  return hits;
}

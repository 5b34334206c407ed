import type { CorrelatedEvent } from "./autocapture.ts";
import type { CorrelationType } from "./filter.ts";

/** One correlated value of the result (reference: analytics §6). */
export interface CorrelationRow {
  event: CorrelatedEvent;
  success_count: number;
  failure_count: number;
  odds_ratio: number;
  correlation_type: "success" | "failure";
  success_people_url: string;
  failure_people_url: string;
}

/** How many successful and failed actors have a value. */
export interface ActorCounts {
  success: number;
  failure: number;
}

const MIN_PERSON_COUNT = 25;
const MIN_PERSON_PERCENTAGE = 0.02;
const PRIOR = 1;
const TOP = 10;

/** ((s+1)·(F−f+1)) / ((S−s+1)·(f+1)): the odds ratio with a prior of one success and one failure. */
export const oddsRatio = (s: number, f: number, S: number, F: number): number => ((s + PRIOR) * (F - f + PRIOR)) / ((S - s + PRIOR) * (f + PRIOR));

/**
 * Rows of the contingency table that matter: fewer than min(25, 2 % of all entrants) actors is insignificant;
 * event property values also need more than 2. Top 10 success (ratio descending), then top 10 failure (ascending).
 */
export function oddsRows(
  table: ReadonlyMap<string, ActorCounts>,
  S: number,
  F: number,
  type: CorrelationType,
  urlOf: (name: string, converted: boolean) => string,
  eventOf: (name: string) => CorrelatedEvent,
): CorrelationRow[] {
  const threshold = Math.min(MIN_PERSON_COUNT, MIN_PERSON_PERCENTAGE * (S + F));
  const rows: CorrelationRow[] = [];
  for (const [name, { success: s, failure: f }] of table) {
    if (s + f < threshold || (type === "event_with_properties" && s + f <= 2)) continue;
    const ratio = oddsRatio(s, f, S, F);
    rows.push({
      event: eventOf(name),
      success_count: s,
      failure_count: f,
      odds_ratio: ratio,
      correlation_type: ratio > 1 ? "success" : "failure",
      success_people_url: urlOf(name, true),
      failure_people_url: urlOf(name, false),
    });
  }
  const byName = (a: CorrelationRow, b: CorrelationRow) => (a.event.event < b.event.event ? -1 : a.event.event > b.event.event ? 1 : 0);
  const success = rows.filter((r) => r.correlation_type === "success").sort((a, b) => b.odds_ratio - a.odds_ratio || byName(a, b));
  const failure = rows.filter((r) => r.correlation_type === "failure").sort((a, b) => a.odds_ratio - b.odds_ratio || byName(a, b));
  return [...success.slice(0, TOP), ...failure.slice(0, TOP)];
}

/**
 * A survey's results as the real stats endpoints count them (PostHog `posthog/api/survey.py`, `_get_survey_stats`,
 * `_calculate_rates`, `responses_count`), over the stored events: pure functions of the events and a person lookup.
 */
import { eventProperty } from "../core/event-read.ts";
import type { EventRecord } from "../store/schema.ts";

export const SURVEY_EVENTS = { shown: "survey shown", dismissed: "survey dismissed", sent: "survey sent" } as const;

export interface EventStats {
  total_count: number;
  unique_persons: number;
  first_seen: string | null;
  last_seen: string | null;
  unique_persons_only_seen: number;
  total_count_only_seen: number;
}

export interface SurveyRates {
  response_rate: number;
  dismissal_rate: number;
  unique_users_response_rate: number;
  unique_users_dismissal_rate: number;
}

export interface StatsInput {
  events: Iterable<EventRecord>;
  /** The person an event counts for (its distinct id when it has none). */
  personOf: (distinctId: string) => string;
  surveyIds: ReadonlySet<string>;
  fromMs: number | null;
  toMs: number | null;
}

const surveyIdOf = (e: EventRecord) => String(eventProperty(e, "$survey_id") ?? "");
const submissionOf = (e: EventRecord) => {
  const id = eventProperty(e, "$survey_submission_id");
  return typeof id === "string" && id !== "" ? id : `uuid:${e.uuid}`;
};

/** Python's `isoformat() + "Z"` of the naive UTC instant: seconds, or microseconds when there are any. */
function pythonIso(ms: number): string {
  const iso = new Date(ms).toISOString();
  return ms % 1000 === 0 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 23)}000Z`;
}

/**
 * `survey sent` answered in parts (posthog-js sends each part with the same `$survey_submission_id`) counts once:
 * the submission's latest event stands for it.
 */
export function latestPerSubmission(sent: readonly EventRecord[]): EventRecord[] {
  const latest = new Map<string, EventRecord>();
  for (const e of sent) {
    const known = latest.get(submissionOf(e));
    if (!known || e.timestamp >= known.timestamp) latest.set(submissionOf(e), e);
  }
  return [...latest.values()];
}

/** A dismissal of a survey answered in part does not count as one. */
const countsAsDismissal = (e: EventRecord) => eventProperty(e, "$survey_partially_completed") !== true;

function statsOf(events: readonly EventRecord[], personOf: (d: string) => string): EventStats {
  const times = events.map((e) => e.timestamp);
  return {
    total_count: events.length,
    unique_persons: new Set(events.map((e) => personOf(e.distinct_id))).size,
    first_seen: events.length ? pythonIso(Math.min(...times)) : null,
    last_seen: events.length ? pythonIso(Math.max(...times)) : null,
    unique_persons_only_seen: 0,
    total_count_only_seen: 0,
  };
}

const percent = (part: number, whole: number) => Math.round((part / whole) * 100 * 100) / 100;

export function ratesOf(stats: Record<string, EventStats>): SurveyRates {
  const shown = stats[SURVEY_EVENTS.shown]!;
  if (shown.total_count === 0) return { response_rate: 0, dismissal_rate: 0, unique_users_response_rate: 0, unique_users_dismissal_rate: 0 };
  const sent = stats[SURVEY_EVENTS.sent]!;
  const dismissed = stats[SURVEY_EVENTS.dismissed]!;
  return {
    response_rate: percent(sent.total_count, shown.total_count),
    dismissal_rate: percent(dismissed.total_count, shown.total_count),
    unique_users_response_rate: percent(sent.unique_persons, shown.unique_persons),
    unique_users_dismissal_rate: percent(dismissed.unique_persons, shown.unique_persons),
  };
}

/**
 * The three events' counts: a person who dismissed and also answered counts as answering only; `only_seen` on
 * `survey shown` is what remains of the shows after answers and dismissals (never below zero).
 */
export function surveyStats(input: StatsInput): { stats: Record<string, EventStats>; rates: SurveyRates } {
  const byName: Record<string, EventRecord[]> = { [SURVEY_EVENTS.shown]: [], [SURVEY_EVENTS.dismissed]: [], [SURVEY_EVENTS.sent]: [] };
  for (const e of input.events) {
    const bucket = byName[e.event];
    if (!bucket || !input.surveyIds.has(surveyIdOf(e))) continue;
    if ((input.fromMs !== null && e.timestamp < input.fromMs) || (input.toMs !== null && e.timestamp > input.toMs)) continue;
    if (e.event === SURVEY_EVENTS.dismissed && !countsAsDismissal(e)) continue;
    bucket.push(e);
  }
  const sentPersons = new Set(byName[SURVEY_EVENTS.sent]!.map((e) => input.personOf(e.distinct_id)));
  const dismissedAndSent = new Set(byName[SURVEY_EVENTS.dismissed]!.map((e) => input.personOf(e.distinct_id)).filter((p) => sentPersons.has(p))).size;
  const shown = statsOf(byName[SURVEY_EVENTS.shown]!, input.personOf);
  const dismissed = statsOf(byName[SURVEY_EVENTS.dismissed]!, input.personOf);
  const sent = statsOf(latestPerSubmission(byName[SURVEY_EVENTS.sent]!), input.personOf);
  dismissed.unique_persons = Math.max(0, dismissed.unique_persons - dismissedAndSent);
  shown.unique_persons_only_seen = Math.max(0, shown.unique_persons - dismissed.unique_persons - sent.unique_persons);
  shown.total_count_only_seen = Math.max(0, shown.total_count - dismissed.total_count - sent.total_count);
  const stats = { [SURVEY_EVENTS.shown]: shown, [SURVEY_EVENTS.dismissed]: dismissed, [SURVEY_EVENTS.sent]: sent };
  return { stats, rates: ratesOf(stats) };
}

/** `survey sent` per `$survey_id` from `sinceMs` on, one per submission. */
export function responsesCount(events: Iterable<EventRecord>, sinceMs: number): Record<string, number> {
  const sent = [...events].filter((e) => e.event === SURVEY_EVENTS.sent && e.timestamp >= sinceMs);
  const counts: Record<string, number> = {};
  for (const e of latestPerSubmission(sent)) counts[surveyIdOf(e)] = (counts[surveyIdOf(e)] ?? 0) + 1;
  return counts;
}

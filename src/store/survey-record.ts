/**
 * The rules the real service applies to a survey whenever it is saved (its Survey model's pre-save and post-save
 * hooks, PostHog `posthog/models/surveys/survey.py`): question ids, iteration dates, and the project's
 * `surveys_opt_in` following its active surveys.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Properties, ProjectRecord, SurveyRecord } from "./schema.ts";

/** The real service's MAX_ITERATION_COUNT: more iterations than this are refused. */
export const MAX_ITERATION_COUNT = 500;
const DAY_MS = 86_400_000;

/** Each question without an id gets a new UUID (`ensure_question_ids`); questions with one keep it. */
export function withQuestionIds(questions: Properties[] | null, newId: () => string = randomUUID): Properties[] | null {
  return questions?.map((q) => (q.id ? q : { ...q, id: newId() })) ?? null;
}

type Iterations = Pick<SurveyRecord, "iteration_start_dates" | "current_iteration" | "current_iteration_start_date">;

/**
 * `update_survey_iterations`: no iterations without a count and a frequency; a draft has no dates yet; a started
 * survey's iterations start every `iteration_frequency_days` from its start date, the first one current.
 */
export function iterationsOf(s: SurveyRecord): Iterations {
  if (!s.iteration_count || !s.iteration_frequency_days) return { iteration_start_dates: [], current_iteration: null, current_iteration_start_date: null };
  if (s.start_date === null) return { iteration_start_dates: null, current_iteration: s.current_iteration, current_iteration_start_date: s.current_iteration_start_date };
  const start = Date.parse(s.start_date);
  const count = Math.min(s.iteration_count, MAX_ITERATION_COUNT);
  const dates = Array.from({ length: count }, (_, i) => new Date(start + i * s.iteration_frequency_days! * DAY_MS).toISOString());
  const first = !s.current_iteration;
  return {
    iteration_start_dates: dates,
    current_iteration: first ? 1 : s.current_iteration,
    current_iteration_start_date: first ? s.start_date : s.current_iteration_start_date,
  };
}

/** What every save does to a survey: question ids, then its iterations. */
export function saved(s: SurveyRecord, newQuestionId?: () => string): SurveyRecord {
  const withIds = { ...s, questions: withQuestionIds(s.questions, newQuestionId) };
  return { ...withIds, ...iterationsOf(withIds) };
}

/** Running as posthog-js and the real opt-in rule see it: started, not ended, not archived. */
export const isActive = (s: SurveyRecord): boolean => s.start_date !== null && s.end_date === null && !s.archived;

/**
 * The real `update_surveys_opt_in` signal: after any survey write the project is opted in exactly while it has an
 * active survey that is not of type `api` (those are never shown by the SDKs).
 */
export function surveysOptIn(projectId: string, surveys: readonly SurveyRecord[]): boolean {
  return surveys.some((s) => s.project_id === projectId && s.type !== "api" && isActive(s));
}

/** A survey as the model's defaults make it: every field the caller leaves out is empty. */
export function blankSurvey(id: string, projectId: string, name: string, type: SurveyRecord["type"], createdAt: string): SurveyRecord {
  return {
    id,
    project_id: projectId,
    name,
    description: "",
    type,
    schedule: "once",
    linked_flag_id: null,
    targeting_flag_id: null,
    internal_targeting_flag_id: null,
    questions: null,
    conditions: null,
    appearance: null,
    created_at: createdAt,
    created_by: null,
    updated_at: createdAt,
    start_date: null,
    end_date: null,
    archived: false,
    responses_limit: null,
    iteration_count: null,
    iteration_frequency_days: null,
    iteration_start_dates: [],
    current_iteration: null,
    current_iteration_start_date: null,
    response_sampling_start_date: null,
    response_sampling_interval_type: "week",
    response_sampling_interval: null,
    response_sampling_limit: null,
    response_sampling_daily_limits: null,
    enable_partial_responses: false,
  };
}

/** A fixture survey without an id gets one derived from its place, so that loading the same document twice agrees. */
export function fixtureSurveyId(projectId: string, index: number, name: string): string {
  return uuidOfText(`survey\u0000${projectId}\u0000${index}\u0000${name}`);
}

/** Ids for a fixture survey's questions that have none: the same on every load of the document (a reload keeps answers' keys). */
export function fixtureQuestionIds(surveyId: string): () => string {
  let next = 0;
  return () => uuidOfText(`question\u0000${surveyId}\u0000${next++}`);
}

const uuidOfText = (text: string): string => {
  const hex = createHash("sha256").update(text).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** Applies the opt-in rule to each project that has surveys (projects without any keep what they were given). */
export function applySurveysOptIn(projects: ProjectRecord[], surveys: readonly SurveyRecord[]): void {
  for (const p of projects) if (surveys.some((s) => s.project_id === p.id)) p.surveys_opt_in = surveysOptIn(p.id, surveys);
}

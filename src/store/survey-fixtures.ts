/**
 * A fixture document's `surveys` as the surveys API stores them: the fields the API writes, the model's defaults for
 * the rest, question ids and iterations as a save makes them. Targeting flags are not made for fixture surveys: a
 * fixture names a linked flag by id, and its targeting by its own flags.
 */
import type { FixtureClientRecord } from "./fixture-document.ts";
import type { LoadContext } from "./fixture-extras.ts";
import { SURVEY_TYPES, type Properties, type SurveyRecord, type SurveyType } from "./schema.ts";
import { blankSurvey, fixtureQuestionIds, fixtureSurveyId, saved } from "./survey-record.ts";

const DATE_FIELDS = ["start_date", "end_date", "created_at"] as const;
/** Fields copied as written when present (their shapes are the API's; the fixture schema keeps them open). */
const COPIED = ["description", "schedule", "linked_flag_id", "targeting_flag_id", "questions", "conditions", "appearance", "archived", "responses_limit", "iteration_count", "iteration_frequency_days", "enable_partial_responses"] as const;

function dateOf(value: unknown, pointer: string, ctx: LoadContext): string | null {
  if (value === undefined || value === null) return null;
  const ms = typeof value === "string" ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`) : NaN;
  if (Number.isNaN(ms)) {
    ctx.problems.add(pointer, "must be an ISO 8601 date-time");
    return null;
  }
  return new Date(ms).toISOString();
}

function surveyOf(given: FixtureClientRecord, i: number, now: number, ctx: LoadContext): SurveyRecord {
  const pointer = `/surveys/${i}`;
  ctx.requireProject(pointer, given.project_id);
  const type = given.type as SurveyType;
  if (!SURVEY_TYPES.includes(type)) ctx.problems.add(`${pointer}/type`, `must be one of ${SURVEY_TYPES.join(", ")}`);
  const id = typeof given.id === "string" ? given.id : fixtureSurveyId(given.project_id, i, given.name);
  const [start_date, end_date, created] = DATE_FIELDS.map((f) => dateOf(given[f], `${pointer}/${f}`, ctx));
  const createdAt = created ?? new Date(now).toISOString();
  const copied = Object.fromEntries(COPIED.filter((f) => given[f] !== undefined).map((f) => [f, structuredClone(given[f])])) as Partial<SurveyRecord>;
  return saved({ ...blankSurvey(id, given.project_id, given.name, type, createdAt), ...copied, start_date: start_date!, end_date: end_date!, questions: (copied.questions as Properties[] | undefined) ?? null }, fixtureQuestionIds(id));
}

/** The document's surveys; ids must be unique. */
export function surveysOf(given: readonly FixtureClientRecord[], now: number, ctx: LoadContext): SurveyRecord[] {
  const surveys = given.map((s, i) => surveyOf(s, i, now, ctx));
  surveys.forEach((s, i) => {
    if (surveys.findIndex((o) => o.id === s.id) !== i) ctx.problems.add(`/surveys/${i}/id`, `duplicate id ${s.id}`);
  });
  return surveys;
}

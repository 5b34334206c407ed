/**
 * The surveys API (PostHog `posthog/api/survey.py`, SurveyViewSet): list, create, retrieve, partial update,
 * delete, and the results (`stats`, `responses_count`) counted from the stored survey events.
 */
import { v7 as uuidv7 } from "uuid";
import { fail } from "../core/errors.ts";
import { writableFields } from "../http/writable-fields.ts";
import { blankSurvey } from "../store/survey-record.ts";
import type { Properties, SurveyRecord } from "../store/schema.ts";
import { responsesCount, surveyStats } from "../surveys/stats.ts";
import { createSurveyFlag, deleteSurveyFlag, interactedFilters, surveyFlag, updateSurveyFlag } from "./survey-flags.ts";
import { toSurveyJson } from "./survey-json.ts";
import * as check from "./survey-validation.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { listPage } from "./list-page.ts";

type Loose = Record<string, unknown>;
const queryOf = (args: HandlerArgs) => args.c.request.query as Loose;
const bodyOf = (args: HandlerArgs) => (args.c.request.requestBody ?? {}) as Loose;

/** Fields a write stores as sent (dates as UTC instants); the flag fields are handled apart. */
const SURVEY_WRITABLE = [
  "name",
  "description",
  "type",
  "schedule",
  "linked_flag_id",
  "questions",
  "conditions",
  "appearance",
  "start_date",
  "end_date",
  "archived",
  "responses_limit",
  "iteration_count",
  "iteration_frequency_days",
  "enable_partial_responses",
] as const;
type SurveyInput = Partial<Pick<SurveyRecord, (typeof SURVEY_WRITABLE)[number]>>;

const utc = (value: string | null | undefined) => (value === null || value === undefined ? value : new Date(value).toISOString());

function findSurvey(args: HandlerArgs): SurveyRecord {
  const survey = args.deps.store.surveys.get(args.project.id, String((args.c.request.params as Loose).id));
  if (!survey) throw fail.notFound();
  return survey;
}

/** The body's writable fields, checked as the real serializer checks them. */
function checkedInput(args: HandlerArgs, current?: SurveyRecord): SurveyInput {
  const body = bodyOf(args);
  const input = writableFields<SurveyInput>(body, SURVEY_WRITABLE);
  const store = args.deps.store;
  if (input.questions !== undefined) input.questions = check.validQuestions(input.questions);
  check.requireValidAppearance(input.appearance);
  check.requireValidConditions(input.conditions, store.analysisData.actions(args.project.id));
  check.requireValidSchedule(input.schedule);
  check.requireValidLinkedFlag(input.linked_flag_id, input.conditions, store.flags.list(args.project.id));
  check.requireUniqueName(input.name, store.surveys.list(args.project.id), current);
  if (body.targeting_flag_filters) check.requireTargetingNarrowerThanEveryone(body.targeting_flag_filters as Loose);
  check.requireExternalSurveyFieldsAbsent(body);
  if (current) check.requireIterationCountReachable(input.iteration_count, current);
  if (typeof body.targeting_flag_id === "number" && !store.flags.get(args.project.id, body.targeting_flag_id)) {
    throw fail.invalid("targeting_flag_id", "Feature Flag with this ID does not exist");
  }
  return { ...input, start_date: utc(input.start_date), end_date: utc(input.end_date) } as SurveyInput;
}

/** Drops the keys a write did not send (`utc` keeps an absent date absent). */
const sent = (input: SurveyInput): SurveyInput => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as SurveyInput;

/** Its targeting flag after a write: removed, updated (filters merged over the old ones) or made, as the real update. */
async function targetingAfterWrite(args: HandlerArgs, survey: SurveyRecord): Promise<number | null> {
  const body = bodyOf(args);
  let flagId = typeof body.targeting_flag_id === "number" ? body.targeting_flag_id : survey.targeting_flag_id;
  if (body.remove_targeting_flag === true) {
    await deleteSurveyFlag(args, flagId);
    flagId = null;
  }
  const filters = body.targeting_flag_filters as Properties | null | undefined;
  if (filters) {
    const existing = surveyFlag(args, flagId);
    if (existing) await updateSurveyFlag(args, existing, { filters: { ...existing.filters, ...filters } });
    else flagId = (await createSurveyFlag(args, filters, survey.name, survey.start_date !== null)).id;
  }
  // The targeting flag is on until the survey stops (the end date this write sends; none sent counts as none).
  const flag = surveyFlag(args, flagId);
  if (flag) await updateSurveyFlag(args, flag, { active: (body.end_date ?? null) === null });
  return flagId;
}

/** The internal targeting flag: made on the first save, then active while the survey runs (by this write's end date). */
async function internalFlagAfterWrite(args: HandlerArgs, survey: SurveyRecord): Promise<SurveyRecord> {
  const active = survey.start_date !== null && !bodyOf(args).end_date;
  const existing = surveyFlag(args, survey.internal_targeting_flag_id);
  if (existing) {
    await updateSurveyFlag(args, existing, { active });
    return survey;
  }
  const flag = await createSurveyFlag(args, interactedFilters(survey), survey.name, active, "-custom");
  return args.deps.store.surveys.update(survey, { internal_targeting_flag_id: flag.id });
}

/** `date_from` / `date_to` as the real `fromisoformat` reads them (no offset: UTC); from after to is refused. */
function statsRange(q: Loose): { fromMs: number | null; toMs: number | null } {
  const parse = (v: unknown) => {
    if (v === undefined || v === "") return null;
    const text = String(v);
    const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) || !text.includes("T") ? text : `${text}Z`);
    if (Number.isNaN(ms)) {
      throw fail.invalid(null, "Invalid date format. Please use ISO 8601 format with timezone info (e.g. 2024-01-01T00:00:00Z or 2024-01-01T00:00:00+00:00)");
    }
    return ms;
  };
  const fromMs = parse(q.date_from);
  const toMs = parse(q.date_to);
  if (fromMs !== null && toMs !== null && fromMs > toMs) throw fail.invalid(null, "date_from must be before date_to");
  return { fromMs, toMs };
}

function statsOver(args: HandlerArgs, surveyIds: ReadonlySet<string>) {
  const index = args.deps.store.analysisData.index(args.project.id);
  const personOf = (distinctId: string) => index.personsByDistinctId.get(distinctId)?.uuid ?? `distinct:${distinctId}`;
  return surveyStats({ events: args.deps.store.analysisData.events(args.project.id), personOf, surveyIds, ...statsRange(queryOf(args)) });
}

export const surveyHandlers = {
  surveys_list: (args) => {
    const q = queryOf(args);
    const search = typeof q.search === "string" ? q.search.toLowerCase() : null;
    const matches = args.deps.store.surveys
      .list(args.project.id)
      .filter((s) => search === null || s.name.toLowerCase().includes(search) || s.description.toLowerCase().includes(search));
    const page = listPage(args, matches);
    return reply(200, { ...page, results: page.results.map((s) => toSurveyJson(s, args.deps.store)) });
  },

  surveys_create: async (args) => {
    const input = sent(checkedInput(args));
    const now = args.deps.clock.now();
    const blank = blankSurvey(uuidv7({ msecs: now }), args.project.id, input.name!, input.type!, new Date(now).toISOString());
    const draft: SurveyRecord = { ...blank, ...input, created_by: args.caller.user.id };
    // The real create makes the targeting flag inactive (a later write activates it).
    const filters = bodyOf(args).targeting_flag_filters as Properties | null | undefined;
    const targeting = filters ? (await createSurveyFlag(args, filters, draft.name, false)).id : ((bodyOf(args).targeting_flag_id as number | undefined) ?? null);
    const survey = await args.deps.store.surveys.create({ ...draft, targeting_flag_id: targeting });
    return reply(201, toSurveyJson(await internalFlagAfterWrite(args, survey), args.deps.store));
  },

  surveys_retrieve: (args) => reply(200, toSurveyJson(findSurvey(args), args.deps.store)),

  surveys_partial_update: async (args) => {
    const survey = findSurvey(args);
    const input = sent(checkedInput(args, survey));
    // The real update sets the frequency with the count, to what was sent (absent: none).
    if (input.iteration_count !== undefined && input.iteration_count !== null) input.iteration_frequency_days = (bodyOf(args).iteration_frequency_days as number | undefined) ?? null;
    const targeting_flag_id = await targetingAfterWrite(args, { ...survey, ...input });
    const updated = await args.deps.store.surveys.update(survey, { ...input, targeting_flag_id });
    return reply(200, toSurveyJson(await internalFlagAfterWrite(args, updated), args.deps.store));
  },

  surveys_destroy: async (args) => {
    const survey = findSurvey(args);
    await deleteSurveyFlag(args, survey.targeting_flag_id);
    await deleteSurveyFlag(args, survey.internal_targeting_flag_id);
    await args.deps.store.surveys.remove(survey);
    return reply(204);
  },

  surveys_stats_retrieve: (args) => {
    const survey = findSurvey(args);
    return reply(200, { ...statsOver(args, new Set([survey.id])), survey_id: survey.id, start_date: survey.start_date, end_date: survey.end_date });
  },

  /** Over the surveys that are not archived; none: empty stats, as the real answer. */
  surveys_global_stats_retrieve: (args) => {
    const ids = new Set(args.deps.store.surveys.list(args.project.id).filter((s) => !s.archived).map((s) => s.id));
    statsRange(queryOf(args));
    if (ids.size === 0) return reply(200, { stats: {}, rates: { response_rate: 0, dismissal_rate: 0, unique_users_response_rate: 0, unique_users_dismissal_rate: 0 } });
    return reply(200, statsOver(args, ids));
  },

  /** From the earliest start of any of the project's surveys (none started: no responses). */
  surveys_responses_count_retrieve: (args) => {
    const starts = args.deps.store.surveys
      .list(args.project.id)
      .map((s) => s.start_date)
      .filter((d): d is string => d !== null)
      .map(Date.parse);
    if (starts.length === 0) return reply(200, {});
    return reply(200, responsesCount(args.deps.store.analysisData.events(args.project.id), Math.min(...starts)));
  },
} satisfies Record<string, Handler>;


/**
 * `GET /api/surveys/?token=`: the surveys posthog-js reads (the real SurveyAPISerializer): every survey of the project
 * that is not archived; posthog-js shows those that run and whose flags are on. A survey forced for a test is listed
 * as running and gated by its forced key (src/surveys/forcing.ts).
 */
import type { ForcedFlags } from "../services/forced-flags.ts";
import type { FeatureFlagRecord, ProjectRecord, SurveyRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { forcedGateKey, forcedSurveyIds } from "./forcing.ts";

/** Flag keys are left out when the survey has no such flag, as the real answer leaves them out. */
function flagKeys(s: SurveyRecord, flagOf: (id: number | null) => FeatureFlagRecord | undefined) {
  const keys: Record<string, string> = {};
  const put = (name: string, id: number | null) => {
    const flag = flagOf(id);
    if (flag) keys[name] = flag.key;
  };
  put("linked_flag_key", s.linked_flag_id);
  put("targeting_flag_key", s.targeting_flag_id);
  put("internal_targeting_flag_key", s.internal_targeting_flag_id);
  return keys;
}

function publicSurvey(s: SurveyRecord, flagOf: (id: number | null) => FeatureFlagRecord | undefined, forcedAt: string | null) {
  const running = forcedAt === null ? { start_date: s.start_date, end_date: s.end_date } : { start_date: s.start_date ?? forcedAt, end_date: null };
  return {
    id: s.id,
    name: s.name,
    type: s.type,
    ...flagKeys(s, flagOf),
    // Only the forced distinct id has the gate on: the survey stays hidden from everyone else.
    ...(forcedAt !== null && { targeting_flag_key: forcedGateKey(s.id) }),
    questions: s.questions,
    conditions: s.conditions,
    appearance: s.appearance,
    ...running,
    current_iteration: s.current_iteration,
    current_iteration_start_date: s.current_iteration_start_date,
    schedule: s.schedule,
    enable_partial_responses: s.enable_partial_responses,
  };
}

const runs = (s: SurveyRecord) => s.start_date !== null && s.end_date === null && !s.archived;

export function publicSurveysAnswer(store: Store, forced: ForcedFlags, project: ProjectRecord, nowIso: string) {
  const forcedIds = forcedSurveyIds(forced, project.id);
  const flagOf = (id: number | null) => (id === null ? undefined : store.flags.get(project.id, id));
  const surveys = store.surveys
    .list(project.id)
    .reverse()
    .filter((s) => !s.archived || forcedIds.has(s.id))
    .map((s) => publicSurvey(s, flagOf, forcedIds.has(s.id) && !runs(s) ? nowIso : null));
  return { surveys, survey_config: null };
}

/**
 * Remote config's `surveys` (the real remote config answers the project's `surveys_opt_in`, which follows its active
 * surveys: src/store/survey-record.ts), or true while a survey is forced in the project.
 */
export const surveysEnabled = (optIn: boolean | null, projectId: string, forced: ForcedFlags): boolean => optIn === true || forcedSurveyIds(forced, projectId).size > 0;

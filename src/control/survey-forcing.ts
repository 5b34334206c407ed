/**
 * Surveys in tests: `POST /_mock/surveys/force/` shows a survey to one distinct id (its flags forced for that
 * distinct id alone: src/surveys/forcing.ts), released by `POST /_mock/reset/` with the other forced flags; and the
 * captured-event pattern of a response, which the captured wait (`POST /_mock/captured/wait/`) waits for.
 */
import { fail } from "../core/errors.ts";
import type { ForcedFlag, ForcedFlags } from "../services/forced-flags.ts";
import type { Store } from "../store/store.ts";
import { forceSurvey } from "../surveys/forcing.ts";
import type { EventPattern } from "./observe.ts";

export interface SurveyForceRequest {
  survey_id: string;
  distinct_id: string;
}

export interface ForcedSurvey extends SurveyForceRequest {
  project_id: string;
  /** The forced flag values that show it (the gate, and the survey's own flags): `DELETE /_mock/feature_flags/{id}/` clears one. */
  forced_flags: ForcedFlag[];
}

/** Forcing over a store's surveys; an unknown survey id is a 404. */
export function createSurveyForcing(store: Store, forced: ForcedFlags) {
  return {
    force({ survey_id, distinct_id }: SurveyForceRequest): ForcedSurvey {
      const survey = store.surveys.byId(survey_id);
      if (!survey) throw fail.notFound(`No survey ${survey_id}.`);
      const flagOf = (id: number | null) => (id === null ? undefined : store.flags.get(survey.project_id, id));
      return { survey_id, distinct_id, project_id: survey.project_id, forced_flags: forceSurvey(forced, survey, distinct_id, flagOf) };
    },
  };
}

export type SurveyForcing = ReturnType<typeof createSurveyForcing>;

export interface SurveyResponsePattern {
  /** The survey answered (`$survey_id` of `survey sent`). */
  survey_id: string;
  distinct_id?: string;
}

/** posthog-js sends `survey sent` with `$survey_id` once a survey is answered (each part, with partial responses on). */
export const surveyResponsePattern = ({ survey_id, distinct_id }: SurveyResponsePattern): EventPattern => ({
  event: "survey sent",
  ...(distinct_id !== undefined && { distinct_id }),
  properties: { $survey_id: survey_id },
});

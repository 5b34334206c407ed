/**
 * Showing a survey to one distinct id in a test, as flags are forced: the survey's flags are forced on for that
 * distinct id, and a gate flag only that distinct id has (key `survey-targeting-forced-<survey id>`) marks the survey
 * as forced. The public surveys answer lists a forced survey as running, gated by that key, so that posthog-js
 * shows it to that distinct id alone; resets clear it with the other forced flags.
 */
import type { ForcedFlag, ForcedFlags } from "../services/forced-flags.ts";
import type { FeatureFlagRecord, SurveyRecord } from "../store/schema.ts";

/** posthog-js sends no `$feature_flag_called` for `survey-targeting-` keys: the gate stays out of the events. */
export const FORCED_SURVEY_PREFIX = "survey-targeting-forced-";
export const forcedGateKey = (surveyId: string) => `${FORCED_SURVEY_PREFIX}${surveyId}`;

/** The ids of the surveys forced in a project (for any distinct id). */
export function forcedSurveyIds(forced: ForcedFlags, projectId: string): Set<string> {
  return new Set(
    forced
      .forProject(projectId)
      .filter((f) => f.key.startsWith(FORCED_SURVEY_PREFIX))
      .map((f) => f.key.slice(FORCED_SURVEY_PREFIX.length)),
  );
}

/**
 * Forces the survey for the distinct id: its gate, linked flag (the variant its conditions ask for, if any),
 * targeting flag and internal targeting flag; returns the forced values.
 */
export function forceSurvey(forced: ForcedFlags, survey: SurveyRecord, distinctId: string, flagOf: (id: number | null) => FeatureFlagRecord | undefined): ForcedFlag[] {
  const scope = { project_id: survey.project_id, distinct_id: distinctId };
  const variant = survey.conditions?.linkedFlagVariant;
  const linkedValue = typeof variant === "string" && variant !== "any" ? variant : true;
  const keys: [string | undefined, boolean | string][] = [
    [forcedGateKey(survey.id), true],
    [flagOf(survey.linked_flag_id)?.key, linkedValue],
    [flagOf(survey.targeting_flag_id)?.key, true],
    [flagOf(survey.internal_targeting_flag_id)?.key, true],
  ];
  return keys.filter((k): k is [string, boolean | string] => k[0] !== undefined).map(([key, value]) => forced.add({ key, value, ...scope }));
}

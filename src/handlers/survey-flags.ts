/**
 * The flags a survey makes and keeps in step (PostHog `posthog/api/survey.py`, `_create_or_update_targeting_flag`
 * and `_add_user_survey_interacted_filters`): its targeting flag from `targeting_flag_filters`, and its internal
 * targeting flag, which hides it from persons who answered or dismissed it and is active while it runs.
 */
import { randomBytes } from "node:crypto";
import { ApiError, fail } from "../core/errors.ts";
import type { FeatureFlagRecord, Properties, SurveyRecord } from "../store/schema.ts";
import { validFilters } from "./feature-flag-validation.ts";
import type { HandlerArgs } from "./types.ts";

/** posthog-js does not report `$feature_flag_called` for keys with this prefix. */
export const SURVEY_TARGETING_FLAG_PREFIX = "survey-targeting-";

/** `survey-targeting-` + 10 random hex digits (+ `-custom` for the internal flag), as the real keys. */
const newFlagKey = (suffix: string) => `${SURVEY_TARGETING_FLAG_PREFIX}${randomBytes(5).toString("hex")}${suffix}`;

/** The internal flag's condition: neither `$survey_dismissed/<key>` nor `$survey_responded/<key>` set on the person. */
export function interactedFilters(s: SurveyRecord): Properties {
  const key = s.iteration_count ? `${s.id}/${s.current_iteration ?? 1}` : s.id;
  const notSet = (prefix: string) => ({ key: `${prefix}/${key}`, value: "is_not_set", operator: "is_not_set", type: "person" });
  return { groups: [{ variant: "", rollout_percentage: 100, properties: [notSet("$survey_dismissed"), notSet("$survey_responded")] }] };
}

/** The flag checks, with a behavioural cohort's message speaking of surveys (the real `create_flag_with_survey_errors`). */
function checkedFilters(args: HandlerArgs, filters: Properties, key: string, current?: FeatureFlagRecord): Properties {
  const ctx = {
    flags: args.deps.store.flags.list(args.project.id),
    cohorts: args.deps.store.analysisData.cohorts(args.project.id),
    current,
    parseDate: (value: unknown) => (typeof value === "string" && !Number.isNaN(Date.parse(value)) ? new Date(value) : undefined),
  };
  try {
    return validFilters(filters, key, ctx, current === undefined);
  } catch (e) {
    if (e instanceof ApiError && e.body.code === "behavioral_cohort_found") throw fail.invalid(null, e.body.detail.replace("feature flags", "surveys"), e.body.code);
    throw e;
  }
}

/** A new flag for the survey named `surveyName`. */
export async function createSurveyFlag(args: HandlerArgs, filters: Properties, surveyName: string, active: boolean, suffix = ""): Promise<FeatureFlagRecord> {
  const key = newFlagKey(suffix);
  const checked = checkedFilters(args, filters, key);
  return args.deps.store.flags.create(args.project.id, { key, name: `Targeting flag for survey ${surveyName}`, filters: checked, active }, args.caller.user.id);
}

export async function updateSurveyFlag(args: HandlerArgs, flag: FeatureFlagRecord, change: { filters?: Properties; active?: boolean }): Promise<FeatureFlagRecord> {
  const filters = change.filters === undefined ? undefined : checkedFilters(args, change.filters, flag.key, flag);
  return args.deps.store.flags.update(flag, { ...(filters && { filters }), ...(change.active !== undefined && { active: change.active }) }, args.caller.user.id);
}

/** A survey's flag, live in its project; null for none. */
export const surveyFlag = (args: HandlerArgs, id: number | null): FeatureFlagRecord | null => (id === null ? null : (args.deps.store.flags.get(args.project.id, id) ?? null));

/** Deleting a survey deletes its flags (soft-deleted here, as every flag delete: never evaluated again). */
export async function deleteSurveyFlag(args: HandlerArgs, id: number | null): Promise<void> {
  const flag = surveyFlag(args, id);
  if (flag) await args.deps.store.flags.update(flag, { deleted: true, active: false }, args.caller.user.id);
}

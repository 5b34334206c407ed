import type { FeatureFlagRecord, SurveyRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { toUserJson } from "./user-json.ts";

/** A flag as a survey shows it (the real MinimalFeatureFlagSerializer); null for none. */
export const toMinimalFlagJson = (f: FeatureFlagRecord | undefined) =>
  f
    ? {
        id: f.id,
        team_id: Number(f.project_id),
        name: f.name,
        key: f.key,
        filters: f.filters,
        deleted: f.deleted,
        active: f.active,
        ensure_experience_continuity: f.ensure_experience_continuity,
        has_encrypted_payloads: false,
        version: f.version,
        evaluation_runtime: "all",
      }
    : null;

/** A survey as the real surveys API answers it (its SurveySerializer). */
export function toSurveyJson(s: SurveyRecord, store: Store) {
  const flag = (id: number | null) => (id === null ? undefined : store.flags.get(s.project_id, id));
  const [linked, targeting, internal] = [flag(s.linked_flag_id), flag(s.targeting_flag_id), flag(s.internal_targeting_flag_id)];
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    type: s.type,
    schedule: s.schedule,
    linked_flag: toMinimalFlagJson(linked),
    linked_flag_id: linked?.id ?? null,
    targeting_flag: toMinimalFlagJson(targeting),
    internal_targeting_flag: toMinimalFlagJson(internal),
    questions: s.questions,
    conditions: s.conditions,
    appearance: s.appearance,
    created_at: s.created_at,
    created_by: toUserJson(store.users.get(s.created_by)),
    start_date: s.start_date,
    end_date: s.end_date,
    archived: s.archived,
    responses_limit: s.responses_limit,
    feature_flag_keys: [
      { key: "linked_flag_key", value: linked?.key ?? null },
      { key: "targeting_flag_key", value: targeting?.key ?? null },
      { key: "internal_targeting_flag_key", value: internal?.key ?? null },
      { key: "internal_response_sampling_flag_key", value: null },
    ],
    iteration_count: s.iteration_count,
    iteration_frequency_days: s.iteration_frequency_days,
    iteration_start_dates: s.iteration_start_dates,
    current_iteration: s.current_iteration,
    current_iteration_start_date: s.current_iteration_start_date,
    response_sampling_start_date: s.response_sampling_start_date,
    response_sampling_interval_type: s.response_sampling_interval_type,
    response_sampling_interval: s.response_sampling_interval,
    response_sampling_limit: s.response_sampling_limit,
    response_sampling_daily_limits: s.response_sampling_daily_limits,
    enable_partial_responses: s.enable_partial_responses,
    user_access_level: "editor",
  };
}

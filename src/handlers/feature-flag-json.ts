import type { FeatureFlagRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { toUserJson } from "./user-json.ts";
import { projectNumber } from "../util/ids.ts";

/** A flag as the real feature flags API shows it; the fields of features the mock lacks carry their empty values. */
export function toFeatureFlagJson(flag: FeatureFlagRecord, store: Store) {
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters: flag.filters,
    deleted: flag.deleted,
    active: flag.active,
    created_by: toUserJson(store.users.get(flag.created_by)),
    created_at: flag.created_at,
    updated_at: flag.updated_at,
    version: flag.version,
    last_modified_by: toUserJson(store.users.get(flag.last_modified_by)),
    ensure_experience_continuity: flag.ensure_experience_continuity,
    experiment_set: [],
    surveys: [],
    features: [],
    rollback_conditions: null,
    performed_rollback: false,
    can_edit: true,
    tags: flag.tags,
    evaluation_tags: [],
    usage_dashboard: null,
    analytics_dashboards: [],
    has_enriched_analytics: false,
    user_access_level: "editor",
    is_remote_configuration: false,
    has_encrypted_payloads: false,
    status: flag.deleted ? "DELETED" : "ACTIVE",
    evaluation_runtime: "all",
    bucketing_identifier: "distinct_id",
    last_called_at: null,
  };
}

/** A flag as the real minimal flag serializer shows it inside the objects that use one (early access features, surveys). */
export function toMinimalFlagJson(flag: FeatureFlagRecord) {
  return {
    id: flag.id,
    team_id: projectNumber({ id: flag.project_id }),
    name: flag.name,
    key: flag.key,
    filters: flag.filters,
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    has_encrypted_payloads: false,
    version: flag.version,
    evaluation_runtime: "all" as const,
  };
}

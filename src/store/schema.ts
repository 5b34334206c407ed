/**
 * The stored state: record shapes and the persisted database layout.
 * These are internal shapes; the wire shapes come from the OpenAPI document (src/generated/openapi.ts).
 */

import type { EventStore } from "./event-store.ts";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Properties = Record<string, unknown>;

export interface UserRecord {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  email: string;
  is_email_verified: boolean;
  personal_api_keys: string[];
}

/**
 * What the client libraries' remote config reads from a project (issue 40), set by fixtures and the projects API;
 * absent in store files written before them (absent: the real service's defaults, src/handlers/project-settings.ts).
 */
export interface ProjectClientSettings {
  session_recording_opt_in?: boolean;
  /** A decimal between "0.00" and "1.00", as the real service stores it; null: every session. */
  session_recording_sample_rate?: string | null;
  session_recording_minimum_duration_milliseconds?: number | null;
  session_recording_linked_flag?: Properties | null;
  capture_console_log_opt_in?: boolean | null;
  capture_performance_opt_in?: boolean | null;
  autocapture_exceptions_opt_in?: boolean | null;
  heatmaps_opt_in?: boolean | null;
  surveys_opt_in?: boolean | null;
  /** The real project's separate switches for dead clicks and web vitals (remote config's captureDeadClicks, capturePerformance.web_vitals). */
  capture_dead_clicks?: boolean | null;
  autocapture_web_vitals_opt_in?: boolean | null;
  /** Which web vitals posthog-js reports ("FCP", "LCP", "CLS", "INP"); null: all four. */
  autocapture_web_vitals_allowed_metrics?: string[] | null;
}

export interface ProjectRecord extends ProjectClientSettings {
  id: string;
  name: string;
  /** IANA zone; analyses bucket in it. */
  timezone: string;
  /** User ids allowed in this project; null means every user. */
  members: number[] | null;
  /** Property filters (reference: analytics §1.4) added when a request sets filter_test_accounts. */
  test_account_filters: Properties[];
  /** 0 = Sunday (default), 1 = Monday. */
  week_start_day: 0 | 1;
  /** The project API key (`phc_…`) client libraries send to the capture endpoints. */
  api_token: string;
}

/** A group type of a project (group analytics): at most five, indexes 0–4 (reference: analytics §1.1). */
export interface GroupTypeRecord {
  project_id: string;
  group_type_index: number;
  /** The name events use in `properties.$groups` (`company`). */
  group_type: string;
  name_singular: string | null;
  name_plural: string | null;
}

/** A group, identified by (project, group type index, group key). */
export interface GroupRecord {
  project_id: string;
  group_type_index: number;
  group_key: string;
  properties: Properties;
  /** ISO 8601 UTC. */
  created_at: string;
}

export interface PersonRecord {
  id: number;
  project_id: string;
  uuid: string;
  distinct_ids: string[];
  properties: Properties;
  /** ISO 8601 UTC. */
  created_at: string;
  is_identified: boolean;
}

export interface EventRecord {
  uuid: string;
  project_id: string;
  event: string;
  distinct_id: string;
  /** Epoch milliseconds (UTC instant). */
  timestamp: number;
  properties: Properties;
  elements_chain: string;
  /** Rows of a column table read one property without building `properties` (src/store/event-table.ts). */
  prop?(key: string): unknown;
}

/**
 * Events in timestamp order as analyses read them: a project's column table (src/store/event-table.ts), or a
 * plain array (unit tests). Read by position with `at`.
 */
export interface EventList {
  readonly length: number;
  at(index: number): EventRecord | undefined;
  [Symbol.iterator](): Iterator<EventRecord>;
}

/** How an action step compares a URL, text or href (the real service's ActionStepMatching). */
export type ActionStepMatching = "contains" | "exact" | "regex";

/** One step of an action (the real service's ActionStepJSON); absent and null conditions are not checked. */
export interface ActionStep {
  event?: string | null;
  properties?: Properties[] | null;
  url?: string | null;
  url_matching?: ActionStepMatching | null;
  selector?: string | null;
  tag_name?: string | null;
  text?: string | null;
  text_matching?: ActionStepMatching | null;
  href?: string | null;
  href_matching?: ActionStepMatching | null;
}

/**
 * A saved action. Fixture files carry only project, id, name and steps; the rest is filled in when loaded
 * (src/store/actions-repo.ts `actionFromFixture`), and store files written before the actions API lack it.
 */
export interface ActionRecord {
  project_id: string;
  id: number;
  name: string;
  steps: ActionStep[];
  description?: string;
  tags?: string[];
  post_to_slack?: boolean;
  slack_message_format?: string;
  created_at?: string;
  created_by?: number | null;
  deleted?: boolean;
  /** When the steps last changed (creation included): what `last_calculated_at` shows. */
  last_calculated_at?: string;
  pinned_at?: string | null;
}

/**
 * A cohort: static (`person_ids`) or dynamic (`filters`: person-property and behavioural conditions evaluated
 * against the current persons and events). Fixture cohorts carry only the first five fields; the rest are
 * written by the cohorts API.
 */
export interface CohortRecord {
  project_id: string;
  id: number;
  name: string;
  person_ids?: number[];
  filters?: { properties: Properties };
  description?: string;
  /** Absent on fixture cohorts: static exactly when they list `person_ids`. */
  is_static?: boolean;
  deleted?: boolean;
  created_by?: number | null;
  created_at?: string;
}

/** A cohort with its members resolved (dynamic cohorts evaluated): what analyses and flags read. */
export interface ResolvedCohort {
  project_id: string;
  id: number;
  name: string;
  person_ids: number[];
  /** The dynamic cohort's conditions; absent for a static cohort. */
  filters?: { properties: Properties };
  /** When `person_ids` was computed (ISO). */
  calculated_at?: string;
}

/** A feature flag in the real service's shape; `filters` holds its release conditions, variants and payloads. */
export interface FeatureFlagRecord {
  id: number;
  project_id: string;
  key: string;
  /** The flag's description (the real service keeps the field name `name`). */
  name: string;
  filters: Properties;
  active: boolean;
  deleted: boolean;
  ensure_experience_continuity: boolean;
  /** 1 at creation, +1 on every update (the real service's optimistic-concurrency version). */
  version: number;
  tags: string[];
  created_by: number | null;
  created_at: string;
  updated_at: string;
  last_modified_by: number | null;
}

/**
 * The hash key a person keeps for flags with `ensure_experience_continuity`: the anonymous distinct id they had
 * when first evaluated, so that identifying does not re-bucket them (the real service's hash key overrides).
 */
export interface FlagHashKeyOverrideRecord {
  project_id: string;
  person_uuid: string;
  feature_flag_key: string;
  hash_key: string;
}

export const DASHBOARD_CREATION_MODES = ["default", "template", "duplicate"] as const;

export interface DashboardRecord {
  id: number;
  project_id: string;
  name: string;
  description: string;
  pinned: boolean;
  tags: string[];
  /** Overrides applied to insights loaded for this dashboard (from_dashboard). */
  filters: Properties;
  deleted: boolean;
  /** How it began: blank, from a template, or as a copy of another dashboard. */
  creation_mode: (typeof DASHBOARD_CREATION_MODES)[number];
  created_at: string;
  created_by: number | null;
  /** When it was last retrieved; null until then. */
  last_accessed_at: string | null;
}

export interface DashboardTileRecord {
  id: number;
  dashboard_id: number;
  insight_id: number;
  /** Deleted as the API shows it: the insight is soft-deleted, or the tile was removed. */
  deleted: boolean;
  /** Removed from its dashboard by a write of `dashboards` (survives the insight's delete and restore). */
  removed: boolean;
  color: string | null;
  layouts: Properties;
}

export interface InsightRecord {
  id: number;
  project_id: string;
  short_id: string;
  name: string | null;
  derived_name: string | null;
  description: string;
  filters: Properties;
  query: Properties | null;
  order: number | null;
  deleted: boolean;
  tags: string[];
  favorited: boolean;
  saved: boolean;
  is_sample: boolean;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  last_modified_at: string;
  last_modified_by: number | null;
}

/**
 * An insight's sharing (reference: PostHog `posthog/models/sharing_configuration.py`): stored once sharing is first
 * written; while `enabled`, `access_token` reads the insight without a key (`?sharing_access_token=`).
 */
export interface SharingConfigurationRecord {
  project_id: string;
  insight_id: number;
  enabled: boolean;
  access_token: string;
  settings: Properties | null;
  created_at: string;
  /** Who last enabled it; a token read acts as them (the real service reads as an anonymous user). */
  created_by: number | null;
}

/** Where an annotation shows (reference: the real service's Annotation.Scope); `dashboard_item` is one insight. */
export const ANNOTATION_SCOPES = ["dashboard_item", "dashboard", "project", "organization", "recording"] as const;
export type AnnotationScope = (typeof ANNOTATION_SCOPES)[number];

/** A note pinned to an instant of the project's charts; `organization` ones show in every project. */
export interface AnnotationRecord {
  id: number;
  project_id: string;
  content: string | null;
  /** ISO 8601 UTC: where the note sits on a chart's time axis. */
  date_marker: string | null;
  /** `USR` written by a person, `GIT` by an integration. */
  creation_type: "USR" | "GIT";
  /** The insight id of a `dashboard_item` annotation. */
  dashboard_item: number | null;
  dashboard_id: number | null;
  scope: AnnotationScope;
  deleted: boolean;
  created_by: number | null;
  created_at: string;
  updated_at: string;
}

export interface InsightViewRecord {
  project_id: string;
  user_id: number;
  insight_id: number;
  viewed_at: string;
}

export interface ActivityChange {
  type: string;
  action: string;
  field?: string | null;
  before?: unknown;
  after?: unknown;
}

export interface ActivityRecord {
  id: string;
  project_id: string;
  scope: "Insight" | "Person" | "Action" | "Dashboard" | "Cohort";
  item_id: string;
  activity: string;
  user_id: number | null;
  detail: {
    name: string | null;
    short_id: string | null;
    changes: ActivityChange[] | null;
    trigger: null;
    type: null;
  };
  created_at: string;
}

export interface PendingDeletionRecord {
  project_id: string;
  person_uuid: string;
  distinct_ids: string[];
  requested_at: string;
  /** When the batch runs (ISO, UTC): the next scheduled slot after the request. */
  run_at: string;
}

export interface Counters {
  insight: number;
  person: number;
  dashboard: number;
  dashboard_tile: number;
  /** Absent in store files written before feature flags. */
  feature_flag?: number;
  /** Absent in store files written before annotations. */
  annotation?: number;
  /** Absent in store files written before the cohorts API (fixture cohorts bring their own ids). */
  cohort?: number;
  /** Absent in store files written before web experiments. */
  web_experiment?: number;
}

/** The main store file: the small records that change often. */
export interface MetaData {
  schema_version: 1;
  counters: Counters;
  users: UserRecord[];
  projects: ProjectRecord[];
  actions: ActionRecord[];
  cohorts: CohortRecord[];
  dashboards: DashboardRecord[];
  dashboard_tiles: DashboardTileRecord[];
  insights: InsightRecord[];
  insight_views: InsightViewRecord[];
  pending_deletions: PendingDeletionRecord[];
  group_types: GroupTypeRecord[];
  groups: GroupRecord[];
  feature_flags: FeatureFlagRecord[];
  flag_hash_key_overrides: FlagHashKeyOverrideRecord[];
  annotations: AnnotationRecord[];
  /** Insights' sharing; absent in store files written before sharing, and while nothing was shared. */
  sharing_configurations?: SharingConfigurationRecord[];
  /** Surveys (src/store/surveys-repo.ts); absent in store files written before them and while there are none. */
  surveys?: SurveyRecord[];
  /** Early access features as a fixture gave them; absent when none. */
  early_access_features?: EarlyAccessFeatureRecord[];
  /** Absent in store files written before web experiments, and while none was made. */
  web_experiments?: WebExperimentRecord[];
  /** A fixture's tracking plan, applied at start unless --tracking-plan names another; absent when none. */
  tracking_plan?: Properties;
  /**
   * The fixture document the stored dataset was built from (its content hash), so that a start naming an edited
   * fixture reloads it. Absent in older files and in datasets that did not start from a fixture.
   */
  fixture_source?: { sha256: string };
  /** How the stored dataset began; decides whether it is shifted to now at start. Absent in older files. */
  origin?: "generated" | "fixtures";
}

export const SURVEY_TYPES = ["popover", "widget", "external_survey", "api"] as const;
export type SurveyType = (typeof SURVEY_TYPES)[number];

/**
 * A survey in the real service's model (its Survey): questions, conditions and appearance kept as written (question
 * ids added); its targeting flags are feature flags of the project, named by id.
 */
export interface SurveyRecord {
  /** A UUID, as the real service's. */
  id: string;
  project_id: string;
  name: string;
  description: string;
  type: SurveyType;
  schedule: string | null;
  linked_flag_id: number | null;
  targeting_flag_id: number | null;
  /** The flag that hides the survey from persons who answered or dismissed it (made with the survey). */
  internal_targeting_flag_id: number | null;
  questions: Properties[] | null;
  conditions: Properties | null;
  appearance: Properties | null;
  created_at: string;
  created_by: number | null;
  updated_at: string;
  start_date: string | null;
  end_date: string | null;
  archived: boolean;
  responses_limit: number | null;
  iteration_count: number | null;
  iteration_frequency_days: number | null;
  iteration_start_dates: string[] | null;
  current_iteration: number | null;
  current_iteration_start_date: string | null;
  response_sampling_start_date: string | null;
  response_sampling_interval_type: string | null;
  response_sampling_interval: number | null;
  response_sampling_limit: number | null;
  response_sampling_daily_limits: Json | null;
  enable_partial_responses: boolean | null;
}

/** An early access feature's stages (the real model's `Stage` choices); the release stages carry the enrolment condition. */
export const EARLY_ACCESS_STAGES = ["draft", "concept", "alpha", "beta", "general-availability", "archived"] as const;
export type EarlyAccessStage = (typeof EARLY_ACCESS_STAGES)[number];

/** A feature people can opt into from the app (posthog-js `updateEarlyAccessFeatureEnrollment`), through its flag. */
export interface EarlyAccessFeatureRecord {
  /** A UUID, as the real model's. */
  id: string;
  project_id: string;
  feature_flag_id: number | null;
  name: string;
  description: string;
  stage: EarlyAccessStage;
  documentation_url: string;
  created_at: string;
}

/** A no-code experiment: per variant, DOM transforms posthog-js applies for the variant its flag gives. */
export interface WebExperimentRecord {
  id: number;
  project_id: string;
  name: string;
  feature_flag_id: number;
  /** Variant key -> `{transforms, rollout_percentage, conditions?}` as written. */
  variants: Record<string, Properties>;
  created_by: number | null;
  created_at: string;
}

/** A record kept as a fixture wrote it, with its project and an id. */
export interface FixtureStoredRecord {
  id: number;
  project_id: string;
  [field: string]: unknown;
}

/**
 * One batch of a session's rrweb events as `/s/` received it (the real service's recording blocks): a line of the
 * recordings file, beside the events file (snapshots are never events: no analysis reads them).
 */
export interface RecordingBlockRecord {
  project_id: string;
  session_id: string;
  window_id: string | null;
  distinct_id: string;
  /** The SDK that recorded it (`$lib`: posthog-js sends `web`); null when not said. */
  lib: string | null;
  /** When the server received it (ISO, UTC). */
  received_at: string;
  /** The rrweb events as the SDK sent them (posthog-js gzips some fields of some events: kept as they are). */
  events: unknown[];
}

/** The whole state, as loaded from files or built from a fixture document. */
export interface State {
  meta: MetaData;
  persons: PersonRecord[];
  /** Per project, sorted by timestamp ascending (column tables: src/store/event-table.ts). */
  events: EventStore;
  activity: ActivityRecord[];
  /** Session recordings' blocks, oldest first; absent in states built from fixtures (none recorded yet). */
  recordings?: RecordingBlockRecord[];
}

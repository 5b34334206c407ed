/**
 * What the real service's web app requests when its pages open: the paths and methods of the default mock
 * handlers its own tests and storybook use (PostHog/posthog, `frontend/src/mocks/handlers.ts` at commit
 * 00eda686edadb32afc3deb14e7038f6a58196381), copied as data. `:team_id` is a project id, the other
 * parameters an object of that kind; URLs of the real cloud (`https://us.i.posthog.com/...`) are the same
 * paths on this server, as posthog-js pointed at it requests them.
 *
 * `area` is the part of the product this server serves (product analytics and the client libraries' features); `other` names the product of the real service an
 * entry belongs to, which this server does not model.
 */
export type WebAppArea =
  | "insights"
  | "dashboards"
  | "persons"
  | "events"
  | "groups"
  | "actions"
  | "cohorts"
  | "annotations"
  | "definitions"
  | "query"
  | "feature flags"
  | "context"
  | "capture"
  | "session replay"
  | "early access features"
  | "surveys";

export interface WebAppRequest {
  method: "GET" | "POST" | "PATCH" | "OPTIONS";
  path: string;
  area?: WebAppArea;
  other?: string;
}

const get = (path: string, kind: { area?: WebAppArea; other?: string }): WebAppRequest => ({ method: "GET", path, ...kind });
const a = (area: WebAppArea) => ({ area });
const o = (other: string) => ({ other });

export const WEB_APP_REQUESTS: readonly WebAppRequest[] = [
  get("/api/projects/:team_id/my_notifications/", o("notifications")),
  get("/api/projects/:team_id/tasks/", o("tasks")),
  get("/api/projects/:team_id/actions/", a("actions")),
  get("/api/projects/:team_id/annotations/", a("annotations")),
  get("/api/projects/:team_id/event_definitions/", a("definitions")),
  get("/api/projects/:team_id/cohorts/", a("cohorts")),
  get("/api/environments/:team_id/dashboards/", a("dashboards")),
  get("/api/environments/:team_id/alerts/", o("alerts")),
  get("/api/environments/:team_id/hog_functions/", o("data pipelines")),
  get("/api/environments/:team_id/user_product_list/", o("product navigation")),
  get("/api/projects/:team_id/dashboard_templates", o("dashboard templates")),
  get("/api/projects/:team_id/dashboard_templates/repository/", o("dashboard templates")),
  get("/api/environments/:team_id/external_data_sources/", o("data warehouse")),
  get("/api/projects/:team_id/notebooks", o("notebooks")),
  get("/api/projects/:team_id/notebooks/recording_comments", o("notebooks")),
  get("/api/projects/:team_id/groups/", a("groups")),
  get("/api/projects/:team_id/groups_types/", a("groups")),
  get("/api/environments/:team_id/groups/", a("groups")),
  get("/api/environments/:team_id/groups_types/", a("groups")),
  get("/api/environments/:team_id/insights/", a("insights")),
  get("/api/environments/:team_id/insights/:insight_id/sharing/", a("insights")),
  get("/api/projects/", a("context")),
  get("/api/projects/:team_id/property_definitions/", a("definitions")),
  get("/api/event/values/", o("legacy unscoped property values")),
  get("/api/person/values/", o("legacy unscoped property values")),
  get("/api/group/values/", o("legacy unscoped property values")),
  get("/api/environments/:team_id/sessions/values/", o("web analytics sessions")),
  get("/api/projects/:team_id/flag_value/values/", a("feature flags")),
  get("/api/projects/:team_id/groups/property_values/", a("groups")),
  get("/api/environments/:team_id/data_warehouse/property_values/", o("data warehouse")),
  get("/api/projects/:team_id/feature_flags/", a("feature flags")),
  get("/api/projects/:team_id/feature_flags/:feature_flag_id/role_access", a("feature flags")),
  get("/api/projects/:team_id/experiments/", o("experiments")),
  get("/api/projects/:team_id/experiments/stats/", o("experiments")),
  get("/api/environments/:team_id/warehouse_view_link/", o("data warehouse")),
  get("/api/environments/:team_id/warehouse_saved_query_folders/", o("data warehouse")),
  get("/api/environments/:team_id/warehouse_saved_queries/", o("data warehouse")),
  get("/api/projects/:team_id/warehouse_saved_queries/", o("data warehouse")),
  get("/api/environments/:team_id/warehouse_tables/", o("data warehouse")),
  get("/api/environments/:team_id/core_memory/", o("AI assistant")),
  get("/api/environments/:team_id/conversations/", o("AI assistant")),
  get("/api/user_home_settings/@me/", o("home page settings")),
  get("/api/organizations/@current/", a("context")),
  get("/api/organizations/:organization_id/roles/", o("access control")),
  get("/api/organizations/:organization_id/resource_access", o("access control")),
  get("/api/organizations/:organization_id/members/", o("organization members")),
  get("/api/organizations/:organization_id/invites/", o("organization members")),
  get("/api/organizations/:organization_id/plugins/", o("data pipelines")),
  get("/api/organizations/:organization_id/plugins/repository/", o("data pipelines")),
  get("/api/organizations/:organization_id/plugins/unused/", o("data pipelines")),
  get("/api/plugin_config/", o("data pipelines")),
  get("/api/environments/:team_id/plugin_configs/:plugin_config_id/", o("data pipelines")),
  get("/api/environments/:team_id/persons", a("persons")),
  get("/api/environments/:team_id/persons/properties/", a("persons")),
  get("/api/personal_api_keys/", o("personal API key management")),
  get("/api/users/@me/", a("context")),
  get("/api/users/@me/two_factor_status/", a("context")),
  get("/api/users/@me/hedgehog_config/", a("context")),
  get("/api/environments/@current/", a("context")),
  get("/api/projects/@current/", a("context")),
  get("/api/projects/:team_id/comments/count", o("comments")),
  get("/api/projects/:team_id/comments", o("comments")),
  get("/_preflight", o("instance")),
  get("/api/login/dev", o("instance")),
  get("/_system_status", o("instance")),
  get("/api/instance_status", o("instance")),
  get("/api/billing/", o("billing")),
  get("/api/billing/get_invoices", o("billing")),
  get("/api/billing/credits/overview", o("billing")),
  get("/api/billing/spend/", o("billing")),
  get("/api/billing/usage/", o("billing")),
  get("/api/projects/:team_id/hog_function_templates", o("data pipelines")),
  get("/api/projects/:team_id/hog_function_templates/:id", o("data pipelines")),
  get("/api/projects/:team_id/hog_functions", o("data pipelines")),
  get("/api/environments/:team_id/data_color_themes", o("insight colour themes")),
  get("/api/projects/:team_id/session_recording_playlists", o("session replay")),
  get("/api/environments/:team_id/session_recording_playlists", o("session replay")),
  get("/api/projects/:team_id/session_recordings", a("session replay")),
  get("/api/environments/:team_id/session_recordings", a("session replay")),
  get("/api/environments/:team_id/session_recordings/:id/capture_diagnostics", o("session replay")),
  get("/api/projects/:team_id/insights/my_last_viewed", a("insights")),
  get("/api/environments/:team_id/insights/my_last_viewed", a("insights")),
  get("/api/projects/:team_id/early_access_feature", a("early access features")),
  get("/api/environments/:team_id/early_access_feature", a("early access features")),
  get("/api/organizations/:organization_id/proxy_records/", o("reverse proxy")),
  get("/api/projects/:team_id/dashboard_templates/json_schema/", o("dashboard templates")),
  get("/api/organizations/:organization_id/domains/", o("organization domains")),
  get("/api/environments/:team_id/default_evaluation_contexts/", o("feature flag evaluation contexts")),
  get("/api/environments/:team_id/file_system/unfiled/", o("project tree")),
  get("/api/environments/:team_id/file_system/log_view", o("project tree")),
  get("/api/environments/:team_id/file_system", o("project tree")),
  get("/api/environments/:team_id/file_system_shortcut/", o("project tree")),
  get("/api/environments/:team_id/insight_variables/", o("SQL insight variables")),
  get("/api/environments/:team_id/event_ingestion_restrictions/", o("ingestion settings")),
  get("/api/projects/:team_id/surveys", a("surveys")),
  get("/api/projects/:team_id/surveys/responses_count", a("surveys")),
  get("/api/projects/:team_id/integrations", o("integrations")),
  get("/api/organizations/:organization_id/integrations/", o("integrations")),
  get("/api/environments/:team_id/quick_filters/", o("quick filters")),
  get("/api/environments/:team_id/error_tracking/assignment_rules", o("error tracking")),
  get("/api/environments/:team_id/error_tracking/grouping_rules", o("error tracking")),
  get("/api/environments/:team_id/error_tracking/suppression_rules", o("error tracking")),
  get("/api/environments/:team_id/error_tracking/symbol_sets", o("error tracking")),
  get("/api/projects/:team_id/resource_access_controls", o("access control")),
  get("/api/projects/:team_id/access_controls", o("access control")),
  get("/api/sdk_versions/", o("SDK versions")),
  get("/api/team_sdk_versions/", o("SDK versions")),
  get("/api/environments/:team_id/endpoints/", o("endpoints")),
  get("/api/projects/:team_id/signals/source_configs/", o("signals")),
  get("/api/projects/:team_id/feature_flags/:feature_flag_id/dependent_flags/", a("feature flags")),
  get("/api/environments/:team_id/llm_prompts/resolve/", o("LLM analytics")),
  get("/api/environments/:team_id/llm_analytics/", o("LLM analytics")),
  get("/api/projects/:team_id/tags/", o("tags")),
  { method: "POST", path: "/e/", area: "capture" },
  { method: "POST", path: "/decide/", area: "capture" },
  { method: "POST", path: "/flags/", area: "capture" },
  { method: "POST", path: "/engage/", area: "capture" },
  { method: "POST", path: "/api/environments/:team_id/query/", area: "query" },
  { method: "POST", path: "/api/environments/:team_id/query/:query_kind/", area: "query" },
  { method: "POST", path: "/api/environments/:team_id/insights/viewed/", area: "insights" },
  { method: "POST", path: "/api/projects/:team_id/metalytics/", other: "usage telemetry" },
  { method: "POST", path: "/api/environments/:team_id/file_system/log_view/", other: "project tree" },
  { method: "PATCH", path: "/api/projects/:team_id/session_recording_playlists/:playlist_id/", other: "session replay" },
  { method: "PATCH", path: "/api/environments/:team_id/add_product_intent/", other: "onboarding" },
  { method: "PATCH", path: "/api/environments/:team_id/", area: "context" },
  { method: "PATCH", path: "/api/user_home_settings/@me/", other: "home page settings" },
  { method: "OPTIONS", path: "/decide/", area: "capture" },
];

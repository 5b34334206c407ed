import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contract } from "../support/contract.ts";
import { freePort, start, waitForOutput, type Spawned } from "../support/processes.ts";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Outside-in: Prism sits between a client and our server and checks both directions against the document.
 * With `--errors` a request violation is answered 422 by Prism itself and a response violation 500, both as
 * application/problem+json; without it they would only be listed in `sl-violations`. Every request here is
 * valid, so any of these is a finding.
 */
const PRISM = createRequire(import.meta.url).resolve("@stoplight/prism-cli/dist/index.js");
const P = "/api/projects/1";
const q = (value: unknown) => encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value));
const query = (params: Record<string, unknown>) =>
  "?" + Object.entries(params).map(([k, v]) => `${k}=${q(v)}`).join("&");

const pageview = { id: "$pageview", type: "events", order: 0 };
const signup = { id: "signup", type: "events", order: 1 };
const purchase = { id: "purchase", type: "events", order: 2 };
const range = { date_from: "2024-03-01", date_to: "2024-03-04" };
const funnel = { insight: "FUNNELS", events: [pageview, signup, purchase], ...range };
const trend = { events: [pageview], ...range, interval: "day" };
const retention = {
  insight: "RETENTION",
  target_entity: { id: "signup", type: "events" },
  returning_entity: { id: "$pageview", type: "events" },
  period: "Day",
  total_intervals: 4,
  date_to: "2024-03-05",
};
const paths = { insight: "PATHS", include_event_types: ["$pageview"], ...range, step_limit: 5 };

interface Call {
  operationId: string;
  method: string;
  path: string | (() => string);
  body?: unknown;
  /** The status a correct server answers. */
  status: number;
}

let createdInsight = 0;
let createdDashboard = 0;
let createdFeature = "";
let createdSurvey = "";

/** Valid traffic reaching every operation, in an order where the mutations come after the reads they would disturb. */
const TRAFFIC: Call[] = [
  { operationId: "projects_list", method: "GET", path: "/api/projects/", status: 200 },
  { operationId: "projects_list", method: "GET", path: "/api/projects/?format=csv", status: 200 },
  { operationId: "insights_list", method: "GET", path: `${P}/insights/?limit=1&saved=true`, status: 200 },
  { operationId: "insights_list", method: "GET", path: `${P}/insights/?format=csv`, status: 200 },
  { operationId: "insights_create", method: "POST", path: `${P}/insights/`, status: 201,
    body: { name: "Daily pageviews", filters: { insight: "TRENDS", ...trend }, tags: ["web"], saved: true } },
  { operationId: "insights_retrieve", method: "GET", path: `${P}/insights/1/`, status: 200 },
  { operationId: "insights_retrieve", method: "GET", path: `${P}/insights/2/?refresh=true`, status: 200 },
  { operationId: "insights_partial_update", method: "PATCH", path: () => `${P}/insights/${createdInsight}/`, status: 200,
    body: { name: "Daily pageviews (all browsers)", favorited: true } },
  { operationId: "insights_viewed_create", method: "POST", path: `${P}/insights/1/viewed/`, body: {}, status: 200 },
  { operationId: "insights_activity_retrieve", method: "GET", path: () => `${P}/insights/${createdInsight}/activity/`, status: 200 },
  { operationId: "insights_destroy", method: "DELETE", path: () => `${P}/insights/${createdInsight}/`, status: 405 },
  { operationId: "insights_all_activity_retrieve", method: "GET", path: `${P}/insights/activity/?limit=2`, status: 200 },
  { operationId: "insights_my_last_viewed_retrieve", method: "GET", path: `${P}/insights/my_last_viewed/`, status: 200 },
  { operationId: "insights_trending_retrieve", method: "GET", path: `${P}/insights/trending/?days=7`, status: 200 },
  { operationId: "dashboards_list", method: "GET", path: `${P}/dashboards/?search=dash`, status: 200 },
  { operationId: "feature_flags_list", method: "GET", path: `${P}/feature_flags/?type=multivariant`, status: 200 },
  { operationId: "feature_flags_retrieve", method: "GET", path: `${P}/feature_flags/2/`, status: 200 },
  { operationId: "feature_flags_local_evaluation_retrieve", method: "GET", path: `${P}/feature_flags/local_evaluation/?send_cohorts=true`, status: 200 },
  { operationId: "feature_flags_create", method: "POST", path: `${P}/feature_flags/`, status: 201,
    body: { key: "proxy-flag", name: "Through the proxy", filters: { groups: [{ properties: [{ key: "plan", value: ["pro"], operator: "exact", type: "person" }], rollout_percentage: 50 }] } } },
  { operationId: "feature_flags_partial_update", method: "PATCH", path: `${P}/feature_flags/1/`, status: 200, body: { name: "Renamed", active: false } },
  { operationId: "feature_flags_destroy", method: "DELETE", path: `${P}/feature_flags/1/`, status: 405 },
  { operationId: "actions_list", method: "GET", path: `${P}/actions/?search=sign&limit=5`, status: 200 },
  { operationId: "actions_list", method: "GET", path: `${P}/actions/?format=csv`, status: 200 },
  { operationId: "actions_create", method: "POST", path: `${P}/actions/`, status: 201,
    body: { name: "Clicked sign up", description: "The hero button", steps: [{ event: "$autocapture", selector: "div.hero > button", text: "Sign up", text_matching: "contains" }, { event: "$pageview", url: "/signup$", url_matching: "regex" }] } },
  { operationId: "actions_retrieve", method: "GET", path: `${P}/actions/2/`, status: 200 },
  { operationId: "actions_count_retrieve", method: "GET", path: `${P}/actions/1/count/`, status: 200 },
  { operationId: "heatmaps_list", method: "GET", path: `${P}/heatmaps/?date_from=2024-03-01&type=click&url_pattern=https://shop.example/*&viewport_width_min=1024&limit=10`, status: 200 },
  { operationId: "heatmaps_list", method: "GET", path: `${P}/heatmaps/?date_from=2024-03-01&type=scrolldepth&aggregation=unique_visitors`, status: 200 },
  { operationId: "actions_partial_update", method: "PATCH", path: `${P}/actions/2/`, status: 200, body: { tags: ["web"], pinned_at: "2024-03-05T10:00:00Z" } },
  { operationId: "actions_update", method: "PUT", path: `${P}/actions/2/`, status: 200, body: { name: "Clicked sign up (any)", steps: [{ event: "$autocapture", href: "/signup", href_matching: "contains" }] } },
  { operationId: "actions_destroy", method: "DELETE", path: `${P}/actions/2/`, status: 405 },
  { operationId: "actions_partial_update", method: "PATCH", path: `${P}/actions/2/`, status: 200, body: { deleted: true } },
  { operationId: "cohorts_list", method: "GET", path: `${P}/cohorts/?search=pay&type=static`, status: 200 },
  { operationId: "cohorts_retrieve", method: "GET", path: `${P}/cohorts/1/`, status: 200 },
  { operationId: "cohorts_persons_retrieve", method: "GET", path: `${P}/cohorts/1/persons/?limit=1`, status: 200 },
  { operationId: "cohorts_create", method: "POST", path: `${P}/cohorts/`, status: 201,
    body: { name: "Recent viewers", filters: { properties: { type: "AND", values: [{ key: "$pageview", value: "performed_event", event_type: "events", time_value: 7, time_interval: "day", type: "behavioral" }] } } } },
  { operationId: "cohorts_partial_update", method: "PATCH", path: `${P}/cohorts/2/`, status: 200, body: { name: "Recent viewers (renamed)" } },
  { operationId: "cohorts_add_persons_to_static_cohort_partial_update", method: "PATCH", path: `${P}/cohorts/1/add_persons_to_static_cohort/`, status: 200,
    body: { person_ids: ["013dafea-5553-5166-bba1-4d5d637c6839"] } },
  { operationId: "cohorts_remove_person_from_static_cohort_partial_update", method: "PATCH", path: `${P}/cohorts/1/remove_person_from_static_cohort/`, status: 200,
    body: { person_id: "013dafea-5553-5166-bba1-4d5d637c6839" } },
  { operationId: "cohorts_destroy", method: "DELETE", path: `${P}/cohorts/2/`, status: 405 },
  { operationId: "cohorts_activity_retrieve", method: "GET", path: `${P}/cohorts/2/activity/`, status: 200 },
  { operationId: "cohorts_all_activity_retrieve", method: "GET", path: `${P}/cohorts/activity/?limit=2`, status: 200 },
  { operationId: "dashboards_retrieve", method: "GET", path: `${P}/dashboards/1/`, status: 200 },
  { operationId: "dashboards_create", method: "POST", path: `${P}/dashboards/`, status: 201, body: { name: "Proxy copy", use_dashboard: 1, duplicate_tiles: true } },
  { operationId: "dashboards_update", method: "PUT", path: () => `${P}/dashboards/${createdDashboard}/`, status: 200, body: { description: "Through the proxy", tags: ["proxy"] } },
  { operationId: "dashboards_partial_update", method: "PATCH", path: `${P}/dashboards/1/`, status: 200,
    body: { pinned: true, filters: { date_from: "2024-03-02" }, tiles: [{ id: 1, color: "blue", layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } }] } },
  { operationId: "dashboards_reorder_tiles_create", method: "POST", path: `${P}/dashboards/1/reorder_tiles/`, status: 200, body: { tile_order: [1] } },
  { operationId: "dashboards_move_tile_partial_update", method: "PATCH", path: `${P}/dashboards/1/move_tile/`, status: 200, body: { toDashboard: 1, tile: { id: 1 } } },
  { operationId: "dashboards_create", method: "POST", path: `${P}/dashboards/`, status: 201, body: { name: "Proxy blank", pinned: true } },
  { operationId: "dashboards_copy_tile_create", method: "POST", path: () => `${P}/dashboards/${createdDashboard}/copy_tile/`, status: 200, body: { fromDashboardId: 1, tileId: 1 } },
  { operationId: "dashboards_partial_update", method: "PATCH", path: () => `${P}/dashboards/${createdDashboard}/`, status: 200,
    body: { name: "Proxy blank (gone)", deleted: true } },
  { operationId: "insights_viewed_list_create", method: "POST", path: `${P}/insights/viewed/`, body: { insight_ids: [1, 2] }, status: 201 },
  { operationId: "early_access_feature_create", method: "POST", path: `${P}/early_access_feature/`, status: 201, body: { name: "Proxy feature", description: "Through the proxy", stage: "beta" } },
  { operationId: "early_access_feature_list", method: "GET", path: `${P}/early_access_feature/?limit=5`, status: 200 },
  { operationId: "early_access_feature_retrieve", method: "GET", path: () => `${P}/early_access_feature/${createdFeature}/`, status: 200 },
  { operationId: "early_access_feature_partial_update", method: "PATCH", path: () => `${P}/early_access_feature/${createdFeature}/`, status: 200, body: { stage: "archived" } },
  { operationId: "early_access_feature_destroy", method: "DELETE", path: () => `${P}/early_access_feature/${createdFeature}/`, status: 204 },
  { operationId: "web_experiments_create", method: "POST", path: `${P}/web_experiments/`, status: 201,
    body: { name: "Proxy headline", variants: { control: { rollout_percentage: 50, transforms: [] }, test: { rollout_percentage: 50, transforms: [{ selector: "h1", html: "B" }] } } } },
  { operationId: "web_experiments_list", method: "GET", path: `${P}/web_experiments/`, status: 200 },
  { operationId: "web_experiments_retrieve", method: "GET", path: `${P}/web_experiments/1/`, status: 200 },
  { operationId: "web_experiments_partial_update", method: "PATCH", path: `${P}/web_experiments/1/`, status: 200, body: { name: "Proxy headline v2" } },
  { operationId: "web_experiments_destroy", method: "DELETE", path: `${P}/web_experiments/1/`, status: 204 },
  { operationId: "surveys_create", method: "POST", path: `${P}/surveys/`, status: 201,
    body: { name: "Proxy survey", type: "popover", start_date: "2024-03-04T12:00:00Z", questions: [{ type: "single_choice", question: "Useful?", choices: ["Yes", "No"] }], targeting_flag_filters: { groups: [{ properties: [{ key: "plan", value: ["pro"], operator: "exact", type: "person" }], rollout_percentage: 100 }] } } },
  { operationId: "surveys_list", method: "GET", path: `${P}/surveys/?search=proxy&limit=5`, status: 200 },
  { operationId: "surveys_retrieve", method: "GET", path: () => `${P}/surveys/${createdSurvey}/`, status: 200 },
  { operationId: "surveys_stats_retrieve", method: "GET", path: () => `${P}/surveys/${createdSurvey}/stats/?date_from=2024-03-01`, status: 200 },
  { operationId: "surveys_global_stats_retrieve", method: "GET", path: `${P}/surveys/stats/?date_from=2024-03-01&date_to=2024-03-05T12:00:00Z`, status: 200 },
  { operationId: "surveys_responses_count_retrieve", method: "GET", path: `${P}/surveys/responses_count/`, status: 200 },
  { operationId: "surveys_partial_update", method: "PATCH", path: () => `${P}/surveys/${createdSurvey}/`, status: 200, body: { end_date: "2024-03-05T11:00:00Z", appearance: { backgroundColor: "#eeeded" } } },
  { operationId: "surveys_destroy", method: "DELETE", path: () => `${P}/surveys/${createdSurvey}/`, status: 204 },
  { operationId: "annotations_create", method: "POST", path: `${P}/annotations/`, status: 201,
    body: { content: "Tracking fixed", date_marker: "2024-03-02T09:00:00Z", scope: "dashboard_item", dashboard_item: 1 } },
  { operationId: "annotations_list", method: "GET", path: `${P}/annotations/?after=2024-03-01&before=2024-03-04T00:00:00Z&search=fixed`, status: 200 },
  { operationId: "annotations_retrieve", method: "GET", path: `${P}/annotations/1/`, status: 200 },
  { operationId: "annotations_partial_update", method: "PATCH", path: `${P}/annotations/1/`, status: 200, body: { content: "Tracking fixed (Safari)", scope: "project" } },
  { operationId: "groups_types_list", method: "GET", path: `${P}/groups_types/`, status: 200 },
  { operationId: "groups_types_update_metadata_partial_update", method: "PATCH", path: `${P}/groups_types/update_metadata/`, status: 200, body: [] },
  { operationId: "groups_list", method: "GET", path: `${P}/groups/?group_type_index=0&search=acme`, status: 200 },
  { operationId: "groups_find_retrieve", method: "GET", path: `${P}/groups/find/?group_type_index=0&group_key=acme`, status: 404 },
  { operationId: "groups_property_definitions_retrieve", method: "GET", path: `${P}/groups/property_definitions/`, status: 200 },
  { operationId: "groups_property_values_retrieve", method: "GET", path: `${P}/groups/property_values/?group_type_index=0&key=plan`, status: 200 },
  { operationId: "groups_related_retrieve", method: "GET", path: `${P}/groups/related/?id=84877a1c-03f2-5cfd-8633-cf112f0d565a`, status: 200 },
  { operationId: "insights_retrieve", method: "GET", path: `${P}/insights/PgVw0001/?include_dashboards=true`, status: 200 },
  { operationId: "insights_cancel_create", method: "POST", path: `${P}/insights/cancel/`, body: { client_query_id: "q-1" }, status: 200 },
  { operationId: "insights_timing_create", method: "POST", path: `${P}/insights/timing/`, status: 200,
    body: { insight: "TRENDS", insight_id: 1, time_to_see_data_ms: 183, cached: false, status: "success" } },
  { operationId: "insights_trend_retrieve", method: "GET", path: `${P}/insights/trend/${query(trend)}`, status: 200 },
  { operationId: "insights_trend_create", method: "POST", path: `${P}/insights/trend/`, body: trend, status: 200 },
  { operationId: "insights_trend_create", method: "POST", path: `${P}/insights/trend/`, status: 200,
    body: { ...trend, breakdown: "$browser", breakdown_type: "event" } },
  { operationId: "insights_trend_create", method: "POST", path: `${P}/insights/trend/`, status: 200,
    body: { insight: "STICKINESS", events: [pageview], ...range } },
  { operationId: "insights_trend_create", method: "POST", path: `${P}/insights/trend/`, status: 200,
    body: { insight: "LIFECYCLE", events: [pageview], ...range } },
  { operationId: "insights_funnel_retrieve", method: "GET", path: `${P}/insights/funnel/${query(funnel)}`, status: 200 },
  { operationId: "insights_funnel_create", method: "POST", path: `${P}/insights/funnel/`, body: funnel, status: 200 },
  { operationId: "insights_funnel_create", method: "POST", path: `${P}/insights/funnel/`, status: 200,
    body: { ...funnel, funnel_viz_type: "time_to_convert" } },
  { operationId: "insights_funnel_create", method: "POST", path: `${P}/insights/funnel/`, status: 200,
    body: { ...funnel, funnel_viz_type: "trends" } },
  { operationId: "insights_funnel_correlation_retrieve", method: "GET", status: 200,
    path: `${P}/insights/funnel/correlation/${query({ ...funnel, funnel_correlation_type: "events" })}` },
  { operationId: "insights_funnel_correlation_create", method: "POST", path: `${P}/insights/funnel/correlation/`, status: 200,
    body: { ...funnel, funnel_correlation_type: "events" } },
  { operationId: "insights_retention_retrieve", method: "GET", path: `${P}/insights/retention/${query(retention)}`, status: 200 },
  { operationId: "insights_path_retrieve", method: "GET", path: `${P}/insights/path/${query(paths)}`, status: 200 },
  { operationId: "insights_path_create", method: "POST", path: `${P}/insights/path/`, body: paths, status: 200 },
  { operationId: "persons_list", method: "GET", path: `${P}/persons/?limit=2`, status: 200 },
  { operationId: "persons_list", method: "GET", path: `${P}/persons/?format=csv`, status: 200 },
  { operationId: "persons_retrieve", method: "GET", path: `${P}/persons/1/`, status: 200 },
  { operationId: "persons_cohorts_retrieve", method: "GET", path: `${P}/persons/cohorts/?person_id=1`, status: 200 },
  { operationId: "persons_bulk_delete_create", method: "POST", path: `${P}/persons/bulk_delete/`, body: { distinct_ids: ["nobody"] }, status: 202 },
  { operationId: "persons_values_retrieve", method: "GET", path: `${P}/persons/values/?key=plan`, status: 200 },
  { operationId: "persons_properties_list", method: "GET", path: `${P}/persons/properties/`, status: 200 },
  { operationId: "persons_properties_timeline_retrieve", method: "GET", status: 200,
    path: `${P}/persons/1/properties_timeline/?date_from=2024-03-01&date_to=2024-03-05` },
  { operationId: "persons_trends_retrieve", method: "GET", path: `${P}/persons/trends/${query({ events: [pageview], ...range, entity_id: "$pageview", entity_type: "events" })}`, status: 200 },
  { operationId: "persons_stickiness_retrieve", method: "GET", status: 200,
    path: `${P}/persons/stickiness/${query({ insight: "STICKINESS", events: [pageview], ...range, entity_id: "$pageview", entity_type: "events", stickiness_days: 1 })}` },
  { operationId: "persons_lifecycle_retrieve", method: "GET", status: 200,
    path: `${P}/persons/lifecycle/${query({ insight: "LIFECYCLE", events: [pageview], ...range, target_date: "2024-03-02", lifecycle_type: "new" })}` },
  { operationId: "persons_funnel_retrieve", method: "GET", path: `${P}/persons/funnel/${query({ ...funnel, funnel_step: 2 })}`, status: 200 },
  { operationId: "persons_funnel_create", method: "POST", path: `${P}/persons/funnel/`, body: { ...funnel, funnel_step: 2 }, status: 200 },
  { operationId: "persons_funnel_correlation_retrieve", method: "GET", status: 200,
    path: `${P}/persons/funnel/correlation/${query({ ...funnel, funnel_correlation_type: "events", funnel_correlation_person_entity: signup, funnel_correlation_person_converted: "true" })}` },
  { operationId: "persons_funnel_correlation_create", method: "POST", status: 200,
    path: `${P}/persons/funnel/correlation/${query({ funnel_correlation_person_entity: signup, funnel_correlation_person_converted: "false" })}`,
    body: { ...funnel, funnel_correlation_type: "events" } },
  { operationId: "persons_retention_retrieve", method: "GET", path: `${P}/persons/retention/${query({ ...retention, selected_interval: 0 })}`, status: 200 },
  { operationId: "persons_path_retrieve", method: "GET", path: `${P}/persons/path/${query(paths)}`, status: 200 },
  { operationId: "persons_path_create", method: "POST", path: `${P}/persons/path/`, body: paths, status: 200 },
  { operationId: "persons_partial_update", method: "PATCH", path: `${P}/persons/2/`, body: { properties: { plan: "team" } }, status: 200 },
  { operationId: "persons_update_property_create", method: "POST", path: `${P}/persons/2/update_property/`, body: { key: "seats", value: 5 }, status: 200 },
  { operationId: "persons_delete_property_create", method: "POST", path: `${P}/persons/2/delete_property/`, body: { $unset: "plan" }, status: 200 },
  { operationId: "persons_activity_retrieve", method: "GET", path: `${P}/persons/2/activity/`, status: 200 },
  { operationId: "persons_all_activity_retrieve", method: "GET", path: `${P}/persons/activity/`, status: 200 },
  { operationId: "persons_split_create", method: "POST", path: `${P}/persons/1/split/`, body: { main_distinct_id: "a" }, status: 200 },
  { operationId: "persons_destroy", method: "DELETE", path: `${P}/persons/3/`, status: 204 },
  { operationId: "events_list", method: "GET", path: `${P}/events/?event=%24pageview&limit=2`, status: 200 },
  { operationId: "events_list", method: "GET", path: `${P}/events/?format=csv`, status: 200 },
  { operationId: "events_values_retrieve", method: "GET", path: `${P}/events/values/?key=%24browser`, status: 200 },
  { operationId: "events_retrieve", method: "GET", path: `${P}/events/01890000-0000-4000-8000-000000000001/`, status: 200 },
  { operationId: "query_create", method: "POST", path: `${P}/query/`, status: 200,
    body: { query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: range } } } },
  { operationId: "environments_query_create", method: "POST", path: "/api/environments/1/query/", status: 200,
    body: { query: { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "purchase" }], dateRange: range } } },
  { operationId: "environments_query_create", method: "POST", path: "/api/environments/1/query/", status: 200,
    body: { query: { kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: "select toDate(timestamp) as day, uniq(person_id) from events group by day order by day" } }, refresh: "blocking" } },
  // An insight kind computes within the request: its async status is complete at once, so the polls answer 200.
  { operationId: "query_create", method: "POST", path: `${P}/query/`, status: 200,
    body: { query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "signup" }], dateRange: range }, refresh: "async", client_query_id: "prism-1" } },
  { operationId: "query_retrieve", method: "GET", path: `${P}/query/prism-1/`, status: 200 },
  { operationId: "environments_query_retrieve", method: "GET", path: "/api/environments/1/query/prism-1/", status: 200 },
  { operationId: "query_destroy", method: "DELETE", path: `${P}/query/prism-1/`, status: 200 },
  { operationId: "environments_query_destroy", method: "DELETE", path: "/api/environments/1/query/prism-1/", status: 200 },
  { operationId: "environments_query_create", method: "POST", path: "/api/environments/1/query/", status: 200,
    body: { query: { kind: "EventsQuery", select: ["event", "timestamp", "properties.$browser"], after: "all", limit: 3 } } },
  { operationId: "environments_query_create", method: "POST", path: "/api/environments/1/query/", status: 200,
    body: { query: { kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: range }, day: "2024-03-01" }, select: ["actor", "event_count"] } } },
  { operationId: "environments_mcp_tools_execute_sql_create", method: "POST", path: "/api/environments/1/mcp_tools/execute_sql/", status: 200,
    body: { args: { query: "select event, count() from events group by event" } } },
  { operationId: "projects_retrieve", method: "GET", path: `${P}/`, status: 200 },
  { operationId: "projects_partial_update", method: "PATCH", path: `${P}/`, body: { name: "Renamed through Prism" }, status: 200 },
  { operationId: "projects_partial_update", method: "PATCH", path: `${P}/`, status: 200,
    body: { autocapture_exceptions_opt_in: true, session_recording_sample_rate: "0.5", session_recording_linked_flag: { id: 1, key: "beta" }, autocapture_web_vitals_allowed_metrics: ["LCP"] } },
  { operationId: "personal_api_keys_current", method: "GET", path: "/api/personal_api_keys/@current", status: 200 },
  { operationId: "users_me", method: "GET", path: "/api/users/@me/", status: 200 },
  { operationId: "organizations_list", method: "GET", path: "/api/organizations/", status: 200 },
  { operationId: "organizations_retrieve", method: "GET", path: "/api/organizations/@current/", status: 200 },
  { operationId: "organizations_projects_list", method: "GET", path: "/api/organizations/@current/projects/", status: 200 },
  { operationId: "oauth_introspect", method: "POST", path: "/oauth/introspect", status: 200, body: { token: OWNER_KEY } },
  { operationId: "event_definitions_list", method: "GET", path: `${P}/event_definitions/?search=p`, status: 200 },
  { operationId: "property_definitions_list", method: "GET", path: `${P}/property_definitions/?event_names=%5B%22purchase%22%5D`, status: 200 },
  { operationId: "property_definitions_list", method: "GET", path: `${P}/property_definitions/?type=person`, status: 200 },
  { operationId: "mcp_tools_read_taxonomy", method: "POST", path: "/api/environments/1/mcp_tools/read_taxonomy/", status: 200,
    body: { args: { query: { kind: "event_properties", event_name: "purchase" } } } },
  { operationId: "projects_create", method: "POST", path: "/api/projects/", status: 201, body: { name: "Staging", timezone: "Europe/Berlin" } },
  // The rest of the web app's product-analytics requests (issue 41).
  { operationId: "insights_sharing_list", method: "GET", path: `${P}/insights/1/sharing/`, status: 200 },
  { operationId: "insights_sharing_partial_update", method: "PATCH", path: `${P}/insights/1/sharing/`, body: { enabled: true }, status: 200 },
  { operationId: "insights_sharing_refresh_create", method: "POST", path: `${P}/insights/1/sharing/refresh/`, status: 200 },
  { operationId: "flag_value_values_retrieve", method: "GET", path: `${P}/flag_value/values/?key=2`, status: 200 },
  { operationId: "feature_flags_dependent_flags_retrieve", method: "GET", path: `${P}/feature_flags/2/dependent_flags/`, status: 200 },
  { operationId: "feature_flags_role_access_list", method: "GET", path: `${P}/feature_flags/2/role_access/`, status: 200 },
  { operationId: "users_two_factor_status_retrieve", method: "GET", path: "/api/users/@me/two_factor_status/", status: 200 },
  { operationId: "users_hedgehog_config_retrieve", method: "GET", path: "/api/users/@me/hedgehog_config/", status: 200 },
  { operationId: "environments_query_kind_create", method: "POST", path: "/api/environments/1/query/TrendsQuery/", status: 200,
    body: { query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: range } } },
  // Session replay (issue 40): the recording `seedRecording` sent through /s/ before the proxy started.
  { operationId: "session_recordings_list", method: "GET", path: `${P}/session_recordings/${query({ date_from: "-7d", having_predicates: [{ type: "recording", key: "click_count", operator: "gte", value: 1 }] })}`, status: 200 },
  { operationId: "session_recordings_retrieve", method: "GET", path: "/api/projects/1/session_recordings/prism-session/", status: 200 },
  { operationId: "session_recordings_snapshots_retrieve", method: "GET", path: `${P}/session_recordings/prism-session/snapshots/`, status: 200 },
  { operationId: "session_recordings_snapshots_retrieve", method: "GET", path: `${P}/session_recordings/prism-session/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=0`, status: 200 },
  { operationId: "session_recordings_destroy", method: "DELETE", path: `${P}/session_recordings/prism-session/`, status: 204 },
];

/** One recorded session (a meta event and a click, an hour before basic.json's now) sent to `/s/`, which Prism does not proxy. */
async function seedRecording(s: TestServer): Promise<void> {
  const at = Date.parse("2024-03-05T11:00:00Z");
  const data = [{ type: 4, timestamp: at, data: { href: "https://example.com/", width: 1280, height: 720 } }, { type: 3, timestamp: at + 1000, data: { source: 2, type: 2, id: 1, x: 1, y: 1 } }];
  const token = s.store.projects.get("1")!.api_token;
  const res = await fetch(`${s.base}/s/`, { method: "POST", body: JSON.stringify([{ event: "$snapshot", distinct_id: "u1", properties: { token, $session_id: "prism-session", $snapshot_data: data } }]) });
  if (res.status !== 200) throw new Error(`/s/ answered ${res.status}`);
}

interface Outcome {
  call: Call;
  path: string;
  status: number;
  contentType: string;
  violations: string | null;
  text: string;
}

let server: TestServer;
let prism: Spawned;
let proxy: string;

beforeAll(async () => {
  server = await startTestServer(scenario("basic"));
  await seedRecording(server);
  const port = await freePort();
  prism = start(process.execPath, [PRISM, "proxy", "openapi/openapi.yaml", server.base, "--errors", "--host", "127.0.0.1", "--port", String(port)]);
  await waitForOutput(prism, /Prism is listening on/);
  proxy = `http://127.0.0.1:${port}`;
}, 180_000);

afterAll(async () => {
  await prism?.stop();
  await server?.close();
});

async function send(base: string, call: Call): Promise<Outcome> {
  const path = typeof call.path === "function" ? call.path() : call.path;
  const headers: Record<string, string> = { authorization: `Bearer ${OWNER_KEY}` };
  if (call.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(base + path, { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) });
  const text = await res.text();
  if (call.operationId === "insights_create" && res.status === 201) createdInsight = (JSON.parse(text) as { id: number }).id;
  if (call.operationId === "dashboards_create" && res.status === 201) createdDashboard = (JSON.parse(text) as { id: number }).id;
  if (call.operationId === "early_access_feature_create" && res.status === 201) createdFeature = (JSON.parse(text) as { id: string }).id;
  if (call.operationId === "surveys_create" && res.status === 201) createdSurvey = (JSON.parse(text) as { id: string }).id;
  return { call, path, status: res.status, contentType: res.headers.get("content-type") ?? "", violations: res.headers.get("sl-violations"), text };
}

describe("Prism validation proxy over valid traffic", () => {
  it("reaches every operation and finds no violation", { timeout: 300_000 }, async () => {
    const api = await contract();
    const documented = new Map(api.getOperations().map((op) => [op.operationId!, Object.keys(op.responses ?? {})]));
    expect([...new Set(TRAFFIC.map((c) => c.operationId))].sort()).toEqual([...documented.keys()].sort());

    const outcomes: Outcome[] = [];
    for (const call of TRAFFIC) outcomes.push(await send(proxy, call));
    await prism.stop();
    // Prism answers an upstream 501 with a mock built from the document, which would hide it.
    const mocked = prism.output().match(/Upstream call to \S+ has returned 501/g) ?? [];
    if (process.env.PRISM_DEBUG) for (const o of outcomes) console.log(o.status, o.call.operationId, o.text.slice(0, 200));

    const findings = [
      ...outcomes
        .filter((o) => o.status !== o.call.status || o.violations !== null || o.contentType.includes("problem+json"))
        .map((o) => `${o.call.method} ${o.path} (${o.call.operationId}): want ${o.call.status}, got ${o.status}${o.violations ? ` sl-violations: ${o.violations}` : ""}\n  ${o.text.slice(0, 1500)}`),
      ...mocked.map((line) => `Prism mocked an answer: ${line}`),
    ];
    const covered = new Set(outcomes.map((o) => o.call.operationId));
    console.log(`Prism proxy: ${outcomes.length} requests through the proxy, ${covered.size}/${documented.size} operations checked`);
    expect(findings, findings.join("\n")).toEqual([]);
  });
});

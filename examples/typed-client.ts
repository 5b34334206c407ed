/**
 * A typed client for the API with openapi-fetch over the generated types: paths, parameters and bodies are
 * checked by the compiler against openapi/. A frontend would do the same with its own copy of the types.
 */
import createClient from "openapi-fetch";
import type { paths } from "../src/generated/openapi.ts";

export function analyticsClient(baseUrl: string, personalApiKey: string, fetchImpl: typeof fetch = fetch) {
  // JSON answers only: every operation also documents text/csv (format=csv), which would widen each `data` to string.
  return createClient<paths, "application/json">({ baseUrl, headers: { Authorization: `Bearer ${personalApiKey}` }, fetch: fetchImpl });
}

export type AnalyticsClient = ReturnType<typeof analyticsClient>;

/** Creates an insight, renames it, and reads the daily pageviews trend: the round trip of a dashboard page. */
export async function dashboardRoundTrip(client: AnalyticsClient, projectId: string) {
  const created = await client.POST("/api/projects/{project_id}/insights/", {
    params: { path: { project_id: projectId } },
    body: { name: "Pageviews", filters: { insight: "TRENDS", events: [{ id: "$pageview" }] } },
  });
  if (!created.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
  const renamed = await client.PATCH("/api/projects/{project_id}/insights/{id}/", {
    params: { path: { project_id: projectId, id: created.data.id } },
    body: { name: "Daily pageviews" },
  });
  const trend = await client.POST("/api/projects/{project_id}/insights/trend/", {
    params: { path: { project_id: projectId } },
    body: { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-03" },
  });
  return { insight: renamed.data, trend: trend.data };
}

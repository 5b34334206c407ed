/**
 * A typed client for the API with openapi-fetch over the generated types: paths, parameters and bodies are
 * checked by the compiler against openapi/. A frontend would do the same with its own copy of the types.
 */
import { pathToFileURL } from "node:url";
import createClient from "openapi-fetch";
import type { paths } from "../src/generated/openapi.ts";
import { startServer } from "../src/index.ts";

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
    params: { path: { project_id: projectId, id: String(created.data.id) } },
    body: { name: "Daily pageviews" },
  });
  const trend = await client.POST("/api/projects/{project_id}/insights/trend/", {
    params: { path: { project_id: projectId } },
    body: { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-03" },
  });
  return { insight: renamed.data, trend: trend.data };
}

/**
 * Run it: `npx tsx examples/typed-client.ts` starts the server in-process on the bundled basic scenario;
 * `npx tsx examples/typed-client.ts http://127.0.0.1:8000 <key> [project]` talks to a running one instead.
 */
async function main(argv: string[]) {
  const [url, key, project = "1"] = argv;
  const embedded = url ? null : await startServer({ scenario: "basic" });
  try {
    const client = analyticsClient(url ?? embedded!.url, key ?? "phx_test_owner_key_0001");
    const { insight, trend } = await dashboardRoundTrip(client, project);
    console.log(`insight ${insight?.id} "${insight?.name}" (short_id ${insight?.short_id})`);
    for (const series of trend?.result ?? []) {
      console.log(`trend ${series.label}: ${series.days.map((day, i) => `${day}=${series.data?.[i]}`).join(" ")} (total ${series.count})`);
    }
  } finally {
    await embedded?.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  });
}

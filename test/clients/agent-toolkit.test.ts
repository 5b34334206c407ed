/**
 * PostHog's own agent toolkit (@posthog/agent-toolkit, the core of the real service's MCP server), unmodified,
 * pointed at the server with a personal key: it must list its tools, find the default project by itself, and
 * run queries whose answers equal the legacy endpoints' and counts worked by hand on basic.json (project 1):
 *   $pageview: 03-01 ×3 (08:00 a-anon, 11:00 c, 15:00 a), 03-02 ×1 (b), 03-03 ×1 (a); signup a, b, c (03-05);
 *   purchase a (03-01), b (03-03); $pageleave ×1. Persons: A = {a, a-anon}, B = {b}, C = {c}.
 *   Funnel $pageview → signup → purchase over 03-01…03-05: A and B reach step 3, C step 2 → [3, 3, 2].
 */
import { PostHogAgentToolkit } from "@posthog/agent-toolkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
let toolkit: PostHogAgentToolkit;
type ToolResult = { content: { type: string; text: string }[] };

beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
  toolkit = new PostHogAgentToolkit({ posthogApiToken: OWNER_KEY, posthogApiBaseUrl: s.base });
});
afterAll(() => s.close());

/** Runs one of the toolkit's tools as an agent would: by name, with arguments its own schema accepts. */
async function runTool(name: string, params: unknown): Promise<unknown> {
  const tool = (await toolkit.getTools()).find((t) => t.name === name);
  if (!tool) throw new Error(`the toolkit offers no tool ${name}`);
  const parsed = tool.schema.parse(params);
  const result = (await tool.handler(toolkit.getContext(), parsed)) as ToolResult;
  return JSON.parse(result.content[0]!.text);
}

const range = { date_from: "2024-03-01", date_to: "2024-03-05" };
const steps = ["$pageview", "signup", "purchase"];

describe("@posthog/agent-toolkit against the server", () => {
  it("lists its tools for our key (it reads the key's scopes first) and finds the default project", async () => {
    const names = (await toolkit.getTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["query-run", "insight-create-from-query", "insights-get-all", "event-definitions-list", "properties-list"]));
    expect(await toolkit.getContext().stateManager.getProjectId()).toBe("1");
  });

  it("query-run with a TrendsQuery: the legacy trend's numbers and the hand count", async () => {
    const results = (await runTool("query-run", {
      query: {
        kind: "InsightVizNode",
        source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", custom_name: "Pageviews", math: "total" }], interval: "day", dateRange: range },
      },
    })) as { data: number[] }[];
    expect(results[0]!.data).toEqual([3, 1, 1, 0, 0]);
    const legacy = await s.post("/api/projects/1/insights/trend/", { events: [{ id: "$pageview", math: "total" }], interval: "day", ...range });
    expect(results[0]!.data).toEqual(legacy.body.result[0].data);
  });

  it("query-run with a FunnelsQuery: the legacy funnel's numbers and the hand count", async () => {
    const results = (await runTool("query-run", {
      query: {
        kind: "InsightVizNode",
        source: { kind: "FunnelsQuery", series: steps.map((event) => ({ kind: "EventsNode", event, custom_name: event })), dateRange: range },
      },
    })) as { count: number }[];
    expect(results.map((step) => step.count)).toEqual([3, 3, 2]);
    const legacy = await s.post("/api/projects/1/insights/funnel/", { insight: "FUNNELS", events: steps.map((id, order) => ({ id, order })), ...range });
    expect(results.map((step) => step.count)).toEqual(legacy.body.result.map((step: { count: number }) => step.count));
  });

  it("query-run with HogQL GROUP BY: events per name, counted by hand", async () => {
    const rows = await runTool("query-run", {
      query: { kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: "SELECT event, count() AS n FROM events GROUP BY event ORDER BY n DESC, event" } },
    });
    expect(rows).toEqual([
      ["$pageview", 5],
      ["signup", 3],
      ["purchase", 2],
      ["$pageleave", 1],
    ]);
  });

  it("insight-create-from-query stores an insight whose result is computed", async () => {
    const created = (await runTool("insight-create-from-query", {
      data: {
        name: "Pageviews by day",
        favorited: false,
        query: {
          kind: "InsightVizNode",
          source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", custom_name: "Pageviews", math: "total" }], interval: "day", dateRange: range },
        },
      },
    })) as { id: number; short_id: string };
    const stored = await s.get(`/api/projects/1/insights/${created.id}/?refresh=true`);
    expect(stored.body.name).toBe("Pageviews by day");
    expect(stored.body.result[0].data).toEqual([3, 1, 1, 0, 0]);
    expect((await s.get(`/api/projects/1/insights/${created.short_id}/`)).body.id).toBe(created.id);
  });

  it("insight-create-from-query stores a SQL insight whose rows are run on retrieve", async () => {
    const query = { kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: "SELECT count() FROM events WHERE event = 'purchase'" } };
    const created = (await runTool("insight-create-from-query", { data: { name: "Purchases (SQL)", favorited: false, query } })) as { id: number };
    const stored = await s.get(`/api/projects/1/insights/${created.id}/?refresh=true`);
    expect(stored.body.query).toEqual(query);
    // purchases by a (03-01) and b (03-03)
    expect(stored.body.result).toEqual([[2]]);
  });

  it("lists the event definitions and properties the toolkit's agent would build queries from", async () => {
    const events = (await runTool("event-definitions-list", {})) as { name: string }[];
    expect(events.map((e) => e.name)).toEqual(["$pageview", "signup", "purchase", "$pageleave"]);
    const properties = (await runTool("properties-list", { type: "event", eventName: "purchase" })) as { name: string; property_type: string }[];
    expect(properties).toContainEqual(expect.objectContaining({ name: "amount", property_type: "Numeric" }));
  });

  it("lists the dashboards and reads one, with its insight's numbers (its own zod schemas accept our answers)", async () => {
    const dashboards = (await runTool("dashboards-get-all", {})) as { id: number; name: string }[];
    expect(dashboards).toEqual([expect.objectContaining({ id: 1, name: "Dashboard 1" })]);
    const dashboard = (await runTool("dashboard-get", { dashboardId: 1 })) as { tiles: { insight: { short_id: string; name: string } }[] };
    // Insight 1 "Pageviews" (short id PgVw0001) is dashboard 1's one tile.
    expect(dashboard.tiles.map((t) => [t.insight.short_id, t.insight.name])).toEqual([["PgVw0001", "Pageviews"]]);
  });
});

describe("@posthog/agent-toolkit's dashboard writes against the server", () => {
  it("creates a dashboard, updates it, adds an insight by short id, and deletes it, as an agent would", async () => {
    const names = (await toolkit.getTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["dashboard-create", "dashboard-update", "add-insight-to-dashboard", "dashboard-delete"]));

    const created = (await runTool("dashboard-create", { data: { name: "Agent KPIs", description: "made by an agent", pinned: true, tags: ["agent"] } })) as { id: number; url: string };
    const stored = await s.get(`/api/projects/1/dashboards/${created.id}/`);
    expect(stored.body).toMatchObject({ name: "Agent KPIs", description: "made by an agent", pinned: true, tags: ["agent"], tiles: [] });

    const updated = (await runTool("dashboard-update", { dashboardId: created.id, data: { name: "Agent KPIs v2", pinned: false } })) as { id: number; name: string };
    expect(updated).toMatchObject({ id: created.id, name: "Agent KPIs v2" });
    expect((await s.get(`/api/projects/1/dashboards/${created.id}/`)).body).toMatchObject({ name: "Agent KPIs v2", pinned: false });

    // Insight 2 "Signup funnel" (short id Fnnl0002 in basic.json) is on no dashboard.
    const insight = (await s.get("/api/projects/1/insights/2/")).body as { short_id: string };
    await runTool("add-insight-to-dashboard", { data: { insightId: insight.short_id, dashboardId: created.id } });
    const read = (await runTool("dashboard-get", { dashboardId: created.id })) as { tiles: { insight: { short_id: string; name: string } }[] };
    expect(read.tiles.map((t) => [t.insight.short_id, t.insight.name])).toEqual([[insight.short_id, "Signup funnel"]]);

    expect(await runTool("dashboard-delete", { dashboardId: created.id })).toMatchObject({ success: true });
    expect((await s.get(`/api/projects/1/dashboards/${created.id}/`)).status).toBe(404);
    expect(((await runTool("dashboards-get-all", {})) as { id: number }[]).map((d) => d.id)).toEqual([1]);
    expect((await s.get("/api/projects/1/insights/2/")).body).toMatchObject({ deleted: false, dashboards: [] });
  });
});

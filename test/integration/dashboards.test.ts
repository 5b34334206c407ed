/**
 * Dashboards (not in the spec: the real service's list and retrieve; writes in dashboards-writes.test.ts), on
 * basic.json. Dashboards exist there only through insights' `dashboards` ids: insight 1 "Pageviews" (project 1, created 2024-03-04T10:00Z) is on
 * dashboard 1; insight 4 "Screens" (project 2) on dashboard 2. Every response is validated against the document.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";

describe("the dashboards list", () => {
  it("lists the project's dashboards, created with their first insight", async () => {
    const res = await s.get(`${P}/dashboards/`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(res.body.results).toEqual([expect.objectContaining({ id: 1, name: "Dashboard 1", team_id: 1, deleted: false, pinned: false })]);
    expect(Date.parse(res.body.results[0].created_at)).toBe(Date.parse("2024-03-04T10:00:00Z"));
    expect((await s.get("/api/projects/2/dashboards/")).body.results.map((d: { id: number }) => d.id)).toEqual([2]);
  });

  it("filters by search and pinned", async () => {
    expect((await s.get(`${P}/dashboards/?search=DASHBOARD`)).body.count).toBe(1);
    expect((await s.get(`${P}/dashboards/?search=revenue`)).body.count).toBe(0);
    expect((await s.get(`${P}/dashboards/?pinned=true`)).body.count).toBe(0);
    expect((await s.get(`${P}/dashboards/?pinned=false`)).body.count).toBe(1);
  });

  it("ignores a parameter it does not take, as the real service does, and the request log names it and the one likely meant", async () => {
    const res = await s.get(`${P}/dashboards/?pined=true`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    const logged = await callControl(s.base, "GET", "/requests/?limit=1");
    expect(logged.body.results[0]).toMatchObject({ path: `${P}/dashboards/`, query: "pined=true", status: 200 });
    expect(logged.body.results[0].notes).toEqual(['query parameter "pined" ignored: dashboards_list does not take it (the real service ignores it too); did you mean "pinned"?']);
  });
});

describe("a dashboard", () => {
  it("holds its insights as loaded from it, in tile order", async () => {
    const res = await s.get(`${P}/dashboards/1/`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, name: "Dashboard 1", filters: {}, variables: {} });
    expect(res.body.tiles).toHaveLength(1);
    const [tile] = res.body.tiles;
    expect(tile).toMatchObject({ order: 0, deleted: false, color: null, layouts: {} });
    const fromDashboard = (await s.get(`${P}/insights/1/?from_dashboard=1`)).body;
    expect(tile.insight.id).toBe(1);
    expect(tile.insight.result).toEqual(fromDashboard.result);
    // Pageviews, 2024-03-01 … 03-03 daily, by hand: a 08:00, c 11:00, a 15:00 on the 1st; b on the 2nd; a on the 3rd.
    expect(tile.insight.result[0].data).toEqual([3, 1, 1]);
  });

  it("is 404 in another project, when unknown, and leaves out an insight taken off it or deleted", async () => {
    expect((await s.get(`${P}/dashboards/2/`)).status).toBe(404);
    expect((await s.get(`${P}/dashboards/999/`)).status).toBe(404);
    expect((await s.patch(`${P}/insights/1/`, { dashboards: [] })).status).toBe(200);
    expect((await s.get(`${P}/dashboards/1/`)).body.tiles).toEqual([]);
    expect((await s.patch(`${P}/insights/1/`, { dashboards: [1] })).status).toBe(200);
    expect((await s.get(`${P}/dashboards/1/`)).body.tiles.map((t: { insight: { id: number } }) => t.insight.id)).toEqual([1]);
    expect((await s.patch(`${P}/insights/1/`, { deleted: true })).status).toBe(200);
    expect((await s.get(`${P}/dashboards/1/`)).body.tiles).toEqual([]);
  });
});

/**
 * Dashboard writes (not in the spec: the real service's create, update, soft delete, duplicate and tile actions),
 * on basic.json: project 1 has dashboard 1 holding insight 1 "Pageviews" (tile 1) and insight 2 "Signup funnel"
 * on no dashboard; the clock stands at 2024-03-05T12:00Z; the owner key is user 1 (Ada). Pageviews by day, by
 * hand: 03-01 ×3, 03-02 ×1, 03-03 ×1. Every response is validated against the document.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const NOW = "2024-03-05T12:00:00.000Z";
type Tile = { id: number; insight: { id: number; name: string | null; result: { data: number[] }[] }; order: number; color: string | null; layouts: Record<string, unknown> };

const tilesOf = async (id: number) => (await s.get(`${P}/dashboards/${id}/`)).body.tiles as Tile[];
const insightIdsOn = async (id: number) => (await tilesOf(id)).map((t) => t.insight.id);
const create = async (body: Record<string, unknown>) => {
  const res = await s.post(`${P}/dashboards/`, body);
  expect(res.status).toBe(201);
  return res.body as { id: number } & Record<string, unknown>;
};

describe("creating a dashboard", () => {
  it("stores the fields written, created by the caller now, and lists it pinned first", async () => {
    const created = await create({ name: "Weekly KPIs", description: "Mondays", pinned: true, tags: ["kpi"], filters: { date_from: "-7d" } });
    expect(created).toMatchObject({ name: "Weekly KPIs", description: "Mondays", pinned: true, tags: ["kpi"], filters: { date_from: "-7d" }, tiles: [] });
    expect(created).toMatchObject({ created_at: NOW, creation_mode: "default", last_accessed_at: null, deleted: false, team_id: 1 });
    expect(created.created_by).toMatchObject({ id: 1, email: "ada@example.com" });
    const list = (await s.get(`${P}/dashboards/`)).body;
    expect(list.results.map((d: { id: number }) => d.id)).toEqual([created.id, 1]);
    expect((await s.get(`${P}/dashboards/?pinned=true`)).body.results.map((d: { name: string }) => d.name)).toEqual(["Weekly KPIs"]);
    expect((await s.get(`${P}/dashboards/?search=monday`)).body.count).toBe(1);
    expect((await s.get(`/api/projects/2/dashboards/`)).body.results.map((d: { id: number }) => d.id)).toEqual([2]);
  });

  it("refuses bad fields naming them, and templates (none exist here)", async () => {
    const cases: [Record<string, unknown>, string | null][] = [
      [{ name: 5 }, "name"],
      [{ tags: "kpi" }, "tags"],
      [{ filters: [] }, "filters"],
      [{ use_template: "DEFAULT_APP" }, "use_template"],
      [{ use_dashboard: 999 }, "use_dashboard"],
      // dashboard 2 is project 2's
      [{ use_dashboard: 2 }, "use_dashboard"],
      [{ use_dashboard: 1, use_template: "DEFAULT_APP" }, null],
    ];
    for (const [body, attr] of cases) {
      const res = await s.post(`${P}/dashboards/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.attr, JSON.stringify(body)).toBe(attr);
    }
    expect((await s.get(`${P}/dashboards/`)).body.count).toBe(1);
  });

  it("duplicates a dashboard: the same insights, or copies of them with duplicate_tiles", async () => {
    await s.patch(`${P}/dashboards/1/`, { filters: { date_from: "2024-03-02" }, tiles: [{ id: 1, color: "blue", layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } }] });
    const shared = await create({ name: "Copy", use_dashboard: 1 });
    expect(shared).toMatchObject({ creation_mode: "duplicate", filters: { date_from: "2024-03-02" } });
    const [tile] = shared.tiles as Tile[];
    expect(tile).toMatchObject({ color: "blue", layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } });
    expect(tile!.insight.id).toBe(1);
    expect((await s.get(`${P}/insights/1/`)).body.dashboards).toEqual([1, shared.id]);

    const deep = await create({ name: "Deep copy", use_dashboard: 1, duplicate_tiles: true, filters: { date_from: "2024-03-01" } });
    expect(deep.filters).toEqual({ date_from: "2024-03-01" });
    const [copy] = deep.tiles as Tile[];
    expect(copy!.insight.id).not.toBe(1);
    expect(copy!.insight.name).toBe("Pageviews (Copy)");
    // the copy's own definition under the new dashboard's date_from, which replaces the whole range: its date_to goes
    // back to the default, now (03-05), as PostHog's apply_dashboard_filters sets both ends: 03-01 … 03-05
    expect(copy!.insight.result[0]!.data).toEqual([3, 1, 1, 0, 0]);
    expect((await s.get(`${P}/insights/${copy!.insight.id}/`)).body).toMatchObject({ dashboards: [deep.id], created_by: { id: 1 } });
    expect((await s.get(`${P}/insights/1/`)).body.dashboards).toEqual([1, shared.id]);
  });
});

describe("updating a dashboard", () => {
  it("changes the fields sent, by PATCH and PUT, and applies its filters to its insights", async () => {
    const res = await s.patch(`${P}/dashboards/1/`, { name: "Traffic", description: "Pageviews", pinned: true, tags: ["web"] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, name: "Traffic", description: "Pageviews", pinned: true, tags: ["web"] });
    const put = await s.request("PUT", `${P}/dashboards/1/`, { body: { filters: { date_from: "2024-03-02", date_to: "2024-03-03" } } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: "Traffic", filters: { date_from: "2024-03-02", date_to: "2024-03-03" } });
    // 03-02 ×1, 03-03 ×1
    expect(put.body.tiles[0].insight.result[0].data).toEqual([1, 1]);
    // empty filters leave the stored ones, as in the real service
    expect((await s.patch(`${P}/dashboards/1/`, { filters: {} })).body.filters).toEqual({ date_from: "2024-03-02", date_to: "2024-03-03" });
    expect((await s.patch(`${P}/dashboards/1/`, { pinned: "yes" })).body.attr).toBe("pinned");
    expect((await s.patch(`${P}/dashboards/999/`, { name: "x" })).status).toBe(404);
    expect((await s.patch(`/api/projects/2/dashboards/1/`, { name: "x" })).status).toBe(404);
  });

  it("soft-deletes with deleted: true (DELETE is not allowed) and restores with deleted: false", async () => {
    const del = await s.del(`${P}/dashboards/1/`);
    expect(del.status).toBe(405);
    expect(del.body).toMatchObject({ type: "invalid_request", code: "method_not_allowed" });

    const deleted = await s.patch(`${P}/dashboards/1/`, { deleted: true });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, tiles: [] });
    expect((await s.get(`${P}/dashboards/`)).body.count).toBe(0);
    expect((await s.get(`${P}/dashboards/1/`)).status).toBe(404);
    expect((await s.patch(`${P}/dashboards/1/`, { name: "x" })).status).toBe(404);
    const insight = (await s.get(`${P}/insights/1/`)).body;
    expect(insight).toMatchObject({ deleted: false, dashboards: [], dashboard_tiles: [{ id: 1, dashboard_id: 1, deleted: true }] });
    // a deleted dashboard cannot be named in an insight's dashboards
    expect((await s.patch(`${P}/insights/1/`, { dashboards: [1] })).body.attr).toBe("dashboards__0");

    const restored = await s.patch(`${P}/dashboards/1/`, { deleted: false });
    expect(restored.body).toMatchObject({ deleted: false });
    expect(restored.body.tiles.map((t: Tile) => t.insight.id)).toEqual([1]);
    expect((await s.get(`${P}/insights/1/`)).body.dashboards).toEqual([1]);
  });

  it("with delete_insights, soft-deletes the insights shown nowhere else; restoring brings them back", async () => {
    expect((await s.patch(`${P}/insights/2/`, { dashboards: [1] })).status).toBe(200);
    const other = await create({ name: "Other" });
    await s.patch(`${P}/insights/2/`, { dashboards: [1, other.id] });
    await s.patch(`${P}/dashboards/1/`, { deleted: true, delete_insights: true });
    expect((await s.get(`${P}/insights/1/`)).status).toBe(404);
    expect((await s.get(`${P}/insights/2/`)).body).toMatchObject({ deleted: false, dashboards: [other.id] });
    await s.patch(`${P}/dashboards/1/`, { deleted: false });
    expect((await s.get(`${P}/insights/1/`)).body).toMatchObject({ deleted: false, dashboards: [1] });
  });

  it("records its writes in the activity log", async () => {
    const created = await create({ name: "Logged" });
    await s.patch(`${P}/dashboards/${created.id}/`, { name: "Logged 2" });
    await s.patch(`${P}/dashboards/${created.id}/`, { deleted: true });
    const entries = s.store.activity.list("1", "Dashboard", String(created.id));
    expect(entries.map((e) => e.activity)).toEqual(["deleted", "updated", "created"]);
    expect(entries[1]!.detail.changes).toEqual([{ type: "Dashboard", action: "changed", field: "name", before: "Logged", after: "Logged 2" }]);
    expect(entries.every((e) => e.user_id === 1 && e.created_at === NOW)).toBe(true);
  });

  it("stamps last_accessed_at on retrieve", async () => {
    expect((await s.get(`${P}/dashboards/`)).body.results[0].last_accessed_at).toBeNull();
    expect((await s.get(`${P}/dashboards/1/`)).body.last_accessed_at).toBe(NOW);
  });
});

describe("tiles", () => {
  it("are laid out, recoloured, taken off and put back through the dashboard's tiles", async () => {
    await s.patch(`${P}/insights/2/`, { dashboards: [1] });
    const [first, second] = await tilesOf(1);
    expect([first!.insight.id, second!.insight.id]).toEqual([1, 2]);
    const layouts = { sm: { x: 0, y: 0, w: 6, h: 5 } };
    const res = await s.patch(`${P}/dashboards/1/`, {
      tiles: [
        { ...first, layouts: { sm: { x: 6, y: 0, w: 6, h: 5 } }, color: "blue" },
        { id: second!.id, layouts },
      ],
    });
    expect(res.status).toBe(200);
    // layout order: y, then x
    expect(res.body.tiles.map((t: Tile) => [t.insight.id, t.order, t.color])).toEqual([
      [2, 0, null],
      [1, 1, "blue"],
    ]);
    expect(res.body.tiles[1].insight).toMatchObject({ color: "blue", layouts: { sm: { x: 6 } } });

    await s.patch(`${P}/dashboards/1/`, { tiles: [{ id: first!.id, deleted: true }] });
    expect(await insightIdsOn(1)).toEqual([2]);
    expect((await s.get(`${P}/insights/1/`)).body.dashboards).toEqual([]);
    await s.patch(`${P}/dashboards/1/`, { tiles: [{ id: first!.id, deleted: false }] });
    expect(await insightIdsOn(1)).toEqual([2, 1]);
  });

  it("refuses a tile that is not on the dashboard, naming it", async () => {
    const other = await create({ name: "Other" });
    const res = await s.patch(`${P}/dashboards/${other.id}/`, { tiles: [{ id: 1, deleted: true }] });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("tiles__0__id");
    expect((await s.patch(`${P}/dashboards/1/`, { tiles: [{ deleted: true }] })).body.attr).toBe("tiles__0__id");
    expect(await insightIdsOn(1)).toEqual([1]);
  });

  it("come and go with the insight's dashboards, keeping the tile", async () => {
    const other = await create({ name: "Other" });
    await s.patch(`${P}/insights/1/`, { dashboards: [other.id] });
    expect(await insightIdsOn(1)).toEqual([]);
    expect(await insightIdsOn(other.id)).toEqual([1]);
    await s.patch(`${P}/insights/1/`, { dashboards: [1, other.id] });
    expect((await tilesOf(1))[0]!.id).toBe(1);
  });

  it("move to another dashboard with move_tile, keeping their id", async () => {
    const other = await create({ name: "Other" });
    const res = await s.patch(`${P}/dashboards/1/move_tile/`, { toDashboard: other.id, tile: { id: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, tiles: [] });
    expect((await tilesOf(other.id)).map((t) => [t.id, t.insight.id])).toEqual([[1, 1]]);
    expect((await s.get(`${P}/insights/1/`)).body.dashboards).toEqual([other.id]);
    expect((await s.patch(`${P}/dashboards/1/move_tile/`, { toDashboard: other.id, tile: { id: 1 } })).status).toBe(404);
    expect((await s.patch(`${P}/dashboards/${other.id}/move_tile/`, { toDashboard: 2, tile: { id: 1 } })).status).toBe(404);
    expect((await s.patch(`${P}/dashboards/${other.id}/move_tile/`, { toDashboard: 1 })).body.attr).toBe("tile");
  });

  it("copy from another dashboard with copy_tile, with their color and layouts", async () => {
    await s.patch(`${P}/dashboards/1/`, { tiles: [{ id: 1, color: "green", layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } }] });
    const other = await create({ name: "Other" });
    const res = await s.post(`${P}/dashboards/${other.id}/copy_tile/`, { fromDashboardId: 1, tileId: 1 });
    expect(res.status).toBe(200);
    expect(res.body.tiles.map((t: Tile) => [t.insight.id, t.color])).toEqual([[1, "green"]]);
    expect(res.body.tiles[0].id).not.toBe(1);
    expect(await insightIdsOn(1)).toEqual([1]);
    const again = await s.post(`${P}/dashboards/${other.id}/copy_tile/`, { fromDashboardId: 1, tileId: 1 });
    expect(again.status).toBe(400);
    expect((await s.post(`${P}/dashboards/1/copy_tile/`, { fromDashboardId: 1, tileId: 1 })).status).toBe(400);
    expect((await s.post(`${P}/dashboards/${other.id}/copy_tile/`, { fromDashboardId: 1, tileId: 99 })).status).toBe(404);
  });

  it("are laid out two a row by reorder_tiles", async () => {
    await s.patch(`${P}/insights/2/`, { dashboards: [1] });
    const [a, b] = await tilesOf(1);
    const res = await s.post(`${P}/dashboards/1/reorder_tiles/`, { tile_order: [b!.id, a!.id] });
    expect(res.status).toBe(200);
    expect(res.body.tiles.map((t: Tile) => [t.id, t.layouts])).toEqual([
      [b!.id, { sm: { x: 0, y: 0, w: 6, h: 5 }, xs: { x: 0, y: 0, w: 6, h: 5 } }],
      [a!.id, { sm: { x: 6, y: 0, w: 6, h: 5 }, xs: { x: 0, y: 5, w: 6, h: 5 } }],
    ]);
    expect((await s.post(`${P}/dashboards/1/reorder_tiles/`, { tile_order: [a!.id, a!.id] })).body.attr).toBe("tile_order");
    expect((await s.post(`${P}/dashboards/1/reorder_tiles/`, { tile_order: [a!.id, 99] })).status).toBe(404);
    expect((await s.post(`${P}/dashboards/1/reorder_tiles/`, { tile_order: [] })).body.attr).toBe("tile_order");
  });
});

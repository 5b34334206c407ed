import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { analysisStats } from "../../src/services/analysis-service.ts";
import { assertControlConforms } from "../support/control-contract.ts";
import { OTHER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";

describe("insights list", () => {
  it("lists the project's non-deleted insights ordered by `order`, with count and no links on one page", async () => {
    const res = await s.get(`${P}/insights/`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.results.map((i: { id: number }) => i.id)).toEqual([2, 1]);
    expect(res.body.next).toBeNull();
    expect(res.body.previous).toBeNull();
  });

  it("pages with absolute next/previous links that keep the other parameters", async () => {
    const first = await s.get(`${P}/insights/?limit=1&saved=true`);
    expect(first.body.count).toBe(1);
    const page1 = await s.get(`${P}/insights/?limit=1`);
    expect(page1.body.results).toHaveLength(1);
    const next = new URL(page1.body.next);
    expect(next.origin).toBe(s.base);
    expect(next.searchParams.get("limit")).toBe("1");
    expect(next.searchParams.get("offset")).toBe("1");
    const page2 = await s.get(next.pathname + next.search);
    expect(page2.body.results[0].id).toBe(1);
    expect(page2.body.next).toBeNull();
    expect(new URL(page2.body.previous).searchParams.get("offset")).toBe("0");
  });

  it("filters by short_id and created_by", async () => {
    expect((await s.get(`${P}/insights/?short_id=Fnnl0002`)).body.results.map((i: any) => i.name)).toEqual(["Signup funnel"]);
    expect((await s.get(`${P}/insights/?created_by=2`)).body.count).toBe(0);
    expect((await s.get(`${P}/insights/?created_by=1`)).body.count).toBe(2);
  });

  it("renders csv with a header row when format=csv", async () => {
    const res = await s.get(`${P}/insights/?format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    const [header, ...rows] = res.text.trim().split("\r\n");
    expect(header!.split(",")).toContain("short_id");
    expect(rows).toHaveLength(2);
  });

  it("answers 400 naming a bad query parameter, and ignores an undeclared one as the real service does", async () => {
    const bad = await s.get(`${P}/insights/?limit=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("limit");
    const unknown = await s.get(`${P}/insights/?colour=red`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.count).toBe((await s.get(`${P}/insights/`)).body.count);
  });
});

describe("insight lifecycle", () => {
  it("creates with defaults, is listed and retrievable", async () => {
    const created = await s.post(`${P}/insights/`, { name: "Signups", filters: { events: [{ id: "signup" }] }, tags: ["growth"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Signups", tags: ["growth"], deleted: false, saved: false, favorited: false, description: "", dashboards: [] });
    // Defined by filters: the query node they convert to is shown (the stored insight keeps query null).
    expect(created.body.query).toEqual({
      kind: "InsightVizNode",
      source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "signup" }], trendsFilter: {} },
    });
    expect(created.body.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(created.body.created_by.id).toBe(1);
    expect(created.body.created_at).toBe("2024-03-05T12:00:00.000Z");
    const id = created.body.id;
    expect(id).toBe(5);
    expect((await s.get(`${P}/insights/${id}/`)).body.name).toBe("Signups");
    expect((await s.get(`${P}/insights/`)).body.results.map((i: any) => i.id)).toContain(id);
  });

  it("ignores read-only fields in a body", async () => {
    const res = await s.patch(`${P}/insights/1/`, { name: "Renamed", id: 99, short_id: "XXXXXXXX", created_by: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, short_id: "PgVw0001", name: "Renamed" });
    expect(res.body.created_by.id).toBe(1);
  });

  it("computes a PATCHed definition once: to check it, and for the answer, which shows that result", async () => {
    const filters = { insight: "TRENDS", events: [{ id: "$pageview", math: "dau" }], date_from: "2024-03-01", date_to: "2024-03-05", interval: "day" };
    const before = analysisStats().computed;
    const res = await s.patch(`${P}/insights/1/`, { filters });
    expect(res.status).toBe(200);
    expect(analysisStats().computed - before).toBe(1);
    expect(res.body.result[0].data.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThan(0);
    // The same definition read back is the cached result: nothing computed again.
    const read = await s.get(`${P}/insights/1/`);
    expect(read.body.result).toEqual(res.body.result);
    expect(analysisStats().computed - before).toBe(1);
    // A definition that cannot be computed is refused under its field, and nothing is written.
    const bad = await s.patch(`${P}/insights/1/`, { filters: { ...filters, events: [{ id: "$pageview", math: "sum" }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toMatch(/^filters__events__0__/);
    expect((await s.get(`${P}/insights/1/`)).body.filters).toMatchObject({ events: [{ id: "$pageview", math: "dau" }] });
    // A PATCH of the name alone shows the cached result.
    const beforeRename = analysisStats().computed;
    const renamed = await s.patch(`${P}/insights/1/`, { name: "Daily actives" });
    expect(renamed.body.result).toEqual(res.body.result);
    expect(analysisStats().computed).toBe(beforeRename);
  });

  it("soft-deletes with PATCH deleted=true, then 404 everywhere; restores with deleted=false", async () => {
    const del = await s.patch(`${P}/insights/1/`, { deleted: true });
    expect(del.status).toBe(200);
    expect(del.body.deleted).toBe(true);
    expect(del.body.dashboard_tiles.every((t: any) => t.deleted)).toBe(true);
    expect((await s.get(`${P}/insights/1/`)).status).toBe(404);
    expect((await s.get(`${P}/insights/`)).body.results.map((i: any) => i.id)).toEqual([2]);
    expect((await s.patch(`${P}/insights/1/`, { name: "x" })).status).toBe(404);
    const restored = await s.patch(`${P}/insights/1/`, { deleted: false });
    expect(restored.status).toBe(200);
    expect((await s.get(`${P}/insights/1/`)).status).toBe(200);
  });

  it("refuses DELETE with a bodiless 405", async () => {
    const res = await s.del(`${P}/insights/1/`);
    expect(res.status).toBe(405);
    expect(res.text).toBe("");
    expect((await s.get(`${P}/insights/1/`)).status).toBe(200);
  });

  it("keeps dashboards and dashboard_tiles consistent", async () => {
    const res = await s.patch(`${P}/insights/2/`, { dashboards: [1] });
    expect(res.body.dashboards).toEqual([1]);
    expect(res.body.dashboard_tiles).toEqual([{ id: expect.any(Number), dashboard_id: 1, deleted: false }]);
    const off = await s.patch(`${P}/insights/2/`, { dashboards: [] });
    expect(off.body.dashboards).toEqual([]);
    expect(off.body.dashboard_tiles.map((t: any) => t.deleted)).toEqual([true]);
    const unknown = await s.patch(`${P}/insights/2/`, { dashboards: [2] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.attr).toBe("dashboards__0");
  });

  it("validates writable fields and names the bad one", async () => {
    const res = await s.post(`${P}/insights/`, { name: 5 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr: "name" });
    const order = await s.patch(`${P}/insights/1/`, { order: 2 ** 31 });
    expect(order.status).toBe(400);
    expect(order.body.attr).toBe("order");
  });

  it("answers 404 for an unknown id and for anything that is no short id of the project", async () => {
    expect((await s.get(`${P}/insights/999/`)).status).toBe(404);
    const bad = await s.get(`${P}/insights/abc/`);
    expect(bad.status).toBe(404);
    expect(bad.body.code).toBe("not_found");
  });
});

describe("views, activity, cancel", () => {
  it("my_last_viewed returns the caller's last 5 views, most recent first", async () => {
    for (const id of [1, 2, 1]) expect((await s.post(`${P}/insights/${id}/viewed/`)).status).toBe(200);
    for (let i = 0; i < 4; i++) await s.post(`${P}/insights/`, { name: `n${i}` });
    const res = await s.get(`${P}/insights/my_last_viewed/`);
    expect(res.status).toBe(200);
    // created insights count as viewed by their creator (reference: analytics §9.1)
    expect(res.body.map((i: any) => i.name)).toEqual(["n3", "n2", "n1", "n0", "Pageviews"]);
  });

  it("records created/updated/deleted activity with before and after", async () => {
    await s.patch(`${P}/insights/2/`, { name: "Funnel v2" });
    await s.patch(`${P}/insights/2/`, { deleted: true });
    await s.patch(`${P}/insights/2/`, { deleted: false });
    const res = await s.get(`${P}/insights/2/activity/`);
    expect(res.status).toBe(200);
    expect(res.body.total_count).toBe(3);
    expect(res.body.results.map((a: any) => a.activity)).toEqual(["restored", "deleted", "updated"]);
    expect(res.body.results[2].detail.changes).toEqual([{ type: "Insight", action: "changed", field: "name", before: "Signup funnel", after: "Funnel v2" }]);
    expect(res.body.results[2].user).toEqual({ first_name: "Ada", email: "ada@example.com" });
    const all = await s.get(`${P}/insights/activity/?limit=2`);
    expect(all.body.results).toHaveLength(2);
    expect(new URL(all.body.next).searchParams.get("page")).toBe("2");
  });

  it("cancel acknowledges a client query id and requires one", async () => {
    const ok = await s.post(`${P}/insights/cancel/`, { client_query_id: "q-1" });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true, client_query_id: "q-1" });
    const missing = await s.post(`${P}/insights/cancel/`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.attr).toBe("client_query_id");
  });
});

describe("auth and isolation", () => {
  it("401 without a key and with an unknown key, never echoing it", async () => {
    const none = await s.get(`${P}/insights/`, { key: null });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe("not_authenticated");
    const bad = await s.get(`${P}/insights/`, { key: "phx_this_key_does_not_exist" });
    expect(bad.status).toBe(401);
    expect(bad.text).not.toContain("phx_this_key_does_not_exist");
  });

  it("403 for a project the user is not a member of, 404 for an unknown project", async () => {
    expect((await s.get(`/api/projects/3/insights/`)).status).toBe(403);
    expect((await s.get(`/api/projects/999/insights/`)).status).toBe(404);
  });

  it("never shows another project's insight", async () => {
    expect((await s.get(`${P}/insights/4/`)).status).toBe(404);
    expect((await s.get(`/api/projects/2/insights/4/`, { key: OTHER_KEY })).status).toBe(200);
    expect((await s.get(`/api/projects/2/insights/`, { key: OTHER_KEY })).body.count).toBe(1);
  });

  it("lists the caller's projects", async () => {
    const res = await s.get(`/api/projects/`);
    expect(res.body.results.map((p: any) => p.id)).toEqual([1, 2]);
    expect(res.body.results[1]).toMatchObject({ name: "Mobile", timezone: "Asia/Tokyo" });
  });
});

describe("routing", () => {
  it("answers with and without the trailing slash", async () => {
    expect((await s.get(`${P}/insights`)).status).toBe(200);
    expect((await s.get(`${P}/insights/1`)).status).toBe(200);
  });

  it("404 for an unknown path and 405 for a method the path lacks, with the Error body", async () => {
    const unknown = await s.get(`${P}/nothing-here/`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");
    const put = await s.request("PUT", `${P}/insights/1/`, { body: {} });
    expect(put.status).toBe(405);
    expect(put.body.code).toBe("method_not_allowed");
  });

  it("400 for malformed JSON, 415 for a non-JSON body, 413 over the size limit; nothing written", async () => {
    const malformed = await s.request("POST", `${P}/insights/`, { raw: "{not json", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("parse_error");
    const text = await s.request("POST", `${P}/insights/`, { raw: "name=x", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
    const huge = await s.post(`${P}/insights/`, { name: "x", description: "y".repeat(2_000_000) });
    expect(huge.status).toBe(413);
    expect((await s.get(`${P}/insights/`)).body.count).toBe(2);
  });
});

describe("insight results", () => {
  it("computes the result from filters on retrieve and serves it from cache afterwards", async () => {
    const first = await s.get(`${P}/insights/1/`);
    // reference analytics §2.8: $pageview per day over 2024-03-01..03
    expect(first.body.result[0].data).toEqual([3, 1, 1]);
    expect(first.body.result[0].days).toEqual(["2024-03-01", "2024-03-02", "2024-03-03"]);
    expect(first.body.is_cached).toBe(false);
    expect(first.body.last_refresh).toBe("2024-03-05T12:00:00.000Z");
    // a range of at most 7 days may be refreshed every 3 minutes
    expect(first.body.next_allowed_client_refresh).toBe("2024-03-05T12:03:00.000Z");
    expect((await s.get(`${P}/insights/1/`)).body.is_cached).toBe(true);
    const list = await s.get(`${P}/insights/`);
    const byId = Object.fromEntries(list.body.results.map((i: any) => [i.id, i]));
    expect(byId[1].result[0].data).toEqual([3, 1, 1]);
    expect(byId[2].result).toBeNull();
  });

  it("refresh=true recomputes only once the minimum refresh interval has passed", async () => {
    await s.get(`${P}/insights/1/`);
    expect((await s.get(`${P}/insights/1/?refresh=true`)).body.is_cached).toBe(true);
    s.clock.advance(4 * 60_000);
    const refreshed = await s.get(`${P}/insights/1/?refresh=true`);
    expect(refreshed.body.is_cached).toBe(false);
    expect(refreshed.body.last_refresh).toBe("2024-03-05T12:04:00.000Z");
  });

  it("recomputes when the data it reads changes (a person split)", async () => {
    const created = await s.post(`${P}/insights/`, {
      name: "DAU",
      filters: { events: [{ id: "$pageview", math: "dau" }], date_from: "2024-03-01", date_to: "2024-03-03" },
    });
    const id = created.body.id;
    // day 1: a-anon and a are one person (A) plus C; day 2: B; day 3: A
    expect((await s.get(`${P}/insights/${id}/`)).body.result[0].data).toEqual([2, 1, 1]);
    await s.post(`${P}/persons/1/split/`, { main_distinct_id: "a" });
    const after = await s.get(`${P}/insights/${id}/`);
    expect(after.body.is_cached).toBe(false);
    expect(after.body.result[0].data).toEqual([3, 1, 1]);
  });

  it("from_dashboard adds the tile's color and layouts", async () => {
    const onDashboard = await s.get(`${P}/insights/1/?from_dashboard=1`);
    expect(onDashboard.body).toMatchObject({ color: null, layouts: {} });
    expect("color" in (await s.get(`${P}/insights/1/`)).body).toBe(false);
  });

  it("a draft without series has an empty result; a definition that cannot be computed has none", async () => {
    const draft = await s.post(`${P}/insights/`, { name: "Draft", filters: { insight: "TRENDS" } });
    expect((await s.get(`${P}/insights/${draft.body.id}/`)).body.result).toEqual([]);
    const created = await s.post(`${P}/insights/`, { name: "Odd", query: { kind: "NotAnInsightQuery" } });
    const res = await s.get(`${P}/insights/${created.body.id}/`);
    expect(res.status).toBe(200);
    expect(res.body.result).toBeNull();
    expect(res.body.last_refresh).toBeNull();
  });
});

describe("bodies and paths that cannot be read", () => {
  it("judges a body only for operations that take one", async () => {
    const unknown = await s.request("POST", `${P}/nowhere/`, { raw: "{not json", headers: { "content-type": "application/json" } });
    expect(unknown.status).toBe(404);
    const deleteWithBody = await s.request("DELETE", `${P}/insights/1/`, { raw: "plain text", headers: { "content-type": "text/plain" } });
    expect(deleteWithBody.status).toBe(405);
  });

  it("answers 400, not 500, for a path that is not valid percent-encoding", async () => {
    const res = await s.get(`${P}/persons/%E0%A4%A/`);
    expect(res.status).toBe(400);
  });
});

describe("insight reads answered from serialized bodies", () => {
  it("follow every change: writes at the same frozen instant, results computed meanwhile, a reset", async () => {
    const names = async () => (await s.get(`${P}/insights/`)).body.results.map((i: { id: number; name: string }) => `${i.id}:${i.name}`);
    const listed = async (id: number) => (await s.get(`${P}/insights/`)).body.results.find((i: { id: number }) => i.id === id);
    expect(await names()).toEqual(["2:Signup funnel", "1:Pageviews"]);
    expect(await names()).toEqual(["2:Signup funnel", "1:Pageviews"]);

    await s.patch(`${P}/insights/1/`, { name: "A" });
    expect(await names()).toEqual(["2:Signup funnel", "1:A"]);
    await s.patch(`${P}/insights/1/`, { name: "B" });
    expect(await names()).toEqual(["2:Signup funnel", "1:B"]);
    expect((await s.get(`${P}/insights/1/`)).body.name).toBe("B");
    await s.patch(`${P}/insights/1/`, { name: "C" });
    expect((await s.get(`${P}/insights/1/`)).body.name).toBe("C");

    // The list shows cached results only: none for insight 2 until a retrieve computes it.
    expect((await listed(2)).result).toBeNull();
    const computed = (await s.get(`${P}/insights/2/`)).body;
    expect(computed.result).not.toBeNull();
    expect((await listed(2)).result).toEqual(computed.result);

    const reset = await fetch(`${s.base}/_mock/reset/`, { method: "POST" });
    await assertControlConforms("POST", "/_mock/reset/", reset.status, await reset.json());
    expect(reset.status).toBe(200);
    expect(await names()).toEqual(["2:Signup funnel", "1:Pageviews"]);
    expect((await listed(2)).result).toBeNull();
  });
});

/**
 * The groups API (beyond the spec: the real service's groups and group types endpoints), on groups.json (frozen
 * at 2024-03-05T12:00Z). Project 1 has types 0 company and 1 workspace, and 2 team (named by an event only);
 * companies acme (created 01-10), globex (02-01) and initech (02-20); workspaces ws-a1 (01-10) and ws-g1 (02-01).
 * Events of 03-01 … 03-03: ann and ben in acme/ws-a1, cat in globex/ws-g1, dan in initech (and in team t-1, of
 * which no group record exists), eve in none. Every response is validated against the document.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("groups"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const keys = (body: { results: { group_key: string }[] }) => body.results.map((g) => g.group_key);
const relative = (link: string) => {
  const u = new URL(link);
  return `${u.pathname}${u.search}`;
};

describe("group types", () => {
  it("lists the project's types by index with their names", async () => {
    const res = await s.get(`${P}/groups_types/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { group_type: "company", group_type_index: 0, name_singular: "company", name_plural: "companies", detail_dashboard: null, default_columns: null, created_at: null },
      { group_type: "workspace", group_type_index: 1, name_singular: "workspace", name_plural: "workspaces", detail_dashboard: null, default_columns: null, created_at: null },
      { group_type: "team", group_type_index: 2, name_singular: null, name_plural: null, detail_dashboard: null, default_columns: null, created_at: null },
    ]);
  });

  it("renames types through update_metadata and answers all of them", async () => {
    const res = await s.patch(`${P}/groups_types/update_metadata`, [{ group_type_index: 0, name_singular: "organization", name_plural: "organizations", group_type: "ignored" }]);
    expect(res.status).toBe(200);
    expect(res.body.map((t: { group_type: string; name_plural: string }) => [t.group_type, t.name_plural])).toEqual([
      ["company", "organizations"],
      ["workspace", "workspaces"],
      ["team", null],
    ]);
    expect((await s.get(`${P}/groups_types/`)).body[0]).toMatchObject({ name_singular: "organization", name_plural: "organizations" });
    // A name not sent is kept; null clears it.
    await s.patch(`${P}/groups_types/update_metadata`, [{ group_type_index: 0, name_plural: null }]);
    expect((await s.get(`${P}/groups_types/`)).body[0]).toMatchObject({ name_singular: "organization", name_plural: null });
  });

  it("checks every entry before writing any: an unknown index is a 400 naming it", async () => {
    const res = await s.patch(`${P}/groups_types/update_metadata/`, [
      { group_type_index: 1, name_singular: "space" },
      { group_type_index: 3, name_singular: "squad" },
    ]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr: "1__group_type_index" });
    expect((await s.get(`${P}/groups_types/`)).body[1].name_singular).toBe("workspace");
    const bad = await s.patch(`${P}/groups_types/update_metadata`, [{ name_singular: "x" }]);
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("0__group_type_index");
  });
});

describe("the groups list", () => {
  it("lists one type's groups, newest first, without a count", async () => {
    const res = await s.get(`${P}/groups/?group_type_index=0`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ next: null, previous: null });
    expect(keys(res.body)).toEqual(["initech", "globex", "acme"]);
    expect(res.body.results[2]).toEqual({ group_type_index: 0, group_key: "acme", group_properties: { name: "Acme", industry: "manufacturing", plan: "enterprise", employee_count: 500 }, created_at: "2024-01-10T09:00:00.000Z" });
    expect(keys((await s.get(`${P}/groups/?group_type_index=1`)).body)).toEqual(["ws-g1", "ws-a1"]);
    expect(keys((await s.get(`${P}/groups/?group_type_index=3`)).body)).toEqual([]);
  });

  it("requires group_type_index, naming it", async () => {
    const res = await s.get(`${P}/groups/`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr: "group_type_index" });
    expect((await s.get(`${P}/groups/?group_type_index=5`)).body.attr).toBe("group_type_index");
  });

  it("searches the properties' text and the exact key, case-insensitively", async () => {
    expect(keys((await s.get(`${P}/groups/?group_type_index=0&search=acm`)).body)).toEqual(["acme"]);
    expect(keys((await s.get(`${P}/groups/?group_type_index=0&search=ENERGY`)).body)).toEqual(["globex"]);
    expect(keys((await s.get(`${P}/groups/?group_type_index=1&search=WS-A1`)).body)).toEqual(["ws-a1"]);
    // A key is matched whole: "ws-" is in no workspace's properties.
    expect(keys((await s.get(`${P}/groups/?group_type_index=1&search=ws-`)).body)).toEqual([]);
  });

  it("pages 100 at a time with cursors that follow the order both ways", async () => {
    for (let i = 0; i < 150; i++) {
      const day = String(1 + (i % 28)).padStart(2, "0");
      await s.store.groups.upsert("1", 1, `w${String(i).padStart(3, "0")}`, { name: `W ${i}` }, `2023-12-${day}T00:00:00.000Z`);
    }
    const first = await s.get(`${P}/groups/?group_type_index=1`);
    expect(first.body.results).toHaveLength(100);
    expect(first.body.previous).toBeNull();
    expect(keys(first.body).slice(0, 2)).toEqual(["ws-g1", "ws-a1"]);
    const second = await s.get(relative(first.body.next));
    expect(second.body.results).toHaveLength(52);
    expect(second.body.next).toBeNull();
    const all = [...keys(first.body), ...keys(second.body)];
    expect(new Set(all).size).toBe(152);
    const back = await s.get(relative(second.body.previous));
    expect(keys(back.body)).toEqual(keys(first.body));
    expect(new URL(second.body.previous).searchParams.get("group_type_index")).toBe("1");
  });

  it("answers an undecodable cursor with the real service's 404", async () => {
    const res = await s.get(`${P}/groups/?group_type_index=0&cursor=not-a-cursor`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: "not_found", detail: "Invalid cursor" });
  });
});

describe("finding a group", () => {
  it("finds by type and exact key, with no notebook", async () => {
    const res = await s.get(`${P}/groups/find/?group_type_index=0&group_key=globex`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ group_key: "globex", group_type_index: 0, notebook: null, group_properties: { plan: "free" } });
  });

  it("is 404 for a key of another type or none, 400 without group_key", async () => {
    expect((await s.get(`${P}/groups/find/?group_type_index=1&group_key=globex`)).status).toBe(404);
    expect((await s.get(`${P}/groups/find/?group_type_index=0&group_key=Globex`)).status).toBe(404);
    const res = await s.get(`${P}/groups/find/?group_type_index=0`);
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("group_key");
  });
});

describe("group properties", () => {
  it("names each type's properties with how many groups have them", async () => {
    const res = await s.get(`${P}/groups/property_definitions/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      "0": [
        { name: "employee_count", count: 3 },
        { name: "industry", count: 3 },
        { name: "name", count: 3 },
        { name: "plan", count: 3 },
      ],
      "1": [{ name: "name", count: 2 }],
    });
  });

  it("counts a property's values as text, most common first, filtered by value", async () => {
    await s.store.groups.upsert("1", 0, "umbrella", { plan: "pro", employee_count: 40 });
    const plans = await s.get(`${P}/groups/property_values/?group_type_index=0&key=plan`);
    expect(plans.body).toEqual([
      { name: "pro", count: 2 },
      { name: "enterprise", count: 1 },
      { name: "free", count: 1 },
    ]);
    expect((await s.get(`${P}/groups/property_values/?group_type_index=0&key=employee_count`)).body).toEqual([
      { name: "40", count: 2 },
      { name: "120", count: 1 },
      { name: "500", count: 1 },
    ]);
    expect((await s.get(`${P}/groups/property_values/?group_type_index=0&key=plan&value=PR`)).body.map((v: { name: string }) => v.name)).toEqual(["pro", "enterprise"]);
    expect((await s.get(`${P}/groups/property_values/?group_type_index=1&key=plan`)).body).toEqual([]);
    expect((await s.get(`${P}/groups/property_values/?group_type_index=0`)).body.attr).toBe("key");
  });
});

describe("related actors", () => {
  const ids = (body: { type: string; id: string }[]) => body.map((a) => `${a.type}:${a.id}`);
  const uuidOf = (distinctId: string) => s.store.analysisData.index("1").personsByDistinctId.get(distinctId)!.uuid;

  it("a group: the persons of its events, then the groups of other types they share", async () => {
    const res = await s.get(`${P}/groups/related/?group_type_index=0&id=acme`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([`person:${uuidOf("ann")}`, `person:${uuidOf("ben")}`, "group:ws-a1"]);
    expect(res.body[0]).toMatchObject({ distinct_ids: ["ann"], properties: { role: "admin" } });
    // dan's team t-1 has no group record.
    expect(ids((await s.get(`${P}/groups/related/?group_type_index=0&id=initech`)).body)).toEqual([`person:${uuidOf("dan")}`]);
    expect(ids((await s.get(`${P}/groups/related/?group_type_index=1&id=ws-g1`)).body)).toEqual([`person:${uuidOf("cat")}`, "group:globex"]);
  });

  it("a person (no group_type_index): the groups of their events", async () => {
    expect(ids((await s.get(`${P}/groups/related/?id=${uuidOf("ann")}`)).body)).toEqual(["group:acme", "group:ws-a1"]);
    expect((await s.get(`${P}/groups/related/?id=${uuidOf("eve")}`)).body).toEqual([]);
    expect((await s.get(`${P}/groups/related/?id=nobody`)).body).toEqual([]);
  });

  it("counts only events of the last 90 days", async () => {
    s.clock.set(Date.parse("2024-06-15T12:00:00Z"));
    expect((await s.get(`${P}/groups/related/?group_type_index=0&id=acme`)).body).toEqual([]);
  });

  it("requires id, naming it", async () => {
    const res = await s.get(`${P}/groups/related/?group_type_index=0`);
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("id");
  });
});

/**
 * What the real service's clients ask first (the key, its user, the organization, the project) and the taxonomy
 * they build queries from, on basic.json (now 2024-03-05T12:00Z). Project 1 holds, worked by hand:
 *   $pageview ×5 (03-01 08:00 … 03-03 23:30, each with $browser), signup ×3, purchase ×2 (amount 50, 30),
 *   $pageleave ×1; persons' properties: {email, plan}, {email, plan}, {email}.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OTHER_KEY, OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("who the key is", () => {
  it("the key: every scope, no restriction, never echoed in full", async () => {
    const res = await s.get("/api/personal_api_keys/@current");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ scopes: ["*"], scoped_teams: [], scoped_organizations: [], user_id: 1 });
    expect(res.text).not.toContain(OWNER_KEY);
    expect(res.body.mask_value).toBe(`${OWNER_KEY.slice(0, 4)}...${OWNER_KEY.slice(-4)}`);
    expect((await s.get("/api/personal_api_keys/@current", { key: null })).status).toBe(401);
  });

  it("its user, with the organization and the first project it may use", async () => {
    const me = (await s.get("/api/users/@me/")).body;
    const other = (await s.get("/api/users/@me/", { key: OTHER_KEY })).body;
    expect(me.id).toBe(1);
    expect(me.organization.id).toMatch(UUID);
    expect(me.organizations).toEqual([{ id: me.organization.id, name: me.organization.name }]);
    expect(me.team).toMatchObject({ id: 1, name: "Web", organization: me.organization.id });
    // User 2 is a member of projects 2 and 3 only.
    expect(other.team.id).toBe(2);
  });

  it("the organization and its projects, with integer ids, by uuid or @current", async () => {
    const orgs = (await s.get("/api/organizations/")).body;
    expect(orgs.count).toBe(1);
    const org = orgs.results[0];
    expect((await s.get(`/api/organizations/${org.id}/`)).body).toEqual(org);
    expect((await s.get("/api/organizations/@current/")).body).toEqual(org);
    expect((await s.get("/api/organizations/00000000-0000-4000-8000-000000000000/")).status).toBe(404);
    const projects = (await s.get(`/api/organizations/${org.id}/projects/`)).body;
    expect(projects.results.map((p: { id: number }) => p.id)).toEqual([1, 2]);
    expect(projects.results.every((p: { organization: string }) => p.organization === org.id)).toBe(true);
  });

  it("a project by id or @current; another's is 403, an unknown one 404", async () => {
    const one = (await s.get(`${P}/`)).body;
    expect(one).toMatchObject({ id: 1, name: "Web", timezone: "UTC" });
    expect(one.api_token).toMatch(/^phc_/);
    expect((await s.get("/api/projects/@current/")).body).toEqual(one);
    expect((await s.get("/api/projects/3/")).status).toBe(403);
    expect((await s.get("/api/projects/99/")).status).toBe(404);
  });

  it("creates a project: next id, own capture token, listed afterwards; a bad zone or no name is a 400", async () => {
    const created = await s.post("/api/projects/", { name: "Staging", timezone: "Europe/Berlin" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 4, name: "Staging", timezone: "Europe/Berlin", week_start_day: 0 });
    expect(created.body.api_token).toMatch(/^phc_/);
    expect((await s.get("/api/projects/")).body.results.map((p: { id: number }) => p.id)).toEqual([1, 2, 4]);
    expect((await s.get("/api/projects/4/events/")).body.count).toBe(0);
    const badZone = await s.post("/api/projects/", { name: "X", timezone: "Mars/Base" });
    expect([badZone.status, badZone.body.attr]).toEqual([400, "timezone"]);
    const noName = await s.post("/api/projects/", { timezone: "UTC" });
    expect([noName.status, noName.body.attr]).toEqual([400, "name"]);
    expect((await s.get("/api/projects/")).body.count).toBe(3);
  });

  it("token introspection: a key of the mock is active with every scope, anything else inactive", async () => {
    const active = await s.post("/oauth/introspect", { token: OTHER_KEY }, { key: null });
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({ active: true, scope: "*", scoped_teams: [], scoped_organizations: [] });
    expect((await s.post("/oauth/introspect", { token: "phx_nope" }, { key: null })).body).toEqual({ active: false });
    expect((await s.post("/oauth/introspect", {}, { key: null })).status).toBe(400);
  });
});

describe("the taxonomy", () => {
  it("event definitions: by 30-day volume, with first and last seen", async () => {
    const res = await s.get(`${P}/event_definitions/`);
    expect(res.body.results.map((d: { name: string; volume_30_day: number }) => [d.name, d.volume_30_day])).toEqual([
      ["$pageview", 5],
      ["signup", 3],
      ["purchase", 2],
      ["$pageleave", 1],
    ]);
    expect(res.body.results[0]).toMatchObject({ created_at: "2024-03-01T08:00:00.000Z", last_seen_at: "2024-03-03T23:30:00.000Z" });
    expect((await s.get(`${P}/event_definitions/?event_type=event_custom`)).body.results.map((d: { name: string }) => d.name)).toEqual(["signup", "purchase"]);
    expect((await s.get(`${P}/event_definitions/?search=PUR`)).body.results.map((d: { name: string }) => d.name)).toEqual(["purchase"]);
    const paged = (await s.get(`${P}/event_definitions/?limit=2&offset=2`)).body;
    expect([paged.count, paged.results.map((d: { name: string }) => d.name)]).toEqual([4, ["purchase", "$pageleave"]]);
  });

  it("event property definitions: types from the values, filtered by the events they were seen on", async () => {
    const all = (await s.get(`${P}/property_definitions/`)).body.results;
    expect(all.map((d: { name: string; property_type: string }) => [d.name, d.property_type])).toEqual([
      ["$browser", "String"],
      ["amount", "Numeric"],
    ]);
    const names = encodeURIComponent(JSON.stringify(["purchase"]));
    const seen = (await s.get(`${P}/property_definitions/?event_names=${names}`)).body.results;
    expect(seen.map((d: { name: string; is_seen_on_filtered_events: boolean }) => [d.name, d.is_seen_on_filtered_events])).toEqual([
      ["$browser", false],
      ["amount", true],
    ]);
    const only = (await s.get(`${P}/property_definitions/?event_names=${names}&filter_by_event_names=true`)).body.results;
    expect(only.map((d: { name: string }) => d.name)).toEqual(["amount"]);
    expect((await s.get(`${P}/property_definitions/?is_numerical=true`)).body.results.map((d: { name: string }) => d.name)).toEqual(["amount"]);
    expect((await s.get(`${P}/property_definitions/?exclude_core_properties=true`)).body.results.map((d: { name: string }) => d.name)).toEqual(["amount"]);
  });

  it("person property definitions, and bad filters named", async () => {
    const persons = (await s.get(`${P}/property_definitions/?type=person`)).body.results;
    expect(persons.map((d: { name: string; type: number }) => [d.name, d.type])).toEqual([
      ["email", 2],
      ["plan", 2],
    ]);
    const bad = await s.get(`${P}/property_definitions/?event_names=purchase`);
    expect([bad.status, bad.body.attr]).toEqual([400, "event_names"]);
    const group = await s.get(`${P}/property_definitions/?type=group`);
    expect([group.status, group.body.attr]).toEqual([400, "group_type_index"]);
    // An undeclared parameter is ignored, as the real service ignores it.
    expect((await s.get(`${P}/property_definitions/?typo=1`)).status).toBe(200);
  });

  it("the MCP taxonomy tool answers from the same counts", async () => {
    const call = (query: object) => s.post("/api/environments/1/mcp_tools/read_taxonomy/", { args: { query } });
    const events = (await call({ kind: "events" })).body;
    expect(events.success).toBe(true);
    expect(events.content.split("\n").map((l: string) => l.split(":")[0])).toEqual(["$pageview", "signup", "purchase", "$pageleave"]);
    expect((await call({ kind: "event_properties", event_name: "purchase" })).body.content).toBe("amount (Numeric)");
    expect((await call({ kind: "event_property_values", event_name: "purchase", property_name: "amount" })).body.content).toBe("50 (1)\n30 (1)");
    expect((await call({ kind: "entity_property_values", entity: "person", property_name: "plan" })).body.content).toBe('"pro" (1)\n"free" (1)');
    expect((await call({ kind: "action_properties" })).body.success).toBe(false);
  });
});

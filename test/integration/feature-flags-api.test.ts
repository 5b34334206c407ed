/**
 * The feature flags API (the real service's `feature_flags/`), on basic.json: project 1 holds flags 1–6
 * (new-onboarding, checkout-experiment, internal-tools, welcome-banner, paying-features, pro-plan-tools) and
 * cohort 1 "Paying". Every response is validated against the document.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OTHER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const everyone = { groups: [{ properties: [], rollout_percentage: 100 }] };
const keysOf = (res: { body: { results: { key: string }[] } }) => res.body.results.map((f) => f.key);

describe("listing flags", () => {
  it("lists the project's live flags, newest first, filtered as the real list filters", async () => {
    const all = await s.get(`${P}/feature_flags/`);
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(6);
    // Same creation time (the fixture's now): newest id first.
    expect(keysOf(all)).toEqual(["pro-plan-tools", "paying-features", "welcome-banner", "internal-tools", "checkout-experiment", "new-onboarding"]);
    expect(keysOf(await s.get(`${P}/feature_flags/?search=CHECKOUT`))).toEqual(["checkout-experiment"]);
    expect(keysOf(await s.get(`${P}/feature_flags/?search=banner%20text`))).toEqual(["welcome-banner"]);
    expect(keysOf(await s.get(`${P}/feature_flags/?type=multivariant`))).toEqual(["checkout-experiment"]);
    expect((await s.get(`${P}/feature_flags/?type=boolean`)).body.count).toBe(5);
    expect((await s.get(`${P}/feature_flags/?active=false`)).body.count).toBe(0);
    expect(keysOf(await s.get(`${P}/feature_flags/?excluded_properties=${encodeURIComponent('["new-onboarding"]')}&limit=1`))).toEqual(["pro-plan-tools"]);
    expect((await s.get("/api/projects/2/feature_flags/")).body.count).toBe(0);
  });

  it("refuses a malformed list parameter and another project's reader", async () => {
    expect((await s.get(`${P}/feature_flags/?tags=web`)).body).toMatchObject({ attr: "tags" });
    expect((await s.get(`${P}/feature_flags/?type=everything`)).status).toBe(400);
    expect((await s.get(`${P}/feature_flags/`, { key: OTHER_KEY })).status).toBe(403);
  });
});

describe("creating, updating and deleting a flag", () => {
  it("creates a flag with version 1 and its creator, lists it, and raises the version on update", async () => {
    const created = await s.post(`${P}/feature_flags/`, { key: "dark-mode", name: "Dark mode", filters: everyone, id: 999, version: 7 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key: "dark-mode", name: "Dark mode", active: true, deleted: false, version: 1, created_by: { id: 1 }, status: "ACTIVE" });
    expect(created.body.id).toBe(7);
    expect(created.body.filters).toEqual({ ...everyone, payloads: {} });
    expect((await s.get(`${P}/feature_flags/${created.body.id}/`)).body.key).toBe("dark-mode");
    const updated = await s.patch(`${P}/feature_flags/${created.body.id}/`, { active: false, name: "Dark mode (paused)" });
    expect(updated.body).toMatchObject({ active: false, name: "Dark mode (paused)", version: 2, key: "dark-mode" });
    expect((await s.get(`${P}/feature_flags/?active=false`)).body.results.map((f: { id: number }) => f.id)).toEqual([created.body.id]);
  });

  it("keeps the stored filters when a PATCH sends filters without condition sets, as the real service does", async () => {
    const res = await s.patch(`${P}/feature_flags/1/`, { filters: { payloads: {} } });
    expect(res.body.filters).toEqual({ groups: [{ properties: [], rollout_percentage: 30 }] });
  });

  it("soft-deletes with PATCH deleted=true (then 404, unlisted) and refuses a hard delete with 405", async () => {
    expect((await s.del(`${P}/feature_flags/4/`)).status).toBe(405);
    expect((await s.patch(`${P}/feature_flags/4/`, { deleted: true })).body).toMatchObject({ deleted: true, status: "DELETED" });
    expect((await s.get(`${P}/feature_flags/4/`)).status).toBe(404);
    expect(keysOf(await s.get(`${P}/feature_flags/`))).not.toContain("welcome-banner");
    // The key of a deleted flag is free again.
    expect((await s.post(`${P}/feature_flags/`, { key: "welcome-banner", filters: everyone })).status).toBe(201);
  });

  it("stores a JSON object payload as its text", async () => {
    const res = await s.post(`${P}/feature_flags/`, { key: "banner", filters: { ...everyone, payloads: { true: { title: "Hi" } } } });
    expect(res.body.filters.payloads).toEqual({ true: '{"title":"Hi"}' });
  });
});

describe("the real service's checks", () => {
  const create = (body: Record<string, unknown>) => s.post(`${P}/feature_flags/`, { key: "k", filters: everyone, ...body });

  it.each([
    ["a key in use", { key: "new-onboarding" }, "key", "unique", "There is already a feature flag with this key."],
    ["a key with a space", { key: "my flag" }, "key", "invalid_key", "Only letters, numbers, hyphens (-) & underscores (_) are allowed."],
    ["no condition set", { filters: { groups: [] } }, "filters", "invalid_input", "Feature flags must have at least one condition set (group)."],
    ["an event property", { filters: { groups: [{ properties: [{ key: "$browser", value: "Chrome", type: "event" }] }] } }, "filters", "invalid_input", "Filters are not valid (can only use person, cohort, and flag properties)"],
    ["a person property on a group flag", { filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }] }] } }, "filters", "invalid_input", "Filters are not valid (can only use group properties)"],
    ["variants not summing to 100", { filters: { ...everyone, multivariate: { variants: [{ key: "a", rollout_percentage: 60 }, { key: "b", rollout_percentage: 30 }] } } }, "filters", "invalid_input", "Invalid variant definitions: Variant rollout percentages must sum to 100."],
    ["an unknown variant override", { filters: { groups: [{ properties: [], variant: "c" }], multivariate: { variants: [{ key: "a", rollout_percentage: 100 }] } } }, "filters", "invalid_input", "Filters are not valid (variant override does not exist)"],
    ["a payload that is not JSON", { filters: { ...everyone, payloads: { true: "{oops" } } }, "filters", "invalid_input", "Payload value is not valid JSON"],
    ["a payload key on a boolean flag", { filters: { ...everyone, payloads: { green: "1" } } }, "filters", "invalid_input", "Payload keys must be 'true' for boolean flags"],
    ["an unknown cohort", { filters: { groups: [{ properties: [{ key: "id", value: 99, operator: "in", type: "cohort" }] }] } }, "filters", "cohort_does_not_exist", "Cohort with id 99 does not exist"],
    ["a numeric gt value", { filters: { groups: [{ properties: [{ key: "age", value: 3, operator: "gt", type: "person" }] }] } }, "filters", "invalid_value", "Invalid value for operator gt: 3"],
    ["`in` on a person property", { filters: { groups: [{ properties: [{ key: "plan", value: ["pro"], operator: "in", type: "person" }] }] } }, "filters", "invalid_operator", "The 'in' operator is only valid for cohort properties, not 'person' properties."],
    ["a flag dependency by key", { filters: { groups: [{ properties: [{ key: "new-onboarding", value: true, operator: "flag_evaluates_to", type: "flag" }] }] } }, "filters", "invalid_input", "Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: 'new-onboarding'"],
    ["a flag dependency with another operator", { filters: { groups: [{ properties: [{ key: "1", value: true, operator: "exact", type: "flag" }] }] } }, "filters", "invalid_input", "Flag properties must use the 'flag_evaluates_to' operator"],
    ["a bad date", { filters: { groups: [{ properties: [{ key: "signup", value: "someday", operator: "is_date_before", type: "person" }] }] } }, "filters", "invalid_date", "Invalid date value: someday"],
  ])("refuses %s", async (_, body, attr, code, detail) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: "validation_error", code, detail, attr });
    expect((await s.get(`${P}/feature_flags/`)).body.count).toBe(6);
  });

  it("refuses a dependency cycle, and deleting or disabling a flag others depend on", async () => {
    const child = await create({ key: "child", filters: { groups: [{ properties: [{ key: "1", value: true, operator: "flag_evaluates_to", type: "flag" }] }] } });
    expect(child.status).toBe(201);
    const cycle = await s.patch(`${P}/feature_flags/1/`, { filters: { groups: [{ properties: [{ key: String(child.body.id), value: true, operator: "flag_evaluates_to", type: "flag" }] }] } });
    expect(cycle.body).toMatchObject({ attr: "filters", detail: "Circular dependency detected: new-onboarding → child → new-onboarding" });
    const self = await s.patch(`${P}/feature_flags/1/`, { filters: { groups: [{ properties: [{ key: "1", value: true, operator: "flag_evaluates_to", type: "flag" }] }] } });
    expect(self.body.detail).toBe("Feature flag 'new-onboarding' cannot depend on itself");
    const del = await s.patch(`${P}/feature_flags/1/`, { deleted: true });
    expect(del.body.detail).toBe(`Cannot delete this feature flag because other flags depend on it: child (ID: ${child.body.id}). Please update or delete the dependent flags first.`);
    const off = await s.patch(`${P}/feature_flags/1/`, { active: false });
    expect(off.body.detail).toContain("Cannot disable this feature flag because other flags depend on it: child");
    expect((await s.get(`${P}/feature_flags/1/`)).body).toMatchObject({ active: true, deleted: false, version: 1 });
  });

  it("refuses a body that breaks the contract, naming the field", async () => {
    expect((await s.post(`${P}/feature_flags/`, { filters: everyone })).body).toMatchObject({ code: "required", attr: "key" });
    expect((await s.post(`${P}/feature_flags/`, { key: "x", filters: { groups: [{ rollout_percentage: 101 }] } })).body).toMatchObject({ attr: "filters__groups__0__rollout_percentage" });
    expect((await s.patch(`${P}/feature_flags/1/`, { active: "yes" })).body).toMatchObject({ attr: "active" });
  });
});

describe("in fixture documents", () => {
  it("refuses two live flags with the same key in a project, naming the second", async () => {
    const doc = scenario("basic");
    doc.feature_flags = [...doc.feature_flags!, { project_id: "1", key: "new-onboarding", filters: everyone }];
    const res = await fetch(`${s.base}/_mock/state/`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(doc) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ attr: "feature_flags__6__key" });
  });

  it("loads a document written before flags and dynamic cohorts existed", async () => {
    const doc = scenario("basic");
    delete doc.feature_flags;
    const res = await fetch(`${s.base}/_mock/state/`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(doc) });
    expect(res.status).toBe(200);
    expect((await s.get(`${P}/feature_flags/`)).body.count).toBe(0);
  });
});

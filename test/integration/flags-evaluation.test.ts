import { createHash } from "node:crypto";
import { PostHog } from "posthog-node";
import { afterEach, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { startServer } from "../../src/index.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * `/flags` over the stored persons, groups and cohorts, steered per test through `/_mock/feature_flags/`.
 * Expected values are worked out by hand from the fixtures (and, for buckets, from the real hash computed here).
 */
let s: TestServer;
afterEach(() => s?.close());

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });
const tokenOf = (projectId = "1") => s.store.projects.get(projectId)!.api_token;
async function flags(body: Record<string, unknown>, projectId = "1") {
  const res = await captureRequest(s.base, "POST", "/flags/?v=2", json({ token: tokenOf(projectId), ...body }));
  expect(res.status).toBe(200);
  return res.body.flags as Record<string, { enabled: boolean; variant: string | null; reason: { code: string }; metadata: { payload: string | null } }>;
}
const valueOf = (f: { enabled: boolean; variant: string | null } | undefined) => (f === undefined ? undefined : (f.variant ?? f.enabled));
/** A call of the control API; its answer is checked against openapi/control.yaml. */
const control = (method: string, path: string, body?: unknown) => callControl(s.base, method, path, body);
/** The real bucket of an id for a flag (`variant` salt for variants), computed independently of the server. */
const bucket = (key: string, id: string, salt = "") => parseInt(createHash("sha1").update(`${key}.${id}${salt}`).digest("hex").slice(0, 15), 16) / 0xfffffffffffffff;

describe("group flags and person properties (groups.json)", () => {
  it("evaluates a group flag per company, and a person flag on stored properties the request may override", async () => {
    s = await startTestServer(scenario("groups"));
    // acme 500, globex 40, initech 120 employees; the condition is employee_count >= "100".
    expect(valueOf((await flags({ distinct_id: "ann", groups: { company: "acme" } }))["company-insights"])).toBe(true);
    expect(valueOf((await flags({ distinct_id: "cat", groups: { company: "globex" } }))["company-insights"])).toBe(false);
    expect(valueOf((await flags({ distinct_id: "dan", groups: { company: "initech" } }))["company-insights"])).toBe(true);
    // The request's group properties win over the stored ones.
    expect(valueOf((await flags({ distinct_id: "dan", groups: { company: "initech" }, group_properties: { company: { employee_count: 10 } } }))["company-insights"])).toBe(false);
    const noGroup = (await flags({ distinct_id: "ann" }))["company-insights"]!;
    expect(noGroup).toMatchObject({ enabled: false, reason: { code: "no_group_type" } });
    // admin-console: role = admin. Ann and Cat are admins; Ben becomes one for this request only.
    expect(valueOf((await flags({ distinct_id: "ann" }))["admin-console"])).toBe(true);
    expect(valueOf((await flags({ distinct_id: "ben" }))["admin-console"])).toBe(false);
    expect(valueOf((await flags({ distinct_id: "ben", person_properties: { role: "admin" } }))["admin-console"])).toBe(true);
    expect(valueOf((await flags({ distinct_id: "nobody" }))["admin-console"])).toBe(false);
  });
});

describe("experience continuity", () => {
  it("keeps the anonymous id's variant after identify, through the person's stored hash key", async () => {
    s = await startTestServer(scenario("basic"));
    const key = "onboarding-layout";
    const created = await s.post("/api/projects/1/feature_flags/", {
      key,
      ensure_experience_continuity: true,
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 50 }] } },
    });
    expect(created.status).toBe(201);
    const variant = (id: string) => (bucket(key, id, "variant") < 0.5 ? "a" : "b");
    // An anonymous id and a user id that fall in different variants.
    const anon = Array.from({ length: 50 }, (_, i) => `anon-${i}`).find((id) => variant(id) !== variant("user-9"))!;
    expect(valueOf((await flags({ distinct_id: anon }))[key])).toBe(variant(anon));
    expect(valueOf((await flags({ distinct_id: "user-9" }))[key])).toBe(variant("user-9"));

    // The app identifies: the anonymous person becomes user-9's, and posthog-js reloads flags with $anon_distinct_id.
    const identify = { token: tokenOf(), event: "$identify", distinct_id: "user-9", properties: { $anon_distinct_id: anon } };
    await captureRequest(s.base, "POST", "/e/", json(identify));
    expect(valueOf((await flags({ distinct_id: "user-9", $anon_distinct_id: anon }))[key])).toBe(variant(anon));
    // Later requests without $anon_distinct_id keep it: the hash key is stored with the person.
    expect(valueOf((await flags({ distinct_id: "user-9" }))[key])).toBe(variant(anon));
    expect(s.store.flags.hashKeyOverrides("1", s.store.persons.byDistinctId("1", "user-9")!.uuid).get(key)).toBe(anon);
  });
});

describe("forcing flags from a test", () => {
  it("forces a value for one id, a group or everyone; the narrowest wins; reset clears them", async () => {
    s = await startTestServer(scenario("groups"));
    expect((await control("POST", "/feature_flags/", { key: "admin-console", value: false })).status).toBe(201);
    expect((await control("POST", "/feature_flags/", { key: "admin-console", value: true, distinct_id: "ben" })).status).toBe(201);
    expect(valueOf((await flags({ distinct_id: "ann" }))["admin-console"])).toBe(false);
    const ben = (await flags({ distinct_id: "ben" }))["admin-console"]!;
    expect(ben).toMatchObject({ enabled: true, reason: { code: "forced" } });
    await control("POST", "/feature_flags/", { key: "company-insights", value: false, group: { type: "company", key: "acme" } });
    expect(valueOf((await flags({ distinct_id: "ann", groups: { company: "acme" } }))["company-insights"])).toBe(false);
    expect(valueOf((await flags({ distinct_id: "dan", groups: { company: "initech" } }))["company-insights"])).toBe(true);
    // A flag that does not exist yet, with a payload.
    await control("POST", "/feature_flags/", { key: "not-built-yet", value: "v2", payload: { copy: "New!" } });
    expect((await flags({ distinct_id: "eve" }))["not-built-yet"]).toMatchObject({ enabled: true, variant: "v2", metadata: { payload: '{"copy":"New!"}' } });
    const listed = await control("GET", "/feature_flags/");
    expect(listed.body.results.map((f: { key: string }) => f.key)).toEqual(["admin-console", "admin-console", "company-insights", "not-built-yet"]);

    // Whom the server evaluated, and what it answered, is in the captured log.
    const log = (await control("GET", "/captured/?limit=1")).body.results[0];
    expect(log.flags).toMatchObject({ distinct_id: "eve", values: { "not-built-yet": "v2", "admin-console": false } });

    await control("POST", "/reset/");
    expect((await control("GET", "/feature_flags/")).body.results).toEqual([]);
    expect(valueOf((await flags({ distinct_id: "ann" }))["admin-console"])).toBe(true);
    expect((await flags({ distinct_id: "eve" }))["not-built-yet"]).toBeUndefined();
  });

  it("writes forced values into the local evaluation definitions, so posthog-node evaluating locally agrees", async () => {
    s = await startTestServer(scenario("groups"));
    await control("POST", "/feature_flags/", { key: "admin-console", value: false });
    await control("POST", "/feature_flags/", { key: "admin-console", value: true, distinct_id: "ben" });
    await control("POST", "/feature_flags/", { key: "brand-new", value: true, distinct_id: "eve" });
    const client = new PostHog(tokenOf(), { host: s.base, personalApiKey: "phx_test_owner_key_0001", featureFlagsPollingInterval: 60_000, fetchRetryCount: 0 });
    try {
      await client.reloadFeatureFlags();
      const local = async (id: string, properties: Record<string, string>) => (await client.getAllFlags(id, { personProperties: properties, onlyEvaluateLocally: true }));
      expect((await local("ann", { role: "admin" }))["admin-console"]).toBe(false);
      expect((await local("ben", { role: "member" }))["admin-console"]).toBe(true);
      expect((await local("eve", { role: "member" }))["brand-new"]).toBe(true);
      expect((await local("ann", { role: "admin" }))["brand-new"]).toBe(false);
    } finally {
      await client.shutdown();
    }
  });

  it("refuses a forced value that breaks the contract, naming the field", async () => {
    s = await startTestServer(scenario("groups"));
    expect((await control("POST", "/feature_flags/", { key: "x" })).body).toMatchObject({ attr: "value" });
    expect((await control("POST", "/feature_flags/", { key: "x", value: 3 })).body).toMatchObject({ attr: "value" });
    expect((await control("DELETE", "/feature_flags/99/")).status).toBe(404);
  });
});

describe("dynamic cohorts", () => {
  it("are evaluated against the current persons in persons lists, analyses and flags", async () => {
    const doc = scenario("basic");
    doc.cohorts!.push({ project_id: "1", id: 2, name: "Corp emails", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "email", value: "@corp.io", operator: "icontains", type: "person" }] }] } } });
    doc.feature_flags!.push({ project_id: "1", id: 7, key: "corp-only", filters: { groups: [{ properties: [{ key: "id", value: 2, operator: "in", type: "cohort" }], rollout_percentage: 100 }] } });
    s = await startTestServer(doc);
    // a@corp.io (person 1) and b@corp.io (person 2); c@example.com is not.
    const members = async () => (await s.get("/api/projects/1/persons/?cohort=2")).body.results.map((p: { id: number }) => p.id).sort();
    expect(await members()).toEqual([1, 2]);
    const pageviews = { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-03", properties: [{ key: "id", value: 2, type: "cohort" }] };
    // Pageviews by a (3: 1st 08:00 as a-anon, 1st 15:00, 3rd) and b (1: 2nd); c's Safari view is out.
    expect((await s.post("/api/projects/1/insights/trend/", pageviews)).body.result[0].count).toBe(4);
    expect(valueOf((await flags({ distinct_id: "a" }))["corp-only"])).toBe(true);
    expect(valueOf((await flags({ distinct_id: "c" }))["corp-only"])).toBe(false);
    // c moves to corp.io: the cohort follows at once.
    await captureRequest(s.base, "POST", "/e/", json({ token: tokenOf(), event: "$set", distinct_id: "c", properties: { $set: { email: "c@corp.io" } } }));
    expect(await members()).toEqual([1, 2, 3]);
    expect(valueOf((await flags({ distinct_id: "c" }))["corp-only"])).toBe(true);
  });
});

describe("cohorts that reference each other in a loop", () => {
  const refersTo = (id: number) => ({ properties: { type: "AND", values: [{ key: "id", value: id, operator: "in", type: "cohort" }] } });
  /** basic.json with cohort 2 naming 3, 3 naming `threeNames` (2 closes a loop), and a flag on cohort 2. */
  const withCohorts = (threeNames: number | null) => {
    const doc = scenario("basic");
    doc.cohorts!.push({ project_id: "1", id: 2, name: "A", filters: refersTo(3) }, { project_id: "1", id: 3, name: "B", ...(threeNames === null ? { person_ids: [1] } : { filters: refersTo(threeNames) }) });
    doc.feature_flags!.push({ project_id: "1", id: 7, key: "in-a", filters: { groups: [{ properties: [{ key: "id", value: 2, operator: "in", type: "cohort" }], rollout_percentage: 100 }] } });
    return doc;
  };

  it("are refused by PUT /_mock/state/ and by a fixture document at start, naming the loop", async () => {
    s = await startTestServer(scenario("basic"));
    const refused = await control("PUT", "/state/", withCohorts(2));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: "validation_error", attr: "cohorts__1__filters", detail: expect.stringContaining("2 → 3 → 2") });
    expect((await s.get("/api/projects/1/cohorts/")).body.count).toBe(1);
    await expect(startServer({ fixtures: withCohorts(2), logLevel: "silent" })).rejects.toThrow(/cohorts reference each other in a loop: 2 → 3 → 2/);
  });

  it("one that got into the store anyway: /flags, /decide and GET /flags answer 200 with the flag off", async () => {
    s = await startTestServer(withCohorts(null));
    expect(valueOf((await flags({ distinct_id: "a" }))["in-a"])).toBe(true);
    // Written past every door (they all refuse it): cohort 3 now names 2.
    await s.store.cohorts.update(s.store.cohorts.get("1", 3)!, { filters: refersTo(2) as never, is_static: false }, [], null);
    expect(valueOf((await flags({ distinct_id: "a" }))["in-a"])).toBe(false);
    const decide = await captureRequest(s.base, "POST", "/decide/?v=3", json({ token: tokenOf(), distinct_id: "a" }));
    expect(decide.status).toBe(200);
    expect(decide.body.featureFlags["in-a"]).toBe(false);
    const get = await captureRequest(s.base, "GET", `/flags/?v=2&token=${tokenOf()}&distinct_id=a`);
    expect(get.status).toBe(200);
    expect(get.body.flags["in-a"]).toMatchObject({ enabled: false });
  });
});

describe("flag properties on events", () => {
  it("filters and breaks down by $feature/<key> and $active_feature_flags like any property", async () => {
    s = await startTestServer(scenario("basic"));
    const at = "2024-03-05T10:00:00Z";
    const event = (distinct_id: string, variant: string) => ({ event: "clicked buy", distinct_id, timestamp: at, properties: { [`$feature/checkout-experiment`]: variant, $active_feature_flags: ["checkout-experiment"] } });
    const batch = { api_key: tokenOf(), batch: [event("a", "green"), event("b", "green"), event("c", "control")] };
    expect((await captureRequest(s.base, "POST", "/batch/", json(batch))).status).toBe(200);
    const base = { events: [{ id: "clicked buy" }], date_from: "2024-03-05", date_to: "2024-03-05" };
    const byVariant = (await s.post("/api/projects/1/insights/trend/", { ...base, breakdown: "$feature/checkout-experiment" })).body.result;
    expect(Object.fromEntries(byVariant.map((r: { breakdown_value: string; count: number }) => [r.breakdown_value, r.count]))).toEqual({ green: 2, control: 1 });
    const active = { ...base, properties: [{ key: "$active_feature_flags", value: "checkout-experiment", operator: "icontains", type: "event" }] };
    expect((await s.post("/api/projects/1/insights/trend/", active)).body.result[0].count).toBe(3);
  });
});

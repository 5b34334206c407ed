/**
 * Early access features and web experiments: their APIs, the public endpoints posthog-js reads, enrolment
 * through `super_groups`, fixtures and restarts. On basic.json (frozen at 2024-03-05T12:00Z; project 1 has flag 1
 * `new-onboarding` at 30%, flag 2 `checkout-experiment` multivariate, flag 4 `welcome-banner` with a payload).
 * Shapes follow PostHog's tests, named in each case: products/early_access_features/backend/test/
 * test_early_access_feature.py (at 5973c41e) and posthog/api/test/test_web_experiment.py. Every response is
 * validated against its document (openapi.yaml, capture.yaml).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PostHog } from "posthog-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { callServer, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const token = () => s.store.projects.get("1")!.api_token;
const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });
const hick = { name: "Hick bondoogling", description: 'Boondoogle your hicks with one click. Just click "bazinga"!' };
const enrolment = (key: string) => [{ properties: [{ key: `$feature_enrollment/${key}`, type: "person", operator: "exact", value: ["true"] }], rollout_percentage: 100 }];

async function createFeature(body: Record<string, unknown>) {
  const res = await s.post(`${P}/early_access_feature/`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
const flagFilters = async (id: number) => (await s.get(`${P}/feature_flags/${id}/`)).body.filters;

describe("early access features API (test_early_access_feature.py)", () => {
  it("test_can_create_early_access_feature: a flag keyed by the name's slug, rolled out to nobody, with the enrolment condition", async () => {
    const created = await createFeature({ ...hick, stage: "concept" });
    expect(created).toMatchObject({ ...hick, stage: "concept", documentation_url: "", created_at: "2024-03-05T12:00:00.000Z" });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.feature_flag).toMatchObject({ key: "hick-bondoogling", active: true, name: "Feature Flag for Feature Hick bondoogling" });
    expect(created.feature_flag.filters).toEqual({ groups: [{ properties: [], rollout_percentage: 0, variant: null }], super_groups: enrolment("hick-bondoogling") });
    expect((await s.get(`${P}/early_access_feature/${created.id}/`)).body).toEqual(created);
  });

  it("test_archive / test_promote_to_beta / test_update_doesnt_remove_super_condition: stages put the condition on and take it off", async () => {
    const draft = await createFeature({ ...hick, stage: "draft" });
    expect(draft.feature_flag.filters.super_groups).toBeUndefined();
    const beta = (await s.patch(`${P}/early_access_feature/${draft.id}/`, { stage: "beta" })).body;
    expect(beta.stage).toBe("beta");
    expect(beta.feature_flag.filters.super_groups).toEqual(enrolment("hick-bondoogling"));
    const edited = (await s.patch(`${P}/early_access_feature/${draft.id}/`, { description: "Something else!" })).body;
    expect(edited).toMatchObject({ stage: "beta", description: "Something else!" });
    expect(edited.feature_flag.filters.super_groups).toHaveLength(1);
    const archived = (await s.patch(`${P}/early_access_feature/${draft.id}/`, { stage: "archived" })).body;
    expect(archived.stage).toBe("archived");
    expect(archived.feature_flag.filters.super_groups).toBeNull();
  });

  it("test_we_dont_delete_existing_flag_information_when_creating_early_access_feature: a linked flag keeps its filters", async () => {
    const before = await flagFilters(4);
    const created = await createFeature({ ...hick, stage: "beta", feature_flag_id: 4 });
    expect(created.feature_flag.key).toBe("welcome-banner");
    expect(await flagFilters(4)).toEqual({ ...before, super_groups: enrolment("welcome-banner") });
  });

  it("test_cant_create_early_access_feature_with_duplicate_key / _multivariate_flag / _flag_with_existing_early_access_feature", async () => {
    const duplicate = await s.post(`${P}/early_access_feature/`, { name: "New onboarding", stage: "beta" });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toMatchObject({ type: "validation_error", attr: "key", detail: "There is already a feature flag with this key." });
    const multivariate = await s.post(`${P}/early_access_feature/`, { ...hick, stage: "beta", feature_flag_id: 2 });
    expect(multivariate.body).toMatchObject({ attr: "feature_flag_id", detail: "Multivariate feature flags are not supported for Early Access Features." });
    await createFeature({ ...hick, stage: "beta", feature_flag_id: 1 });
    const again = await s.post(`${P}/early_access_feature/`, { name: "Another feature", stage: "beta", feature_flag_id: 1 });
    expect(again.body).toMatchObject({ attr: "feature_flag_id", detail: "Linked feature flag new-onboarding already has a feature attached to it." });
    expect((await s.post(`${P}/early_access_feature/`, { ...hick, stage: "beta", feature_flag_id: 999 })).body.detail).toBe("Feature Flag with this ID does not exist");
  });

  it("refuses an unknown stage and a missing name, naming the field", async () => {
    const stage = await s.post(`${P}/early_access_feature/`, { name: "X", stage: "gamma" });
    expect([stage.status, stage.body.attr]).toEqual([400, "stage"]);
    const name = await s.post(`${P}/early_access_feature/`, { stage: "beta" });
    expect([name.status, name.body.attr]).toEqual([400, "name"]);
  });

  it("test_cant_soft_delete_flag_with_early_access_feature", async () => {
    await createFeature({ ...hick, stage: "beta", feature_flag_id: 1 });
    const res = await s.patch(`${P}/feature_flags/1/`, { deleted: true });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("Cannot delete a feature flag that is in use with early access features. Please delete the early access feature before deleting the flag.");
  });

  it("test_deleting_early_access_feature_removes_super_condition_from_flag", async () => {
    const created = await createFeature({ ...hick, stage: "beta", feature_flag_id: 1 });
    expect((await s.del(`${P}/early_access_feature/${created.id}/`)).status).toBe(204);
    expect(await flagFilters(1)).toEqual({ groups: [{ properties: [], rollout_percentage: 30 }], super_groups: null });
    expect((await s.get(`${P}/early_access_feature/${created.id}/`)).status).toBe(404);
  });

  it("test_can_list_features: paginated, each with its flag", async () => {
    const created = await createFeature({ name: "Click counter", description: "Count clicks", stage: "beta" });
    expect((await s.get(`${P}/early_access_feature/`)).body).toEqual({ count: 1, next: null, previous: null, results: [created] });
    await createFeature({ name: "Second", stage: "alpha" });
    const page = (await s.get(`${P}/early_access_feature/?limit=1`)).body;
    expect(page).toMatchObject({ count: 2, previous: null, results: [{ name: "Click counter" }] });
    expect(page.next).toContain("offset=1");
  });
});

describe("GET /api/early_access_features/ (TestPreviewList)", () => {
  it("test_early_access_features_beta_only: beta unless stages are asked, in posthog-js's shape, with CORS", async () => {
    const beta = await createFeature({ name: "Sprocket", description: "A fancy new sprocket.", stage: "beta" });
    await createFeature({ name: "Sprocket alpha", stage: "alpha" });
    await createFeature({ name: "Sprocket draft", stage: "draft" });
    const res = await captureRequest(s.base, "GET", `/api/early_access_features/?token=${token()}`, { headers: { origin: "http://127.0.0.1:8000" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:8000");
    expect(res.body).toEqual({ earlyAccessFeatures: [{ id: beta.id, name: "Sprocket", description: "A fancy new sprocket.", stage: "beta", documentationUrl: "", flagKey: "sprocket" }] });
    const asked = await captureRequest(s.base, "GET", `/api/early_access_features/?token=${token()}&stage=alpha&stage=draft`);
    expect(asked.body.earlyAccessFeatures.map((f: { name: string }) => f.name)).toEqual(["Sprocket alpha", "Sprocket draft"]);
  });

  it("test_early_access_features_errors_out_on_random_token: 401 without a token or with an unknown one", async () => {
    expect((await captureRequest(s.base, "GET", "/api/early_access_features/")).status).toBe(401);
    expect((await captureRequest(s.base, "GET", "/api/early_access_features/?token=phc_nope")).status).toBe(401);
  });
});

describe("enrolment turns the feature's flag on (flags service get_match, super condition first)", () => {
  const flags = async (distinctId: string) => (await captureRequest(s.base, "POST", "/flags/?v=2", json({ token: token(), distinct_id: distinctId }))).body.flags;
  const enrol = (distinctId: string, enrolled: boolean) =>
    captureRequest(s.base, "POST", "/e/", json({ token: token(), event: "$feature_enrollment_update", distinct_id: distinctId, properties: { $feature_flag: "sprocket", $feature_enrollment: enrolled, $set: { "$feature_enrollment/sprocket": enrolled } } }));

  it("an enrolled person gets it with reason super_condition_value; unenrolling turns it off; others follow the 0% rollout", async () => {
    await createFeature({ name: "Sprocket", stage: "beta" });
    expect((await flags("ann")).sprocket).toMatchObject({ enabled: false, reason: { code: "out_of_rollout_bound" } });
    expect((await enrol("ann", true)).status).toBe(200);
    expect((await flags("ann")).sprocket).toMatchObject({ enabled: true, variant: null, reason: { code: "super_condition_value", condition_index: 0, description: "Super condition value" } });
    await enrol("ann", false);
    expect((await flags("ann")).sprocket).toMatchObject({ enabled: false, reason: { code: "super_condition_value" } });
    expect((await flags("bob")).sprocket.enabled).toBe(false);
  });

  it("posthog-node's remote evaluation: the enrolment property sent as a person property override turns it on", async () => {
    await createFeature({ name: "Sprocket", stage: "beta" });
    const client = new PostHog(token(), { host: s.base, flushAt: 1000, flushInterval: 0, fetchRetryCount: 0 });
    try {
      expect(await client.getFeatureFlag("sprocket", "carol")).toBe(false);
      expect(await client.getFeatureFlag("sprocket", "carol", { personProperties: { "$feature_enrollment/sprocket": "true" } })).toBe(true);
      expect(await client.getFeatureFlag("sprocket", "carol", { personProperties: { "$feature_enrollment/sprocket": "false" } })).toBe(false);
    } finally {
      await client.shutdown();
    }
  });
});

describe("web experiments API (test_web_experiment.py)", () => {
  const variants = {
    control: { transforms: [{ html: "", text: "There goes Superman!", selector: "#page > #body > .header h1" }], rollout_percentage: 70 },
    test: { transforms: [{ html: "", text: "Up, UP and Away!", selector: "#page > #body > .header h1" }], rollout_percentage: 30 },
  };
  const createExperiment = async (name = "Zero to Web Experiment") => {
    const res = await s.post(`${P}/web_experiments/`, { name, variants });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };

  it("test_can_create_basic_web_experiment: an inactive multivariate flag with the variants' shares", async () => {
    const created = await createExperiment();
    expect(created).toMatchObject({ id: 1, name: "Zero to Web Experiment", variants, created_at: "2024-03-05T12:00:00.000Z" });
    expect(created.feature_flag_key).toMatch(/^zero-to-web-experiment-web-experiment-feature-[0-9a-f]{10}$/);
    const flag = (await s.get(`${P}/feature_flags/?search=${created.feature_flag_key}`)).body.results[0];
    expect(flag).toMatchObject({ active: false, name: "Feature Flag for Experiment Zero to Web Experiment" });
    expect(flag.filters.multivariate.variants).toEqual([
      { key: "control", rollout_percentage: 70 },
      { key: "test", rollout_percentage: 30 },
    ]);
    expect(flag.filters.groups).toEqual([{ properties: [], rollout_percentage: 100 }]);
  });

  it("test_can_list_active_web_experiments: the public list posthog-js reads, newest first", async () => {
    const first = await createExperiment("active_web_experiment");
    s.clock.advance(1000);
    const second = await createExperiment("second");
    const res = await captureRequest(s.base, "GET", `/api/web_experiments/?token=${token()}`);
    expect(res.body).toEqual({ experiments: [second, first] });
    expect((await captureRequest(s.base, "GET", "/api/web_experiments/?token=phc_nope")).status).toBe(401);
  });

  it("updates the name and the flag's variants", async () => {
    const created = await createExperiment();
    const res = await s.patch(`${P}/web_experiments/${created.id}/`, { name: "Renamed", variants: { ...variants, test: { ...variants.test, rollout_percentage: 20 }, control: { ...variants.control, rollout_percentage: 80 } } });
    expect(res.body).toMatchObject({ name: "Renamed", feature_flag_key: created.feature_flag_key });
    const flag = (await s.get(`${P}/feature_flags/?search=${created.feature_flag_key}`)).body.results[0];
    expect(flag.filters.multivariate.variants).toEqual([
      { key: "control", rollout_percentage: 80 },
      { key: "test", rollout_percentage: 20 },
    ]);
  });

  it("refuses variants without control, without a rollout percentage, or a transform without a selector (the real serializer's validate)", async () => {
    expect((await s.post(`${P}/web_experiments/`, { name: "x", variants: { test: variants.test } })).status).toBe(400);
    expect((await s.post(`${P}/web_experiments/`, { name: "x", variants: { control: { transforms: [] } } })).status).toBe(400);
    const noSelector = await s.post(`${P}/web_experiments/`, { name: "x", variants: { ...variants, test: { rollout_percentage: 30, transforms: [{ html: "hi" }] } } });
    expect(noSelector.body).toMatchObject({ attr: "variants__test__transforms__0__selector", detail: "Experiment transform [$0] variant 'test' does not have a valid selector" });
  });

  it("test_can_delete_web_experiment", async () => {
    const created = await createExperiment();
    expect((await s.del(`${P}/web_experiments/${created.id}/`)).status).toBe(204);
    expect((await s.get(`${P}/web_experiments/${created.id}/`)).status).toBe(404);
    expect((await s.get(`${P}/web_experiments/`)).body.count).toBe(0);
  });
});

describe("fixtures and restarts", () => {
  it("loads a fixture's early access features: its own flag made, or the named flag linked", async () => {
    await s.close();
    const doc = scenario("basic");
    doc.early_access_features = [
      { project_id: "1", name: "Dark mode", stage: "beta", description: "A darker theme." },
      { project_id: "1", name: "Welcome", stage: "alpha", feature_flag_key: "welcome-banner" },
    ];
    s = await startTestServer(doc);
    const list = (await s.get(`${P}/early_access_feature/`)).body.results;
    expect(list.map((f: { name: string; feature_flag: { key: string } }) => [f.name, f.feature_flag.key])).toEqual([
      ["Dark mode", "dark-mode"],
      ["Welcome", "welcome-banner"],
    ]);
    expect(list[0].feature_flag.filters).toEqual({ groups: [{ properties: [], rollout_percentage: 0, variant: null }], super_groups: enrolment("dark-mode") });
    expect(list[1].feature_flag.filters.super_groups).toEqual(enrolment("welcome-banner"));
  });

  it("features.json ships a feature in beta that posthog-js lists", async () => {
    await s.close();
    s = await startTestServer(scenario("features"));
    const res = await captureRequest(s.base, "GET", `/api/early_access_features/?token=${token()}`);
    expect(res.body.earlyAccessFeatures).toEqual([
      { id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: "Dark mode", description: "A darker theme for the dashboard.", stage: "beta", documentationUrl: "https://example.com/docs/dark-mode", flagKey: "dark-mode" },
    ]);
  });

  it("keeps features, experiments and the flags' changes across a restart", async () => {
    const basic = fileURLToPath(new URL("../../fixtures/scenarios/basic.json", import.meta.url));
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-")), "db.json");
    const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));
    let running: StartedServer = await start(["--data", data, "--fixtures", basic, "--now", "2024-03-05T12:00:00Z"]);
    const call = (method: string, p: string, body?: unknown) => callServer(running.url, method, p, body);
    try {
      const feature = (await call("POST", `${P}/early_access_feature/`, { name: "Kept", stage: "beta" })).body;
      const experiment = (await call("POST", `${P}/web_experiments/`, { name: "Kept", variants: { control: { rollout_percentage: 50, transforms: [] }, test: { rollout_percentage: 50, transforms: [{ selector: "h1", html: "B" }] } } })).body;
      await running.close();
      running = await start(["--data", data, "--now", "2024-03-05T13:00:00Z"]);
      expect((await call("GET", `${P}/early_access_feature/${feature.id}/`)).body).toEqual(feature);
      expect((await call("GET", `${P}/web_experiments/${experiment.id}/`)).body).toEqual(experiment);
      expect((await call("GET", `${P}/feature_flags/${feature.feature_flag.id}/`)).body.filters.super_groups).toEqual(enrolment("kept"));
    } finally {
      await running.close();
    }
  });
});

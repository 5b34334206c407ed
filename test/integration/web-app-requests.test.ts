/**
 * Requests PostHog's web app sends that the product API answers beyond the spec (issue 41): a flag's possible
 * values and dependents (the flag editor), and the key's user's two-factor status and hedgehog settings. On
 * basic.json (and the flag's role access, which is always empty here, and the query API with the kind in the
 * path): project 1 holds flags 1–6, flag 2 `checkout-experiment` with variants `control` and `green`.
 * Expected values follow PostHog `posthog/api/flag_value.py` (values) and `posthog/api/feature_flag.py`
 * (`find_dependent_flags`), `posthog/api/user.py` (`two_factor_status`, `hedgehog_config`). Every response is
 * validated against the document.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OTHER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const dependsOn = (key: string | number) => ({
  groups: [{ properties: [{ key: String(key), type: "flag", value: true, operator: "flag_evaluates_to" }], rollout_percentage: 100 }],
});

describe("a flag's possible values (flag_value/values)", () => {
  it("lists true and false for a boolean flag, then a multivariate flag's variant keys in order", async () => {
    expect((await s.get(`${P}/flag_value/values/?key=1`)).body).toEqual({ results: [{ name: true }, { name: false }], refreshing: false });
    expect((await s.get(`${P}/flag_value/values/?key=2`)).body).toEqual({ results: [{ name: true }, { name: false }, { name: "control" }, { name: "green" }], refreshing: false });
  });

  it("answers for a deleted flag too, as the real service looks the id up among all the project's flags", async () => {
    expect((await s.patch(`${P}/feature_flags/2/`, { deleted: true })).status).toBe(200);
    expect((await s.get(`${P}/flag_value/values/?key=2`)).body.results).toHaveLength(4);
  });

  it("refuses a missing or non-integer key (400 naming `key`) and answers 404 for no flag of the project", async () => {
    expect((await s.get(`${P}/flag_value/values/`)).body).toMatchObject({ type: "validation_error", attr: "key" });
    expect((await s.get(`${P}/flag_value/values/?key=`)).body).toMatchObject({ type: "validation_error", attr: "key", detail: "Missing flag ID parameter" });
    expect((await s.get(`${P}/flag_value/values/?key=checkout-experiment`)).body).toMatchObject({ attr: "key", detail: "Invalid flag ID - must be a valid integer" });
    expect((await s.get(`${P}/flag_value/values/?key=99`)).status).toBe(404);
    expect((await s.get("/api/projects/2/flag_value/values/?key=1")).status).toBe(404);
    expect((await s.get(`${P}/flag_value/values/?key=1`, { key: OTHER_KEY })).status).toBe(403);
  });
});

describe("a flag's dependent flags", () => {
  it("lists the other active flags with a condition on it, ordered by key, with id, key and name", async () => {
    expect((await s.get(`${P}/feature_flags/1/dependent_flags/`)).body).toEqual([]);
    const zeta = await s.post(`${P}/feature_flags/`, { key: "zeta", name: "Zeta", filters: dependsOn(1) });
    const alpha = await s.post(`${P}/feature_flags/`, { key: "alpha", name: "Alpha", filters: dependsOn(1) });
    await s.post(`${P}/feature_flags/`, { key: "paused", name: "Paused", active: false, filters: dependsOn(1) });
    await s.post(`${P}/feature_flags/`, { key: "on-another", name: "On flag 2", filters: dependsOn(2) });
    expect((await s.get(`${P}/feature_flags/1/dependent_flags/`)).body).toEqual([
      { id: alpha.body.id, key: "alpha", name: "Alpha" },
      { id: zeta.body.id, key: "zeta", name: "Zeta" },
    ]);
    // A deleted dependent is no longer listed.
    await s.patch(`${P}/feature_flags/${zeta.body.id}/`, { deleted: true });
    expect((await s.get(`${P}/feature_flags/1/dependent_flags/`)).body).toEqual([{ id: alpha.body.id, key: "alpha", name: "Alpha" }]);
  });

  it("answers 404 for a flag that is not there", async () => {
    expect((await s.get(`${P}/feature_flags/99/dependent_flags/`)).status).toBe(404);
  });
});

describe("a query with its kind in the path (the web app's `POST /api/environments/:id/query/:kind/`)", () => {
  it("runs the body's query as POST /query/ does: basic.json's pageviews on 1, 2 and 3 March are 3, 1 and 1", async () => {
    const body = { query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" }, interval: "day" } };
    const byKind = await s.post("/api/environments/1/query/TrendsQuery/", body);
    expect(byKind.status).toBe(200);
    expect(byKind.body.results[0].data).toEqual([3, 1, 1]);
    const plain = await s.post("/api/environments/1/query/", body);
    expect(byKind.body.results).toEqual(plain.body.results);
    expect((await s.post("/api/environments/1/query/TrendsQuery/", { query: { kind: "NoSuchQuery" } })).body).toMatchObject({ attr: "query__kind" });
  });
});

describe("a flag's role access", () => {
  it("is an empty page (roles are a paid feature), at the path the web app asks for, with or without the slash", async () => {
    for (const path of ["/api/environments/1/feature_flags/2/role_access", `${P}/feature_flags/2/role_access/`]) {
      const res = await s.get(path);
      expect([res.status, res.body]).toEqual([200, { count: 0, next: null, previous: null, results: [] }]);
    }
    expect((await s.get(`${P}/feature_flags/2/role_access`, { key: OTHER_KEY })).status).toBe(403);
  });
});

describe("the key's user", () => {
  it("has no two-factor authentication", async () => {
    const res = await s.get("/api/users/@me/two_factor_status/");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ is_enabled: false, backup_codes: [], method: null });
  });

  it("has no hedgehog settings: an empty object", async () => {
    const res = await s.get("/api/users/@me/hedgehog_config/");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await s.get("/api/users/@me/hedgehog_config/", { key: null })).status).toBe(401);
  });
});

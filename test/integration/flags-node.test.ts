import { createHash } from "node:crypto";
import { PostHog } from "posthog-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixtures } from "../../src/fixtures/generate.ts";
import { defaultApiKey } from "../../src/fixtures/users.ts";
import { assertCaptureConforms } from "../support/capture-contract.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

/**
 * Feature flags through the real posthog-node, on a small generated dataset (its flags: a 30 % rollout, a
 * multivariate experiment with a variant override and payloads, a person-property target, a static-cohort
 * target, a group flag, a flag depending on another and on a dynamic cohort, a payload flag, an inactive flag).
 * The oracle is posthog-node's own local evaluation, fed by our definitions: for 1,000 distinct ids it must give
 * what our `/flags` gives. posthog-node cannot evaluate a static cohort locally (the real service sends it none),
 * so `beta-features` is compared by hand instead.
 */
const NOW = new Date("2024-06-15T12:00:00Z");
const doc = generateFixtures({ seed: 11, now: NOW, persons: 400, events: 6_000 });
const WEB = "1";
let s: TestServer;
let token: string;
let remote: PostHog;
let local: PostHog;

beforeAll(async () => {
  s = await startTestServer(doc);
  token = s.store.projects.get(WEB)!.api_token;
  const common = { host: s.base, flushAt: 1000, flushInterval: 0, fetchRetryCount: 0 };
  remote = new PostHog(token, common);
  local = new PostHog(token, { ...common, personalApiKey: defaultApiKey(11), featureFlagsPollingInterval: 60_000 });
  await local.reloadFeatureFlags();
}, 60_000);
afterAll(async () => {
  await Promise.all([remote?.shutdown(), local?.shutdown()]);
  await s?.close();
});

/** 1,000 ids: every web person's first distinct id, then ids the server has never seen. */
function distinctIds(): { id: string; properties: Record<string, unknown>; company?: string }[] {
  const people = s.store.persons.list(WEB).map((p) => ({ id: p.distinct_ids[0]!, properties: p.properties }));
  const unknown = Array.from({ length: 1000 - Math.min(1000, people.length) }, (_, i) => ({ id: `visitor-${i}`, properties: {} }));
  const companies = s.store.groups.list(WEB, 0).map((g) => g.group_key);
  return [...people, ...unknown].slice(0, 1000).map((x, i) => ({ ...x, company: companies[i % companies.length] }));
}

/** The real hash (sha1 of "key.id", first 15 hex digits over 0xFFFFFFFFFFFFFFF), computed here independently. */
const bucket = (key: string, id: string) => parseInt(createHash("sha1").update(`${key}.${id}`).digest("hex").slice(0, 15), 16) / 0xfffffffffffffff;

describe("posthog-node against the server", () => {
  it("evaluates every flag locally exactly as /flags answers it, for 1,000 distinct ids", { timeout: 120_000 }, async () => {
    const ids = distinctIds();
    expect(ids).toHaveLength(1000);
    let compared = 0;
    const onIn30 = new Set<string>();
    for (const { id, properties, company } of ids) {
      const options = {
        personProperties: properties as Record<string, string>,
        groups: company ? { company } : undefined,
        groupProperties: company ? { company: s.store.groups.get(WEB, 0, company)!.properties as Record<string, string> } : undefined,
      };
      const [mine, theirs] = await Promise.all([
        remote.getAllFlagsAndPayloads(id, options),
        local.getAllFlagsAndPayloads(id, { ...options, onlyEvaluateLocally: true }),
      ]);
      // Every flag posthog-node resolves locally (a missing property or experience continuity leaves a flag to the
      // server) must have the server's value; the server leaves inactive flags out, which the SDK reads as false.
      for (const [key, value] of Object.entries(theirs.featureFlags ?? {})) {
        expect(mine.featureFlags?.[key] ?? false, `${id} ${key}`).toEqual(value);
        expect(mine.featureFlagPayloads?.[key], `${id} ${key} payload`).toEqual(theirs.featureFlagPayloads?.[key]);
        compared++;
      }
      if (mine.featureFlags?.["new-onboarding"] === true) onIn30.add(id);
    }
    expect(compared).toBeGreaterThan(4000);
    // The 30 % rollout lands on exactly the ids the hash puts below 0.3.
    expect([...onIn30].sort()).toEqual(ids.map((x) => x.id).filter((id) => bucket("new-onboarding", id) < 0.3).sort());
  });

  it("serves the static cohort's flag to its members only", async () => {
    const beta = s.store.analysisData.cohorts(WEB).find((c) => c.name === "Beta testers")!;
    const member = s.store.persons.list(WEB).find((p) => beta.person_ids.includes(p.id))!;
    const outsider = s.store.persons.list(WEB).find((p) => !beta.person_ids.includes(p.id))!;
    expect(await remote.getFeatureFlag("beta-features", member.distinct_ids[0]!)).toBe(true);
    expect(await remote.getFeatureFlag("beta-features", outsider.distinct_ids[0]!)).toBe(false);
  });

  it("answers 304 to a poll whose ETag is current, and new definitions after a change", async () => {
    const headers = { authorization: `Bearer ${defaultApiKey(11)}` };
    const path = `/flags/definitions?token=${token}&send_cohorts`;
    const first = await fetch(s.base + path, { headers });
    const body = (await first.json()) as { cohorts: Record<string, unknown> };
    await assertCaptureConforms("GET", path, 200, first.headers.get("content-type"), body);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"[0-9a-f]+"$/);
    expect(body.cohorts).toHaveProperty("3");
    expect((await fetch(s.base + path, { headers: { ...headers, "if-none-match": etag } })).status).toBe(304);
    await s.patch(`/api/projects/${WEB}/feature_flags/1/`, { filters: { groups: [{ properties: [], rollout_percentage: 31 }] } }, { key: defaultApiKey(11) });
    const changed = await fetch(s.base + path, { headers: { ...headers, "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(((await changed.json()) as { flags: { key: string; filters: any }[] }).flags.find((f: { key: string }) => f.key === "new-onboarding")!.filters.groups[0].rollout_percentage).toBe(31);
  });

  it("serves the same definitions to the project's secret key and at the project-scoped and older paths", async () => {
    const secret = (await s.get(`/api/projects/${WEB}/`, { key: defaultApiKey(11) })).body.secret_api_token as string;
    expect(secret).toMatch(/^phs_/);
    const bySecret = await fetch(`${s.base}/flags/definitions?token=${token}&send_cohorts`, { headers: { authorization: `Bearer ${secret}` } });
    expect(bySecret.status).toBe(200);
    const etag = bySecret.headers.get("etag");
    const older = await fetch(`${s.base}/api/feature_flag/local_evaluation?token=${token}&send_cohorts`, { headers: { authorization: `Bearer ${defaultApiKey(11)}` } });
    expect(older.headers.get("etag")).toBe(etag);
    const scoped = await s.get(`/api/projects/${WEB}/feature_flags/local_evaluation/?send_cohorts`, { key: defaultApiKey(11) });
    expect(scoped.headers.get("etag")).toBe(etag);
    expect(scoped.body).toEqual(await bySecret.json());
    // Another project's secret key opens nothing here.
    const otherSecret = (await s.get("/api/projects/2/", { key: defaultApiKey(11) })).body.secret_api_token as string;
    expect((await fetch(`${s.base}/flags/definitions?token=${token}`, { headers: { authorization: `Bearer ${otherSecret}` } })).status).toBe(401);
  });

  it("refuses a poll without a key, with an unknown key, or for a project the key's user cannot see", async () => {
    const path = `/flags/definitions?token=${token}`;
    expect((await fetch(s.base + path)).status).toBe(401);
    expect((await fetch(s.base + path, { headers: { authorization: "Bearer phx_nope" } })).status).toBe(401);
    expect((await fetch(`${s.base}/flags/definitions?token=phc_unknown`, { headers: { authorization: `Bearer ${defaultApiKey(11)}` } })).status).toBe(401);
  });

  it("stores $feature_flag_called like any event", async () => {
    const id = s.store.persons.list(WEB)[0]!.distinct_ids[0]!;
    const value = await remote.getFeatureFlag("welcome-banner", id);
    expect(value).toBe(true);
    await remote.flush();
    const events = (await s.get(`/api/projects/${WEB}/events/?event=$feature_flag_called&distinct_id=${encodeURIComponent(id)}`, { key: defaultApiKey(11) })).body.results;
    expect(events[0].properties).toMatchObject({ $feature_flag: "welcome-banner", $feature_flag_response: true });
  });
});

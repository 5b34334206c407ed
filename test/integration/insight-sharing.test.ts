/**
 * Sharing an insight (issue 41, the web app's `GET /api/environments/:id/insights/:id/sharing/`): enable, the
 * token, and the shared insight read through `?sharing_access_token=` without a key. Facts from PostHog
 * `posthog/api/sharing.py` (SharingConfigurationViewSet: list, patch, refresh; the serializer's fields) and
 * `posthog/auth.py` (SharingAccessTokenAuthentication: GET only, "Sharing access token is invalid."). On
 * basic.json (clock 2024-03-05T12:00Z): insights 1 "Pageviews" (short id PgVw0001) and 2 in project 1. Every
 * response is validated against the document.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assertControlConforms } from "../support/control-contract.ts";
import { OTHER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const SHARING = "/api/environments/1/insights/1/sharing/";
const TOKEN = /^[A-Za-z0-9_-]{30}$/;
const shared = (token: string, path = "/api/environments/1/insights/1/") => s.get(`${path}?sharing_access_token=${encodeURIComponent(token)}`, { key: null });

describe("an insight's sharing", () => {
  it("is off until written: each read shows a new unsaved token, and nothing is stored", async () => {
    const first = await s.get(SHARING);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ created_at: null, enabled: false, settings: null, password_required: false, share_passwords: [] });
    expect(first.body.access_token).toMatch(TOKEN);
    expect((await s.get(SHARING)).body.access_token).not.toBe(first.body.access_token);
    expect(s.store.sharing.forInsight("1", 1)).toBeUndefined();
  });

  it("is enabled by PATCH, keeps its token, and the token reads that insight without a key", async () => {
    const enabled = await s.patch(SHARING, { enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ created_at: "2024-03-05T12:00:00.000Z", enabled: true, settings: null, password_required: false });
    const token = enabled.body.access_token as string;
    expect(token).toMatch(TOKEN);
    expect((await s.get(SHARING)).body.access_token).toBe(token);

    const read = await shared(token);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 1, short_id: "PgVw0001", name: "Pageviews" });
    expect((await shared(token, "/api/projects/1/insights/PgVw0001/")).body.id).toBe(1);

    // The token opens the insight without a key: the request log keeps it masked, as it masks keys.
    const answer = await fetch(`${s.base}/_mock/requests/?limit=5`);
    const logged = (await answer.json()) as { results: { query: string }[] };
    await assertControlConforms("GET", "/_mock/requests/", answer.status, logged);
    const queries = logged.results.map((entry) => entry.query).filter((query) => query.startsWith("sharing_access_token="));
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) expect(query).toBe(`sharing_access_token=${token.slice(0, 4)}…${token.slice(-4)}`);
  });

  it("opens nothing else: another insight is 403, a write or an unknown token 401, a disabled one 401", async () => {
    const token = (await s.patch(SHARING, { enabled: true })).body.access_token as string;
    expect((await shared(token, "/api/projects/1/insights/2/")).body).toMatchObject({ code: "permission_denied" });
    expect((await shared(token, "/api/projects/1/insights/")).status).toBe(403);
    const write = await s.patch(`/api/projects/1/insights/1/?sharing_access_token=${token}`, { name: "x" }, { key: null });
    expect(write.body).toMatchObject({ type: "authentication_error", detail: "Sharing access token can only be used for GET requests." });
    expect((await shared("not-a-token")).body).toMatchObject({ type: "authentication_error", code: "authentication_failed", detail: "Sharing access token is invalid." });

    expect((await s.patch(SHARING, { enabled: false })).body).toMatchObject({ enabled: false, access_token: token });
    expect((await shared(token)).status).toBe(401);
  });

  it("gets a new token from refresh; links with the old one stop working", async () => {
    const old = (await s.patch(SHARING, { enabled: true })).body.access_token as string;
    const refreshed = await s.post(`${SHARING}refresh/`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ enabled: true, created_at: "2024-03-05T12:00:00.000Z" });
    expect(refreshed.body.access_token).toMatch(TOKEN);
    expect(refreshed.body.access_token).not.toBe(old);
    expect((await shared(old)).status).toBe(401);
    expect((await shared(refreshed.body.access_token)).status).toBe(200);
  });

  it("stores display settings as given, refuses a password (a paid feature) and bad input, and 404s an unknown insight", async () => {
    expect((await s.patch(SHARING, { settings: { whitelabel: true } })).body).toMatchObject({ enabled: false, settings: { whitelabel: true } });
    expect((await s.patch(SHARING, { password_required: true })).body).toMatchObject({ code: "permission_denied", detail: "Sharing with password requires the Advanced Permissions feature" });
    expect((await s.patch(SHARING, { password_required: false })).status).toBe(200);
    expect((await s.patch(SHARING, { enabled: "yes" })).body).toMatchObject({ type: "validation_error", attr: "enabled" });
    expect((await s.get("/api/projects/1/insights/99/sharing/")).status).toBe(404);
    expect((await s.get(SHARING, { key: OTHER_KEY })).status).toBe(403);
  });
});

import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureRequest } from "../support/capture-contract.ts";
import { lzBomb } from "../support/lz-bomb.ts";
import { assertControlConforms } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/** The capture protocol over HTTP on the basic scenario (clock frozen at 2024-03-05T12:00Z). */
let s: TestServer;
let token: string;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
  token = s.store.projects.get("1")!.api_token;
});
afterEach(() => s.close());

const P = "/api/projects/1";
const NOW = "2024-03-05T12:00:00.000Z";
const uuid = (n: number) => `0190aaaa-0000-7000-8000-${String(n).padStart(12, "0")}`;
const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });
const post = (path: string, body: unknown) => captureRequest(s.base, "POST", path, json(body));
const eventsNamed = async (name: string, project = P) => (await s.get(`${project}/events/?event=${encodeURIComponent(name)}`)).body.results as any[];
const eventCount = async () => (await s.get(`${P}/events/?limit=1000`)).body.results.length as number;

describe("capture endpoints", () => {
  it("stores a posthog-node style batch with the server's clock and creates the person", async () => {
    const batch = { api_key: token, sent_at: "2030-01-01T00:05:00.000Z", batch: [{ event: "order placed", distinct_id: "new-user", uuid: uuid(1), timestamp: "2030-01-01T00:00:00.000Z", properties: { amount: 42, $set: { email: "n@x.io" } } }] };
    const res = await post("/batch/", batch);
    expect(res).toMatchObject({ status: 200, body: { status: 1 } });
    const [event] = await eventsNamed("order placed");
    // now + (timestamp − sent_at): five minutes before the server's frozen now (reference §1.7).
    expect(event).toMatchObject({ id: uuid(1), distinct_id: "new-user", timestamp: "2024-03-05T11:55:00.000Z", properties: { amount: 42, $sent_at: "2030-01-01T00:05:00.000Z" } });
    const persons = (await s.get(`${P}/persons/?distinct_id=new-user`)).body.results;
    expect(persons).toHaveLength(1);
    expect(persons[0]).toMatchObject({ distinct_ids: ["new-user"], properties: { email: "n@x.io", $creator_event_uuid: uuid(1) }, created_at: "2024-03-05T11:55:00.000Z" });
  });

  it("answers every event path, with or without the trailing slash, and GET with data=", async () => {
    const paths = ["/e/", "/e", "/i/v0/e/", "/capture/", "/track", "/engage/", "/batch"];
    for (const [i, path] of paths.entries()) {
      expect((await post(path, { api_key: token, event: `ev-${i}`, distinct_id: "p", uuid: uuid(10 + i) })).status).toBe(200);
    }
    const data = Buffer.from(JSON.stringify({ token, event: "from-get", distinct_id: "p" })).toString("base64");
    expect((await captureRequest(s.base, "GET", `/e/?data=${encodeURIComponent(data)}`)).status).toBe(200);
    for (const [i] of paths.entries()) expect(await eventsNamed(`ev-${i}`)).toHaveLength(1);
    expect(await eventsNamed("from-get")).toHaveLength(1);
  });

  it("decodes gzip in text/plain without a hint, form data= base64 and sendBeacon (204)", async () => {
    const body = JSON.stringify({ api_key: token, batch: [{ event: "gz", properties: { distinct_id: "g", token } }] });
    expect((await captureRequest(s.base, "POST", "/e/?ver=1.0", { body: gzipSync(body), headers: { "content-type": "text/plain" } })).status).toBe(200);
    const form = `data=${encodeURIComponent(Buffer.from(body.replace('"gz"', '"form"')).toString("base64"))}`;
    expect((await captureRequest(s.base, "POST", "/e/?compression=base64&beacon=1", { body: form, headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(204);
    expect(await eventsNamed("gz")).toHaveLength(1);
    expect(await eventsNamed("form")).toHaveLength(1);
  });

  it("refuses a missing or unknown token with 401 and stores nothing", async () => {
    const before = await eventCount();
    const missing = await post("/batch/", { batch: [{ event: "x", distinct_id: "d" }] });
    expect(missing).toMatchObject({ status: 401, body: { type: "authentication_error", code: "missing_api_key" } });
    const unknown = await post("/batch/", { api_key: "phc_nope", batch: [{ event: "x", distinct_id: "d" }] });
    expect(unknown).toMatchObject({ status: 401, body: { code: "invalid_api_key" } });
    const personal = await post("/capture/", { api_key: "phx_test_owner_key_0001", event: "x", distinct_id: "d" });
    expect(personal.status).toBe(401);
    expect(await eventCount()).toBe(before);
  });

  it("stores events only in the token's project", async () => {
    const other = s.store.projects.get("2")!.api_token;
    expect((await post("/capture/", { api_key: other, event: "elsewhere", distinct_id: "m1" })).status).toBe(200);
    expect(await eventsNamed("elsewhere")).toHaveLength(0);
    expect(await eventsNamed("elsewhere", "/api/projects/2")).toHaveLength(1);
  });

  it("a re-sent uuid is the same event (SDK retries)", async () => {
    const batch = { api_key: token, batch: [{ event: "retry", distinct_id: "r", uuid: uuid(5) }, { event: "retry", distinct_id: "r", uuid: uuid(5) }] };
    await post("/batch/", batch);
    await post("/batch/", batch);
    expect(await eventsNamed("retry")).toHaveLength(1);
  });

  it.each<[string, () => Promise<{ status: number; body: any }>, number, string]>([
    ["malformed JSON", () => captureRequest(s.base, "POST", "/batch/", { body: "{nope", headers: { "content-type": "application/json" } }), 400, "request_parsing_error"],
    ["one event without distinct_id", () => post("/batch/", { api_key: token, batch: [{ event: "half", distinct_id: "ok" }, { event: "half" }] }), 400, "missing_distinct_id"],
    ["an event without a name", () => post("/batch/", { api_key: token, batch: [{ event: "half", distinct_id: "ok" }, { distinct_id: "x" }] }), 400, "missing_event_name"],
    ["a __proto__ key", () => captureRequest(s.base, "POST", "/batch/", { body: `{"api_key":"${token}","batch":[{"event":"half","distinct_id":"p","properties":{"__proto__":{"polluted":1}}}]}`, headers: { "content-type": "application/json" } }), 400, "request_parsing_error"],
    ["deep nesting", () => captureRequest(s.base, "POST", "/batch/", { body: `{"api_key":"${token}","batch":[{"event":"half","distinct_id":"p","properties":{"x":${"[".repeat(200)}${"]".repeat(200)}}}]}`, headers: { "content-type": "application/json" } }), 400, "request_parsing_error"],
    ["an empty batch", () => post("/batch/", { api_key: token, batch: [] }), 400, "empty_batch"],
    ["a gzip bomb beyond 2 MB", () => captureRequest(s.base, "POST", "/e/", { body: gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20)), headers: { "content-type": "text/plain" } }), 413, "payload_too_large"],
    ["an lz64 bomb (100 KB expanding to 800 M characters)", () => captureRequest(s.base, "POST", "/e/?compression=lz64", { body: lzBomb(40_000), headers: { "content-type": "text/plain" } }), 413, "payload_too_large"],
    ["a gzip bomb with Content-Encoding", () => captureRequest(s.base, "POST", "/e/", { body: gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20)), headers: { "content-type": "application/json", "content-encoding": "gzip" } }), 413, "payload_too_large"],
  ])("refuses %s and stores nothing of the request", async (_name, send, status, code) => {
    const before = await eventCount();
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await eventCount()).toBe(before);
    expect(await eventsNamed("half")).toHaveLength(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("stringifies a non-string distinct id", async () => {
    await post("/capture/", { api_key: token, event: "numeric", distinct_id: 12345 });
    expect((await eventsNamed("numeric"))[0].distinct_id).toBe("12345");
  });
});

describe("persons and analyses see captured events at once", () => {
  it("$identify merges the anonymous person; earlier events count for the merged person in a funnel", async () => {
    const funnel = { events: [{ id: "landing", order: 0 }, { id: "checkout", order: 1 }], date_from: "2024-03-05", date_to: "2024-03-05" };
    const before = (await s.post(`${P}/insights/funnel/`, funnel)).body.result.map((st: any) => st.count);
    expect(before).toEqual([]); // no event of either step yet; computed (and cached) before the capture
    await post("/batch/", { api_key: token, batch: [{ event: "landing", distinct_id: "anon-9", timestamp: "2024-03-05T10:00:00Z", $set_once: { first_seen_on: "landing" } }] });
    await post("/batch/", {
      api_key: token,
      batch: [
        { event: "$identify", distinct_id: "user-9", timestamp: "2024-03-05T10:01:00Z", properties: { $anon_distinct_id: "anon-9", $set: { email: "nine@x.io" } } },
        { event: "checkout", distinct_id: "user-9", timestamp: "2024-03-05T10:02:00Z" },
      ],
    });
    const persons = (await s.get(`${P}/persons/?distinct_id=anon-9`)).body.results;
    expect(persons).toHaveLength(1);
    expect(persons[0]).toMatchObject({ is_identified: true, properties: { email: "nine@x.io", first_seen_on: "landing" }, created_at: "2024-03-05T10:00:00.000Z" });
    expect([...persons[0].distinct_ids].sort()).toEqual(["anon-9", "user-9"]);
    const after = (await s.post(`${P}/insights/funnel/`, funnel)).body.result.map((st: any) => st.count);
    expect(after).toEqual([1, 1]);
  });

  it("an identified person is not merged by $identify", async () => {
    // a (persons 1) and b (person 2) exist in the scenario; neither is identified yet, so identify b first.
    await post("/batch/", { api_key: token, batch: [{ event: "$identify", distinct_id: "b", properties: { $anon_distinct_id: "fresh-b" } }] });
    await post("/batch/", { api_key: token, batch: [{ event: "$identify", distinct_id: "c", properties: { $anon_distinct_id: "b" } }] });
    const b = (await s.get(`${P}/persons/?distinct_id=b`)).body.results;
    const c = (await s.get(`${P}/persons/?distinct_id=c`)).body.results;
    expect(b[0].id).not.toBe(c[0].id);
    expect([...b[0].distinct_ids].sort()).toEqual(["b", "fresh-b"]);
  });

  it("personless events create no person; a trend sees them at once", async () => {
    const trend = { events: [{ id: "quiet", math: "total" }], date_from: "2024-03-05", date_to: "2024-03-05" };
    expect((await s.post(`${P}/insights/trend/`, trend)).body.result[0].count).toBe(0);
    await post("/capture/", { api_key: token, event: "quiet", distinct_id: "ghost", properties: { $process_person_profile: false, $set: { k: 1 } } });
    expect((await s.post(`${P}/insights/trend/`, trend)).body.result[0].count).toBe(1);
    expect((await s.get(`${P}/persons/?distinct_id=ghost`)).body.results).toHaveLength(0);
  });

  it("$set_once twice keeps the first value; $unset removes", async () => {
    await post("/capture/", { api_key: token, event: "$set", distinct_id: "once", $set_once: { first: 1 } });
    await post("/capture/", { api_key: token, event: "$set", distinct_id: "once", $set_once: { first: 2 }, properties: { $set: { later: true } } });
    await post("/capture/", { api_key: token, event: "x", distinct_id: "once", properties: { $unset: ["later"] } });
    const [person] = (await s.get(`${P}/persons/?distinct_id=once`)).body.results;
    expect(person.properties).toMatchObject({ first: 1 });
    expect(person.properties).not.toHaveProperty("later");
  });

  it("$groupidentify upserts the group and its type; $groups sets $group_N for unique_group", async () => {
    await post("/batch/", {
      api_key: token,
      batch: [
        { event: "$groupidentify", distinct_id: "$company_acme", properties: { $group_type: "company", $group_key: "acme", $group_set: { name: "Acme" } } },
        { event: "used", distinct_id: "a", properties: { $groups: { company: "acme" } } },
        { event: "used", distinct_id: "b", properties: { $groups: { company: "acme" } } },
        { event: "used", distinct_id: "c", properties: { $groups: { company: "globex" } } },
      ],
    });
    const index = s.store.groups.indexOf("1", "company");
    expect(index).toBe(0);
    expect(s.store.groups.get("1", 0, "acme")?.properties).toEqual({ name: "Acme" });
    expect((await eventsNamed("used"))[0].properties.$group_0).toBeDefined();
    const trend = { events: [{ id: "used", math: "unique_group", math_group_type_index: index }], date_from: "2024-03-05", date_to: "2024-03-05" };
    expect((await s.post(`${P}/insights/trend/`, trend)).body.result[0].count).toBe(2);
    expect((await s.get(`${P}/persons/?distinct_id=$company_acme`)).body.results).toHaveLength(0);
  });
});

describe("flags, remote config and CORS", () => {
  it("answers /flags v2 and v1, /decide, and remote config", async () => {
    // Project 1 of basic.json has six flags; welcome-banner is on for everyone with a payload.
    const banner = { key: "welcome-banner", enabled: true, variant: null, reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" } };
    const v2 = await post("/flags/?v=2", { token, distinct_id: "x" });
    expect(v2.body).toMatchObject({ errorsWhileComputingFlags: false, flags: { "welcome-banner": { ...banner, metadata: { id: 4, version: 1, payload: '{"title": "Welcome!"}' } } } });
    expect(Object.keys(v2.body.flags).sort()).toEqual(["checkout-experiment", "internal-tools", "new-onboarding", "paying-features", "pro-plan-tools", "welcome-banner"]);
    const v1 = (await post("/flags/", { token, distinct_id: "x" })).body;
    expect(v1).toMatchObject({ featureFlags: { "welcome-banner": true, "internal-tools": false }, featureFlagPayloads: { "welcome-banner": '{"title": "Welcome!"}' } });
    expect((await post("/decide/?v=3", { token, distinct_id: "x" })).body).toMatchObject({ featureFlags: v1.featureFlags, config: { enable_collect_everything: true } });
    expect((await post("/decide/?v=4", { token, distinct_id: "x" })).body).toMatchObject({ flags: { "welcome-banner": banner }, config: { enable_collect_everything: true } });
    expect((await post("/flags/?v=2", { token: "phc_unknown", distinct_id: "x" })).status).toBe(401);
    expect((await post("/flags/?v=2", { token })).body).toMatchObject({ attr: "distinct_id", detail: "The distinct_id field is missing" });
    // Project 2 has no flag: posthog-js is told not to ask.
    const other = s.store.projects.get("2")!.api_token;
    expect((await post("/flags/?v=2", { token: other, distinct_id: "x" })).body.flags).toEqual({});
    expect((await captureRequest(s.base, "GET", `/array/${other}/config`)).body).toMatchObject({ hasFeatureFlags: false });
    const config = await captureRequest(s.base, "GET", `/array/${token}/config`);
    expect(config.body).toMatchObject({ token, supportedCompression: ["gzip", "gzip-js"], sessionRecording: false, hasFeatureFlags: true });
    const script = await captureRequest(s.base, "GET", `/array/${token}/config.js`);
    expect(script.body).toContain(`window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}]`);
    expect((await captureRequest(s.base, "GET", "/array/phc_unknown/config")).status).toBe(404);
  });

  it("answers a browser preflight mirroring the origin and headers, with credentials", async () => {
    const res = await fetch(`${s.base}/e/?compression=gzip-js`, {
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://app.example");
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("access-control-allow-headers")).toBe("content-type");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
  });
});

describe("the capture door", () => {
  it("matches paths as written and leaves every other request to the API", async () => {
    const upper = await fetch(`${s.base}/E/`, { method: "POST", ...json({ api_key: token, event: "upper", distinct_id: "u" }) });
    expect(upper.status).toBe(404);
    expect(await upper.json()).toMatchObject({ type: "invalid_request", code: "not_found" });
    const put = await fetch(`${s.base}/flags/`, { method: "PUT", ...json({ token, distinct_id: "u" }) });
    expect(put.status).toBe(404);
    expect(Object.keys((await put.json()) as object).sort()).toEqual(["attr", "code", "detail", "type"]);
    expect(await eventsNamed("upper")).toHaveLength(0);
  });

  it("answers HEAD like GET without a body, and logs its requests with their bodies and capture.yaml operation", async () => {
    const head = await fetch(`${s.base}/array/${token}/config/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await head.text()).toBe("");
    await post("/flags/?v=2", { token, distinct_id: "logged-flags" });
    const found = await fetch(`${s.base}/_mock/requests/find/`, { method: "POST", ...json({ path: "/flags/" }) });
    const log = (await found.json()) as { requests: any[] };
    await assertControlConforms("POST", "/_mock/requests/find/", found.status, log);
    const [entry] = log.requests;
    expect(entry).toMatchObject({ method: "POST", path: "/flags/", query: "v=2", status: 200, operation_id: "flags_evaluate", body: { token, distinct_id: "logged-flags" } });
  });
});

describe("the clock", () => {
  it("an event without timestamp lands at the server's now", async () => {
    await post("/capture/", { api_key: token, event: "now-ish", distinct_id: "n" });
    expect((await eventsNamed("now-ish"))[0].timestamp).toBe(NOW);
  });
});

describe("GET /_mock/captured/", () => {
  const captured = async (query = "") => {
    const res = await fetch(`${s.base}/_mock/captured/${query}`);
    const body = res.status === 204 ? undefined : await res.json();
    await assertControlConforms("GET", "/_mock/captured/", res.status, body);
    return { status: res.status, body: body as any };
  };

  it("lists the last capture requests decoded, newest first, refused ones with their reason; DELETE clears", async () => {
    await captureRequest(s.base, "POST", "/e/", { body: gzipSync(JSON.stringify({ api_key: token, batch: [{ event: "logged", distinct_id: "l" }] })), headers: { "content-type": "text/plain" } });
    await post("/batch/", { batch: [{ event: "x", distinct_id: "d" }] });
    const { body } = await captured("?limit=5");
    expect(body.total).toBe(2);
    expect(body.results[0]).toMatchObject({ method: "POST", path: "/batch/", status: 401, error: expect.stringContaining("API key not provided") });
    expect(body.results[1]).toMatchObject({ path: "/e/", status: 200, content_type: "text/plain", decoded: { api_key: token, batch: [{ event: "logged", distinct_id: "l" }] }, error: null });
    expect((await captured("?limit=1")).body.results).toHaveLength(1);
    expect((await captured("?limit=0")).status).toBe(400);
    const cleared = await fetch(`${s.base}/_mock/captured/`, { method: "DELETE" });
    expect(cleared.status).toBe(204);
    expect((await captured()).body.results).toEqual([]);
  });
});

/**
 * Session replay: `/s/` ingests posthog-js's `$snapshot` batches (gzip-js, base64 form, plain JSON), the
 * recordings API reads them back (list with its filters and pagination, retrieve, snapshots, delete), remote
 * config answers the `sessionRecording` object of an opted-in project, and recordings survive a restart.
 * On fixtures/scenarios/features.json (frozen at 2024-05-01T12:00Z): project 1 opted in, project 2 not; person
 * `known-user` in project 1. Every answer is validated against its document. Shapes follow PostHog/posthog
 * posthog/session_recordings/session_recording_api.py (SessionRecordingSerializer, list_recordings_response,
 * _gather_session_recording_sources) and posthog/models/remote_config.py (build_config).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { waitForRecordingOverHttp } from "../../src/playwright/analytics.ts";
import { assertConforms } from "../support/contract.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { callControl } from "../support/control-contract.ts";
import { callServer, OWNER_KEY, qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

const TOKEN = "phc_test_features_token_0001";
const OFF_TOKEN = "phc_test_features_token_0002";
const P = "/api/projects/1";
const E = "/api/environments/1";

const T0 = Date.UTC(2024, 4, 1, 11, 0, 0); // 2024-05-01T11:00Z, an hour before the fixture's now
const T1 = Date.UTC(2024, 3, 30, 10, 0, 0); // 2024-04-30T10:00Z
const OLD = Date.UTC(2024, 3, 10, 10, 0, 0); // 2024-04-10: before the list's default -3d

const meta = (t: number, href: string) => ({ type: 4, timestamp: t, data: { href, width: 1280, height: 720 } });
const full = (t: number) => ({ type: 2, timestamp: t, data: { node: { id: 1, type: 0, childNodes: [] }, initialOffset: { top: 0, left: 0 } } });
const mouse = (t: number, interaction: number) => ({ type: 3, timestamp: t, data: { source: 2, type: interaction, id: 7, x: 10, y: 20 } });
const move = (t: number) => ({ type: 3, timestamp: t, data: { source: 1, positions: [{ x: 1, y: 2, id: 7, timeOffset: 0 }] } });
const input = (t: number) => ({ type: 3, timestamp: t, data: { source: 5, id: 9, text: "a", isChecked: false } });
const consoleLine = (t: number, level: string) => ({ type: 6, timestamp: t, data: { plugin: "rrweb/console@1", payload: { level, trace: [], payload: ['"hi"'] } } });

/** Session A's two batches, as posthog-js flushes them (its buffer splits at idle or size). */
const A_FIRST = [meta(T0, "https://shop.example/home"), full(T0 + 10), mouse(T0 + 1000, 2), mouse(T0 + 2000, 4), mouse(T0 + 2500, 1), move(T0 + 3000), input(T0 + 4000), input(T0 + 4500)];
const A_SECOND = [consoleLine(T0 + 5000, "log"), consoleLine(T0 + 5100, "warn"), consoleLine(T0 + 5200, "error"), mouse(T0 + 60_000, 2)];

const snapshotEvent = (session: string, distinctId: string, data: unknown[], extra: Record<string, unknown> = {}) => ({
  event: "$snapshot",
  distinct_id: distinctId,
  properties: { token: TOKEN, $session_id: session, $window_id: `${session}-window`, $snapshot_data: data, $lib: "web", ...extra },
});

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("features"));
});
afterEach(() => s.close());

const post = (pathAndQuery: string, body: string | Buffer, contentType = "text/plain") => captureRequest(s.base, "POST", pathAndQuery, { body, headers: { "content-type": contentType } });
const postJson = (body: unknown) => post("/s/", JSON.stringify(body), "application/json");

/** Session A as two requests (gzip-js, then a base64 form), session B in plain JSON after its pageview. */
async function recordSessions(): Promise<void> {
  const gz = await post("/s/?compression=gzip-js&ver=1.449.2", gzipSync(JSON.stringify([snapshotEvent("s-a", "known-user", A_FIRST)])));
  expect(gz.status).toBe(200);
  expect(gz.body).toEqual({ status: 1 });
  const form = `data=${encodeURIComponent(Buffer.from(JSON.stringify([snapshotEvent("s-a", "known-user", A_SECOND)])).toString("base64"))}`;
  expect((await post("/s/", form, "application/x-www-form-urlencoded")).status).toBe(200);
  const pageview = { api_key: TOKEN, batch: [{ event: "$pageview", distinct_id: "visitor-b", timestamp: new Date(T1 - 500).toISOString(), properties: { $session_id: "s-b", $current_url: "https://shop.example/pricing" } }] };
  expect((await post("/batch/", JSON.stringify(pageview), "application/json")).status).toBe(200);
  expect((await postJson({ api_key: TOKEN, batch: [snapshotEvent("s-b", "visitor-b", [mouse(T1, 2), move(T1 + 10_000)])] })).status).toBe(200);
  expect((await postJson([snapshotEvent("s-old", "visitor-c", [full(OLD), mouse(OLD + 2000, 2)])])).status).toBe(200);
}

const ids = (body: { results: { id: string }[] }) => body.results.map((r) => r.id);

describe("ingesting and reading back", () => {
  it("answers a recording's metadata from its rrweb events, in the real serializer's shape", async () => {
    await recordSessions();
    const a = (await s.get(`${E}/session_recordings/s-a/`)).body;
    // Worked out by hand from A_FIRST + A_SECOND: clicks are Click (2), DblClick (4) and the late Click, not MouseDown (1);
    // mouse activity is the four mouse interactions and the move; active time is 10 ms … 4500 ms (the late click
    // opens a new stretch after a 55 s gap): 4.49 s, 4 whole seconds of 60.
    expect(a).toMatchObject({
      id: "s-a",
      distinct_id: "known-user",
      recording_duration: 60,
      active_seconds: 4,
      inactive_seconds: 56,
      start_time: "2024-05-01T11:00:00.000Z",
      end_time: "2024-05-01T11:01:00.000Z",
      click_count: 3,
      keypress_count: 2,
      mouse_activity_count: 5,
      console_log_count: 1,
      console_warn_count: 1,
      console_error_count: 1,
      start_url: "https://shop.example/home",
      snapshot_library: "web",
      viewed: false,
      person: { distinct_ids: ["known-user"], properties: { email: "known@example.com" }, name: "known@example.com" },
    });
    // No meta event: the session's first event's $current_url (its pageview also made visitor-b a person).
    expect((await s.get(`${P}/session_recordings/s-b/`)).body).toMatchObject({ start_url: "https://shop.example/pricing", recording_duration: 10, click_count: 1, mouse_activity_count: 2, person: { distinct_ids: ["visitor-b"] } });
    // No person for an id never captured as an event, and no URL without a meta event or an event of the session.
    expect((await s.get(`${P}/session_recordings/s-old/`)).body).toMatchObject({ person: null, start_url: null, distinct_id: "visitor-c" });
    expect((await s.get(`${P}/session_recordings/nope/`)).status).toBe(404);
  });

  it("keeps snapshots out of the events and the analyses", async () => {
    const before = (await s.get(`${P}/events/`)).body.results.length;
    await postJson([snapshotEvent("s-x", "known-user", [full(T0)])]);
    expect((await s.get(`${P}/events/`)).body.results.length).toBe(before);
    expect((await s.get(`${P}/events/?event=%24snapshot`)).body.results).toEqual([]);
  });

  it("lists sources, then answers their snapshots as JSON lines of [window_id, event]", async () => {
    await recordSessions();
    const sources = await s.get(`${P}/session_recordings/s-a/snapshots/`);
    expect(sources.body).toEqual({
      sources: [
        { source: "blob_v2", start_timestamp: "2024-05-01T11:00:00.000Z", end_timestamp: "2024-05-01T11:00:04.500Z", blob_key: "0" },
        { source: "blob_v2", start_timestamp: "2024-05-01T11:00:05.000Z", end_timestamp: "2024-05-01T11:01:00.000Z", blob_key: "1" },
      ],
    });
    const url = `${P}/session_recordings/s-a/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=1`;
    const res = await fetch(s.base + url, { headers: { authorization: `Bearer ${OWNER_KEY}` } });
    const text = await res.text();
    await assertConforms({ method: "GET", path: url, status: res.status, contentType: res.headers.get("content-type"), body: text });
    expect(res.headers.get("content-type")).toMatch(/^application\/jsonl/);
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual([...A_FIRST, ...A_SECOND].map((e) => ["s-a-window", e]));
    const second = await fetch(`${s.base}${P}/session_recordings/s-a/snapshots/?source=blob_v2&blob_key=1`, { headers: { authorization: `Bearer ${OWNER_KEY}` } });
    expect((await second.text()).trimEnd().split("\n")).toHaveLength(A_SECOND.length);
    for (const [query, attr] of [["source=blob_v2", "start_blob_key"], ["source=blob_v2&start_blob_key=0&end_blob_key=21", "end_blob_key"], ["source=realtime", "source"]] as const) {
      const bad = await s.get(`${P}/session_recordings/s-a/snapshots/?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.attr).toBe(attr);
    }
  });

  it("deletes a recording", async () => {
    await recordSessions();
    expect((await s.del(`${P}/session_recordings/s-a/`)).status).toBe(204);
    expect((await s.get(`${P}/session_recordings/s-a/`)).status).toBe(404);
    expect((await s.del(`${P}/session_recordings/s-a/`)).status).toBe(404);
    expect(ids((await s.get(`${P}/session_recordings/`)).body)).toEqual(["s-b"]);
  });
});

describe("the list", () => {
  beforeEach(recordSessions);
  const list = async (filter: Record<string, unknown> = {}) => (await s.get(`${E}/session_recordings/?${qs(filter)}`)).body;

  it("answers newest first over the last three days, paginated with has_next", async () => {
    expect(await list()).toMatchObject({ has_next: false, version: 4 });
    expect(ids(await list())).toEqual(["s-a", "s-b"]);
    expect(ids(await list({ date_from: "-30d" }))).toEqual(["s-a", "s-b", "s-old"]);
    expect(ids(await list({ date_from: "2024-04-30T00:00:00Z", date_to: "2024-04-30T23:59:59Z" }))).toEqual(["s-b"]);
    expect(await list({ limit: 1 })).toMatchObject({ has_next: true });
    expect(ids(await list({ limit: 1 }))).toEqual(["s-a"]);
    expect(await list({ limit: 1, offset: 1 })).toMatchObject({ has_next: false });
    expect(ids(await list({ limit: 1, offset: 1 }))).toEqual(["s-b"]);
    expect(ids(await list({ order: "duration", order_direction: "ASC" }))).toEqual(["s-b", "s-a"]);
  });

  it("filters by person, distinct ids, sessions, events in the session and metadata predicates", async () => {
    const person = s.store.persons.byDistinctId("1", "known-user")!;
    expect(ids(await list({ person_uuid: person.uuid }))).toEqual(["s-a"]);
    expect(ids(await list({ distinct_ids: ["visitor-b", "visitor-c"], date_from: "-30d" }))).toEqual(["s-b", "s-old"]);
    expect(ids(await list({ session_ids: ["s-b"] }))).toEqual(["s-b"]);
    expect(ids(await list({ events: [{ id: "$pageview", type: "events" }] }))).toEqual(["s-b"]);
    expect(ids(await list({ having_predicates: [{ type: "recording", key: "duration", operator: "gt", value: 30 }] }))).toEqual(["s-a"]);
    expect(ids(await list({ having_predicates: [{ type: "recording", key: "click_count", operator: "exact", value: 1 }] }))).toEqual(["s-b"]);
    expect(ids(await list({ having_predicates: [{ type: "recording", key: "console_error_count", operator: "gte", value: 1 }] }))).toEqual(["s-a"]);
  });

  it("refuses malformed filters with a 400 naming the parameter", async () => {
    for (const [filter, attr] of [
      [{ distinct_ids: "not json" }, "distinct_ids"],
      [{ events: { id: "$pageview" } }, "events"],
      [{ events: [{ type: "events" }] }, "events__0__id"],
      [{ having_predicates: [{ key: "loudness", operator: "gt", value: 1 }] }, "having_predicates__0__key"],
      [{ having_predicates: [{ key: "duration", operator: "near", value: 1 }] }, "having_predicates__0__operator"],
      [{ having_predicates: [{ key: "duration", operator: "gt", value: "long" }] }, "having_predicates__0__value"],
      [{ date_from: "yesterday" }, "date_from"],
      [{ person_uuid: "nobody" }, "person_uuid"],
      [{ order: "loudness" }, "order"],
      [{ limit: 0 }, "limit"],
    ] as const) {
      const res = await s.get(`${P}/session_recordings/?${qs(filter)}`);
      expect(res.status, JSON.stringify(filter)).toBe(400);
      expect(res.body).toMatchObject({ type: "validation_error", attr });
    }
  });
});

describe("/s/ refusals", () => {
  it("refuses a batch without its session, its snapshots, a distinct id or a known token, storing nothing", async () => {
    const noSession = await postJson([{ event: "$snapshot", distinct_id: "d", properties: { token: TOKEN, $snapshot_data: [full(T0)] } }]);
    expect(noSession.status).toBe(400);
    expect(noSession.body).toMatchObject({ type: "validation_error", code: "invalid_snapshot", attr: "$session_id" });
    const noData = await postJson([{ event: "$snapshot", distinct_id: "d", properties: { token: TOKEN, $session_id: "s" } }]);
    expect(noData.body).toMatchObject({ code: "invalid_snapshot", attr: "$snapshot_data" });
    expect((await postJson([{ event: "$snapshot", properties: { token: TOKEN, $session_id: "s", $snapshot_data: [] } }])).body).toMatchObject({ code: "missing_distinct_id" });
    expect((await postJson([snapshotEvent("s", "d", [full(T0)], { token: "phc_unknown" })])).status).toBe(401);
    expect((await post("/s/", "{not json", "application/json")).status).toBe(400);
    expect((await s.get(`${P}/session_recordings/?date_from=all`)).body.results).toEqual([]);
  });

  it("takes $snapshot_items as newer SDKs send them, and one event object as older ones did", async () => {
    expect((await postJson([{ event: "$snapshot", distinct_id: "d", properties: { token: TOKEN, $session_id: "s-i", $snapshot_items: [full(T0), mouse(T0 + 1000, 2)] } }])).status).toBe(200);
    expect((await postJson([{ event: "$snapshot", distinct_id: "d", properties: { token: TOKEN, $session_id: "s-i", $snapshot_data: mouse(T0 + 2000, 2) } }])).status).toBe(200);
    expect((await s.get(`${P}/session_recordings/s-i/`)).body).toMatchObject({ click_count: 2, recording_duration: 2, start_url: null });
  });
});

describe("POST /_mock/recordings/wait/", () => {
  it("answers once a session has enough snapshots, woken by their arrival", async () => {
    const waiting = callControl(s.base, "POST", "/recordings/wait/", { session_id: "s-a", snapshots: 10, timeout_ms: 10_000 });
    await postJson([snapshotEvent("s-a", "known-user", A_FIRST)]);
    await postJson([snapshotEvent("s-a", "known-user", A_SECOND)]);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    // 8 + 4 rrweb events: the second batch completes the 10.
    expect(answer.body).toEqual({ status: "matched", recordings: [{ session_id: "s-a", distinct_id: "known-user", snapshot_count: 12, recording_duration: 60, click_count: 3, keypress_count: 2, console_error_count: 1 }] });
  });

  it("is what the Playwright kit's waitForRecording calls", async () => {
    const waiting = waitForRecordingOverHttp(s.base, { distinct_id: "known-user", snapshots: 12, timeout_ms: 10_000 });
    await postJson([snapshotEvent("s-a", "known-user", [...A_FIRST, ...A_SECOND])]);
    expect(await waiting).toMatchObject({ status: "matched", recordings: [{ session_id: "s-a", snapshot_count: 12 }] });
    await expect(waitForRecordingOverHttp(s.base, { snapshots: 0 })).rejects.toThrow(/answered 400/);
  });

  it("times out with what there is, and refuses a bad bound naming it", async () => {
    await postJson([snapshotEvent("s-a", "known-user", A_FIRST)]);
    expect((await callControl(s.base, "POST", "/recordings/wait/", { session_id: "s-a", snapshots: 100, timeout_ms: 0 })).body).toEqual({ status: "timed_out", recordings: [] });
    expect((await callControl(s.base, "POST", "/recordings/wait/", { distinct_id: "known-user", timeout_ms: 0 })).body.recordings.map((r: { snapshot_count: number }) => r.snapshot_count)).toEqual([8]);
    const bad = await callControl(s.base, "POST", "/recordings/wait/", { snapshots: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("snapshots");
  });
});

describe("remote config", () => {
  it("answers the real sessionRecording object to an opted-in project, and false otherwise", async () => {
    // features.json: opted in, sample rate "1.00" (sent as none), minimum duration 0 (none), console logs on.
    const expected = { endpoint: "/s/", consoleLogRecordingEnabled: true, recorderVersion: "v2", sampleRate: null, minimumDurationMilliseconds: null, linkedFlag: null };
    const on = await captureRequest(s.base, "GET", `/array/${TOKEN}/config`);
    expect(on.body.sessionRecording).toMatchObject(expected);
    expect((await captureRequest(s.base, "GET", `/array/${OFF_TOKEN}/config`)).body.sessionRecording).toBe(false);
    const flags = await captureRequest(s.base, "POST", "/flags/?v=2&config=true", { body: JSON.stringify({ token: TOKEN, distinct_id: "d" }), headers: { "content-type": "application/json" } });
    expect(flags.body.sessionRecording).toMatchObject(expected);
  });
});

describe("on disk", () => {
  let running: StartedServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  const features = fileURLToPath(new URL("../../fixtures/scenarios/features.json", import.meta.url));
  const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent", "--now", "2024-05-01T12:00:00Z"])!, createLogger("silent"));

  it("keeps recordings and deletions across a restart", async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-recordings-")), "db.json");
    running = await start(["--data", data, "--fixtures", features]);
    const send = (body: unknown) => captureRequest(running!.url, "POST", "/s/", { body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    expect((await send([snapshotEvent("s-a", "known-user", A_FIRST)])).status).toBe(200);
    expect((await send([snapshotEvent("s-a", "known-user", A_SECOND)])).status).toBe(200);
    expect((await send([snapshotEvent("s-gone", "d", [full(T0)])])).status).toBe(200);
    expect((await callServer(running.url, "DELETE", `${P}/session_recordings/s-gone/`)).status).toBe(204);
    await running.close();

    running = await start(["--data", data]);
    expect(running.source).toBe("data-file");
    const list = await callServer(running.url, "GET", `${P}/session_recordings/`);
    expect(list.body.results.map((r: { id: string }) => r.id)).toEqual(["s-a"]);
    expect(list.body.results[0]).toMatchObject({ click_count: 3, keypress_count: 2, recording_duration: 60, console_error_count: 1 });
    expect((await callServer(running.url, "GET", `${P}/session_recordings/s-a/snapshots/`)).body.sources).toHaveLength(2);
  });
});

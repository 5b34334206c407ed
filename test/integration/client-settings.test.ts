/**
 * The project's client-library settings (issue 40) through the projects API, the fixture document, a restart
 * and `--session-recording`; and the remote-config keys they decide. Defaults and remote-config shapes are the
 * real service's (PostHog/posthog posthog/models/team/team.py field defaults; posthog/models/remote_config.py
 * `build_config`; the sample rate's bounds from the model's DecimalField(max_digits=3, decimal_places=2, 0–1)).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { projectFile } from "../../src/util/project-files.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { callServer, OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

const FEATURES_TOKEN = "phc_test_features_token_0001";
const PLAIN_TOKEN = "phc_test_features_token_0002";

/** A project that names none of the settings: the real Team model's defaults. */
const DEFAULTS = {
  session_recording_opt_in: false,
  session_recording_sample_rate: null,
  session_recording_minimum_duration_milliseconds: null,
  session_recording_linked_flag: null,
  capture_console_log_opt_in: true,
  capture_performance_opt_in: true,
  autocapture_exceptions_opt_in: null,
  heatmaps_opt_in: null,
  surveys_opt_in: null,
  capture_dead_clicks: false,
  autocapture_web_vitals_opt_in: null,
  autocapture_web_vitals_allowed_metrics: null,
};

let s: TestServer | undefined;
let running: StartedServer | undefined;
afterEach(async () => {
  await s?.close();
  await running?.close();
  s = running = undefined;
});

const remoteConfigOf = async (base: string, token: string) => (await captureRequest(base, "GET", `/array/${token}/config`)).body;

describe("the projects API", () => {
  it("answers the real defaults for a project that names none, and the fixture's values for one that does", async () => {
    s = await startTestServer(scenario("features"));
    expect((await s.get("/api/projects/2/")).body).toMatchObject(DEFAULTS);
    expect((await s.get("/api/projects/1/")).body).toMatchObject({
      session_recording_opt_in: true,
      session_recording_sample_rate: "1.00",
      session_recording_minimum_duration_milliseconds: 0,
      capture_console_log_opt_in: true,
      capture_performance_opt_in: true,
      autocapture_exceptions_opt_in: true,
      heatmaps_opt_in: true,
      surveys_opt_in: true,
      capture_dead_clicks: true,
      autocapture_web_vitals_opt_in: true,
    });
  });

  it("writes the settings a PATCH names, the sample rate stored with two decimals, and leaves the others", async () => {
    s = await startTestServer(scenario("features"));
    const res = await s.patch("/api/projects/2/", {
      session_recording_opt_in: true,
      session_recording_sample_rate: "0.5",
      session_recording_minimum_duration_milliseconds: 30000,
      session_recording_linked_flag: { id: 7, key: "beta", variant: "test" },
      autocapture_exceptions_opt_in: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...DEFAULTS,
      session_recording_opt_in: true,
      session_recording_sample_rate: "0.50",
      session_recording_minimum_duration_milliseconds: 30000,
      session_recording_linked_flag: { id: 7, key: "beta", variant: "test" },
      autocapture_exceptions_opt_in: true,
    });
    expect((await s.get("/api/environments/2/")).body).toEqual(res.body);
    expect((await s.patch("/api/projects/2/", { session_recording_sample_rate: null })).body.session_recording_sample_rate).toBeNull();
  });

  it.each([
    ["session_recording_sample_rate", "1.5"],
    ["session_recording_sample_rate", "0.555"],
    ["session_recording_sample_rate", 0.5],
    ["session_recording_minimum_duration_milliseconds", 30001],
    ["session_recording_minimum_duration_milliseconds", -1],
    ["session_recording_linked_flag", { id: 7 }],
    ["session_recording_linked_flag", { id: 7, key: "beta", extra: 1 }],
    ["heatmaps_opt_in", "yes"],
    ["autocapture_web_vitals_allowed_metrics", ["TTFB"]],
  ])("refuses %s = %j with a 400 naming it, writing nothing", async (field, value) => {
    s = await startTestServer(scenario("features"));
    const res = await s.patch("/api/projects/2/", { session_recording_opt_in: true, [field]: value });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr: expect.stringMatching(new RegExp(`^${field}`)) });
    expect((await s.get("/api/projects/2/")).body.session_recording_opt_in).toBe(false);
  });
});

describe("remote config from the settings", () => {
  it("answers a project with every feature on as the real remote config does", async () => {
    s = await startTestServer(scenario("features"));
    expect(await remoteConfigOf(s.base, FEATURES_TOKEN)).toMatchObject({
      autocaptureExceptions: true,
      errorTracking: { autocaptureExceptions: true, suppressionRules: [] },
      capturePerformance: { network_timing: true, web_vitals: true, web_vitals_allowed_metrics: null },
      captureDeadClicks: true,
      heatmaps: true,
    });
  });

  it("answers the defaults' config for a project that names none (network timing on, the rest off)", async () => {
    s = await startTestServer(scenario("features"));
    expect(await remoteConfigOf(s.base, PLAIN_TOKEN)).toMatchObject({
      autocaptureExceptions: false,
      errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
      capturePerformance: { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null },
      captureDeadClicks: false,
      heatmaps: false,
    });
  });

  it("follows a settings write at once, in the config, its script and /flags (no stale cached answer)", async () => {
    s = await startTestServer(scenario("features"));
    await remoteConfigOf(s.base, PLAIN_TOKEN);
    await captureRequest(s.base, "POST", "/flags/?v=2", { body: JSON.stringify({ token: PLAIN_TOKEN, distinct_id: "a" }), headers: { "content-type": "application/json" } });
    await s.patch("/api/projects/2/", { capture_performance_opt_in: false, autocapture_web_vitals_opt_in: true, autocapture_web_vitals_allowed_metrics: ["LCP", "CLS"], capture_dead_clicks: true });
    const expected = { capturePerformance: { network_timing: false, web_vitals: true, web_vitals_allowed_metrics: ["LCP", "CLS"] }, captureDeadClicks: true };
    expect(await remoteConfigOf(s.base, PLAIN_TOKEN)).toMatchObject(expected);
    const flags = await captureRequest(s.base, "POST", "/flags/?v=2", { body: JSON.stringify({ token: PLAIN_TOKEN, distinct_id: "a" }), headers: { "content-type": "application/json" } });
    expect(flags.body).toMatchObject(expected);
    const script = await captureRequest(s.base, "GET", `/array/${PLAIN_TOKEN}/config.js`);
    expect(script.body).toContain('"capturePerformance":{"network_timing":false,"web_vitals":true,"web_vitals_allowed_metrics":["LCP","CLS"]}');
    await s.patch("/api/projects/2/", { capture_performance_opt_in: false, autocapture_web_vitals_opt_in: false });
    expect((await remoteConfigOf(s.base, PLAIN_TOKEN)).capturePerformance).toBe(false);
  });
});

describe("settings on disk and at start", () => {
  const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));
  const call = (method: string, p: string, body?: unknown) => callServer(running!.url, method, p, body, OWNER_KEY);

  it("keeps a written setting across a restart from the data file", async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-settings-")), "db.json");
    running = await start(["--data", data, "--fixtures", projectFile("fixtures/scenarios/features.json")]);
    expect((await call("PATCH", "/api/projects/2/", { heatmaps_opt_in: true, session_recording_sample_rate: "0.25" })).status).toBe(200);
    await running.close();
    running = await start(["--data", data]);
    expect(running.source).toBe("data-file");
    expect((await call("GET", "/api/projects/2/")).body).toMatchObject({ heatmaps_opt_in: true, session_recording_sample_rate: "0.25" });
    expect((await remoteConfigOf(running.url, PLAIN_TOKEN)).heatmaps).toBe(true);
  });

  it("--session-recording turns recording on for every project, without writing it to the project", async () => {
    running = await start(["--in-memory", "--fixtures", "features", "--session-recording"]);
    expect((await call("GET", "/api/projects/2/")).body.session_recording_opt_in).toBe(true);
    expect(running.store.projects.get("2")!.session_recording_opt_in).toBeUndefined();
  });
});

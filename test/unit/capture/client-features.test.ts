/**
 * Remote config's feature keys from a project's settings, table-driven, as PostHog/posthog
 * posthog/models/remote_config.py `build_config` makes them (its tests, posthog/models/test/test_remote_config.py:
 * test_capture_dead_clicks_toggle, test_capture_performance_toggle, test_autocapture_exceptions_toggle); the
 * settings in force from the Team model's defaults (posthog/models/team/team.py).
 */
import { describe, expect, it } from "vitest";
import { clientFeatureConfig, performanceConfig } from "../../../src/capture/client-features.ts";
import { storedSampleRate } from "../../../src/handlers/project-settings.ts";
import { clientSettingsOf, type ClientSettings } from "../../../src/store/project-settings.ts";
import type { ProjectRecord } from "../../../src/store/schema.ts";

const project = (settings: Partial<ProjectRecord> = {}): ProjectRecord => ({
  id: "1",
  name: "Web",
  timezone: "UTC",
  members: null,
  test_account_filters: [],
  week_start_day: 0,
  api_token: "phc_test",
  ...settings,
});
const settings = (own: Partial<ProjectRecord> = {}): ClientSettings => clientSettingsOf(project(own));

describe("performanceConfig", () => {
  const cases: [string, Partial<ProjectRecord>, unknown][] = [
    ["both off: false", { capture_performance_opt_in: false }, false],
    ["null counts as off", { capture_performance_opt_in: null }, false],
    ["network timing by default (the model's default is true)", {}, { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null }],
    ["web vitals alone", { capture_performance_opt_in: false, autocapture_web_vitals_opt_in: true }, { network_timing: false, web_vitals: true, web_vitals_allowed_metrics: null }],
    [
      "both, with allowed metrics",
      { autocapture_web_vitals_opt_in: true, autocapture_web_vitals_allowed_metrics: ["LCP", "INP"] },
      { network_timing: true, web_vitals: true, web_vitals_allowed_metrics: ["LCP", "INP"] },
    ],
  ];
  it.each(cases)("%s", (_, own, want) => expect(performanceConfig(settings(own))).toEqual(want));
});

describe("clientFeatureConfig", () => {
  it("is all off but network timing for a project that names nothing", () => {
    expect(clientFeatureConfig(settings())).toEqual({
      captureDeadClicks: false,
      capturePerformance: { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null },
      autocaptureExceptions: false,
      errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
      heatmaps: false,
    });
  });

  it("turns each key on from its own setting", () => {
    expect(clientFeatureConfig(settings({ autocapture_exceptions_opt_in: true, capture_dead_clicks: true, heatmaps_opt_in: true, capture_performance_opt_in: false }))).toEqual({
      captureDeadClicks: true,
      capturePerformance: false,
      autocaptureExceptions: true,
      errorTracking: { autocaptureExceptions: true, suppressionRules: [] },
      heatmaps: true,
    });
  });
});

describe("clientSettingsOf", () => {
  it("takes the project's own values over the defaults, and the start-up override over both", () => {
    const own = project({ session_recording_opt_in: false, capture_console_log_opt_in: false });
    expect(clientSettingsOf(own)).toMatchObject({ session_recording_opt_in: false, capture_console_log_opt_in: false, capture_performance_opt_in: true });
    expect(clientSettingsOf(own, { sessionRecording: true }).session_recording_opt_in).toBe(true);
  });
});

describe("storedSampleRate", () => {
  const cases: [string | null, string | null][] = [
    ["0.5", "0.50"],
    [".25", "0.25"],
    ["1", "1.00"],
    ["0", "0.00"],
    ["0.05", "0.05"],
    [null, null],
  ];
  it.each(cases)("%j is stored as %j", (given, want) => expect(storedSampleRate(given)).toBe(want));
});

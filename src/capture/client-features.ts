/**
 * Remote config's answers for exception autocapture, web vitals and network timing, dead clicks and heatmaps,
 * from a project's settings in force, as the real remote config builds them (PostHog/posthog
 * posthog/models/remote_config.py, `build_config`).
 */
import type { ClientSettings } from "../store/project-settings.ts";

/**
 * `capturePerformance`: false unless network timing (`capture_performance_opt_in`) or web vitals
 * (`autocapture_web_vitals_opt_in`) is on; then both switches and the allowed metrics (null: all).
 */
export function performanceConfig(settings: ClientSettings) {
  if (!settings.capture_performance_opt_in && !settings.autocapture_web_vitals_opt_in) return false;
  return {
    network_timing: Boolean(settings.capture_performance_opt_in),
    web_vitals: Boolean(settings.autocapture_web_vitals_opt_in),
    web_vitals_allowed_metrics: settings.autocapture_web_vitals_allowed_metrics,
  };
}

/** The keys of remote config that follow from these settings alone (session recording and surveys are built apart). */
export function clientFeatureConfig(settings: ClientSettings) {
  const exceptions = Boolean(settings.autocapture_exceptions_opt_in);
  return {
    captureDeadClicks: Boolean(settings.capture_dead_clicks),
    capturePerformance: performanceConfig(settings),
    autocaptureExceptions: exceptions,
    // The mock keeps no suppression rules: every exception is captured.
    errorTracking: { autocaptureExceptions: exceptions, suppressionRules: [] as unknown[] },
    heatmaps: Boolean(settings.heatmaps_opt_in),
  };
}

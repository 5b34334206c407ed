/**
 * Remote config's `sessionRecording` from a project's settings in force, as the real remote config builds it
 * (PostHog/posthog posthog/models/remote_config.py, `build_config`, "MARK: Session Recording"): false unless the
 * project opted in; then where to send snapshots and the recording options posthog-js applies.
 */
import type { ClientSettings } from "../store/project-settings.ts";

/** The linked flag as posthog-js reads it: the key, or `{flag, variant}` when a variant is named. */
function linkedFlagOf(config: ClientSettings["session_recording_linked_flag"]): string | { flag: unknown; variant: unknown } | null {
  if (config === null || typeof config !== "object") return null;
  const key = (config.key as unknown) ?? null;
  const variant = config.variant;
  return variant !== undefined && variant !== null ? { flag: key, variant } : (key as string | null);
}

export function sessionRecordingConfig(settings: ClientSettings) {
  if (!settings.session_recording_opt_in) return false as const;
  const rate = settings.session_recording_sample_rate || null;
  return {
    endpoint: "/s/",
    consoleLogRecordingEnabled: Boolean(settings.capture_console_log_opt_in),
    recorderVersion: "v2",
    // "1.00" records everything: the real service says so by sending no rate at all.
    sampleRate: rate === "1.00" ? null : rate,
    minimumDurationMilliseconds: settings.session_recording_minimum_duration_milliseconds || null,
    linkedFlag: linkedFlagOf(settings.session_recording_linked_flag),
    // Settings this server does not keep: the real model's defaults (no payload capture, no triggers, no blocklist).
    networkPayloadCapture: null,
    urlTriggers: null,
    urlBlocklist: null,
    eventTriggers: null,
  };
}

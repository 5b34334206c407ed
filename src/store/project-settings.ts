/**
 * A project's client-library settings as they apply: what the project names, else the real service's model
 * defaults (PostHog/posthog posthog/models/team/team.py: `capture_console_log_opt_in` and
 * `capture_performance_opt_in` default true, `capture_dead_clicks` and `session_recording_opt_in` false, the
 * others null). The projects API answers these, and remote config is made from them.
 */
import type { ProjectClientSettings, ProjectRecord } from "./schema.ts";

export type ClientSettings = { [K in keyof ProjectClientSettings]-?: Exclude<ProjectClientSettings[K], undefined> | null };

export const CLIENT_SETTING_DEFAULTS: Readonly<ClientSettings> = Object.freeze({
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
});

export const CLIENT_SETTING_NAMES = Object.keys(CLIENT_SETTING_DEFAULTS) as (keyof ClientSettings)[];

/** What the server was started with that overrides every project's own settings (`--session-recording`). */
export interface ClientSettingsOverride {
  sessionRecording?: boolean;
}

/** The settings in force for a project: its own, the defaults for the rest, then the start-up override. */
export function clientSettingsOf(project: ProjectRecord, override: ClientSettingsOverride = {}): ClientSettings {
  const settings = { ...CLIENT_SETTING_DEFAULTS } as ClientSettings;
  for (const name of CLIENT_SETTING_NAMES) {
    const own = project[name];
    if (own !== undefined) (settings as Record<string, unknown>)[name] = own;
  }
  if (override.sessionRecording) settings.session_recording_opt_in = true;
  return settings;
}

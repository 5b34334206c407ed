/**
 * The projects API's client-library settings (issue 40): answered as they apply, written as the real service's
 * project serializer takes them (PostHog/posthog posthog/api/team.py: the sample rate is a two-decimal
 * `DecimalField` between 0 and 1, answered as a string).
 */
import { fail } from "../core/errors.ts";
import { CLIENT_SETTING_NAMES, clientSettingsOf, type ClientSettings, type ClientSettingsOverride } from "../store/project-settings.ts";
import type { ProjectClientSettings, ProjectRecord } from "../store/schema.ts";

/** The settings a project answers with (the start-up override included: it is what the SDKs get). */
export const clientSettingsJson = (project: ProjectRecord, override?: ClientSettingsOverride): ClientSettings => clientSettingsOf(project, override);

/** "0.5" → "0.50", as a two-decimal DecimalField stores it; the schema already bounded the text to 0–1. */
export function storedSampleRate(rate: string | null): string | null {
  if (rate === null) return null;
  const value = Number(rate);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw fail.invalid("session_recording_sample_rate", "Ensure this value is between 0 and 1.");
  return value.toFixed(2);
}

/** The settings a PATCH body names, ready to store (the other fields of the body are not settings). */
export function clientSettingChanges(body: Record<string, unknown>): ProjectClientSettings {
  const changes: Record<string, unknown> = {};
  for (const name of CLIENT_SETTING_NAMES) if (body[name] !== undefined) changes[name] = structuredClone(body[name]);
  if (changes.session_recording_sample_rate !== undefined) changes.session_recording_sample_rate = storedSampleRate(changes.session_recording_sample_rate as string | null);
  return changes as ProjectClientSettings;
}

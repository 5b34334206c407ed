import { activeSeconds, durationSeconds } from "../store/recording-summary.ts";
import type { RecordingEntry } from "../store/recordings-repo.ts";
import type { PersonRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { personName, sortedDistinctIds } from "./person-json.ts";
import type { Schema } from "./types.ts";

const isoOf = (ms: number | null, fallback: string): string => (ms === null ? fallback : new Date(ms).toISOString());

/** The real MinimalPersonSerializer: the person without its identification and last-seen fields. */
const minimalPerson = (p: PersonRecord) => ({
  id: p.id,
  name: personName(p),
  distinct_ids: sortedDistinctIds(p.distinct_ids),
  properties: p.properties,
  created_at: p.created_at,
  uuid: p.uuid,
});

/**
 * The first `$current_url` of each wanted session's events (events are timestamp ascending, so the first seen is
 * the earliest): a recording whose snapshots carry no meta `href` starts there. One scan for all of them.
 */
export function firstUrlsOfSessions(store: Store, projectId: string, sessions: ReadonlySet<string>): Map<string, string> {
  const urls = new Map<string, string>();
  if (sessions.size === 0) return urls;
  const table = store.events.of(projectId);
  for (let i = 0; i < table.length && urls.size < sessions.size; i++) {
    const session = table.propertyAt(i, "$session_id");
    if (typeof session !== "string" || !sessions.has(session) || urls.has(session)) continue;
    const url = table.propertyAt(i, "$current_url");
    if (typeof url === "string" && url !== "") urls.set(session, url);
  }
  return urls;
}

/** A recording as the real SessionRecordingSerializer writes it. */
export function toRecordingJson(entry: RecordingEntry, store: Store, eventUrl: string | undefined): Schema<"SessionRecording"> {
  const s = entry.summary;
  const duration = durationSeconds(s);
  const active = Math.min(activeSeconds(s), duration);
  const firstReceived = entry.blocks[0]?.received_at ?? new Date(0).toISOString();
  const person = store.persons.byDistinctId(entry.project_id, entry.distinct_id);
  return {
    id: entry.session_id,
    distinct_id: entry.distinct_id,
    viewed: false,
    viewers: [],
    recording_duration: duration,
    active_seconds: active,
    inactive_seconds: duration - active,
    start_time: isoOf(s.first_timestamp, firstReceived),
    end_time: isoOf(s.last_timestamp, firstReceived),
    click_count: s.click_count,
    keypress_count: s.keypress_count,
    mouse_activity_count: s.mouse_activity_count,
    console_log_count: s.console_log_count,
    console_warn_count: s.console_warn_count,
    console_error_count: s.console_error_count,
    start_url: s.first_url ?? eventUrl ?? null,
    person: person ? minimalPerson(person) : null,
    retention_period_days: null,
    expiry_time: null,
    recording_ttl: null,
    snapshot_source: "web",
    snapshot_library: entry.blocks.find((b) => b.lib !== null)?.lib ?? null,
    ongoing: false,
    activity_score: null,
    has_summary: false,
    summary_outcome: null,
    external_references: [],
    matches_filters: true,
  };
}

import type { RecordingBlockRecord, State } from "./schema.ts";

/** Offset that moves the newest event to `now` (0 without events). Events are sorted by timestamp. */
export function offsetToNow(state: State, now: number): number {
  const newest = state.events.newestTimestamp();
  return newest === undefined ? 0 : now - newest;
}

const shiftIso = (iso: string, offsetMs: number): string => new Date(Date.parse(iso) + offsetMs).toISOString();
const shiftOptionalIso = <T extends string | null | undefined>(iso: T, offsetMs: number): T => (typeof iso === "string" ? (shiftIso(iso, offsetMs) as T) : iso);

/** A recording block's rrweb events carry their own instants (ms): the recording's start, end and duration follow them. */
function shiftRecording(block: RecordingBlockRecord, offsetMs: number): void {
  block.received_at = shiftIso(block.received_at, offsetMs);
  for (const event of block.events) {
    const e = event as { timestamp?: unknown } | null;
    if (e !== null && typeof e === "object" && typeof e.timestamp === "number") e.timestamp += offsetMs;
  }
}

/**
 * Moves every recorded instant of a freshly loaded state by one offset, in place (a million events are not
 * copied): events, persons, groups, insights, dashboards, insight views, annotations, flags, cohorts, surveys, early
 * access features, web experiments, recordings and activity keep their distances, so the data reads as recent again. Queued person-event deletions keep their slot: it follows the deletion schedule.
 */
export function shiftState(state: State, offsetMs: number): void {
  if (offsetMs === 0) return;
  state.events.shiftTimestamps(offsetMs);
  for (const p of state.persons) p.created_at = shiftIso(p.created_at, offsetMs);
  for (const a of state.activity) a.created_at = shiftIso(a.created_at, offsetMs);
  const { meta } = state;
  for (const g of meta.groups) g.created_at = shiftIso(g.created_at, offsetMs);
  for (const v of meta.insight_views) v.viewed_at = shiftIso(v.viewed_at, offsetMs);
  for (const s of meta.sharing_configurations ?? []) s.created_at = shiftIso(s.created_at, offsetMs);
  for (const i of meta.insights) {
    i.created_at = shiftIso(i.created_at, offsetMs);
    i.updated_at = shiftIso(i.updated_at, offsetMs);
    i.last_modified_at = shiftIso(i.last_modified_at, offsetMs);
  }
  for (const a of meta.actions) {
    if (a.created_at) a.created_at = shiftIso(a.created_at, offsetMs);
    if (a.last_calculated_at) a.last_calculated_at = shiftIso(a.last_calculated_at, offsetMs);
  }
  for (const d of meta.dashboards) {
    d.created_at = shiftIso(d.created_at, offsetMs);
    if (d.last_accessed_at) d.last_accessed_at = shiftIso(d.last_accessed_at, offsetMs);
  }
  for (const a of meta.annotations) {
    if (a.date_marker !== null) a.date_marker = shiftIso(a.date_marker, offsetMs);
    a.created_at = shiftIso(a.created_at, offsetMs);
    a.updated_at = shiftIso(a.updated_at, offsetMs);
  }
  for (const f of meta.feature_flags) {
    f.created_at = shiftIso(f.created_at, offsetMs);
    f.updated_at = shiftIso(f.updated_at, offsetMs);
  }
  for (const c of meta.cohorts) c.created_at = shiftOptionalIso(c.created_at, offsetMs);
  for (const survey of meta.surveys ?? []) {
    survey.created_at = shiftIso(survey.created_at, offsetMs);
    survey.updated_at = shiftIso(survey.updated_at, offsetMs);
    survey.start_date = shiftOptionalIso(survey.start_date, offsetMs);
    survey.end_date = shiftOptionalIso(survey.end_date, offsetMs);
    survey.current_iteration_start_date = shiftOptionalIso(survey.current_iteration_start_date, offsetMs);
    survey.response_sampling_start_date = shiftOptionalIso(survey.response_sampling_start_date, offsetMs);
    if (survey.iteration_start_dates) survey.iteration_start_dates = survey.iteration_start_dates.map((iso) => shiftIso(iso, offsetMs));
  }
  for (const feature of meta.early_access_features ?? []) feature.created_at = shiftIso(feature.created_at, offsetMs);
  for (const experiment of meta.web_experiments ?? []) experiment.created_at = shiftIso(experiment.created_at, offsetMs);
  for (const block of state.recordings ?? []) shiftRecording(block, offsetMs);
}

/** "+13d 4h 5m": an offset as a person reads it. */
export function describeOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? "-" : "+";
  let minutes = Math.round(Math.abs(offsetMs) / 60_000);
  const days = Math.floor(minutes / 1440);
  minutes -= days * 1440;
  const hours = Math.floor(minutes / 60);
  minutes -= hours * 60;
  return `${sign}${days}d ${hours}h ${minutes}m`;
}

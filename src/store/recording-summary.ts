/**
 * A session recording's metadata from its rrweb events, as the real replay ingestion summarises each batch
 * (PostHog/posthog nodejs/src/session-recording: the session metadata written to `session_replay_events`):
 * first and last timestamp, clicks, keypresses, mouse activity, console lines by level, active time and the
 * first URL. Pure: events in, a summary out; summaries of consecutive batches merge.
 */

/** rrweb's event types (rrweb-io/rrweb packages/types: EventType). */
const FULL_SNAPSHOT = 2;
const INCREMENTAL_SNAPSHOT = 3;
const META = 4;
const PLUGIN = 6;

/** rrweb's incremental sources (IncrementalSource). */
const SOURCE_MOUSE_MOVE = 1;
const SOURCE_MOUSE_INTERACTION = 2;
const SOURCE_INPUT = 5;
const SOURCE_TOUCH_MOVE = 6;
/** Sources that are a person acting on the page (what makes time "active"). */
const ACTIVE_SOURCES = new Set([1, 2, 3, 4, 5, 6, 7, 12]);

/** rrweb's MouseInteractions that count as a click: Click, DblClick, TouchEnd. */
const CLICK_INTERACTIONS = new Set([2, 4, 9]);

/** Two active events further apart than this start a new stretch of activity (the real ingestion's 5 s). */
const ACTIVITY_GAP_MS = 5_000;

export interface RecordingSummary {
  /** Milliseconds since the epoch; null while no event had a timestamp. */
  first_timestamp: number | null;
  last_timestamp: number | null;
  click_count: number;
  keypress_count: number;
  mouse_activity_count: number;
  console_log_count: number;
  console_warn_count: number;
  console_error_count: number;
  /** Active milliseconds of the stretches closed so far, plus the open stretch (`active_start` … `active_end`). */
  active_ms: number;
  active_start: number | null;
  active_end: number | null;
  /** The first `href` a meta event gave; null without one. */
  first_url: string | null;
  /** How many rrweb events the recording holds. */
  event_count: number;
}

export const emptySummary = (): RecordingSummary => ({
  first_timestamp: null,
  last_timestamp: null,
  click_count: 0,
  keypress_count: 0,
  mouse_activity_count: 0,
  console_log_count: 0,
  console_warn_count: 0,
  console_error_count: 0,
  active_ms: 0,
  active_start: null,
  active_end: null,
  first_url: null,
  event_count: 0,
});

type RrwebEvent = { type?: unknown; timestamp?: unknown; data?: unknown };
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** console levels as the replay ingestion buckets them (`info`, `count` and `debug` are logs; `assert` an error). */
function consoleLevel(level: unknown): "log" | "warn" | "error" | null {
  if (level === "warn" || level === "countReset") return "warn";
  if (level === "error" || level === "assert") return "error";
  if (level === "log" || level === "info" || level === "debug" || level === "count" || level === "trace" || level === "timeEnd") return "log";
  return null;
}

/** Whether the event is a person acting: a full snapshot, or an incremental one from an input source. */
const isActive = (type: unknown, source: unknown) => type === FULL_SNAPSHOT || (type === INCREMENTAL_SNAPSHOT && ACTIVE_SOURCES.has(source as number));

function countInteraction(s: RecordingSummary, data: Record<string, unknown>): void {
  const source = data.source;
  if (source === SOURCE_MOUSE_INTERACTION && CLICK_INTERACTIONS.has(data.type as number)) s.click_count++;
  if (source === SOURCE_INPUT) s.keypress_count++;
  if (source === SOURCE_MOUSE_MOVE || source === SOURCE_MOUSE_INTERACTION || source === SOURCE_TOUCH_MOVE) s.mouse_activity_count++;
}

function countConsole(s: RecordingSummary, data: Record<string, unknown>): void {
  if (data.plugin !== "rrweb/console@1" || !isObject(data.payload)) return;
  const level = consoleLevel(data.payload.level);
  if (level === "log") s.console_log_count++;
  else if (level === "warn") s.console_warn_count++;
  else if (level === "error") s.console_error_count++;
}

/** Extends the open stretch of activity, or closes it and opens another after a long gap. */
function noteActivity(s: RecordingSummary, at: number): void {
  if (s.active_end !== null && at - s.active_end <= ACTIVITY_GAP_MS && at >= s.active_end) {
    s.active_end = at;
    return;
  }
  if (s.active_start !== null && s.active_end !== null) s.active_ms += s.active_end - s.active_start;
  s.active_start = s.active_end = at;
}

/** Adds a batch of rrweb events (in the order the SDK sent them) to a summary, in place. */
export function addToSummary(s: RecordingSummary, events: readonly unknown[]): RecordingSummary {
  for (const raw of events) {
    if (!isObject(raw)) continue;
    const e = raw as RrwebEvent;
    s.event_count++;
    const at = typeof e.timestamp === "number" && Number.isFinite(e.timestamp) ? e.timestamp : null;
    if (at !== null) {
      s.first_timestamp = s.first_timestamp === null ? at : Math.min(s.first_timestamp, at);
      s.last_timestamp = s.last_timestamp === null ? at : Math.max(s.last_timestamp, at);
    }
    const data = isObject(e.data) ? e.data : {};
    if (e.type === INCREMENTAL_SNAPSHOT) countInteraction(s, data);
    if (e.type === PLUGIN) countConsole(s, data);
    if (e.type === META && s.first_url === null && typeof data.href === "string" && data.href !== "") s.first_url = data.href;
    if (at !== null && isActive(e.type, data.source)) noteActivity(s, at);
  }
  return s;
}

/** Whole seconds from the first to the last event (the list's `recording_duration`). */
export const durationSeconds = (s: RecordingSummary): number =>
  s.first_timestamp === null || s.last_timestamp === null ? 0 : Math.round((s.last_timestamp - s.first_timestamp) / 1000);

/** Whole active seconds: closed stretches plus the open one. */
export const activeSeconds = (s: RecordingSummary): number =>
  Math.round((s.active_ms + (s.active_start !== null && s.active_end !== null ? s.active_end - s.active_start : 0)) / 1000);

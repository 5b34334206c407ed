/**
 * The recordings list's filters, read from its query (the real RecordingsQuery's fields, lists and objects
 * JSON-encoded): date range over `start_time`, person, distinct ids, session ids, events in the session and
 * predicates over the metadata. Each malformed parameter is a 400 naming it.
 */
import { fail } from "../core/errors.ts";
import { activeSeconds, durationSeconds } from "../store/recording-summary.ts";
import type { RecordingEntry } from "../store/recordings-repo.ts";
import type { Store } from "../store/store.ts";
import { parseInstant } from "./instant-param.ts";

export interface ListQuery {
  date_from?: string;
  date_to?: string;
  person_uuid?: string;
  distinct_ids?: string;
  session_ids?: string;
  events?: string;
  operand?: "AND" | "OR";
  having_predicates?: string;
}

/** What each predicate key and each sort order reads from a recording. */
export const RECORDING_MEASURES: Record<string, (e: RecordingEntry) => number> = {
  duration: (e) => durationSeconds(e.summary),
  recording_duration: (e) => durationSeconds(e.summary),
  active_seconds: (e) => Math.min(activeSeconds(e.summary), durationSeconds(e.summary)),
  inactive_seconds: (e) => durationSeconds(e.summary) - Math.min(activeSeconds(e.summary), durationSeconds(e.summary)),
  click_count: (e) => e.summary.click_count,
  keypress_count: (e) => e.summary.keypress_count,
  mouse_activity_count: (e) => e.summary.mouse_activity_count,
  console_log_count: (e) => e.summary.console_log_count,
  console_warn_count: (e) => e.summary.console_warn_count,
  console_error_count: (e) => e.summary.console_error_count,
};

const OPERATORS: Record<string, (a: number, b: number) => boolean> = {
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
  exact: (a, b) => a === b,
};

type Matcher = (e: RecordingEntry) => boolean;

function jsonList(raw: string | undefined, name: string): unknown[] | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw fail.invalid(name, `${name} must be a JSON-encoded list.`);
  }
  if (!Array.isArray(value)) throw fail.invalid(name, `${name} must be a JSON-encoded list.`);
  return value;
}

function stringList(raw: string | undefined, name: string): Set<string> | undefined {
  const list = jsonList(raw, name);
  if (list === undefined) return undefined;
  if (!list.every((v) => typeof v === "string")) throw fail.invalid(name, `${name} must list strings.`);
  return new Set(list as string[]);
}

function predicateOf(raw: unknown, k: number): Matcher {
  const p = (raw ?? {}) as Record<string, unknown>;
  const attr = `having_predicates__${k}`;
  const measure = typeof p.key === "string" ? RECORDING_MEASURES[p.key] : undefined;
  if (!measure) throw fail.invalid(`${attr}__key`, `key must be one of ${Object.keys(RECORDING_MEASURES).join(", ")}.`);
  const compare = OPERATORS[typeof p.operator === "string" ? p.operator : "exact"];
  if (!compare) throw fail.invalid(`${attr}__operator`, `operator must be one of ${Object.keys(OPERATORS).join(", ")}.`);
  const value = typeof p.value === "string" && p.value.trim() !== "" ? Number(p.value) : p.value;
  if (typeof value !== "number" || !Number.isFinite(value)) throw fail.invalid(`${attr}__value`, "value must be a number.");
  return (e) => compare(measure(e), value);
}

/** Each session in which an event of the filter's name was captured with that `$session_id`. */
function sessionsWithEvent(store: Store, projectId: string, name: string): Set<string> {
  const table = store.events.of(projectId);
  const sessions = new Set<string>();
  for (const i of store.events.positionsNamed(projectId, name)) {
    const session = table.propertyAt(i, "$session_id");
    if (typeof session === "string") sessions.add(session);
  }
  return sessions;
}

function eventsMatcher(store: Store, projectId: string, q: ListQuery): Matcher | undefined {
  const filters = jsonList(q.events, "events");
  if (!filters?.length) return undefined;
  const sets = filters.map((f, k) => {
    const id = (f as Record<string, unknown> | null)?.id;
    if (typeof id !== "string" || id === "") throw fail.invalid(`events__${k}__id`, "Each event filter needs the event name as id.");
    return sessionsWithEvent(store, projectId, id);
  });
  return q.operand === "OR" ? (e) => sets.some((s) => s.has(e.session_id)) : (e) => sets.every((s) => s.has(e.session_id));
}

function bound(raw: string | undefined, name: string, now: number, timezone: string): number | undefined {
  if (raw === undefined || raw === "all") return undefined;
  const ms = parseInstant(raw, now, timezone);
  if (ms === undefined) throw fail.invalid(name, `${name} must be an ISO 8601 date-time or a relative date such as -3d.`);
  return ms;
}

/** The list's filters as one predicate over recordings (every given filter must hold). */
export function recordingMatcher(store: Store, projectId: string, timezone: string, now: number, q: ListQuery): Matcher {
  const matchers: Matcher[] = [];
  const from = bound(q.date_from ?? "-3d", "date_from", now, timezone);
  const to = bound(q.date_to, "date_to", now, timezone);
  if (from !== undefined) matchers.push((e) => (e.summary.first_timestamp ?? 0) >= from);
  if (to !== undefined) matchers.push((e) => (e.summary.first_timestamp ?? 0) <= to);
  if (q.person_uuid !== undefined) {
    const person = store.persons.find(projectId, q.person_uuid);
    const ids = new Set(person?.distinct_ids ?? []);
    matchers.push((e) => ids.has(e.distinct_id));
  }
  const distinctIds = stringList(q.distinct_ids, "distinct_ids");
  if (distinctIds) matchers.push((e) => distinctIds.has(e.distinct_id));
  const sessionIds = stringList(q.session_ids, "session_ids");
  if (sessionIds) matchers.push((e) => sessionIds.has(e.session_id));
  const events = eventsMatcher(store, projectId, q);
  if (events) matchers.push(events);
  for (const [k, raw] of (jsonList(q.having_predicates, "having_predicates") ?? []).entries()) matchers.push(predicateOf(raw, k));
  return (e) => matchers.every((m) => m(e));
}

import type { EventList, EventRecord } from "../../store/schema.ts";
import { sessionChannelType } from "../../core/channel-rules.ts";
import { eventProperty } from "../../core/event-read.ts";

/**
 * Session properties, derived from the events sharing `properties.$session_id` as the real service's sessions
 * table does (PostHog/posthog posthog/models/raw_sessions/sessions_v2.py and
 * posthog/hogql/database/schema/sessions_v2.py): entry/exit URL are the `$current_url` of the session's first and
 * last event (whatever that event is; empty ⇒ null), the duration is `dateDiff('second', first, last)`, the
 * counts are per event name, and `$is_bounce` follows the default COUNT_PAGEVIEWS mode.
 */
export interface SessionProps {
  start: number;
  end: number;
  entryUrl: string | null;
  exitUrl: string | null;
  entry: Readonly<Record<string, unknown>>;
  urls: Set<string>;
  pageviews: number;
  autocaptures: number;
  screens: number;
}

export type SessionTable = ReadonlyMap<string, SessionProps>;

/** A session under 10 s with one pageview and no autocapture is a bounce (DEFAULT_BOUNCE_RATE_DURATION_SECONDS). */
const BOUNCE_SECONDS = 10;

/** Entry attribution: the first event's value of these properties, as `$entry_<name>` (utm_* lose nothing). */
const ENTRY_PROPERTIES: Readonly<Record<string, string>> = {
  $entry_referring_domain: "$referring_domain",
  $entry_referrer: "$referrer",
  $entry_utm_source: "utm_source",
  $entry_utm_campaign: "utm_campaign",
  $entry_utm_medium: "utm_medium",
  $entry_utm_term: "utm_term",
  $entry_utm_content: "utm_content",
  $entry_gclid: "gclid",
  $entry_fbclid: "fbclid",
  $entry_gad_source: "gad_source",
};

const currentUrl = (event: EventRecord): string | null => {
  const url = eventProperty(event, "$current_url");
  return typeof url === "string" && url !== "" ? url : null;
};

/** One pass over the project's events (timestamp ascending): the first event of a session is its entry. */
export function deriveSessions(events: EventList): SessionTable {
  const sessions = new Map<string, SessionProps>();
  for (const event of events) {
    const id = sessionIdOf(event);
    if (id === null) continue;
    const url = currentUrl(event);
    let s = sessions.get(id);
    if (!s) {
      const entry = Object.fromEntries(Object.entries(ENTRY_PROPERTIES).map(([name, key]) => [name, eventProperty(event, key)]));
      sessions.set(id, (s = { start: event.timestamp, end: event.timestamp, entryUrl: url, exitUrl: url, entry, urls: new Set(), pageviews: 0, autocaptures: 0, screens: 0 }));
    }
    s.end = event.timestamp;
    s.exitUrl = url;
    if (url !== null) s.urls.add(url);
    if (event.event === "$pageview") s.pageviews++;
    else if (event.event === "$autocapture") s.autocaptures++;
    else if (event.event === "$screen") s.screens++;
  }
  return sessions;
}

export const sessionIdOf = (event: EventRecord): string | null => {
  const id = eventProperty(event, "$session_id");
  return id === undefined || id === null || id === "" ? null : String(id);
};

/** ClickHouse `dateDiff('second', a, b)`: whole-second boundaries crossed, not the rounded difference. */
const durationOf = (s: SessionProps): number => Math.floor(s.end / 1000) - Math.floor(s.start / 1000);

/** ClickHouse `path(url)`: the path without query string and fragment; "" when the URL has none. */
export function pathOf(url: string | null): string | null {
  if (url === null) return null;
  const rest = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url) ? url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "") : url.startsWith("/") ? url : "";
  return rest.replace(/[?#].*$/s, "");
}

/** ClickHouse `domain(url)`: the host, "" when there is none. */
export function hostOf(url: string | null): string | null {
  if (url === null) return null;
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#:@]*@)?([^/?#:]*)/i.exec(url)?.[2] ?? "";
}

/** `$channel_type`: the channel rules (src/core/channel-rules.ts) over the session's entry values. */
const channelTypeOf = (s: SessionProps): string =>
  sessionChannelType({
    campaign: s.entry.$entry_utm_campaign,
    medium: s.entry.$entry_utm_medium,
    source: s.entry.$entry_utm_source,
    referringDomain: s.entry.$entry_referring_domain,
    gclid: s.entry.$entry_gclid,
    fbclid: s.entry.$entry_fbclid,
    gadSource: s.entry.$entry_gad_source,
  });

/** `$is_bounce`: null without a pageview; otherwise not (more than one pageview, any autocapture, or ≥ 10 s). */
const isBounce = (s: SessionProps): boolean | null =>
  s.pageviews === 0 ? null : !(s.pageviews > 1 || s.autocaptures > 0 || durationOf(s) >= BOUNCE_SECONDS);

const SESSION_PROPERTIES: ReadonlyMap<string, (s: SessionProps) => unknown> = new Map<string, (s: SessionProps) => unknown>([
  ["$session_duration", durationOf],
  ["duration", durationOf],
  ["$entry_current_url", (s) => s.entryUrl],
  ["$entry_pathname", (s) => pathOf(s.entryUrl)],
  ["$entry_hostname", (s) => hostOf(s.entryUrl)],
  ["$exit_current_url", (s) => s.exitUrl],
  ["$exit_pathname", (s) => pathOf(s.exitUrl)],
  ["$exit_hostname", (s) => hostOf(s.exitUrl)],
  ["$end_current_url", (s) => s.exitUrl],
  ["$end_pathname", (s) => pathOf(s.exitUrl)],
  ["$pageview_count", (s) => s.pageviews],
  ["$autocapture_count", (s) => s.autocaptures],
  ["$screen_count", (s) => s.screens],
  ["$num_uniq_urls", (s) => s.urls.size],
  ["$is_bounce", isBounce],
  ["$start_timestamp", (s) => new Date(s.start).toISOString()],
  ["$end_timestamp", (s) => new Date(s.end).toISOString()],
  ["$channel_type", channelTypeOf],
  ...Object.keys(ENTRY_PROPERTIES).map((name): [string, (s: SessionProps) => unknown] => [name, (s) => s.entry[name]]),
]);

/** Session properties this server does not derive (web vitals and outbound clicks are not tracked per session). */
export const UNDERIVED_SESSION_PROPERTIES: ReadonlySet<string> = new Set(["$vitals_lcp", "$last_external_click_url"]);

export const SESSION_PROPERTY_NAMES: readonly string[] = [...SESSION_PROPERTIES.keys()];

/**
 * What an event outside any session (no `$session_id`) reads for a session property: the real service joins
 * events to sessions with a LEFT JOIN, so an unmatched row takes the column type's default, 0 for the
 * non-nullable numbers (dateDiff, uniqMerge, length in posthog/hogql/database/schema/sessions_v2.py), NULL for the
 * nullable ones (URLs, `$is_bounce`). PostHog test_trends_query_runner.py::test_trends_event_math_session_duration_with_breakdowns
 * shows the 0. The ClickHouse mirror gives the same through its own LEFT JOIN (src/sql-engine/mirror/schema.ts).
 */
const NO_SESSION_DEFAULTS: ReadonlyMap<string, number> = new Map(
  ["$session_duration", "duration", "$pageview_count", "$autocapture_count", "$screen_count", "$num_uniq_urls"].map((key) => [key, 0]),
);

/** Each session property's value per session id, computed once per session table (kept while the table lives). */
const valuesByTable = new WeakMap<SessionTable, Map<string, ReadonlyMap<string, unknown>>>();

function valuesOf(table: SessionTable, key: string, read: (s: SessionProps) => unknown): ReadonlyMap<string, unknown> {
  let byKey = valuesByTable.get(table);
  if (!byKey) valuesByTable.set(table, (byKey = new Map()));
  let values = byKey.get(key);
  if (!values) {
    values = new Map([...table].map(([id, session]) => [id, read(session)]));
    byKey.set(key, values);
  }
  return values;
}

/**
 * The reader of one session property for an event (undefined when the key is not a session property). The
 * values are computed once per session and table, so a scan costs one lookup per event, not a URL parse.
 */
export function sessionPropertyReader(key: string, table: () => SessionTable): ((event: EventRecord) => unknown) | undefined {
  const read = SESSION_PROPERTIES.get(key);
  if (!read) return undefined;
  let values: ReadonlyMap<string, unknown> | undefined;
  const noSession = NO_SESSION_DEFAULTS.get(key) ?? null;
  return (event) => {
    const raw = eventProperty(event, "$session_id");
    const id = typeof raw === "string" ? raw : raw === undefined || raw === null ? "" : String(raw);
    if (id === "") return noSession;
    values ??= valuesOf(table(), key, read);
    return values.get(id) ?? null;
  };
}

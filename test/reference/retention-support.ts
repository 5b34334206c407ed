/**
 * Helpers of PostHog's test_retention_query_runner.py, written once for the retention ports (retention,
 * retention-aggregation and retention-brackets .test.ts).
 */
import type { RefData, RefEvent } from "./support.ts";

/** PostHog's `_date(day, hour=5, month=0, minute=0)`: 2020-06-10 plus the offsets, naive (UTC for an event). */
export const D = (day: number, hour = 5, month = 0, minute = 0): string => new Date(Date.UTC(2020, 5 + month, 10 + day, hour, minute)).toISOString().slice(0, 19);

/** One event of `_create_events`: distinct id, timestamp, properties. */
export type Ev = readonly [string, string, Record<string, unknown>?];

/** PostHog's `_create_events`: every even-indexed event of one call also has `$some_property: "value"`. */
export const createEvents = (list: readonly Ev[], event = "$pageview"): RefEvent[] =>
  list.map(([distinct_id, timestamp, properties], i) => ({ event, distinct_id, timestamp, properties: { ...(i % 2 === 0 ? { $some_property: "value" } : {}), ...properties } }));

/** `_create_person` calls of one distinct id each, with properties where given. */
export const persons = (...ids: (string | [string, Record<string, unknown>])[]): RefData["persons"] =>
  ids.map((p) => (typeof p === "string" ? { distinct_ids: [p] } : { distinct_ids: [p[0]], properties: p[1] }));

/** The tests run at the real clock, long after the data. */
export const data = (p: RefData["persons"], events: RefEvent[], extra: Partial<RefData> = {}): RefData => ({ now: "2024-01-01T00:00:00Z", persons: p, events, ...extra });

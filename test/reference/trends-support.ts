/**
 * What the ports of test_trends.py and test_trends_query_runner.py share: the TrendsQuery PostHog's filter_to_query
 * makes of a legacy trend filter, the legacy filter asked through both doors, and the data of test_trends.py's
 * `_create_events` and `_create_event_count_per_actor_events`.
 */
import { expect } from "vitest";
import type { RefData, RefEvent, Reference } from "./support.ts";

type Prop = Record<string, unknown>;

/** Entity properties as filter_to_query cleans them: a property group becomes the list of its values. */
const entityProperties = (p: unknown): unknown => (p && !Array.isArray(p) && typeof p === "object" ? (p as { values: unknown[] }).values : p);

/** The TrendsQuery of a legacy trend filter, as PostHog's filter_to_query makes it for these tests (series in `order`). */
export function nodeOfFilter(f: Record<string, any>): Record<string, unknown> {
  const entity = (e: Record<string, any>, kind: string) => ({
    kind,
    ...(kind === "EventsNode" ? { event: e.id ?? null } : { id: e.id }),
    ...Object.fromEntries(["math", "math_property", "math_hogql", "math_group_type_index", "custom_name"].filter((k) => e[k] !== undefined).map((k) => [k, e[k]])),
    ...(e.properties !== undefined ? { properties: entityProperties(e.properties) } : {}),
    order: e.order,
  });
  const series = [...(f.events ?? []).map((e: any) => entity(e, "EventsNode")), ...(f.actions ?? []).map((e: any) => entity(e, "ActionsNode"))]
    .map((s, i) => ({ s, i }))
    .sort((a, b) => (a.s.order || -1) - (b.s.order || -1) || a.i - b.i)
    .map(({ s: { order: _order, ...s } }) => s);
  const pick = (keys: string[]) => Object.fromEntries(keys.filter((k) => f[k] !== undefined).map((k) => [k, f[k]]));
  const breakdown = typeof f.breakdown === "string" && f.breakdown_type === "cohort" ? JSON.parse(f.breakdown) : f.breakdown;
  return {
    kind: "TrendsQuery",
    dateRange: { date_from: f.date_from ?? "-7d", date_to: f.date_to ?? null },
    interval: f.interval ?? "day",
    series,
    trendsFilter: pick(["display", "formula"]),
    breakdownFilter: {
      ...pick(["breakdown_type", "breakdowns", "breakdown_group_type_index", "breakdown_limit", "breakdown_histogram_bin_count", "breakdown_normalize_url"]),
      ...(breakdown !== undefined ? { breakdown } : {}),
    },
    compareFilter: pick(["compare", "compare_to"]),
    ...(f.sampling_factor !== undefined ? { samplingFactor: f.sampling_factor } : {}),
    ...(f.filter_test_accounts !== undefined ? { filterTestAccounts: f.filter_test_accounts } : {}),
    ...(f.properties && (!Array.isArray(f.properties) || f.properties.length) ? { properties: f.properties } : {}),
  };
}

/** `_run`: the legacy filter through the legacy trend endpoint and, as a TrendsQuery, through the query API; both answers. */
export async function both(ref: Reference, filter: Record<string, unknown>): Promise<any[][]> {
  const legacy = await ref.legacy("POST", "insights/trend", filter);
  expect(legacy.status, legacy.text).toBe(200);
  const query = await ref.query(nodeOfFilter(filter));
  return [legacy.body.result, query.results];
}

/** `_create_action`: one step on the event of its name, with the step's properties. */
export const action = (id: number, name: string, properties: Prop[] = []) => ({ project_id: "1", id, name, steps: [{ event: name, properties }] });
export const ev = (event: string, distinct_id: string, timestamp: string, properties: Prop = {}): RefEvent => ({ event, distinct_id, timestamp, properties });

/** `_create_events` (events at midnight, or at the given times with use_time), with its two actions: "no events" (1) and "sign up" (2). */
export function legacyEvents(now: string, useTime = false): RefData {
  const at = useTime ? ["2019-12-24 03:45:34", "2020-01-01 00:06:34", "2020-01-02 16:34:34"] : ["2019-12-24", "2020-01-01", "2020-01-02"];
  return {
    now,
    persons: [{ distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } }],
    events: [
      ev("sign up", "blabla", at[0]!, { $some_property: "value", $bool_prop: true }),
      ev("sign up", "blabla", at[1]!, { $some_property: "value", $bool_prop: false }),
      ev("sign up", "anonymous_id", at[1]!, { $bool_prop: false }),
      ev("sign up", "blabla", at[1]!),
      ev("sign up", "blabla", at[2]!, { $some_property: "other_value", $some_numerical_prop: 80 }),
      ev("no events", "blabla", at[2]!),
    ],
    extra: { actions: [action(1, "no events"), action(2, "sign up")] } as RefData["extra"],
  };
}

/** `_create_event_count_per_actor_events`. */
export function countPerActorEvents(now: string): RefData {
  return {
    now,
    groupTypes: [{ group_type_index: 0, group_type: "organization" }],
    persons: [
      { distinct_ids: ["blabla", "anonymous_id"], properties: { fruit: "mango" } },
      { distinct_ids: ["tintin"], properties: { fruit: "mango" } },
      { distinct_ids: ["murmur"], properties: {} },
      { distinct_ids: ["reeree"], properties: { fruit: "tomato" } },
    ],
    events: [
      ev("viewed video", "anonymous_id", "2020-01-01 00:06:02", { color: "red", $group_0: "bouba" }),
      ev("viewed video", "blabla", "2020-01-01 00:06:02", { $group_0: "bouba" }),
      ev("viewed video", "reeree", "2020-01-01 00:06:02", { color: "blue", $group_0: "bouba" }),
      ev("sign up", "tintin", "2020-01-01 00:06:02", { $group_0: "kiki" }),
      ev("sign up", "murmur", "2020-01-03 19:06:34", { $group_0: "kiki" }),
      ev("viewed video", "tintin", "2020-01-04 23:17:00", { color: "red", $group_0: "kiki" }),
      ev("viewed video", "blabla", "2020-01-05 19:06:34", { color: "blue", $group_0: "bouba" }),
      ev("viewed video", "tintin", "2020-01-05 19:06:34", { color: "red" }),
      ev("viewed video", "tintin", "2020-01-05 19:06:34", { color: "red", $group_0: "bouba" }),
      ev("viewed video", "tintin", "2020-01-05 19:06:34", { color: "blue", $group_0: "kiki" }),
    ],
  };
}

/** `_create_multiple_people`: four persons named person1..4 who watch movies; with the action "watched movie" (1) when asked. */
export function multiplePeople(now: string, withAction = false): RefData {
  const movie = (distinct_id: string, day: number, order: string, name: string) => ev("watched movie", distinct_id, `2020-01-0${day} 12:00:00`, { order, name });
  return {
    now,
    persons: [1, 2, 3, 4].map((n) => ({ distinct_ids: [`person${n}`], properties: { name: `person${n}` } })),
    events: [
      movie("person1", 1, "1", "1"),
      movie("person2", 1, "1", "2"),
      movie("person2", 2, "2", "2"),
      movie("person2", 2, "2", "2"),
      movie("person3", 1, "1", "3"),
      movie("person3", 2, "2", "3"),
      movie("person3", 3, "2", "3"),
      movie("person4", 5, "1", "4"),
    ],
    ...(withAction ? { extra: { actions: [{ project_id: "1", id: 1, name: "watched movie", steps: [{ event: "watched movie" }] }] } as RefData["extra"] } : {}),
  };
}

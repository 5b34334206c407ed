/**
 * PostHog's stickiness query-runner tests, ported (the newest version:
 * posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py, which supersedes
 * posthog/hogql_queries/insights/test/test_stickiness_query_runner.py). Each test's data, query and asserted numbers
 * are PostHog's; the StickinessQuery goes through the query API, and where the test is a plain range query also
 * through the legacy endpoint (`insights/trend` with insight STICKINESS).
 */
import { describe, expect, it } from "vitest";
import { createEvents, withReference, type RefData, type Reference } from "./support.ts";

const days = (from: number, to: number, step = 1): string[] => {
  const out: string[] = [];
  for (let d = from; d <= to; d += step) out.push(`2020-01-${String(d).padStart(2, "0")}T12:00:00Z`);
  return out;
};

/** `_create_test_events`: p1 (Chrome) views and leaves on 11–19 January, p2 (Firefox) every other day from the 11th. */
const testEvents = (): Pick<RefData, "persons" | "events"> =>
  createEvents([
    {
      distinct_id: "p1",
      events: [
        ["$pageview", days(11, 19)],
        ["$pageleave", days(11, 19)],
      ],
      properties: { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:1" },
    },
    {
      distinct_id: "p2",
      events: [
        ["$pageview", days(11, 19, 2)],
        ["$pageleave", days(11, 19, 2)],
      ],
      properties: { $browser: "Firefox", prop: 10, bool_field: false, $group_0: "org:1" },
    },
  ]);

/** Three persons active on 3, 2 and 1 of 11–13 January (the cumulative and actors tests). */
const threeDays = (): Pick<RefData, "persons" | "events"> =>
  createEvents([
    { distinct_id: "p1", events: [["$pageview", days(11, 13)]], properties: {} },
    { distinct_id: "p2", events: [["$pageview", days(11, 12)]], properties: {} },
    { distinct_id: "p3", events: [["$pageview", days(11, 11)]], properties: {} },
  ]);

/** PostHog's tests run without a frozen clock unless they freeze one: any now after the data does. */
const NOW = "2020-02-01T00:00:00Z";

/** `_get_query`: $pageview over 11–20 January by day unless told otherwise; `date_to: "now"` means none. */
function stickinessQuery(over: {
  series?: Record<string, unknown>[];
  date_from?: string;
  date_to?: string;
  interval?: string;
  intervalCount?: number;
  properties?: unknown;
  filters?: Record<string, unknown>;
  filterTestAccounts?: boolean;
  compareFilter?: Record<string, unknown>;
} = {}): Record<string, unknown> {
  return {
    kind: "StickinessQuery",
    series: over.series ?? [{ kind: "EventsNode", event: "$pageview" }],
    dateRange: { date_from: over.date_from ?? "2020-01-11", date_to: over.date_to === "now" ? null : (over.date_to ?? "2020-01-20") },
    interval: over.interval ?? "day",
    ...(over.intervalCount !== undefined ? { intervalCount: over.intervalCount } : {}),
    ...(over.properties !== undefined ? { properties: over.properties } : {}),
    ...(over.filters !== undefined ? { stickinessFilter: over.filters } : {}),
    ...(over.compareFilter !== undefined ? { compareFilter: over.compareFilter } : {}),
    filterTestAccounts: over.filterTestAccounts ?? false,
  };
}

type Item = { label: string; count: number; data: number[]; days: number[]; labels: string[]; compare_label?: string };

async function run(ref: Reference, node: Record<string, unknown>): Promise<Item[]> {
  const body = await ref.query<{ results: Item[] }>(node);
  return body.results;
}

/** The same range through the legacy endpoint: its items must be the query API's. */
async function legacyMatches(ref: Reference, filter: Record<string, unknown>, want: Item[]): Promise<void> {
  const res = await ref.legacy("POST", "insights/trend", { insight: "STICKINESS", ...filter });
  expect(res.status).toBe(200);
  const got = (res.body.result as Item[]).map(({ label, count, data, days, labels }) => ({ label, count, data, days, labels }));
  expect(got).toEqual(want.map(({ label, count, data, days, labels }) => ({ label, count, data, days, labels })));
}

const dayLabels = (n: number, unit = "day", suffix = ""): string[] => Array.from({ length: n }, (_, i) => `${i + 1} ${unit}${i === 0 ? "" : "s"}${suffix}`);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
/** Ten positions, one actor at position `k` (1-based) for each k given. */
const tenWith = (...ks: number[]): number[] => {
  const data = new Array<number>(10).fill(0);
  for (const k of ks) data[k - 1]!++;
  return data;
};

const data = (extra: Partial<RefData> = {}): RefData => ({ now: NOW, ...testEvents(), ...extra });

describe("stickiness (PostHog's StickinessQueryRunner tests)", () => {
  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_stickiness_runs
  it("test_stickiness_runs: answers a list of result objects", async () => {
    await withReference(data(), async (ref) => {
      const results = await run(ref, stickinessQuery());
      expect(Array.isArray(results)).toBe(true);
      expect(typeof results[0]).toBe("object");
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_days
  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_count
  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_labels
  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_interval_day
  it("test_days, test_count, test_labels, test_interval_day: ten days give ten positions", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ interval: "day" }));
      expect(result!.days).toEqual(range(10));
      expect(result!.count).toBe(2);
      expect(result!.label).toBe("$pageview");
      expect(result!.labels).toEqual(dayLabels(10));
      expect(result!.data).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 1, 0]);
      await legacyMatches(ref, { events: [{ id: "$pageview", type: "events", order: 0 }], date_from: "2020-01-11", date_to: "2020-01-20", interval: "day" }, [result!]);
      const shownAs = await ref.legacy("GET", "insights/trend", { shown_as: "Stickiness", events: JSON.stringify([{ id: "$pageview" }]), date_from: "2020-01-11", date_to: "2020-01-20" });
      expect(shownAs.status).toBe(200);
      expect(shownAs.body.result[0].data).toEqual(result!.data);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_interval_hour
  it("test_interval_hour: 11 January to 12 January 00:00 is 25 hours", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ interval: "hour", date_from: "2020-01-11", date_to: "2020-01-12" }));
      const want = new Array<number>(25).fill(0);
      want[0] = 2;
      expect(result!.label).toBe("$pageview");
      expect(result!.labels).toEqual(dayLabels(25, "hour"));
      expect(result!.days).toEqual(range(25));
      expect(result!.data).toEqual(want);
      await legacyMatches(ref, { events: [{ id: "$pageview" }], date_from: "2020-01-11", date_to: "2020-01-12", interval: "hour" }, [result!]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_interval_hour_last_days
  it("test_interval_hour_last_days: -2d by hour starts at midnight (61 = 48 + 12 + 1 hours)", async () => {
    await withReference(data({ now: "2020-01-20T12:00:00Z" }), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ interval: "hour", date_from: "-2d", date_to: "now" }));
      const want = new Array<number>(61).fill(0);
      want[0] = 1;
      want[1] = 1;
      expect(result!.label).toBe("$pageview");
      expect(result!.labels).toEqual(dayLabels(61, "hour"));
      expect(result!.days).toEqual(range(61));
      expect(result!.data).toEqual(want);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_interval_2_day
  it("test_interval_2_day: intervalCount 2 makes five two-day periods", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ interval: "day", intervalCount: 2 }));
      expect(result!.label).toBe("$pageview");
      expect(result!.labels).toEqual(dayLabels(5));
      expect(result!.days).toEqual(range(5));
      expect(result!.data).toEqual([0, 0, 0, 0, 2]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_interval_2_day_filtering
  it("test_interval_2_day_filtering: periods count from the end of the range; actors by day and operator", async () => {
    const events = createEvents([
      { distinct_id: "p1", events: [["$pageview", days(11, 19)]], properties: { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:1" } },
      { distinct_id: "p2", events: [["$pageview", days(11, 15, 2)]], properties: { $browser: "Firefox", prop: 10, bool_field: false, $group_0: "org:1" } },
    ]);
    await withReference({ now: NOW, ...events }, async (ref) => {
      const node = stickinessQuery({ interval: "day", intervalCount: 2 });
      const [result] = await run(ref, node);
      expect(result!.label).toBe("$pageview");
      expect(result!.labels).toEqual(dayLabels(5));
      expect(result!.days).toEqual(range(5));
      expect(result!.data).toEqual([0, 0, 1, 0, 1]);
      const exact1 = await ref.query({ kind: "StickinessActorsQuery", source: node, day: 1, operator: "exact" });
      expect(exact1.results).toHaveLength(0);
      const gte3 = await ref.query({ kind: "StickinessActorsQuery", source: node, day: 3, operator: "gte" });
      expect(gte3.results).toHaveLength(2);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_interval_week
  it("test_interval_week: 11–20 January touches three weeks", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ interval: "week" }));
      expect(result!.label).toBe("$pageview");
      expect(result!.labels).toEqual(["1 week", "2 weeks", "3 weeks"]);
      expect(result!.days).toEqual([1, 2, 3]);
      expect(result!.data).toEqual([0, 0, 2]);
      await legacyMatches(ref, { events: [{ id: "$pageview" }], date_from: "2020-01-11", date_to: "2020-01-20", interval: "week" }, [result!]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_interval_full_weeks
  it("test_interval_full_weeks: -30d by week is five weeks", async () => {
    await withReference(data({ now: "2020-01-23T12:00:00Z" }), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ interval: "week", date_from: "-30d", date_to: "now" }));
      expect(result!.label).toBe("$pageview");
      expect(result!.labels).toEqual(["1 week", "2 weeks", "3 weeks", "4 weeks", "5 weeks"]);
      expect(result!.days).toEqual([1, 2, 3, 4, 5]);
      expect(result!.data).toEqual([0, 0, 2, 0, 0]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_interval_month
  it("test_interval_month: a range inside January is one month", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ interval: "month" }));
      expect(result!.label).toBe("$pageview");
      expect(result!.labels).toEqual(["1 month"]);
      expect(result!.days).toEqual([1]);
      expect(result!.data).toEqual([2]);
      await legacyMatches(ref, { events: [{ id: "$pageview" }], date_from: "2020-01-11", date_to: "2020-01-20", interval: "month" }, [result!]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_property_filtering
  it("test_property_filtering: an event property filter keeps p1 (Chrome)", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ properties: [{ type: "event", key: "$browser", operator: "exact", value: "Chrome" }] }));
      expect(result!.data).toEqual(tenWith(9));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_property_filtering_hogql
  it("test_property_filtering_hogql: a HogQL property filter keeps p1 (Chrome)", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ properties: [{ type: "hogql", key: "properties.$browser == 'Chrome'" }] }));
      expect(result!.data).toEqual(tenWith(9));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_event_filtering
  it("test_event_filtering: a series property filter keeps p1 (Chrome)", async () => {
    await withReference(data(), async (ref) => {
      const series = [{ kind: "EventsNode", event: "$pageview", properties: [{ type: "event", key: "$browser", operator: "exact", value: "Chrome" }] }];
      const [result] = await run(ref, stickinessQuery({ series }));
      expect(result!.data).toEqual(tenWith(9));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_any_event
  it("test_any_event: all events, labelled All events", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ series: [{ kind: "EventsNode", event: null }] }));
      expect(result!.label).toBe("All events");
      expect(result!.data).toEqual(tenWith(5, 9));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_actions
  it("test_actions: an action of Chrome pageviews", async () => {
    const extra = { actions: [{ project_id: "1", id: 1, name: "My Action", steps: [{ event: "$pageview", properties: [{ key: "$browser", type: "event", value: "Chrome", operator: "exact" }] }] }] };
    await withReference(data({ extra } as Partial<RefData>), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ series: [{ kind: "ActionsNode", id: 1 }] }));
      expect(result!.data).toEqual(tenWith(9));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_compare
  it("test_compare: the previous period has nobody", async () => {
    await withReference(data(), async (ref) => {
      const results = await run(ref, stickinessQuery({ filters: {}, compareFilter: { compare: true } }));
      expect(results[0]!.count).toBe(2);
      expect(results[0]!.compare_label).toBe("current");
      expect(results[1]!.count).toBe(0);
      expect(results[1]!.compare_label).toBe("previous");
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_compare_to
  it("test_compare_to: compared with the range one day earlier", async () => {
    await withReference(data(), async (ref) => {
      const results = await run(ref, stickinessQuery({ date_from: "2020-01-12", date_to: "2020-01-20", filters: {}, compareFilter: { compare: true, compare_to: "-1d" } }));
      expect(results[0]!.count).toBe(2);
      expect(results[0]!.compare_label).toBe("current");
      expect(results[0]!.data).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0]);
      expect(results[1]!.count).toBe(2);
      expect(results[1]!.compare_label).toBe("previous");
      expect(results[1]!.data).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 1]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_criteria
  it("test_criteria: an interval counts only when the actor's events in it meet the criteria", async () => {
    const events = createEvents([
      {
        distinct_id: "p1",
        events: [["$pageview", [...days(11, 11), ...days(11, 11), ...days(13, 13), ...days(13, 13), ...days(15, 15), ...days(15, 15), ...days(17, 17), ...days(17, 17), ...days(17, 17), ...days(19, 19)]]],
        properties: { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:1" },
      },
      {
        distinct_id: "p2",
        events: [["$pageview", [...days(12, 12), ...days(12, 12), ...days(13, 13), ...days(13, 13), ...days(19, 19)]]],
        properties: { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:1" },
      },
    ]);
    await withReference({ now: NOW, ...events }, async (ref) => {
      const gte = await run(ref, stickinessQuery({ date_from: "2020-01-12", date_to: "2020-01-20", filters: { stickinessCriteria: { operator: "gte", value: 2 } } }));
      expect(gte[0]!.count).toBe(2);
      expect(gte[0]!.data).toEqual([0, 1, 1, 0, 0, 0, 0, 0, 0]);
      const lte = await run(ref, stickinessQuery({ date_from: "2020-01-12", date_to: "2020-01-20", filters: { stickinessCriteria: { operator: "lte", value: 1 } } }));
      expect(lte[0]!.count).toBe(2);
      expect(lte[0]!.data).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0]);
      const exact = await run(ref, stickinessQuery({ date_from: "2020-01-11", date_to: "2020-01-20", filters: { stickinessCriteria: { operator: "exact", value: 2 } } }));
      expect(exact[0]!.count).toBe(2);
      expect(exact[0]!.data).toEqual([0, 1, 1, 0, 0, 0, 0, 0, 0, 0]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_filter_test_accounts
  it("test_filter_test_accounts: the test account filter keeps p1 (Chrome)", async () => {
    await withReference(data({ testAccountFilters: [{ key: "$browser", type: "event", value: "Chrome", operator: "exact" }] }), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ filterTestAccounts: true }));
      expect(result!.data).toEqual(tenWith(9));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_group_aggregations
  it("test_group_aggregations: unique_group counts the one organisation", async () => {
    const groups = { groups: [{ project_id: "1", group_type_index: 0, group_key: "org:1" }] };
    await withReference(data({ groupTypes: [{ group_type_index: 0, group_type: "organization" }], extra: groups } as Partial<RefData>), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ series: [{ kind: "EventsNode", event: "$pageview", math: "unique_group", math_group_type_index: 0 }] }));
      expect(result!.data).toEqual(tenWith(9));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_hogql_aggregations
  it("test_hogql_aggregations: math hogql counts the values of e.properties.prop (one value, 10)", async () => {
    await withReference(data(), async (ref) => {
      const [result] = await run(ref, stickinessQuery({ series: [{ kind: "EventsNode", event: "$pageview", math: "hogql", math_hogql: "e.properties.prop" }] }));
      expect(result!.data).toEqual(tenWith(9));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_cumulative_stickiness
  it("test_cumulative_stickiness: position k counts actors active on k or more days", async () => {
    await withReference({ now: NOW, ...threeDays() }, async (ref) => {
      const [result] = await run(ref, stickinessQuery({ date_from: "2020-01-11", date_to: "2020-01-13", filters: { computedAs: "cumulative" } }));
      expect(result!.data).toEqual([3, 2, 1]);
      expect(result!.count).toBe(3);
      expect(result!.labels).toEqual(dayLabels(3, "day", " or more"));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_cumulative_stickiness_with_intervals
  it("test_cumulative_stickiness_with_intervals: by hour", async () => {
    const events = createEvents([
      { distinct_id: "p1", events: [["$pageview", ["2020-01-11T12:00:00Z", "2020-01-11T13:00:00Z", "2020-01-11T14:00:00Z"]]], properties: {} },
      { distinct_id: "p2", events: [["$pageview", ["2020-01-11T12:00:00Z", "2020-01-11T13:00:00Z"]]], properties: {} },
    ]);
    await withReference({ now: NOW, ...events }, async (ref) => {
      const [result] = await run(ref, stickinessQuery({ date_from: "2020-01-11T12:00:00Z", date_to: "2020-01-11T14:00:00Z", interval: "hour", filters: { computedAs: "cumulative" } }));
      expect(result!.data).toEqual([2, 2, 1]);
      expect(result!.labels).toEqual(dayLabels(3, "hour", " or more"));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_cumulative_stickiness_with_property_filter
  it("test_cumulative_stickiness_with_property_filter: only the Chrome person", async () => {
    const events = createEvents([
      { distinct_id: "p1", events: [["$pageview", days(11, 13)]], properties: { browser: "Chrome" } },
      { distinct_id: "p2", events: [["$pageview", days(11, 12)]], properties: { browser: "Safari" } },
    ]);
    await withReference({ now: NOW, ...events }, async (ref) => {
      const [result] = await run(
        ref,
        stickinessQuery({ date_from: "2020-01-11", date_to: "2020-01-13", properties: [{ type: "event", key: "browser", value: "Chrome", operator: "exact" }], filters: { computedAs: "cumulative" } }),
      );
      expect(result!.data).toEqual([1, 1, 1]);
      expect(result!.labels).toEqual(dayLabels(3, "day", " or more"));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_cumulative_stickiness_zero_days
  it("test_cumulative_stickiness_zero_days: no events", async () => {
    await withReference({ now: NOW, events: [] }, async (ref) => {
      const [result] = await run(ref, stickinessQuery({ date_from: "2020-01-11", date_to: "2020-01-13", filters: { computedAs: "cumulative" } }));
      expect(result!.data).toEqual([0, 0, 0]);
      expect(result!.labels).toEqual(dayLabels(3, "day", " or more"));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_cumulative_stickiness_with_criteria
  it("test_cumulative_stickiness_with_criteria: days with two or more events, cumulated", async () => {
    const events = createEvents([
      { distinct_id: "p1", events: [["$pageview", [...days(11, 11), ...days(11, 11), ...days(12, 12), ...days(12, 12), ...days(13, 13)]]], properties: {} },
      { distinct_id: "p2", events: [["$pageview", [...days(11, 11), ...days(11, 11), ...days(12, 12)]]], properties: {} },
      { distinct_id: "p3", events: [["$pageview", days(11, 11)]], properties: {} },
    ]);
    await withReference({ now: NOW, ...events }, async (ref) => {
      const [result] = await run(
        ref,
        stickinessQuery({ date_from: "2020-01-11", date_to: "2020-01-13", filters: { computedAs: "cumulative", stickinessCriteria: { operator: "gte", value: 2 } } }),
      );
      expect(result!.data).toEqual([2, 1, 0]);
      expect(result!.labels).toEqual(dayLabels(3, "day", " or more"));
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_actor_query_cumulative
  it("test_actor_query_cumulative: the actors of position k are those active on k or more days", async () => {
    await withReference({ now: NOW, ...threeDays() }, async (ref) => {
      const source = stickinessQuery({ date_from: "2020-01-11", date_to: "2020-01-13", filters: { computedAs: "cumulative" } });
      const counts = [];
      for (const day of [1, 2, 3]) counts.push((await ref.query({ kind: "InsightActorsQuery", source, day })).results.length);
      expect(counts).toEqual([3, 2, 1]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_actor_query_non_cumulative
  it("test_actor_query_non_cumulative: the actors of position k are those active on exactly k days", async () => {
    await withReference({ now: NOW, ...threeDays() }, async (ref) => {
      const source = stickinessQuery({ date_from: "2020-01-11", date_to: "2020-01-13" });
      const counts = [];
      for (const day of [1, 2, 3]) counts.push((await ref.query({ kind: "InsightActorsQuery", source, day })).results.length);
      expect(counts).toEqual([1, 1, 1]);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_query_runner.py::test_actor_query_with_operator
  it("test_actor_query_with_operator: gte and lte", async () => {
    await withReference({ now: NOW, ...threeDays() }, async (ref) => {
      const source = stickinessQuery({ date_from: "2020-01-11", date_to: "2020-01-13" });
      expect((await ref.query({ kind: "StickinessActorsQuery", source, day: 2, operator: "gte" })).results).toHaveLength(2);
      expect((await ref.query({ kind: "StickinessActorsQuery", source, day: 2, operator: "lte" })).results).toHaveLength(2);
    });
  });
});

// posthog/hogql_queries/insights/stickiness/test/test_stickiness_validation_rules.py
describe("stickiness validation (PostHog's stickiness validation rules tests)", () => {
  const CRITERIA_VALUE = "query__stickinessFilter__stickinessCriteria__value";
  // PostHog's words, or the document's bound where the schema refuses the value first (the field is named either way).
  const refuses = async (node: Record<string, unknown>, detail: RegExp, attr: string) => {
    await withReference({ now: NOW, ...threeDays() }, async (ref) => {
      const res = await ref.queryResponse(node);
      expect(res.status).toBe(400);
      expect(res.body.type).toBe("validation_error");
      expect(res.body.detail).toMatch(detail);
      expect(res.body.attr).toBe(attr);
    });
  };

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_validation_rules.py::test_rejects_invalid_stickiness_criteria
  it("test_rejects_invalid_stickiness_criteria: negative, exact 0 and lte 0", async () => {
    await refuses(stickinessQuery({ filters: { stickinessCriteria: { operator: "gte", value: -1 } } }), /Stickiness criteria value must be non-negative\.|must be >= 0/, CRITERIA_VALUE);
    await refuses(stickinessQuery({ filters: { stickinessCriteria: { operator: "exact", value: 0 } } }), /Stickiness criteria with operator exact or lte must use a value greater than 0\.|must be > 0/, CRITERIA_VALUE);
    await refuses(stickinessQuery({ filters: { stickinessCriteria: { operator: "lte", value: 0 } } }), /Stickiness criteria with operator exact or lte must use a value greater than 0\.|must be > 0/, CRITERIA_VALUE);
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_validation_rules.py::test_allows_zero_for_gte_stickiness_criteria
  it("test_allows_zero_for_gte_stickiness_criteria", async () => {
    await withReference({ now: NOW, ...threeDays() }, async (ref) => {
      const res = await ref.queryResponse(stickinessQuery({ filters: { stickinessCriteria: { operator: "gte", value: 0 } } }));
      expect(res.status).toBe(200);
    });
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_validation_rules.py::test_rejects_invalid_interval_count
  it("test_rejects_invalid_interval_count: zero, negative, above 365", async () => {
    await refuses(stickinessQuery({ intervalCount: 0 }), /intervalCount must be a positive integer\.|must be >= 1/, "query__intervalCount");
    await refuses(stickinessQuery({ intervalCount: -1 }), /intervalCount must be a positive integer\.|must be >= 1/, "query__intervalCount");
    await refuses(stickinessQuery({ intervalCount: 366 }), /intervalCount cannot exceed 365\.|must be <= 365/, "query__intervalCount");
  });

  // posthog/hogql_queries/insights/stickiness/test/test_stickiness_validation_rules.py::test_allows_valid_interval_count
  it("test_allows_valid_interval_count: 365", async () => {
    await withReference({ now: NOW, ...threeDays() }, async (ref) => {
      const res = await ref.queryResponse(stickinessQuery({ intervalCount: 365 }));
      expect(res.status).toBe(200);
    });
  });
});

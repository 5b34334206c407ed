/**
 * PostHog's funnel-trends tests (posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py, newest version,
 * whose tests build FunnelsQuery nodes), the part funnels.test.ts does not hold: the tail of the file from
 * test_exclusion_multiday_completion_on_first_day, test_period_not_final under its frozen clock, and the actor lists
 * (_get_actors_at_step) of the earlier tests. The unordered conversion trends of test_funnel_unordered.py
 * (test_unordered_trend_*) are here too.
 *
 * PostHog's tests read the summarized rows (reached_from_step_count, reached_to_step_count, conversion_rate,
 * timestamp). The API shows a period's conversion rate (`data`) and start (`days`); the two counts are the actors
 * of the period, as FunnelsActorsQuery lists them: reached_to = those who converted, reached_from = those plus
 * those who dropped off (funnelTrendsDropOff). Both are compared.
 */
import { describe, expect, it } from "vitest";
import { filtersToQuery } from "../../src/analyses/filter-to-query.ts";
import { getActors, who, type Filter } from "./funnel-actors.ts";
import { journeysFor, withReference, type RefData, type Reference } from "./support.ts";

type TrendItem = { data: number[]; days: string[]; breakdown_value?: unknown };
/** One summarized row of PostHog's funnel trend. */
interface Summary {
  timestamp: string;
  reached_from_step_count: number;
  reached_to_step_count: number;
  conversion_rate: number;
}

/** A FunnelsQuery node as the newest PostHog tests build it. */
function trendQuery(steps: string[], dateRange: { date_from: string; date_to?: string }, funnelsFilter: Filter, extra: Filter = {}): Filter {
  return { kind: "FunnelsQuery", dateRange, interval: "day", series: steps.map((event) => ({ kind: "EventsNode", event })), funnelsFilter: { funnelVizType: "trends", ...funnelsFilter }, ...extra };
}

/** A period's actors who converted, and who dropped off, as FunnelsActorsQuery lists them. */
async function periodActors(ref: Reference, query: Filter, period: string, breakdown?: unknown) {
  const ask = { funnelTrendsEntrancePeriodStart: period, ...(breakdown === undefined ? {} : { funnelStepBreakdown: breakdown }) };
  const converted = await getActors(ref, query, { ...ask, funnelTrendsDropOff: false });
  const dropped = await getActors(ref, query, { ...ask, funnelTrendsDropOff: true });
  return { converted, dropped };
}

/** The summarized rows of one trend item: its periods with the counts of their actors and the item's conversion rate. */
async function summarize(ref: Reference, query: Filter, item: TrendItem): Promise<Summary[]> {
  const rows: Summary[] = [];
  for (const [i, day] of item.days.entries()) {
    const { converted, dropped } = await periodActors(ref, query, `${day} 00:00:00`, item.breakdown_value);
    rows.push({ timestamp: day, reached_from_step_count: converted.length + dropped.length, reached_to_step_count: converted.length, conversion_rate: item.data[i]! });
  }
  return rows;
}

/** FunnelsQueryRunner(just_summarize=True) of a query without breakdown: one row per period. */
async function summarized(ref: Reference, query: Filter): Promise<Summary[]> {
  const items: TrendItem[] = (await ref.query(query)).results;
  expect(items.length).toBe(1);
  return summarize(ref, query, items[0]!);
}

/** With a breakdown: the rows of every breakdown value, each row keeping its value. */
async function summarizedByValue(ref: Reference, query: Filter): Promise<(Summary & { breakdown_value: unknown })[]> {
  const items: TrendItem[] = (await ref.query(query)).results;
  const rows = [];
  for (const item of items) for (const row of await summarize(ref, query, item)) rows.push({ ...row, breakdown_value: item.breakdown_value });
  return rows;
}

const counts = (rows: Summary[]) => rows.map((r) => [r.reached_from_step_count, r.reached_to_step_count]);
const of = (rows: (Summary & { breakdown_value: unknown })[], value: string, key: "reached_from_step_count" | "reached_to_step_count") =>
  rows.filter((r) => JSON.stringify(r.breakdown_value) === JSON.stringify([value])).map((r) => r[key]);

const userOne = (list: [string, string][], now = "2021-05-20T00:00:00"): RefData => ({ now, ...journeysFor({ user_one: list.map(([e, t]) => [e, t] as const) }) });
const thirteenDays = { date_from: "2021-05-01 00:00:00", date_to: "2021-05-13 23:59:59" };
const tenSeconds = { funnelWindowInterval: 10, funnelWindowIntervalUnit: "second" };
const exclusion = (from: number, to: number, extra: Filter = {}) => ({ kind: "EventsNode", event: "exclusion", funnelFromStep: from, funnelToStep: to, ...extra });
const TWO = ["step one", "step two"];
const THREE = ["step one", "step two", "step three"];
/** filter_to_query: the FunnelsQuery of a legacy filter. */
const queryOf = (filters: Filter): Filter => (filtersToQuery({ insight: "FUNNELS", ...filters }) as { source: Filter }).source;

describe("funnel trends: multi-day exclusions (test_funnel_trends.py)", () => {
  // These three were listed as not expressible while the API had no period counts; the actors of a period give them.
  const noEndEvent: [string, [string, string][], [number, number]][] = [
    ["test_funnel_exclusion_multiple_possible_no_end_event1", [["step one", "00:00:00"], ["exclusion", "00:00:01"], ["step one", "00:00:31"]], [1, 0]],
    ["test_funnel_exclusion_multiple_possible_no_end_event2", [["step one", "00:00:00"], ["step one", "00:00:31"], ["exclusion", "00:00:32"]], [1, 0]],
    ["test_funnel_exclusion_multiple_possible_no_end_event3", [["step one", "00:00:00"], ["step one", "00:00:01"], ["exclusion", "00:00:02"]], [0, 0]],
  ];
  for (const [name, list, want] of noEndEvent) {
    it(name, async () => {
      // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_exclusion_multiple_possible_no_end_event1, …2, …3
      await withReference(userOne(list.map(([event, time]) => [event, `2021-05-01 ${time}`])), async (ref) => {
        const rows = await summarized(ref, trendQuery(TWO, thirteenDays, { ...tenSeconds, exclusions: [exclusion(0, 1)] }));
        expect(counts(rows.slice(0, 1)), name).toEqual([want]);
      });
    });
  }

  it("test_exclusion_multiday_completion_on_first_day", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_exclusion_multiday_completion_on_first_day
    const data = userOne([["step one", "2021-05-01 00:00:00"], ["step two", "2021-05-01 00:00:01"], ["step one", "2021-05-02 00:00:04"], ["exclusion", "2021-05-02 00:00:05"], ["step two", "2021-05-02 00:00:06"]]);
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(TWO, thirteenDays, { ...tenSeconds, exclusions: [exclusion(0, 1)] }));
      expect(counts(rows.slice(0, 2))).toEqual([[1, 1], [0, 0]]);
    });
  });

  it("test_exclusion_multiday_completion_on_second_day", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_exclusion_multiday_completion_on_second_day
    const data = userOne([["step one", "2021-05-01 00:00:00"], ["exclusion", "2021-05-01 00:00:01"], ["step two", "2021-05-01 00:00:02"], ["step one", "2021-05-02 00:00:04"], ["step two", "2021-05-02 00:00:06"]]);
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(TWO, thirteenDays, { ...tenSeconds, exclusions: [exclusion(0, 1)] }));
      expect(counts(rows.slice(0, 2))).toEqual([[0, 0], [1, 1]]);
    });
  });

  it("test_exclusion_multiday_partial_first_day_exclusion_second_day", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_exclusion_multiday_partial_first_day_exclusion_second_day
    const data = userOne([["step one", "2021-05-01 00:00:00"], ["step one", "2021-05-02 00:00:30"], ["exclusion", "2021-05-02 00:00:31"], ["step two", "2021-05-02 00:00:32"]]);
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(TWO, thirteenDays, { ...tenSeconds, exclusions: [exclusion(0, 1)] }));
      expect(counts(rows.slice(0, 2))).toEqual([[0, 0], [0, 0]]);
    });
  });

  it("test_exclusion_multiday_partial_first_day_open_exclusion_second_day", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_exclusion_multiday_partial_first_day_open_exclusion_second_day
    const data = userOne([["step one", "2021-05-01 00:00:00"], ["step one", "2021-05-02 00:00:30"], ["exclusion", "2021-05-02 00:00:31"]]);
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(TWO, thirteenDays, { ...tenSeconds, exclusions: [exclusion(0, 1)] }));
      expect(counts(rows.slice(0, 2))).toEqual([[1, 0], [0, 0]]);
    });
  });

  it("test_open_exclusion_multiday", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_open_exclusion_multiday
    const data = userOne([["step one", "2021-05-01 00:00:00"], ["step two", "2021-05-01 00:00:01"], ["step one", "2021-05-02 00:00:04"], ["step two", "2021-05-02 00:00:05"], ["exclusion", "2021-05-02 00:00:06"]]);
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(THREE, thirteenDays, { ...tenSeconds, exclusions: [exclusion(1, 2)] }));
      expect(counts(rows.slice(0, 2))).toEqual([[1, 0], [0, 0]]);
    });
  });

  it("test_excluded_completion", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_excluded_completion
    const data = userOne([["step one", "2021-05-01 00:00:00"], ["exclusion", "2021-05-01 00:00:11"], ["step one", "2021-05-01 00:00:12"], ["exclusion", "2021-05-01 00:00:13"], ["step two", "2021-05-01 00:00:14"]]);
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(TWO, thirteenDays, { ...tenSeconds, exclusions: [exclusion(0, 1)] }));
      expect(counts(rows.slice(0, 1))).toEqual([[0, 0]]);
    });
  });

  it("test_excluded_after_time_expires", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_excluded_after_time_expires
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends_udf.py::TestFunnelTrendsUDF::test_excluded_after_time_expires (its own copy: the same data and numbers)
    const data = userOne([["step one", "2021-05-01 00:00:00"], ["exclusion", "2021-05-01 00:00:11"], ["step two", "2021-05-01 00:00:12"]]);
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(TWO, thirteenDays, { ...tenSeconds, exclusions: [exclusion(0, 1)] }));
      expect(counts(rows.slice(0, 1))).toEqual([[1, 0]]);
    });
  });

  it("test_exclusion_with_property_filter", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_exclusion_with_property_filter
    const at = "2021-05-01 00:00:0";
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_excluded: [["step one", `${at}0`], ["exclusion", `${at}1`, { exclude_me: "true" }], ["step two", `${at}2`]],
        user_excluded_also: [["step one", `${at}0`], ["exclusion", `${at}1`, { exclude_me: "yes" }], ["step two", `${at}2`]],
        user_first_step: [["step one", `${at}0`]],
        user_included: [["step one", `${at}0`], ["exclusion", `${at}1`, { exclude_me: "false" }], ["step two", `${at}2`]],
      }),
    };
    const excludeMe = (value: string) => exclusion(0, 1, { properties: [{ key: "exclude_me", value, operator: "exact", type: "event" }] });
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(TWO, { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 23:59:59" }, { ...tenSeconds, exclusions: [excludeMe("true"), excludeMe("yes")] }));
      expect(rows.length).toBe(7);
      expect(counts(rows.slice(0, 1))).toEqual([[2, 1]]);
    });
  });
});

describe("funnel trends: windows, order, attribution (test_funnel_trends.py)", () => {
  it("test_breakdown_with_attribution", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_breakdown_with_attribution
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_one: [
          ["step one", "2021-05-01 00:00:00", { $browser: "Chrome" }],
          ["step one", "2021-05-01 00:00:01", { $browser: "Safari" }],
          ["step two", "2021-05-01 00:00:14", { $browser: "Chrome" }],
          ["step one", "2021-05-02 00:00:00", { $browser: "Chrome" }],
          ["step two", "2021-05-02 00:00:01", { $browser: "Safari" }],
          ["step two", "2021-05-02 00:00:14", { $browser: "Chrome" }],
        ],
      }),
    };
    const query = (breakdownAttributionType?: string, breakdownAttributionValue?: number) =>
      trendQuery(TWO, { date_from: "2021-05-01 00:00:00", date_to: "2021-05-02 23:59:59" }, { funnelWindowInterval: 30, funnelWindowIntervalUnit: "second", breakdownAttributionType, breakdownAttributionValue }, { breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } });
    await withReference(data, async (ref) => {
      let rows = await summarizedByValue(ref, query());
      expect(rows.length).toBe(2);
      expect([of(rows, "Chrome", "reached_from_step_count"), of(rows, "Chrome", "reached_to_step_count")]).toEqual([[1, 1], [1, 1]]);

      rows = await summarizedByValue(ref, query("all_events"));
      expect(rows.length).toBe(4);
      expect([of(rows, "Chrome", "reached_from_step_count"), of(rows, "Chrome", "reached_to_step_count")]).toEqual([[1, 1], [1, 1]]);
      expect([of(rows, "Safari", "reached_from_step_count"), of(rows, "Safari", "reached_to_step_count")]).toEqual([[1, 0], [0, 0]]);

      rows = await summarizedByValue(ref, query("step", 0));
      expect(rows.length).toBe(4);
      expect([of(rows, "Chrome", "reached_from_step_count"), of(rows, "Chrome", "reached_to_step_count")]).toEqual([[1, 1], [1, 1]]);
      expect([of(rows, "Safari", "reached_from_step_count"), of(rows, "Safari", "reached_to_step_count")]).toEqual([[1, 0], [1, 0]]);

      rows = await summarizedByValue(ref, query("step", 1));
      expect(rows.length).toBe(4);
      expect([of(rows, "Chrome", "reached_from_step_count"), of(rows, "Chrome", "reached_to_step_count")]).toEqual([[1, 1], [1, 1]]);
      expect([of(rows, "Safari", "reached_from_step_count"), of(rows, "Safari", "reached_to_step_count")]).toEqual([[1, 1], [0, 1]]);
    });
  });

  it("test_breakdown_with_attribution_2", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_breakdown_with_attribution_2
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_one: [
          ["step one", "2021-05-01 00:00:00", { $browser: "Chrome" }],
          ["step two", "2021-05-01 00:00:01", { $browser: "Chrome" }],
          ["step three", "2021-05-01 00:00:02", { $browser: "Safari" }],
          ["step one", "2021-05-02 00:00:00", { $browser: "Safari" }],
          ["step two", "2021-05-02 00:00:01", { $browser: "Safari" }],
          ["step three", "2021-05-02 00:00:02", { $browser: "Chrome" }],
        ],
      }),
    };
    const query = (breakdownAttributionType?: string, breakdownAttributionValue?: number) =>
      trendQuery(
        THREE,
        { date_from: "2021-05-01 00:00:00", date_to: "2021-05-02 23:59:59" },
        { funnelFromStep: 0, funnelToStep: 2, funnelWindowInterval: 30, funnelWindowIntervalUnit: "second", breakdownAttributionType, breakdownAttributionValue },
        { breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } },
      );
    await withReference(data, async (ref) => {
      let rows = await summarizedByValue(ref, query());
      expect(rows.length).toBe(2);
      expect([of(rows, "Chrome", "reached_from_step_count"), of(rows, "Chrome", "reached_to_step_count")]).toEqual([[1, 1], [1, 1]]);

      rows = await summarizedByValue(ref, query("all_events"));
      expect(rows.length).toBe(4);
      expect([of(rows, "Chrome", "reached_from_step_count"), of(rows, "Chrome", "reached_to_step_count")]).toEqual([[1, 0], [0, 0]]);
      expect([of(rows, "Safari", "reached_from_step_count"), of(rows, "Safari", "reached_to_step_count")]).toEqual([[0, 1], [0, 0]]);

      rows = await summarizedByValue(ref, query("step", 0));
      expect(rows.length).toBe(4);
      expect([of(rows, "Chrome", "reached_from_step_count"), of(rows, "Chrome", "reached_to_step_count")]).toEqual([[1, 0], [1, 0]]);
      expect([of(rows, "Safari", "reached_from_step_count"), of(rows, "Safari", "reached_to_step_count")]).toEqual([[0, 1], [0, 1]]);

      rows = await summarizedByValue(ref, query("step", 2));
      expect(rows.length).toBe(4);
      expect([of(rows, "Chrome", "reached_from_step_count"), of(rows, "Chrome", "reached_to_step_count")]).toEqual([[1, 1], [0, 1]]);
      expect([of(rows, "Safari", "reached_from_step_count"), of(rows, "Safari", "reached_to_step_count")]).toEqual([[1, 1], [1, 0]]);
    });
  });

  it("test_funnel_with_long_interval_no_first_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_with_long_interval_no_first_step
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: [{ distinct_ids: ["only_second_step"] }, { distinct_ids: ["only_first_step"] }],
      events: [
        { event: "added to cart", distinct_id: "only_second_step", timestamp: "2021-05-02 00:00:00" },
        { event: "user signed up", distinct_id: "only_first_step", timestamp: "2021-05-03 00:00:00" },
      ],
    };
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(["user signed up", "added to cart"], { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00" }, { funnelWindowInterval: 3122064000, funnelWindowIntervalUnit: "second" }));
      for (const row of [...rows.slice(0, 2), ...rows.slice(3)]) expect([row.reached_from_step_count, row.reached_to_step_count, row.conversion_rate], row.timestamp).toEqual([0, 0, 0]);
      expect(counts(rows.slice(2, 3))).toEqual([[1, 0]]);
    });
  });

  it("test_funnel_trends_with_out_of_order_completion", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_trends_with_out_of_order_completion
    const data: RefData = { now: "2021-06-20T00:00:00", ...journeysFor({ "user a": [["step one", "2021-06-07 19:00:00"], ["step three", "2021-06-07 20:00:00"], ["step two", "2021-06-07 21:00:00"]] }) };
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(THREE, { date_from: "2021-06-07 00:00:00", date_to: "2021-06-13 23:59:59" }, { funnelFromStep: 0, funnelToStep: 1, funnelWindowInterval: 7, funnelWindowIntervalUnit: "day" }));
      expect(rows.length).toBe(7);
      expect([rows[0]!.reached_to_step_count, rows[1]!.reached_to_step_count]).toEqual([1, 0]);
    });
  });

  it("test_different_prop_val_in_strict_filter", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_different_prop_val_in_strict_filter
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends_udf.py::TestFunnelTrendsUDF::test_different_prop_val_in_strict_filter (its own copy: the same data and numbers)
    const bd = (value: string) => ({ bd: value });
    const data: RefData = {
      now: "2024-01-20T00:00:00",
      persons: [{ distinct_ids: ["many_other_events"], properties: { test: "okay" } }],
      events: [
        ["first", "2024-01-02", bd("one")],
        ["first", "2024-01-03", bd("two")],
        ["unmatched", "2024-01-04", bd("one")],
        ["unmatched", "2024-01-05", bd("two")],
        ["second", "2024-01-06", bd("one")],
        ["second", "2024-01-07", bd("two")],
      ].map(([event, timestamp, properties]) => ({ event: event as string, distinct_id: "many_other_events", timestamp: timestamp as string, properties: properties as Filter })),
    };
    const query = (funnelsFilter: Filter) =>
      trendQuery(["first", "second"], { date_from: "2024-01-01", date_to: "2024-01-08" }, { funnelOrderType: "strict", ...funnelsFilter }, { breakdownFilter: { breakdown: "bd" } });
    await withReference(data, async (ref) => {
      const firstTouch = (await ref.query(query({}))).results;
      expect(firstTouch).toEqual([
        {
          breakdown_value: ["one"],
          count: 8,
          data: [0, 0, 0, 0, 0, 0, 0, 0],
          days: ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06", "2024-01-07", "2024-01-08"],
          labels: ["1-Jan-2024", "2-Jan-2024", "3-Jan-2024", "4-Jan-2024", "5-Jan-2024", "6-Jan-2024", "7-Jan-2024", "8-Jan-2024"],
        },
      ]);
      const allEvents: TrendItem[] = (await ref.query(query({ breakdownAttributionType: "all_events" }))).results;
      expect(allEvents.length).toBe(2);
      expect(allEvents.every((item) => item.data.every((rate) => rate === 0))).toBe(true);
    });
  });

  it("test_period_not_final (clock frozen at 2021-05-02 12:00:00)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_period_not_final
    const data: RefData = { now: "2021-05-02T12:00:00", ...journeysFor({ user_eight: [["step one", "2021-05-02 12:00:00"], ["step two", "2021-05-02 12:01:00"], ["step three", "2021-05-02 12:02:00"]] }) };
    await withReference(data, async (ref) => {
      const rows = await summarized(ref, trendQuery(THREE, { date_from: "2021-05-01 00:00:00", date_to: "2021-05-02 23:59:59" }, { funnelWindowInterval: 1, funnelWindowIntervalUnit: "day" }));
      expect(rows).toEqual([
        { timestamp: "2021-05-01", reached_from_step_count: 0, reached_to_step_count: 0, conversion_rate: 0 },
        { timestamp: "2021-05-02", reached_from_step_count: 1, reached_to_step_count: 1, conversion_rate: 100 },
      ]);
    });
  });
});

describe("funnel trends actor lists (test_funnel_trends.py, _get_actors_at_step)", () => {
  const names = async (ref: Reference, query: Filter, period: string, dropOff: boolean) => who(await getActors(ref, query, { funnelTrendsEntrancePeriodStart: period, funnelTrendsDropOff: dropOff }));
  const weekOf = (interval: string, dateRange: { date_from: string; date_to: string }) => trendQuery(THREE, dateRange, { funnelWindowInterval: 7, funnelWindowIntervalUnit: "day" }, { interval });
  const oneRun = (day: string) => userOne([["step one", `${day} 00:00:00`], ["step two", `${day} 01:00:00`], ["step three", `${day} 02:00:00`]]);

  for (const timezone of ["US/Pacific", "UTC"]) {
    it(`test_only_one_user_reached_one_step (${timezone}, actor lists)`, async () => {
      // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_only_one_user_reached_one_step
      const data: RefData = { now: "2021-06-20T00:00:00", timezone, ...journeysFor({ "user a": [["step one", "2021-06-07 19:00:00"]] }) };
      await withReference(data, async (ref) => {
        const query = weekOf("day", { date_from: "2021-06-07 00:00:00", date_to: "2021-06-13 23:59:59" });
        expect(counts(await summarized(ref, query))).toEqual([[1, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]);
        expect(await names(ref, query, "2021-06-07 00:00:00", true)).toEqual([["user a"]]);
        expect(await names(ref, query, "2021-06-07 00:00:00", false)).toEqual([]);
        expect(await names(ref, query, "2021-06-08 00:00:00", true)).toEqual([]);
      });
    });
  }

  it("test_day_interval (actor list)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_day_interval
    await withReference(oneRun("2021-05-01"), async (ref) => {
      expect(await names(ref, weekOf("day", { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00" }), "2021-05-01 00:00:00", false)).toEqual([["user_one"]]);
    });
  });

  it("test_week_interval (actor list)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_week_interval
    await withReference(oneRun("2021-05-01"), async (ref) => {
      expect(await names(ref, weekOf("week", { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00" }), "2021-04-25 00:00:00", false)).toEqual([["user_one"]]);
    });
  });

  for (const timezone of ["US/Pacific", "UTC"]) {
    it(`test_month_interval (${timezone}, actor list and counts)`, async () => {
      // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_month_interval
      await withReference({ ...oneRun("2020-05-01"), timezone }, async (ref) => {
        const query = weekOf("month", { date_from: "2020-01-01 00:00:00", date_to: "2020-07-01 00:00:00" });
        const april = timezone === "US/Pacific" ? 1 : 0;
        expect(counts(await summarized(ref, query))).toEqual([[0, 0], [0, 0], [0, 0], [april, april], [1 - april, 1 - april], [0, 0], [0, 0]]);
        expect(await names(ref, query, timezone === "UTC" ? "2020-05-01 00:00:00" : "2020-04-01 00:00:00", false)).toEqual([["user_one"]]);
      });
    });
  }

  it("test_one_person_in_multiple_periods_and_windows (counts and actor lists)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_one_person_in_multiple_periods_and_windows
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_one: [
          ["step one", "2021-05-01 01:00:00"],
          ["step two", "2021-05-01 02:00:00"],
          ["step three", "2021-05-01 03:00:00"],
          ["step one", "2021-05-03 01:00:00"],
          ["step two", "2021-05-03 02:00:00"],
          ["step one", "2021-05-04 11:00:00"],
          ["step two", "2021-05-04 12:00:00"],
          ["step three", "2021-05-04 13:00:00"],
        ],
        user_two: [["step one", "2021-05-04 18:00:00"]],
      }),
    };
    await withReference(data, async (ref) => {
      const query = trendQuery(THREE, { date_from: "2021-05-01 00:00:00", date_to: "2021-05-04 23:59:59" }, { funnelWindowInterval: 1 });
      const rows = await summarized(ref, query);
      expect(rows.map((r) => [r.reached_from_step_count, r.reached_to_step_count, r.conversion_rate])).toEqual([[1, 1, 100], [0, 0, 0], [1, 0, 0], [2, 1, 50]]);
      expect(await names(ref, query, "2021-05-04 00:00:00", true)).toEqual([["user_two"]]);
      expect(await names(ref, query, "2021-05-04 00:00:00", false)).toEqual([["user_one"]]);
    });
  });
});

describe("funnel trends in other orders: counts and actor lists (test_funnel_trends.py)", () => {
  const fourDays = { date_from: "2021-05-01 00:00:00", date_to: "2021-05-04 23:59:59" };
  const rated = (rows: Summary[]) => rows.map((r) => [r.reached_from_step_count, r.reached_to_step_count, r.conversion_rate]);

  it("test_one_person_in_multiple_periods_and_windows_in_unordered_funnel (counts and actor lists)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_one_person_in_multiple_periods_and_windows_in_unordered_funnel
    // (its conversion rates are also in funnels.test.ts)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_one: [
          ["step one", "2021-05-01 01:00:00"],
          ["step three", "2021-05-01 02:00:00"],
          ["step two", "2021-05-01 03:00:00"],
          ["step two", "2021-05-03 01:00:00"],
          ["step one", "2021-05-03 02:00:00"],
          ["step three", "2021-05-04 11:00:00"],
          ["step one", "2021-05-04 12:00:00"],
          ["step two", "2021-05-04 13:00:00"],
        ],
        user_two: [["step one", "2021-05-04 18:00:00"]],
      }),
    };
    await withReference(data, async (ref) => {
      const query = trendQuery(THREE, fourDays, { funnelOrderType: "unordered", funnelWindowInterval: 1 });
      expect(rated(await summarized(ref, query))).toEqual([[1, 1, 100], [0, 0, 0], [1, 0, 0], [2, 1, 50]]);
      const names = async (dropOff: boolean) => who(await getActors(ref, query, { funnelTrendsEntrancePeriodStart: "2021-05-04 00:00:00", funnelTrendsDropOff: dropOff }));
      expect(await names(true)).toEqual([["user_two"]]);
      expect(await names(false)).toEqual([["user_one"]]);
    });
  });

  it("test_one_person_in_multiple_periods_and_windows_in_strict_funnel (counts)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_one_person_in_multiple_periods_and_windows_in_strict_funnel
    // (its conversion rates are also in funnels.test.ts)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_one: [
          ["step one", "2021-05-01 01:00:00"],
          ["step two", "2021-05-01 02:00:00"],
          ["step three", "2021-05-01 03:00:00"],
          ["step one", "2021-05-03 01:00:00"],
          ["step two", "2021-05-03 02:00:00"],
          ["blah", "2021-05-03 02:30:00"],
          ["step three", "2021-05-03 03:00:00"],
          ["step one", "2021-05-04 11:00:00"],
          ["step two", "2021-05-04 12:00:00"],
          ["step three", "2021-05-04 13:00:00"],
        ],
        user_two: [["step one", "2021-05-04 18:00:00"], ["blah", "2021-05-04 18:20:00"], ["step two", "2021-05-04 19:00:00"]],
      }),
    };
    await withReference(data, async (ref) => {
      const query = trendQuery(THREE, fourDays, { funnelOrderType: "strict", funnelWindowInterval: 1, funnelWindowIntervalUnit: "day" });
      expect(rated(await summarized(ref, query))).toEqual([[1, 1, 100], [0, 0, 0], [1, 0, 0], [2, 1, 50]]);
    });
  });
});

describe("unordered conversion trends (test_funnel_unordered.py)", () => {
  const citeU = (name: string) => `posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::${name}`;
  const shifted = (start: string, days: number, hours = 0) => new Date(Date.parse(`${start}Z`) + days * 86_400_000 + hours * 3_600_000).toISOString();
  const byEvents = (list: [string, string, string][]): RefData["events"] => list.map(([distinct_id, event, timestamp]) => ({ distinct_id, event, timestamp }));
  const usersNamed = (...ids: string[]) => ids.map((id) => ({ distinct_ids: [id] }));
  const threeEvents = ["event 1", "event 2", "event 3"];
  // The PostHog filters also carry display "ActionsLineGraph", which draws the trend and counts nothing; it is left
  // out: filter_to_query has no FunnelsQuery field for it.
  const legacyOf = (extra: Filter): Filter => ({ events: threeEvents.map((id, order) => ({ id, type: "events", order })), funnel_viz_type: "trends", funnel_order_type: "unordered", ...extra });

  it("test_unordered_trend_with_partial_steps_and_exclusion", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_unordered_trend_with_partial_steps_and_exclusion
    const data: RefData = {
      now: "2024-03-20T00:00:00",
      ...journeysFor({
        user_1: [["step 1", "2024-03-01 10:00:00"], ["step 2", "2024-03-01 11:00:00"], ["exclusion event", "2024-03-01 12:00:00"], ["step 3", "2024-03-01 13:00:00"]],
        user_2: [["step 1", "2024-03-01 10:00:00"], ["step 2", "2024-03-01 11:00:00"], ["step 3", "2024-03-01 12:00:00"]],
      }),
    };
    const filters: Filter = {
      insight: "FUNNELS",
      events: ["step 1", "step 2", "step 3"].map((id, order) => ({ id, type: "events", order })),
      exclusions: [{ id: "exclusion event", type: "events", funnel_from_step: 0, funnel_to_step: 2 }],
      funnel_order_type: "unordered",
      funnel_window_interval: 6,
      funnel_window_interval_unit: "hour",
      date_from: "2024-03-01",
      date_to: "2024-03-01",
    };
    await withReference(data, async (ref) => {
      const steps = await ref.legacy("POST", "insights/funnel", filters);
      expect(steps.status, steps.text).toBe(200);
      expect((steps.body.result as { count: number }[]).map((s) => s.count)).toEqual([2, 1, 1]);
      expect(((await ref.query(queryOf(filters))).results as { count: number }[]).map((s) => s.count)).toEqual([2, 1, 1]);
      const trendFilters = { ...filters, funnel_to_step: 1, funnel_viz_type: "trends" };
      const trend = await ref.legacy("POST", "insights/funnel", trendFilters);
      expect(trend.status, trend.text).toBe(200);
      expect((await ref.query(queryOf(trendFilters))).results).toEqual(trend.body.result);
      expect(trend.body.result.length).toBe(1);
      expect([trend.body.result[0].count, trend.body.result[0].data]).toEqual([1, [50]]);
    });
  });

  it("test_unordered_trend", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_unordered_trend
    const start = "2024-03-01T10:00:00";
    const list: [string, string, string][] = [];
    for (let i = 0; i < 8; i++) list.push(["user_1", "event 3", shifted(start, i)]);
    for (let i = 0; i < 8; i += 2) list.push(["user_2", "event 3", shifted(start, i)]);
    for (let i = 0; i < 8; i += 4) list.push(["user_3", "event 3", shifted(start, i)]);
    list.push(["user_4", "event 3", shifted(start, 0)]);
    for (const id of ["user_1", "user_2", "user_3", "user_4", "user_5"]) list.push([id, "event 1", shifted(start, 7, 1)], [id, "event 2", shifted(start, 7, 2)]);
    const data: RefData = { now: "2024-03-20T00:00:00", persons: usersNamed("user_1", "user_2", "user_3", "user_4", "user_5"), events: byEvents(list) };
    const filters = legacyOf({ funnel_window_days: 8, date_from: "2024-03-01", date_to: "2024-03-08" });
    await withReference(data, async (ref) => {
      const rows = await summarizedLegacy(ref, filters);
      expect(rows.map((r) => r.timestamp)).toEqual(["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04", "2024-03-05", "2024-03-06", "2024-03-07", "2024-03-08"]);
      expect(rows.map((r) => [r.reached_from_step_count, r.reached_to_step_count, r.conversion_rate]), citeU("test_unordered_trend")).toEqual([
        [4, 4, 100],
        [1, 1, 100],
        [2, 2, 100],
        [1, 1, 100],
        [3, 3, 100],
        [1, 1, 100],
        [2, 2, 100],
        [5, 1, 20],
      ]);
    });
  });

  it("test_unordered_trend_second_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_unordered_trend_second_step
    const start = "2024-03-01T10:00:00";
    const list: [string, string, string][] = [];
    for (const id of ["user_1", "user_2"]) {
      for (let i = 0; i < 8; i++) list.push([id, "event 3", shifted(start, i)]);
      list.push([id, "event 1", shifted(start, 7, 1)]);
    }
    list.push(["user_2", "event 2", shifted(start, 7, 2)]);
    const data: RefData = { now: "2024-03-20T00:00:00", persons: usersNamed("user_1", "user_2"), events: byEvents(list) };
    const filters = legacyOf({ funnel_window_days: 8, funnel_from_step: 1, funnel_to_step: 2, date_from: "2024-03-01", date_to: "2024-03-08" });
    await withReference(data, async (ref) => {
      const rows = await summarizedLegacy(ref, filters);
      expect(rows.length).toBe(8);
      for (const row of rows) expect([row.reached_from_step_count, row.reached_to_step_count, row.conversion_rate], row.timestamp).toEqual([2, 1, 50]);
    });
  });

  it("test_unordered_trend_one_user", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_unordered_trend_one_user
    const start = "2024-12-01T10:00:00";
    const list: [string, string, string][] = [];
    for (let i = 0; i < 8; i++) list.push(["user_1", "event 3", shifted(start, i)]);
    for (let i = 0; i < 4; i++) list.push(["user_1", "event 2", shifted(start, i, 1)]);
    for (let i = 0; i < 2; i++) list.push(["user_1", "event 1", shifted(start, i, 2)]);
    const data: RefData = { now: "2024-12-20T00:00:00", persons: usersNamed("user_1"), events: byEvents(list) };
    const filters = legacyOf({ funnel_window_days: 8, funnel_from_step: 1, funnel_to_step: 2, date_from: "2024-12-01", date_to: "2024-12-08" });
    await withReference(data, async (ref) => {
      const rows = await summarizedLegacy(ref, filters);
      expect(rows.map((r) => r.reached_from_step_count)).toEqual([1, 1, 1, 1, 0, 0, 0, 0]);
      expect(rows.map((r) => r.reached_to_step_count)).toEqual([1, 1, 0, 0, 0, 0, 0, 0]);
    });
  });

  it("test_unordered_trend_weekly_monthly", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_unordered_trend_weekly_monthly
    const start = "2024-12-01T10:00:00";
    const list: [string, string, string][] = [];
    for (let i = 0; i < 31; i++) list.push(["user_1", "event 3", shifted(start, i)]);
    for (let i = 0; i < 31; i += 7) for (let j = 0; j < 7; j += 3) list.push(["user_2", "event 3", shifted(start, i + j)]);
    for (let i = 0; i < 31; i += 7) for (let j = 0; j < 7; j += 4) list.push(["user_3", "event 3", shifted(start, i + j)]);
    for (let i = 0; i < 31; i += 7) list.push(["user_4", "event 3", shifted(start, i)]);
    for (let i = 0; i < 31; i += 14) list.push(["user_5", "event 3", shifted(start, i)]);
    for (const id of ["user_1", "user_2", "user_3", "user_4", "user_5"]) list.push([id, "event 1", shifted(start, 30, 1)], [id, "event 2", shifted(start, 30, 2)]);
    const data: RefData = { now: "2024-12-31T23:00:00", persons: usersNamed("user_1", "user_2", "user_3", "user_4", "user_5"), events: byEvents(list) };
    const filters = legacyOf({ funnel_window_interval: 40, funnel_window_interval_unit: "day", date_from: "2024-12-01", date_to: "2024-12-31" });
    await withReference(data, async (ref) => {
      const monthly = await summarizedLegacy(ref, { ...filters, interval: "month" });
      expect(counts(monthly.slice(0, 1))).toEqual([[5, 5]]);
      const weekly = await summarizedLegacy(ref, { ...filters, interval: "week" });
      expect(weekly.map((r) => r.timestamp)).toEqual(["2024-12-01", "2024-12-08", "2024-12-15", "2024-12-22", "2024-12-29"]);
      expect(counts(weekly)).toEqual([[5, 5], [4, 4], [5, 5], [4, 4], [5, 5]]);
    });
  });
});

/**
 * A legacy filter's trend through both doors (the insights/funnel endpoint and filter_to_query's FunnelsQuery; their
 * items must agree), summarized over its periods.
 */
async function summarizedLegacy(ref: Reference, filters: Filter): Promise<Summary[]> {
  const legacy = await ref.legacy("POST", "insights/funnel", { insight: "FUNNELS", ...filters });
  expect(legacy.status, legacy.text).toBe(200);
  const items: TrendItem[] = legacy.body.result;
  expect(items.length).toBe(1);
  expect((await ref.query(queryOf(filters))).results).toEqual(items);
  return summarize(ref, { insight: "FUNNELS", ...filters }, items[0]!);
}

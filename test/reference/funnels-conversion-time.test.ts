/**
 * PostHog's funnel conversion time factory (posthog/hogql_queries/insights/funnels/test/conversion_time_cases.py:
 * funnel_conversion_time_test_factory), ported once per instantiation (test_funnel.py::TestFunnelConversionTime,
 * test_funnel_strict.py::TestFunnelStrictStepsConversionTime, test_funnel_unordered.py::TestFunnelUnorderedStepsConversionTime),
 * and test_funnel_conversion_window.py. Each test's data, its filter sent as a FunnelsQuery (filter_to_query, as the
 * PostHog test) and to the legacy funnel endpoint, and the numbers it asserts; the actor lists it asserts are
 * compared by their lengths, the step counts.
 */
import { describe, expect, it } from "vitest";
import { countsOf, funnel as funnelOfFilter, type Filter } from "./funnel-support.ts";
import { journeysFor, withReference, type RefData, type Reference } from "./support.ts";

type Step = { name: string | null; count: number; average_conversion_time: number | null; median_conversion_time: number | null };
const funnel = (ref: Reference, filter: Filter): Promise<Step[]> => funnelOfFilter(ref, filter);

/**
 * The funnel order each class runs the factory with. test_funnel_strict.py instantiates it with
 * FunnelOrderType.ORDERED, so its strict class runs ordered funnels.
 */
const INSTANTIATIONS: [string, string][] = [
  ["test_funnel.py::TestFunnelConversionTime", "ordered"],
  ["test_funnel_strict.py::TestFunnelStrictStepsConversionTime", "ordered"],
  ["test_funnel_unordered.py::TestFunnelUnorderedStepsConversionTime", "unordered"],
];

for (const [cls, order] of INSTANTIATIONS) {
  describe(`conversion time cases, ${order} (${cls})`, () => {
    it("test_funnel_with_multiple_incomplete_tries", async () => {
      // posthog/hogql_queries/insights/funnels/test/conversion_time_cases.py::test_funnel_with_multiple_incomplete_tries
      const data: RefData = {
        now: "2021-05-20T00:00:00",
        ...journeysFor({
          person1: [
            ["user signed up", "2021-05-01T01:00:00"],
            ["$pageview", "2021-05-01T02:00:00"],
            ["something else", "2021-05-01T03:00:00"],
            ["user signed up", "2021-05-03T04:00:00"],
            ["$pageview", "2021-05-03T05:00:00"],
            ["user signed up", "2021-05-04T07:00:00"],
            ["$pageview", "2021-05-04T10:00:00"],
          ],
        }),
      };
      await withReference(data, async (ref) => {
        const results = await funnel(ref, {
          funnel_order_type: order,
          events: [{ id: "user signed up", type: "events", order: 0 }, { id: "$pageview", type: "events", order: 1 }, { id: "something else", type: "events", order: 2 }],
          funnel_window_interval: 1,
          date_from: "2021-05-01 00:00:00",
          date_to: "2021-05-14 00:00:00",
        });
        expect(results[0]!.count).toBe(1);
        // One hour to convert: the incomplete tries are disregarded.
        expect(results[1]!.average_conversion_time).toBe(3600);
        expect(results[1]!.median_conversion_time).toBe(3600);
      });
    });

    it("test_funnel_step_conversion_times", async () => {
      // posthog/hogql_queries/insights/funnels/test/conversion_time_cases.py::test_funnel_step_conversion_times
      const data: RefData = {
        now: "2020-01-20T00:00:00",
        ...journeysFor({
          person1: [["sign up", "2020-01-01T12:00:00"], ["play movie", "2020-01-01T13:00:00"], ["buy", "2020-01-01T15:00:00"]],
          person2: [["sign up", "2020-01-02T14:00:00"], ["play movie", "2020-01-02T16:00:00"]],
          person3: [["sign up", "2020-01-02T14:00:00"], ["play movie", "2020-01-02T16:00:00"], ["buy", "2020-01-02T17:00:00"]],
        }),
      };
      await withReference(data, async (ref) => {
        const results = await funnel(ref, {
          funnel_order_type: order,
          events: [{ id: "sign up", order: 0 }, { id: "play movie", order: 1 }, { id: "buy", order: 2 }],
          date_from: "2020-01-01",
          date_to: "2020-01-08",
          funnel_window_days: 7,
        });
        expect(results.map((s) => s.average_conversion_time)).toEqual([null, 6000, 5400]);
        expect(results.map((s) => s.median_conversion_time)).toEqual([null, 7200, 5400]);
      });
    });

    it("test_funnel_times_with_different_conversion_windows", async () => {
      // posthog/hogql_queries/insights/funnels/test/conversion_time_cases.py::test_funnel_times_with_different_conversion_windows
      const data: RefData = {
        now: "2020-01-20T00:00:00",
        ...journeysFor({
          stopped_after_signup1: [["user signed up", "2020-01-02T14:00:00"], ["pageview", "2020-01-02T14:05:00"]],
          stopped_after_signup2: [["user signed up", "2020-01-02T14:03:00"]],
          stopped_after_signup3: [["user signed up", "2020-01-02T12:00:00"], ["pageview", "2020-01-02T12:15:00"]],
        }),
      };
      const filter = {
        funnel_order_type: order,
        events: [{ id: "user signed up", type: "events", order: 0 }, { id: "pageview", type: "events", order: 1 }],
        funnel_window_interval: 14,
        funnel_window_interval_unit: "day",
        date_from: "2020-01-01",
        date_to: "2020-01-14",
      };
      await withReference(data, async (ref) => {
        const days = await funnel(ref, filter);
        // The actors it lists: all three at step 1, stopped_after_signup1 and 3 at step 2.
        expect(countsOf(days)).toEqual([3, 2]);
        expect(days[1]!.average_conversion_time).toBe(600);
        const minutes = await funnel(ref, { ...filter, funnel_window_interval: 5, funnel_window_interval_unit: "minute" });
        expect(minutes).not.toEqual(days);
        // The actors it lists: all three at step 1, stopped_after_signup1 alone at step 2.
        expect(countsOf(minutes)).toEqual([3, 1]);
        expect(minutes[1]!.average_conversion_time).toBe(300);
      });
    });
  });
}

describe("conversion window (test_funnel_conversion_window.py::TestFunnelConversionWindow)", () => {
  // The window is seen through what it lets convert: step two 10 days after step one converts in a 14-day window and
  // not in a 7-day one.
  const data: RefData = {
    now: "2024-02-01T00:00:00",
    ...journeysFor({ late: [["step one", "2024-01-02T12:00:00"], ["step two", "2024-01-12T12:00:00"]], soon: [["step one", "2024-01-02T12:00:00"], ["step two", "2024-01-02T12:00:05"]] }),
  };
  const query = (funnelsFilter: Filter) => ({
    kind: "FunnelsQuery",
    series: [{ kind: "EventsNode", event: "step one" }, { kind: "EventsNode", event: "step two" }],
    dateRange: { date_from: "2024-01-01", date_to: "2024-01-31" },
    funnelsFilter,
  });

  const fallback: [string, unknown, number][] = [
    ["none", null, 14],
    ["zero", 0, 14],
    ["negative", -1, 14],
    ["positive", 7, 7],
  ];
  for (const [name, configured, expected] of fallback) {
    it(`test_window_interval_falls_back_for_non_positive (${name})`, async () => {
      // posthog/hogql_queries/insights/funnels/test/test_funnel_conversion_window.py::TestFunnelConversionWindow::test_window_interval_falls_back_for_non_positive
      await withReference(data, async (ref) => {
        const { results } = await ref.query(query({ funnelWindowInterval: configured }));
        expect(countsOf(results)).toEqual([2, expected >= 10 ? 2 : 1]);
      });
    });
  }

  const negative: [string, number, string][] = [
    ["negative_seconds", -1, "second"],
    ["negative_days", -3, "day"],
  ];
  for (const [name, configured, unit] of negative) {
    it(`test_conversion_window_limit_is_never_negative (${name})`, async () => {
      // posthog/hogql_queries/insights/funnels/test/test_funnel_conversion_window.py::TestFunnelConversionWindow::test_conversion_window_limit_is_never_negative
      // A negative window is not an error: it falls back to 14 of its unit, a window of 14 seconds or days.
      await withReference(data, async (ref) => {
        const { results } = await ref.query(query({ funnelWindowInterval: configured, funnelWindowIntervalUnit: unit }));
        expect(countsOf(results)).toEqual([2, unit === "second" ? 1 : 2]);
      });
    });
  }
});

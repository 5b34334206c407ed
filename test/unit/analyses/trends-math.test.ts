import { describe, expect, it } from "vitest";
import { computeTrends } from "../../../src/analyses/trends/index.ts";
import { contextFor, ev, journeys, worked, type World } from "./support.ts";

const trend = (world: World, filter: Record<string, unknown>) => computeTrends(world.events, filter, contextFor(world));
const range = { date_from: "2024-03-01", date_to: "2024-03-03" };

/**
 * P1: Mar 1 amount 10 (s1), Mar 1 amount 20 (s1), Mar 2 amount 5 (s2), Mar 3 no amount, no session
 * P2: Mar 1 amount 40 (s3), Mar 3 nothing
 * P3 (no person record): Mar 3 amount "7" (s4)
 */
const shop = journeys({
  P1: [
    ev("$pageview", "2024-03-01T10:00", { amount: 10, $session_id: "s1" }),
    ev("$pageview", "2024-03-01T11:00", { amount: 20, $session_id: "s1" }),
    ev("$pageview", "2024-03-02T10:00", { amount: 5, $session_id: "s2" }),
    ev("$pageview", "2024-03-03T11:00"),
  ],
  P2: [ev("$pageview", "2024-03-01T12:00", { amount: 40, $session_id: "s3" }), ev("$pageview", "2024-03-03T09:00")],
  P3: { anonymous: true, events: [ev("$pageview", "2024-03-03T10:00", { amount: "7", $session_id: "s4" })] },
});

describe("math (reference §2.3)", () => {
  const cases: [string, Record<string, unknown>, number[]][] = [
    ["total", {}, [3, 1, 3]],
    ["dau", { math: "dau" }, [2, 1, 3]],
    // Day 3: P1 and P2 have no $session_id (one empty session) plus s4.
    ["unique_session", { math: "unique_session" }, [2, 1, 2]],
    ["sum", { math: "sum", math_property: "amount" }, [70, 5, 7]],
    ["avg", { math: "avg", math_property: "amount" }, [70 / 3, 5, 7]],
    ["min", { math: "min", math_property: "amount" }, [10, 5, 7]],
    ["max", { math: "max", math_property: "amount" }, [40, 5, 7]],
    ["median", { math: "median", math_property: "amount" }, [20, 5, 7]],
    // Day 1 sorted [10, 20, 40]: position p·2 between neighbours.
    ["p75", { math: "p75", math_property: "amount" }, [30, 5, 7]],
    ["p90", { math: "p90", math_property: "amount" }, [36, 5, 7]],
    ["p95", { math: "p95", math_property: "amount" }, [38, 5, 7]],
    ["p99", { math: "p99", math_property: "amount" }, [39.6, 5, 7]],
    // Day 1: P1 2 events, P2 1; day 2: P1 1; day 3: P1, P2, P3 1 each.
    ["avg_count_per_actor", { math: "avg_count_per_actor" }, [1.5, 1, 1]],
    ["min_count_per_actor", { math: "min_count_per_actor" }, [1, 1, 1]],
    ["max_count_per_actor", { math: "max_count_per_actor" }, [2, 1, 1]],
    ["median_count_per_actor", { math: "median_count_per_actor" }, [1.5, 1, 1]],
    ["p75_count_per_actor", { math: "p75_count_per_actor" }, [1.75, 1, 1]],
    ["p90_count_per_actor", { math: "p90_count_per_actor" }, [1.9, 1, 1]],
    ["p95_count_per_actor", { math: "p95_count_per_actor" }, [1.95, 1, 1]],
    ["p99_count_per_actor", { math: "p99_count_per_actor" }, [1.99, 1, 1]],
  ];
  it.each(cases)("%s", (_name, math, want) => {
    const data = trend(shop, { ...range, events: [{ id: "$pageview", ...math }] })[0]!.data!;
    data.forEach((value, i) => expect(value).toBeCloseTo(want[i]!, 10));
  });

  /** Q1 signed up before the range (pro) and again inside (free); Q2 free then pro; Q3 pro. */
  const signups = journeys({
    Q1: [ev("signup", "2024-02-20T10:00", { plan: "pro" }), ev("signup", "2024-03-02T10:00", { plan: "free" })],
    Q2: [ev("signup", "2024-03-01T10:00", { plan: "free" }), ev("signup", "2024-03-03T10:00", { plan: "pro" })],
    Q3: [ev("signup", "2024-03-02T12:00", { plan: "pro" })],
  });
  const pro = [{ key: "plan", value: "pro" }];

  it("first_time_for_user: first-ever occurrences only, earlier ones outside the range not counted", () => {
    expect(trend(signups, { ...range, events: [{ id: "signup", math: "first_time_for_user" }] })[0]!.data).toEqual([1, 1, 0]);
  });

  it("first_time_for_user with a filter: the first-ever event must itself match", () => {
    expect(trend(signups, { ...range, events: [{ id: "signup", math: "first_time_for_user", properties: pro }] })[0]!.data).toEqual([0, 1, 0]);
  });

  it("first_matching_event_for_user: the first event that matches the filters", () => {
    expect(trend(signups, { ...range, events: [{ id: "signup", math: "first_matching_event_for_user", properties: pro }] })[0]!.data).toEqual([0, 1, 1]);
  });

  it("unique_group counts distinct non-empty $group_N values", () => {
    const w = journeys({ a: [ev("e", "2024-03-01T10:00", { $group_0: "acme" }), ev("e", "2024-03-01T11:00", { $group_0: "" })], b: [ev("e", "2024-03-01T12:00", { $group_0: "acme" }), ev("e", "2024-03-01T13:00", { $group_0: "beta" })] });
    expect(trend(w, { ...range, events: [{ id: "e", math: "unique_group", math_group_type_index: 0 }] })[0]!.data).toEqual([2, 0, 0]);
  });

  it("a math that needs a property without one, or an unknown math, is a 400", () => {
    expect(() => trend(shop, { ...range, events: [{ id: "$pageview", math: "sum" }] })).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "events__0__math_property" }));
    expect(() => trend(shop, { ...range, events: [{ id: "$pageview", math: "mode" }] })).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "events__0__math" }));
  });
});

describe("weekly_active / monthly_active are trailing windows (§11 item 7)", () => {
  /** R4 Feb 1 (29 days before Mar 1), R3 Feb 25, R1 Mar 1, R2 Mar 5. */
  const active = journeys({
    R1: [ev("e", "2024-03-01T10:00")],
    R2: [ev("e", "2024-03-05T10:00")],
    R3: [ev("e", "2024-02-25T10:00")],
    R4: [ev("e", "2024-02-01T10:00")],
  });
  const days = { date_from: "2024-03-01", date_to: "2024-03-08" };

  it("weekly_active per day: the day and the 6 before", () => {
    expect(trend(active, { ...days, events: [{ id: "e", math: "weekly_active" }] })[0]!.data).toEqual([2, 2, 1, 1, 2, 2, 2, 1]);
  });

  it("weekly_active with week interval is plain uniques per calendar week", () => {
    expect(trend(active, { ...days, interval: "week", events: [{ id: "e", math: "weekly_active" }] })[0]!.data).toEqual([1, 1]);
  });

  it("monthly_active per day: the day and the 29 before", () => {
    expect(trend(active, { date_from: "2024-03-01", date_to: "2024-03-03", events: [{ id: "e", math: "monthly_active" }] })[0]!.data).toEqual([3, 2, 2]);
  });

  // PostHog test_trends.py::test_weekly_active_users_aggregated_range_wider_than_week: the window of the last day.
  it("as a total value: actors active on the range's last day and the 6 before (R2 alone, Mar 2–8)", () => {
    expect(trend(active, { ...days, display: "BoldNumber", events: [{ id: "e", math: "weekly_active" }] })[0]!.aggregated_value).toBe(1);
  });
});

describe("display (reference §2.4)", () => {
  const base = { events: [{ id: "$pageview" }], ...range };

  it.each(["ActionsLineGraph", "ActionsBar", "ActionsAreaGraph", "ActionsStackedBar", "ActionsUnstackedBar"])("%s is a time series", (display) => {
    expect(trend(worked(), { ...base, display })[0]).toMatchObject({ data: [3, 1, 1], count: 5 });
  });

  it.each(["BoldNumber", "ActionsPie", "ActionsTable", "ActionsBarValue", "WorldMap"])("%s is one total value, interval ignored", (display) => {
    const [item] = trend(worked(), { ...base, display, interval: "hour" });
    expect(item).toMatchObject({ aggregated_value: 5, data: [], days: [], count: 0 });
    expect(item).not.toHaveProperty("labels");
  });

  it("ActionsLineGraphCumulative: running total, count is the last value", () => {
    expect(trend(worked(), { ...base, display: "ActionsLineGraphCumulative" })[0]).toMatchObject({ data: [3, 4, 5], count: 5 });
  });

  it("cumulative unique users count each person once, on their first day", () => {
    // A and C on day 1, B on day 2, only A on day 3.
    expect(trend(worked(), { ...base, display: "ActionsLineGraphCumulative", events: [{ id: "$pageview", math: "dau" }] })[0]).toMatchObject({ data: [2, 3, 3], count: 3 });
  });

  it("smoothing_intervals: mean of the last N buckets, rounded down", () => {
    const perDay = [2, 0, 4, 1, 3];
    const w = journeys({ s: perDay.flatMap((n, d) => Array.from({ length: n }, (_, i) => ev("e", `2024-03-0${d + 1}T1${i}:00`))) });
    expect(trend(w, { events: [{ id: "e" }], date_from: "2024-03-01", date_to: "2024-03-05", smoothing_intervals: 3 })[0]).toMatchObject({ data: [2, 1, 2, 1, 2], count: 8 });
  });
});

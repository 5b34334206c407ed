/**
 * PostHog's retention query-runner tests of property aggregation (`aggregationType`, `aggregationProperty`,
 * `aggregationPropertyType`) and of 24-hour windows (`timeWindowMode`), ported from
 * posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py (stored version
 * 9518f16c6c6eee6176605f54afb7a2aa7de32ba5, the newest: it has the person-property aggregation tests). Data,
 * requests and the numbers asserted are PostHog's. Tests that cannot be ported are listed in SKIPPED.md.
 */
import { describe, expect, it } from "vitest";
import { withReference, type RefData, type RefEvent, type Reference } from "./support.ts";
import { createEvents, D, data, persons } from "./retention-support.ts";

/** PostHog's `datetime(2020, month, day, hour, minute).isoformat()`. */
const at = (month: number, day: number, hour = 0, minute = 0): string => new Date(Date.UTC(2020, month - 1, day, hour, minute)).toISOString().slice(0, 19);

interface Row {
  label: string;
  breakdown_value?: string | number;
  values: { count: number; aggregation_value?: number; label: string }[];
}

const node = (q: Record<string, unknown>) => ({ kind: "RetentionQuery", ...q, retentionFilter: q.retentionFilter ?? {} });
const results = async (ref: Reference, q: Record<string, unknown>): Promise<Row[]> => (await ref.query<{ results: Row[] }>(node(q))).results;
const run = (d: RefData, q: Record<string, unknown>) => withReference(d, (ref) => results(ref, q));

const aggregationValues = (rows: Row[]) => rows.map((r) => r.values.map((v) => v.aggregation_value));
const counts = (row: Row) => row.values.map((v) => v.count);
/** PostHog's `pad`: each row filled with zeros to the first row's length. */
const pad = (rows: number[][]) => rows.map((r) => [...r, ...Array<number>(rows[0]!.length - r.length).fill(0)]);
const rowOf = (rows: Row[], label: string) => rows.find((r) => r.label === label)!;
const firstOf = (rows: Row[], breakdown: string) => rows.find((r) => String(r.breakdown_value) === breakdown)!;

/** The seven days from day 0 that every aggregation test asks for. */
const sevenDays = (retentionFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  dateRange: { date_from: D(0, 0), date_to: D(6) },
  retentionFilter: { totalIntervals: 7, ...retentionFilter },
  ...extra,
});
const sumOf = (property: string, extra: Record<string, unknown> = {}) => ({ aggregationType: "sum", aggregationProperty: property, ...extra });
const avgOf = (property: string, extra: Record<string, unknown> = {}) => ({ aggregationType: "avg", aggregationProperty: property, ...extra });
const signUpToPurchase = { targetEntity: { id: "signed_up", type: "events" }, returningEntity: { id: "purchased", type: "events" } };

const threeDaysOfRevenue = (): RefEvent[] => [
  ...createEvents([["user1", D(0), { revenue: 10 }], ["user1", D(1), { revenue: 20 }], ["user1", D(2), { revenue: 30 }]]),
  ...createEvents([["user2", D(0), { revenue: 40 }], ["user2", D(1), { revenue: 50 }], ["user2", D(2), { revenue: 60 }]]),
];

describe("retention aggregating a property (aggregationType)", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_sum
  it("test_retention_aggregation_sum", async () => {
    const want = pad([[50, 70, 90, 0, 0, 0, 0], [70, 90, 0, 0, 0, 0], [90, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]);
    await withReference(data(persons("user1", "user2"), threeDaysOfRevenue()), async (ref) => {
      expect(aggregationValues(await results(ref, sevenDays(sumOf("revenue"))))).toEqual(want);
      // The same filter through the legacy endpoint, its fields in their snake_case names.
      const legacy = await ref.legacy("GET", "insights/retention", { insight: "RETENTION", date_from: D(0, 0), date_to: D(6), total_intervals: 7, aggregation_type: "sum", aggregation_property: "revenue" });
      expect(legacy.status).toBe(200);
      expect(aggregationValues(legacy.body.result)).toEqual(want);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_avg
  it("test_retention_aggregation_avg", async () => {
    const rows = await run(data(persons("user1", "user2"), threeDaysOfRevenue()), sevenDays(avgOf("revenue")));
    expect(aggregationValues(rows)).toEqual(pad([[25, 35, 45, 0, 0, 0, 0], [35, 45, 0, 0, 0, 0], [45, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_multiple_events_same_day
  it("test_retention_aggregation_multiple_events_same_day", async () => {
    const events = [
      ...createEvents([
        ["user1", D(0), { revenue: 10 }],
        ["user1", D(1), { revenue: 20 }],
        ["user1", D(1), { revenue: 30 }],
        ["user1", D(2), { revenue: 40 }],
        ["user1", D(2), { revenue: 50 }],
        ["user1", D(2), { revenue: 60 }],
      ]),
      ...createEvents([["user2", D(0), { revenue: 100 }], ["user2", D(1), { revenue: 200 }], ["user2", D(2), { revenue: 300 }]]),
    ];
    await withReference(data(persons("user1", "user2"), events), async (ref) => {
      const sum = await results(ref, sevenDays(sumOf("revenue")));
      expect(aggregationValues(sum)).toEqual(pad([[110, 250, 450, 0, 0, 0, 0], [250, 450, 0, 0, 0, 0], [450, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]));
      const avg = await results(ref, sevenDays(avgOf("revenue")));
      expect(aggregationValues(avg)).toEqual(pad([[55, 125, 225, 0, 0, 0, 0], [125, 225, 0, 0, 0, 0], [225, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]));
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_cohort_size_sum
  it("test_retention_aggregation_cohort_size_sum", async () => {
    const events = createEvents([
      ["user1", D(0), { revenue: 10 }],
      ["user2", D(0), { revenue: 40 }],
      ["user3", D(0), { revenue: 100 }],
      ["user1", D(1), { revenue: 20 }],
      ["user2", D(1), { revenue: 50 }],
      ["user1", D(2), { revenue: 30 }],
    ]);
    const rows = await run(data(persons("user1", "user2", "user3"), events), sevenDays(sumOf("revenue")));
    expect(rows[0]!.values[0]!.aggregation_value).toBe(150);
    expect(counts(rows[0]!).slice(0, 3)).toEqual([3, 2, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_cohort_size_avg
  it("test_retention_aggregation_cohort_size_avg", async () => {
    const events = createEvents([
      ["user1", D(0), { revenue: 10 }],
      ["user2", D(0), { revenue: 40 }],
      ["user1", D(1), { revenue: 20 }],
      ["user2", D(1), { revenue: 50 }],
    ]);
    const rows = await run(data(persons("user1", "user2"), events), sevenDays(avgOf("revenue")));
    expect(rows[0]!.values[0]!.aggregation_value).toBe(25);
    expect(counts(rows[0]!).slice(0, 2)).toEqual([2, 2]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_cohort_size_with_breakdown
  it("test_retention_aggregation_cohort_size_with_breakdown", async () => {
    const events = createEvents([
      ["user1", D(0), { revenue: 10 }],
      ["user2", D(0), { revenue: 40 }],
      ["user3", D(0), { revenue: 100 }],
      ["user1", D(1), { revenue: 20 }],
      ["user3", D(1), { revenue: 200 }],
    ]);
    const p = persons(["user1", { $browser: "Chrome" }], ["user2", { $browser: "Chrome" }], ["user3", { $browser: "Firefox" }]);
    const rows = await run(data(p, events), sevenDays(sumOf("revenue"), { breakdownFilter: { breakdown: "$browser", breakdown_type: "person" } }));
    expect(counts(firstOf(rows, "Chrome")).slice(0, 2)).toEqual([2, 1]);
    expect(counts(firstOf(rows, "Firefox")).slice(0, 2)).toEqual([1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_different_events_interval_0_includes_return_after_start
  it("test_retention_aggregation_different_events_interval_0_includes_return_after_start", async () => {
    const events = [
      ...createEvents([["user1", D(0, 10)], ["user1", D(1, 5)]], "signed_up"),
      ...createEvents([["user1", D(0, 12), { revenue: 50 }], ["user1", D(1, 5), { revenue: 100 }]], "purchased"),
      ...createEvents([["user2", D(0, 9)]], "signed_up"),
      ...createEvents([["user2", D(0, 11), { revenue: 30 }]], "purchased"),
    ];
    const rows = await run(data(persons("user1", "user2"), events), sevenDays({ ...signUpToPurchase, ...sumOf("revenue") }));
    expect(rows[0]!.values[0]!.aggregation_value).toBe(80);
    expect(rows[0]!.values[1]!.aggregation_value).toBe(100);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_different_events_interval_0_excludes_return_before_start
  it("test_retention_aggregation_different_events_interval_0_excludes_return_before_start", async () => {
    const events = [...createEvents([["user1", D(0, 10)]], "signed_up"), ...createEvents([["user1", D(0, 8), { revenue: 999 }], ["user1", D(0, 12), { revenue: 50 }]], "purchased")];
    const rows = await run(data(persons("user1"), events), sevenDays({ ...signUpToPurchase, ...sumOf("revenue") }));
    expect(rows[0]!.values[0]!.aggregation_value).toBe(50);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_same_events_interval_0_unchanged
  it("test_retention_aggregation_same_events_interval_0_unchanged", async () => {
    const rows = await run(data(persons("user1"), createEvents([["user1", D(0), { revenue: 10 }], ["user1", D(1), { revenue: 20 }]])), sevenDays(sumOf("revenue")));
    expect(rows[0]!.values[0]!.aggregation_value).toBe(10);
    expect(rows[0]!.values[1]!.aggregation_value).toBe(20);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_different_events_avg_interval_0
  it("test_retention_aggregation_different_events_avg_interval_0", async () => {
    const events = [
      ...createEvents([["user1", D(0, 10)], ["user2", D(0, 9)]], "signed_up"),
      ...createEvents([["user1", D(0, 12), { revenue: 50 }], ["user2", D(0, 11), { revenue: 30 }]], "purchased"),
    ];
    const rows = await run(data(persons("user1", "user2"), events), sevenDays({ ...signUpToPurchase, ...avgOf("revenue") }));
    expect(rows[0]!.values[0]!.aggregation_value).toBe(40);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_person_property_sum
  it("test_retention_aggregation_person_property_sum", async () => {
    const events = createEvents([["high_value", D(0)], ["high_value", D(1)], ["low_value", D(0)], ["low_value", D(1)]]);
    const p = persons(["high_value", { account_value: 100 }], ["low_value", { account_value: 10 }]);
    const rows = await run(data(p, events), sevenDays(sumOf("account_value", { aggregationPropertyType: "person" })));
    expect(rows[0]!.values.slice(0, 2).map((v) => [v.count, v.aggregation_value])).toEqual([[2, 110], [2, 110]]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_aggregation_person_property_avg
  it("test_retention_aggregation_person_property_avg", async () => {
    const events = createEvents([["user_a", D(0)], ["user_a", D(1)], ["user_b", D(0)], ["user_b", D(1)]]);
    const p = persons(["user_a", { score: 80 }], ["user_b", { score: 60 }]);
    const rows = await run(data(p, events), sevenDays(avgOf("score", { aggregationPropertyType: "person" })));
    expect(rows[0]!.values.slice(0, 2).map((v) => [v.count, v.aggregation_value])).toEqual([[2, 70], [2, 70]]);
  });
});

/** The ten days from day 0 that most 24-hour-window tests ask for, three values each. */
const windows24h = (retentionFilter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  dateRange: { date_from: D(0), date_to: D(10) },
  retentionFilter: { targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" }, totalIntervals: 3, timeWindowMode: "24_hour_windows", ...retentionFilter },
  ...extra,
});
/** The same window, calendar periods. */
const calendar = () => {
  const q = windows24h();
  const { timeWindowMode: _, ...retentionFilter } = q.retentionFilter;
  return { ...q, retentionFilter };
};
const byCountry = { breakdownFilter: { breakdown: "country", breakdown_type: "person" } };

describe("retention over 24-hour windows (timeWindowMode)", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_calculation
  it("test_retention_24h_window_calculation", async () => {
    const person1 = createEvents([["person1", at(6, 10, 23)], ["person1", at(6, 11, 1)], ["person1", at(6, 11, 23)]]);
    await withReference(data(persons("person1"), person1), async (ref) => {
      expect(counts(rowOf(await results(ref, calendar()), "Day 0")).slice(0, 2)).toEqual([1, 1]);
      expect(counts(rowOf(await results(ref, windows24h()), "Day 0")).slice(0, 2)).toEqual([1, 1]);
    });
    const person2 = createEvents([["person2", at(6, 11, 1)], ["person2", at(6, 11, 23)], ["person2", at(6, 12, 2)]]);
    await withReference(data(persons("person1", "person2"), [...person1, ...person2]), async (ref) => {
      expect(counts(rowOf(await results(ref, calendar()), "Day 1")).slice(0, 2)).toEqual([2, 1]);
      expect(counts(rowOf(await results(ref, windows24h()), "Day 1")).slice(0, 2)).toEqual([1, 1]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_with_person_breakdown
  it("test_retention_24h_window_with_person_breakdown", async () => {
    const events = createEvents([["person1", at(6, 10, 23)], ["person1", at(6, 11, 22)], ["person2", at(6, 10, 12)], ["person2", at(6, 11, 13)]]);
    await withReference(data(persons(["person1", { country: "USA" }], ["person2", { country: "Canada" }]), events), async (ref) => {
      const rows = await results(ref, windows24h({}, byCountry));
      expect(counts(firstOf(rows, "USA")).slice(0, 2)).toEqual([1, 0]);
      expect(counts(firstOf(rows, "Canada")).slice(0, 2)).toEqual([1, 1]);
      // The same filter through the legacy endpoint.
      const legacy = await ref.legacy("GET", "insights/retention", {
        insight: "RETENTION",
        date_from: D(0),
        date_to: D(10),
        total_intervals: 3,
        time_window_mode: "24_hour_windows",
        breakdown: "country",
        breakdown_type: "person",
      });
      expect(legacy.status).toBe(200);
      expect(counts(firstOf(legacy.body.result, "USA")).slice(0, 2)).toEqual([1, 0]);
      expect(counts(firstOf(legacy.body.result, "Canada")).slice(0, 2)).toEqual([1, 1]);
      // Each row's people_url lists its cohort, as many actors as its count (1).
      const url = (firstOf(legacy.body.result, "USA") as Row & { people_url: string }).people_url;
      const people = await ref.server.get(url);
      expect(people.status).toBe(200);
      expect(people.body.results[0].people).toHaveLength(1);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_with_event_breakdown
  it("test_retention_24h_window_with_event_breakdown", async () => {
    const events = createEvents([
      ["person1", at(6, 10, 14), { browser: "Chrome" }],
      ["person1", at(6, 11, 13), { browser: "Chrome" }],
      ["person1", at(6, 11, 15), { browser: "Firefox" }],
    ]);
    const rows = await run(data(persons("person1"), events), windows24h({}, { breakdownFilter: { breakdown: "browser", breakdown_type: "event" } }));
    expect(firstOf(rows, "Chrome").values[0]!.count).toBe(1);
    expect(counts(firstOf(rows, "Firefox")).slice(0, 2)).toEqual([1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_first_time_ever
  it("test_retention_24h_window_first_time_ever", async () => {
    const events = createEvents([["person1", at(6, 10, 14)], ["person1", at(6, 10, 23)], ["person2", at(6, 10, 23)], ["person2", at(6, 11, 22)]]);
    const rows = await run(data(persons("person1", "person2"), events), windows24h({ retentionType: "retention_first_ever_occurrence" }));
    expect(counts(rowOf(rows, "Day 0")).slice(0, 2)).toEqual([2, 0]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_first_time_matching_filters
  it("test_retention_24h_window_first_time_matching_filters", async () => {
    const events = createEvents([
      ["person1", at(6, 10, 10), { browser: "Safari" }],
      ["person1", at(6, 10, 14), { browser: "Chrome" }],
      ["person1", at(6, 11, 13), { browser: "Chrome" }],
      ["person1", at(6, 11, 15), { browser: "Chrome" }],
    ]);
    const chrome = { id: "$pageview", type: "events", properties: [{ key: "browser", value: "Chrome", type: "event" }] };
    const rows = await run(data(persons("person1"), events), windows24h({ targetEntity: chrome, retentionType: "retention_first_time" }));
    expect(counts(rowOf(rows, "Day 0")).slice(0, 2)).toEqual([1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_with_minimum_occurrences
  it("test_retention_24h_window_with_minimum_occurrences", async () => {
    const events = createEvents([
      ["person1", at(6, 10, 12)],
      ["person2", at(6, 10, 12)],
      ["person2", at(6, 11, 13)],
      ["person3", at(6, 10, 12)],
      ["person3", at(6, 11, 13)],
      ["person3", at(6, 11, 14)],
    ]);
    const rows = await run(data(persons("person1", "person2", "person3"), events), windows24h({ minimumOccurrences: 2 }));
    const day0 = rowOf(rows, "Day 0");
    expect(day0.values[0]!.count).toBe(3);
    expect(day0.values[1]!.count).toBeGreaterThanOrEqual(1);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_with_week_interval
  it("test_retention_24h_window_with_week_interval", async () => {
    const events = createEvents([["person1", at(6, 10, 14)], ["person1", at(6, 16, 14)], ["person1", at(6, 18, 14)]]);
    const rows = await run(data(persons("person1"), events), { ...windows24h({ period: "Week" }), dateRange: { date_from: D(0), date_to: D(20) } });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]!.values.length).toBeGreaterThan(0);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_with_properties_on_events
  it("test_retention_24h_window_with_properties_on_events", async () => {
    const events = createEvents([
      ["person1", at(6, 10, 14), { premium: "true" }],
      ["person1", at(6, 11, 13), { premium: "true" }],
      ["person1", at(6, 11, 15), { premium: "false" }],
    ]);
    const premium = { id: "$pageview", type: "events", properties: [{ key: "premium", value: "true", type: "event" }] };
    const rows = await run(data(persons("person1"), events), windows24h({ targetEntity: premium, returningEntity: premium }));
    expect(counts(rowOf(rows, "Day 0")).slice(0, 2)).toEqual([1, 0]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_with_cohort_breakdown
  it("test_retention_24h_window_with_cohort_breakdown", async () => {
    const usa = { project_id: "1", id: 1, name: "USA Cohort", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "country", value: "USA", type: "person" }] }] } } };
    const events = createEvents([["person1", at(6, 10, 14)], ["person1", at(6, 11, 13)]]);
    const rows = await run(data(persons(["person1", { country: "USA" }]), events, { extra: { cohorts: [usa] } }), windows24h({}, { breakdownFilter: { breakdown: "1", breakdown_type: "cohort" } }));
    expect(counts(firstOf(rows, "1")).slice(0, 2)).toEqual([1, 0]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_rejects_cumulative
  it("test_retention_24h_window_rejects_cumulative", async () => {
    await withReference(data(persons("person1"), []), async (ref) => {
      const res = await ref.queryResponse(node(windows24h({ cumulative: true })));
      expect(res.status).toBe(400);
      expect((res.body as { detail: string }).detail).toContain("Cumulative retention is not supported for 24 hour windows.");
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_weekly_cohorts
  it("test_retention_24h_window_weekly_cohorts", async () => {
    const events = createEvents([["person1", at(6, 10, 14)], ["person1", at(6, 16, 12)], ["person1", at(6, 18, 14)]]);
    const rows = await run(data(persons("person1"), events), { ...windows24h({ period: "Week" }), dateRange: { date_from: D(0), date_to: D(15) } });
    expect(Array.isArray(rows)).toBe(true);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_monthly_cohorts
  it("test_retention_24h_window_monthly_cohorts", async () => {
    const events = createEvents([["person1", at(6, 10, 14)], ["person1", at(7, 9, 12)], ["person1", at(7, 15, 14)]]);
    const rows = await run(data(persons("person1"), events), { ...windows24h({ period: "Month" }), dateRange: { date_from: at(6, 1), date_to: at(8, 1) } });
    expect(Array.isArray(rows)).toBe(true);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_weekly_with_breakdown
  it("test_retention_24h_window_weekly_with_breakdown", async () => {
    const events = createEvents([["person1", at(6, 10, 14)], ["person1", at(6, 16, 13)], ["person2", at(6, 10, 15)]]);
    const rows = await run(data(persons(["person1", { country: "USA" }], ["person2", { country: "Canada" }]), events), {
      ...windows24h({ period: "Week" }, byCountry),
      dateRange: { date_from: D(0), date_to: D(15) },
    });
    expect(rows.length).toBeGreaterThan(0);
    const values = new Set(rows.map((r) => r.breakdown_value));
    expect(values.has("USA")).toBe(true);
    expect(values.has("Canada")).toBe(true);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_24h_window_monthly_first_time_ever
  it("test_retention_24h_window_monthly_first_time_ever", async () => {
    const events = createEvents([["person1", at(6, 10, 14)], ["person1", at(7, 8, 14)], ["person1", at(7, 15, 14)]]);
    const rows = await run(data(persons("person1"), events), {
      ...windows24h({ period: "Month", retentionType: "retention_first_ever_occurrence" }),
      dateRange: { date_from: at(6, 1), date_to: at(8, 1) },
    });
    expect(Array.isArray(rows)).toBe(true);
  });
});

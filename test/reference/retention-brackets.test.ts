/**
 * PostHog's retention query-runner tests of custom brackets (`retentionFilter.retentionCustomBrackets`), ported from
 * posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py (stored version
 * 9518f16c6c6eee6176605f54afb7a2aa7de32ba5, the newest). Data, requests and the numbers asserted are PostHog's.
 * Tests that cannot be ported are listed in SKIPPED.md.
 */
import { describe, expect, it } from "vitest";
import { withReference, type RefData, type Reference } from "./support.ts";
import { createEvents, D, data, persons } from "./retention-support.ts";

/** PostHog's `datetime(year, month, day, hour).isoformat()`. */
const at = (year: number, month: number, day: number, hour = 0): string => new Date(Date.UTC(year, month - 1, day, hour)).toISOString().slice(0, 19);

interface Row {
  label: string;
  breakdown_value?: string | number;
  values: { count: number; label: string }[];
}

const node = (q: Record<string, unknown>) => ({ kind: "RetentionQuery", ...q });
const results = async (ref: Reference, q: Record<string, unknown>): Promise<Row[]> => (await ref.query<{ results: Row[] }>(node(q))).results;
const run = (d: RefData, q: Record<string, unknown>) => withReference(d, (ref) => results(ref, q));

const rowOf = (rows: Row[], label: string, breakdown?: string) => rows.find((r) => r.label === label && (breakdown === undefined || String(r.breakdown_value) === breakdown))!;
const counts = (row: Row) => row.values.map((v) => v.count);
const labels = (row: Row) => row.values.map((v) => v.label);

/** Daily cohorts up to day 10, the window most of the tests ask for, with the brackets given. */
const tenDays = (brackets: number[], retentionFilter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  dateRange: { date_to: D(10) },
  retentionFilter: { period: "Day", totalIntervals: 11, retentionCustomBrackets: brackets, ...retentionFilter },
  ...extra,
});

describe("retention with custom brackets (retentionCustomBrackets)", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_day_period
  it("test_custom_brackets_day_period", async () => {
    const events = createEvents([
      ["p1", D(0)], ["p1", D(1)], ["p1", D(5)], ["p1", D(16)],
      ["p2", D(0)], ["p2", D(4)], ["p2", D(10)],
      ["p3", D(0)],
    ]);
    const rows = await run(data(persons("p1", "p2", "p3"), events), {
      dateRange: { date_to: D(20) },
      retentionFilter: { period: "Day", totalIntervals: 21, retentionCustomBrackets: [4, 10, 3] },
    });
    const day0 = rowOf(rows, "Day 0");
    expect(labels(day0)).toEqual(["Day 0", "Day 1-4", "Day 5-14", "Day 15-17"]);
    expect(counts(day0)).toEqual([3, 2, 2, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_day_period_single_day_bracket_label
  it("test_custom_brackets_day_period_single_day_bracket_label", async () => {
    const rows = await run(data(persons("a1"), createEvents([["a1", D(0)], ["a1", D(7)]])), tenDays([7, 2]));
    const day0 = rowOf(rows, "Day 0");
    expect(labels(day0)).toEqual(["Day 0", "Day 1-7", "Day 8-9"]);
    expect(counts(day0)).toEqual([1, 1, 0]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_with_person_breakdown
  it("test_custom_brackets_with_person_breakdown", async () => {
    const p = persons(["person1", { country: "USA" }], ["person2", { country: "USA" }], ["person3", { country: "Canada" }]);
    const events = createEvents([["person1", D(0)], ["person1", D(2)], ["person1", D(6)], ["person2", D(0)], ["person2", D(3)], ["person3", D(0)], ["person3", D(7)]]);
    const rows = await run(data(p, events), tenDays([4, 6], {}, { breakdownFilter: { breakdown: "country", breakdown_type: "person" } }));
    expect(labels(rowOf(rows, "Day 0", "USA"))).toEqual(["Day 0", "Day 1-4", "Day 5-10"]);
    expect(counts(rowOf(rows, "Day 0", "USA"))).toEqual([2, 2, 1]);
    expect(counts(rowOf(rows, "Day 0", "Canada"))).toEqual([1, 0, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_with_event_breakdown
  it("test_custom_brackets_with_event_breakdown", async () => {
    const chrome = { browser: "Chrome" };
    const safari = { browser: "Safari" };
    const events = createEvents([["person1", D(0), chrome], ["person1", D(2), chrome], ["person1", D(8), chrome], ["person2", D(0), safari], ["person2", D(3), safari]]);
    const rows = await run(data(persons("person1", "person2"), events), tenDays([5, 5], {}, { breakdownFilter: { breakdown: "browser", breakdown_type: "event" } }));
    expect(counts(rowOf(rows, "Day 0", "Chrome"))).toEqual([1, 1, 1]);
    expect(counts(rowOf(rows, "Day 0", "Safari"))).toEqual([1, 1, 0]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_with_cohort_breakdown
  it("test_custom_brackets_with_cohort_breakdown", async () => {
    const young = { project_id: "1", id: 1, name: "Young users", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "age", value: "25", type: "person" }] }] } } };
    const events = createEvents([["person1", D(0)], ["person1", D(2)], ["person1", D(7)], ["person2", D(0)], ["person2", D(3)]]);
    const rows = await run(data(persons(["person1", { age: "25" }], ["person2", { age: "30" }]), events, { extra: { cohorts: [young] } }), tenDays([4, 5], {}, { breakdownFilter: { breakdown: [1], breakdown_type: "cohort" } }));
    expect(counts(rowOf(rows, "Day 0", "1"))).toEqual([1, 1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_first_time_ever
  it("test_custom_brackets_first_time_ever", async () => {
    const events = [
      ...createEvents([["person1", D(0)]]),
      ...createEvents([["person1", D(1)]], "$user_signed_up"),
      ...createEvents([["person1", D(3)], ["person1", D(8)]]),
      ...createEvents([["person2", D(2)]], "$user_signed_up"),
      ...createEvents([["person2", D(4)], ["person2", D(9)]]),
    ];
    const rows = await run(data(persons("person1", "person2"), events), {
      dateRange: { date_from: D(0), date_to: D(10) },
      retentionFilter: {
        period: "Day",
        totalIntervals: 11,
        retentionType: "retention_first_ever_occurrence",
        targetEntity: { id: "$user_signed_up", type: "events" },
        returningEntity: { id: "$pageview", type: "events" },
        retentionCustomBrackets: [5, 5],
      },
    });
    expect(labels(rowOf(rows, "Day 1"))).toEqual(["Day 0", "Day 1-5", "Day 6-10"]);
    expect(counts(rowOf(rows, "Day 1"))).toEqual([1, 1, 1]);
    expect(counts(rowOf(rows, "Day 2"))).toEqual([1, 1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_first_time_matching_filters
  it("test_custom_brackets_first_time_matching_filters", async () => {
    const events = [...createEvents([["person1", D(0)]]), ...createEvents([["person1", D(2), { premium: "true" }]]), ...createEvents([["person1", D(4)], ["person1", D(9)]])];
    const rows = await run(
      data(persons("person1"), events),
      tenDays([4, 5], {
        retentionType: "retention_first_time",
        targetEntity: { id: "$pageview", type: "events", properties: [{ key: "premium", value: "true", type: "event" }] },
        returningEntity: { id: "$pageview", type: "events" },
      }),
    );
    expect(counts(rowOf(rows, "Day 2"))).toEqual([1, 1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_with_minimum_occurrences
  it("test_custom_brackets_with_minimum_occurrences", async () => {
    const events = createEvents([
      ["person1", D(0)], ["person1", D(2)], ["person1", D(2)], ["person1", D(7)],
      ["person2", D(0)], ["person2", D(3)], ["person2", D(8)], ["person2", D(8)],
    ]);
    const rows = await run(data(persons("person1", "person2"), events), tenDays([5, 5], { minimumOccurrences: 2 }));
    expect(counts(rowOf(rows, "Day 0"))).toEqual([2, 1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_week_period
  it("test_custom_brackets_week_period", async () => {
    const events = createEvents([["person1", at(2020, 6, 10, 5)], ["person1", at(2020, 7, 1, 5)], ["person1", at(2020, 7, 22, 5)]]);
    const rows = await run(data(persons("person1"), events), {
      dateRange: { date_to: at(2020, 10, 1) },
      retentionFilter: { period: "Week", totalIntervals: 17, retentionCustomBrackets: [4, 4] },
    });
    const week0 = rowOf(rows, "Week 0");
    expect(labels(week0)).toEqual(["Week 0", "Week 1-4", "Week 5-8"]);
    expect(counts(week0)).toEqual([1, 1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_month_period
  it("test_custom_brackets_month_period", async () => {
    const events = createEvents([["person1", D(0, 5, 0)], ["person1", D(0, 5, 2)], ["person1", D(0, 5, 5)]]);
    const rows = await run(data(persons("person1"), events), {
      dateRange: { date_to: at(2021, 2, 10) },
      retentionFilter: { period: "Month", totalIntervals: 9, retentionCustomBrackets: [3, 3] },
    });
    const month0 = rowOf(rows, "Month 0");
    expect(labels(month0)).toEqual(["Month 0", "Month 1-3", "Month 4-6"]);
    expect(counts(month0)).toEqual([1, 1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_cumulative
  it("test_custom_brackets_cumulative", async () => {
    const events = createEvents([["person1", D(0)], ["person1", D(8)], ["person2", D(0)], ["person2", D(3)]]);
    const rows = await run(data(persons("person1", "person2"), events), tenDays([5, 5], { cumulative: true }));
    expect(counts(rowOf(rows, "Day 0"))).toEqual([2, 2, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_with_properties_on_events
  it("test_custom_brackets_with_properties_on_events", async () => {
    const organic = { source: "organic" };
    const events = createEvents([["person1", D(0), organic], ["person1", D(2), organic], ["person1", D(7), organic], ["person1", D(8), { source: "paid" }]]);
    const returningEntity = { id: "$pageview", properties: [{ key: "source", value: "organic", type: "event" }] };
    const rows = await run(data(persons("person1"), events), tenDays([4, 6], { returningEntity }));
    expect(counts(rowOf(rows, "Day 0"))).toEqual([1, 1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_actors_query
  it("test_custom_brackets_actors_query", async () => {
    const events = createEvents([["person1", D(0)], ["person1", D(2)], ["person1", D(7)], ["person2", D(0)], ["person2", D(3)]]);
    await withReference(data(persons("person1", "person2"), events), async (ref) => {
      const res = await ref.query<{ columns: string[]; results: unknown[][] }>({
        kind: "ActorsQuery",
        select: ["person", "appearances"],
        orderBy: ["length(appearances) DESC", "actor_id"],
        source: { kind: "InsightActorsQuery", interval: 0, source: node(tenDays([4, 6])) },
      });
      expect(res.results).toHaveLength(2);
      const person1 = res.results.find((row) => (row[0] as { distinct_ids: string[] }).distinct_ids.includes("person1"))!;
      expect(person1[1]).toEqual([0, 1, 2]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_empty_bracket_handling
  it("test_custom_brackets_empty_bracket_handling", async () => {
    const rows = await run(data(persons("person1"), createEvents([["person1", D(0)], ["person1", D(12)]])), {
      dateRange: { date_to: D(15) },
      retentionFilter: { period: "Day", totalIntervals: 16, retentionCustomBrackets: [3, 5, 4] },
    });
    expect(counts(rowOf(rows, "Day 0"))).toEqual([1, 0, 0, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_custom_brackets_different_start_cohorts
  it("test_custom_brackets_different_start_cohorts", async () => {
    const events = createEvents([["person1", D(0)], ["person1", D(2)], ["person2", D(3)], ["person2", D(5)]]);
    const rows = await run(data(persons("person1", "person2"), events), tenDays([3, 4]));
    expect(counts(rowOf(rows, "Day 0"))).toEqual([1, 1, 0]);
    expect(counts(rowOf(rows, "Day 3"))).toEqual([1, 1, 0]);
  });
});

describe("custom brackets' bounds (this server's, see RetentionQuery.yaml)", () => {
  const oneDay = data(persons("a1"), createEvents([["a1", D(0)], ["a1", D(7)]]));

  it.each([
    ["a negative size", [-1]],
    ["a fractional size", [1.5]],
    ["more than 100 brackets", Array<number>(101).fill(1)],
    ["a size that is not a number", ["4"]],
  ])("refuses %s with a 400 naming the field", async (_name, brackets) => {
    await withReference(oneDay, async (ref) => {
      const res = await ref.queryResponse(node(tenDays(brackets as number[])));
      expect(res.status).toBe(400);
      expect(res.body.attr).toMatch(/^query__retentionFilter__retentionCustomBrackets/);
    });
  });

  it("takes 100 brackets, and an empty list or null as none", async () => {
    await withReference(oneDay, async (ref) => {
      const hundred = await results(ref, tenDays(Array<number>(100).fill(1)));
      expect(rowOf(hundred, "Day 0").values).toHaveLength(101);
      expect(labels(rowOf(hundred, "Day 0")).slice(0, 3)).toEqual(["Day 0", "Day 1", "Day 2"]);
      // Single-day brackets are the plain periods: a1 is back on day 7 (value 7).
      expect(counts(rowOf(hundred, "Day 0")).slice(0, 9)).toEqual([1, 0, 0, 0, 0, 0, 0, 1, 0]);
      for (const none of [[], null]) expect(counts(rowOf(await results(ref, tenDays(none as never)), "Day 0"))).toEqual([1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    });
  });

  it("a bracket of 0 periods counts nobody (its label runs backwards, as PostHog's get_bracket_labels makes it)", async () => {
    const rows = await run(oneDay, tenDays([0, 7]));
    expect(labels(rowOf(rows, "Day 0"))).toEqual(["Day 0", "Day 1-0", "Day 1-7"]);
    expect(counts(rowOf(rows, "Day 0"))).toEqual([1, 0, 1]);
  });

  it("the legacy retention filter has no such field (PostHog's legacy filter has none): its query form ignores it, as any undeclared parameter", async () => {
    await withReference(oneDay, async (ref) => {
      const plain = await ref.legacy("GET", "insights/retention", { date_to: D(10), total_intervals: 11 });
      const res = await ref.legacy("GET", "insights/retention", { date_to: D(10), total_intervals: 11, retention_custom_brackets: [4, 6] });
      expect([plain.status, res.status]).toEqual([200, 200]);
      expect(plain.body.result).toHaveLength(11);
      expect(res.body.result).toEqual(plain.body.result);
    });
  });
});

/**
 * Ports of PostHog's trends query-runner tests (posthog/hogql_queries/insights/trends/test/test_trends_query_runner.py):
 * the test's data, its TrendsQuery sent to the query API, and the numbers it asserts.
 */
import { describe, expect, it } from "vitest";
import { createEvents, withReference, type RefData, type RefEvent, type RefPerson, type Reference, type SeriesData } from "./support.ts";
import { both, countPerActorEvents, legacyEvents, multiplePeople } from "./trends-support.ts";

const FILE = "posthog/hogql_queries/insights/trends/test/test_trends_query_runner.py";
void FILE;

const NULL = "$$_posthog_breakdown_null_$$";
const OTHER = "$$_posthog_breakdown_other_$$";

const P1_EVENTS: [string, string[]][] = [
  ["$pageview", ["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z", "2020-01-13T12:00:00Z", "2020-01-15T12:00:00Z", "2020-01-17T12:00:00Z", "2020-01-19T12:00:00Z"]],
  ["$pageleave", ["2020-01-11T12:00:00Z", "2020-01-12T12:00:00Z", "2020-01-13T12:00:00Z"]],
];
const P2_EVENTS: [string, string[]][] = [
  ["$pageview", ["2020-01-09T12:00:00Z", "2020-01-12T12:00:00Z"]],
  ["$pageleave", ["2020-01-13T12:00:00Z"]],
];
const P3_EVENTS: [string, string[]][] = [
  ["$pageview", ["2020-01-12T12:00:00Z"]],
  ["$pageleave", ["2020-01-13T12:00:00Z"]],
];
const P4_EVENTS: [string, string[]][] = [
  ["$pageview", ["2020-01-15T12:00:00Z"]],
  ["$pageleave", ["2020-01-16T12:00:00Z"]],
];

/** `_create_test_events`. */
const testEvents = (): SeriesData[] => [
  { distinct_id: "p1", events: P1_EVENTS, properties: { $browser: "Chrome", prop: 10, bool_field: true } },
  { distinct_id: "p2", events: P2_EVENTS, properties: { $browser: "Firefox", prop: 20, bool_field: false } },
  { distinct_id: "p3", events: P3_EVENTS, properties: { $browser: "Edge", prop: 30, bool_field: true } },
  { distinct_id: "p4", events: P4_EVENTS, properties: { $browser: "Safari", prop: 40, bool_field: false } },
];

/** `_create_test_events_for_groups` with `_create_test_groups`. */
function groupData(): RefData {
  const data = createEvents([
    { distinct_id: "p1", events: P1_EVENTS, properties: { $browser: "Chrome", prop: 10, bool_field: true, $group_0: "org:5" } },
    { distinct_id: "p2", events: P2_EVENTS, properties: { $browser: "Firefox", prop: 20, bool_field: false, $group_0: "org:6" } },
    { distinct_id: "p3", events: P3_EVENTS, properties: { $browser: "Edge", prop: 30, bool_field: true, $group_0: "org:7", $group_1: "company:10" } },
    { distinct_id: "p4", events: P4_EVENTS, properties: { $browser: "Safari", prop: 40, bool_field: false, $group_0: "company:10" } },
  ]);
  const group = (index: number, key: string, properties: Record<string, unknown>) => ({ project_id: "1", group_type_index: index, group_key: key, properties });
  return {
    now: NOW,
    ...data,
    groupTypes: [
      { group_type_index: 0, group_type: "organization" },
      { group_type_index: 1, group_type: "company" },
    ],
    extra: {
      groups: [
        group(0, "org:5", { name: "Hedgeflix", industry: "finance" }),
        group(0, "org:6", { name: "Hedgebox", industry: "technology" }),
        group(0, "org:7", { name: "Hedgebank", industry: "finance" }),
        group(1, "company:10", { name: "Hedgeheadquarters", industry: "service", employee_count: "50-249" }),
      ],
    } as RefData["extra"],
  };
}

const NOW = "2020-01-25T12:00:00Z";
const standard = (): RefData => ({ now: NOW, ...createEvents(testEvents()) });
/** A cohort of the persons named (person ids follow the order persons were created in). */
const cohort = (id: number, name: string, personIds: number[]) => ({ project_id: "1", id, name, person_ids: personIds });

interface Run {
  dateFrom: string;
  dateTo?: string | null;
  interval?: string;
  series?: Record<string, unknown>[];
  trendsFilter?: Record<string, unknown>;
  breakdownFilter?: Record<string, unknown>;
  compareFilter?: Record<string, unknown>;
  properties?: unknown;
}

const pageview = { kind: "EventsNode", event: "$pageview" };
const pageleave = { kind: "EventsNode", event: "$pageleave" };

/** `_run_trends_query`: the TrendsQuery's results. */
async function run(ref: Reference, r: Run): Promise<any[]> {
  const body = await ref.query({
    kind: "TrendsQuery",
    dateRange: { date_from: r.dateFrom, date_to: r.dateTo ?? null },
    interval: r.interval ?? "day",
    series: r.series ?? [pageview],
    ...(r.trendsFilter ? { trendsFilter: r.trendsFilter } : {}),
    ...(r.breakdownFilter ? { breakdownFilter: r.breakdownFilter } : {}),
    ...(r.compareFilter ? { compareFilter: r.compareFilter } : {}),
    ...(r.properties ? { properties: r.properties } : {}),
  });
  return body.results;
}

const values = (results: any[]) => results.map((r) => r.breakdown_value);
const counts = (results: any[]) => results.map((r) => r.count);
const day = (dateFrom: string, dateTo: string | null, more: Partial<Run> = {}): Run => ({ dateFrom, dateTo, interval: "day", ...more });
const D = day("2020-01-09", "2020-01-19");
const D20 = day("2020-01-09", "2020-01-20");

describe("test_trends_query_runner.py: basics", () => {
  // test_trends_query_runner.py::test_trends_label, test_trends_count, test_trends_data, test_trends_days, test_trends_labels
  it("label, count, data, days and labels of one series", async () => {
    await withReference(standard(), async (ref) => {
      const [r] = await run(ref, D);
      expect(r.label).toBe("$pageview");
      expect(r.count).toBe(10);
      expect(r.data).toEqual([1, 0, 1, 3, 1, 0, 2, 0, 1, 0, 1]);
      expect(r.days).toEqual(["2020-01-09", "2020-01-10", "2020-01-11", "2020-01-12", "2020-01-13", "2020-01-14", "2020-01-15", "2020-01-16", "2020-01-17", "2020-01-18", "2020-01-19"]);
      expect(r.labels).toEqual(["9-Jan-2020", "10-Jan-2020", "11-Jan-2020", "12-Jan-2020", "13-Jan-2020", "14-Jan-2020", "15-Jan-2020", "16-Jan-2020", "17-Jan-2020", "18-Jan-2020", "19-Jan-2020"]);
    });
  });

  // test_trends_query_runner.py::test_trends_labels_hour
  it("hour labels", async () => {
    await withReference(standard(), async (ref) => {
      const [r] = await run(ref, { dateFrom: "2020-01-09", dateTo: "2020-01-09", interval: "hour" });
      expect(r.labels).toEqual(["9-Jan 00:00"]);
    });
  });

  // test_trends_query_runner.py::test_trends_multiple_series (the timings are not ported)
  it("multiple series", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D, series: [pageview, pageleave] });
      expect(results).toHaveLength(2);
      expect(results.map((r) => r.label)).toEqual(["$pageview", "$pageleave"]);
      expect(counts(results)).toEqual([10, 6]);
      expect(results[0].data).toEqual([1, 0, 1, 3, 1, 0, 2, 0, 1, 0, 1]);
      expect(results[1].data).toEqual([0, 0, 1, 1, 3, 0, 0, 1, 0, 0, 0]);
    });
  });

  // test_trends_query_runner.py::test_trends_all_time
  it("all time includes the first day", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { dateFrom: "all", dateTo: "2020-01-19", interval: "day" });
      expect(results).toHaveLength(1);
      expect(results[0].days).toContain("2020-01-09");
    });
  });

  // test_trends_query_runner.py::test_week_interval_includes_only_data_after_date_from
  it("week interval counts only from date_from", async () => {
    await withReference(standard(), async (ref) => {
      for (const [from, days, count] of [["2020-01-14", 1, 2], ["2020-01-12", 1, 6], ["2020-01-10", 2, 7]] as const) {
        const results = await run(ref, { dateFrom: from, dateTo: "2020-01-16", interval: "week" });
        expect(results).toHaveLength(1);
        expect(results[0].days).toHaveLength(days);
        expect(results[0].count).toBe(count);
      }
    });
  });

  // test_trends_query_runner.py::test_smoothing
  it("smoothing over 7 intervals", async () => {
    await withReference(standard(), async (ref) => {
      const [r] = await run(ref, { ...D20, trendsFilter: { smoothingIntervals: 7 } });
      expect(r.data).toEqual([1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    });
  });

  // test_trends_query_runner.py::test_trends_with_cohort_filter
  it("cohort filter on a series", async () => {
    await withReference({ ...standard(), extra: { cohorts: [cohort(1, "cohort p1", [1])] } as RefData["extra"] }, async (ref) => {
      const results = await run(ref, { ...D20, series: [{ ...pageview, properties: [{ key: "id", value: 1, type: "cohort" }] }] });
      expect(results).toHaveLength(1);
      expect(results[0].count).toBe(6);
      expect(results[0].data).toEqual([0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0]);
    });
  });

  // test_trends_query_runner.py::test_properties_filtering_with_materialized_columns_and_empty_string_as_property
  // (the test account filter given as the query's properties: the project here has no test account filters)
  it("an empty string passes is_not", async () => {
    await withReference({ now: NOW, events: [{ event: "$pageview", distinct_id: "person_1", timestamp: "2020-01-11T12:00:00Z", properties: { $some_property: "" } }] }, async (ref) => {
      const results = await run(ref, {
        dateFrom: "2020-01-11T00:00:00Z",
        dateTo: "2020-01-11T23:59:59Z",
        properties: [{ key: "$some_property", value: ["other_value", "yet_another_value"], operator: "is_not", type: "event" }],
      });
      expect(results[0].data).toEqual([1]);
    });
  });
});

describe("test_trends_query_runner.py: formulas", () => {
  const AB = [pageview, pageleave];

  // test_trends_query_runner.py::test_formula
  it("A+2*B", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D, series: AB, trendsFilter: { formulas: ["A+2*B"] } });
      expect(results).toHaveLength(1);
      expect(results[0].count).toBe(22);
      expect(results[0].label).toBe("Formula (A+2*B)");
      expect(results[0].data).toEqual([1, 0, 3, 5, 7, 0, 2, 2, 1, 0, 1]);
    });
  });

  // test_trends_query_runner.py::test_multiple_formulas
  it("two formulas", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D, series: AB, trendsFilter: { formulas: ["A+2*B", "A-B"] } });
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ count: 22, label: "Formula (A+2*B)", data: [1, 0, 3, 5, 7, 0, 2, 2, 1, 0, 1] });
      expect(results[1]).toMatchObject({ count: 4, label: "Formula (A-B)", data: [1, 0, 0, 2, -2, 0, 2, -1, 1, 0, 1] });
    });
  });

  // test_trends_query_runner.py::test_formula_with_compare, test_formula_with_compare_to_day, test_formula_with_compare_to_week
  it("formula with compare and compare_to", async () => {
    await withReference(standard(), async (ref) => {
      const cases: [Record<string, unknown>, number, number[]][] = [
        [{ compare: true }, 15, [0, 3, 5, 7, 0]],
        [{ compare: true, compare_to: "-2d" }, 12, [7, 0, 2, 2, 1]],
        [{ compare: true, compare_to: "-1w" }, 9, [0, 1, 0, 3, 5]],
      ];
      for (const [compareFilter, previousCount, previousData] of cases) {
        const results = await run(ref, { ...day("2020-01-15", "2020-01-19"), series: AB, trendsFilter: { formula: "A+2*B" }, compareFilter });
        expect(results).toHaveLength(2);
        expect(results[0]).toMatchObject({ compare_label: "current", count: 6, data: [2, 2, 1, 0, 1], label: "Formula (A+2*B)", compare: true });
        expect(results[1]).toMatchObject({ compare_label: "previous", count: previousCount, data: previousData });
      }
    });
  });

  // test_trends_query_runner.py::test_formula_with_compare_total_value, test_formula_with_compare_to_total_value
  it("formula with compare as a total value", async () => {
    await withReference(standard(), async (ref) => {
      for (const [compareFilter, previous] of [[{ compare: true }, 15], [{ compare: true, compare_to: "-1w" }, 9]] as const) {
        const results = await run(ref, { ...day("2020-01-15", "2020-01-19"), series: AB, trendsFilter: { formula: "A+2*B", display: "BoldNumber" }, compareFilter });
        expect(results).toHaveLength(2);
        expect(results[0]).toMatchObject({ compare_label: "current", aggregated_value: 6, label: "Formula (A+2*B)", count: 0 });
        expect(results[0].data ?? null).toBeNull();
        expect(results[1]).toMatchObject({ compare_label: "previous", aggregated_value: previous });
      }
    });
  });

  // test_trends_query_runner.py::test_formula_with_breakdown
  it("formula with breakdown", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, series: AB, trendsFilter: { formula: "A+2*B" }, breakdownFilter: { breakdown_type: "event", breakdown: "$browser" } });
      expect(results).toHaveLength(4);
      expect(results[0]).toMatchObject({ breakdown_value: "Chrome", count: 12, data: [0, 0, 3, 3, 3, 0, 1, 0, 1, 0, 1, 0], label: "Formula (A+2*B)" });
      expect(results[0].action).toBeNull();
      expect(results[1]).toMatchObject({ breakdown_value: "Firefox", count: 4 });
    });
  });

  // test_trends_query_runner.py::test_formula_with_breakdown_and_compare, test_formula_with_breakdown_and_compare_to
  it("formula with breakdown and compare", async () => {
    await withReference(standard(), async (ref) => {
      const breakdownFilter = { breakdown_type: "event", breakdown: "$browser" };
      let results = await run(ref, { ...day("2020-01-15", "2020-01-19"), series: AB, trendsFilter: { formula: "A+2*B" }, breakdownFilter, compareFilter: { compare: true } });
      expect(results).toHaveLength(5);
      expect(results[0]).toMatchObject({ compare_label: "current", breakdown_value: "Chrome", label: "Formula (A+2*B)", count: 3, data: [1, 0, 1, 0, 1] });
      expect(results[1]).toMatchObject({ compare_label: "current", breakdown_value: "Safari", count: 3 });
      expect(results[2]).toMatchObject({ compare_label: "previous", label: "Formula (A+2*B)", breakdown_value: "Chrome", count: 9 });
      results = await run(ref, { ...day("2020-01-15", "2020-01-19"), series: AB, trendsFilter: { formula: "A+2*B" }, breakdownFilter, compareFilter: { compare: true, compare_to: "-3d" } });
      expect(results).toHaveLength(6);
      expect(results[0]).toMatchObject({ compare_label: "current", breakdown_value: "Chrome", count: 3, data: [1, 0, 1, 0, 1] });
      expect(results[1]).toMatchObject({ compare_label: "current", breakdown_value: "Safari", count: 3 });
      expect(results[2]).toMatchObject({ compare_label: "previous", breakdown_value: "Chrome", count: 7, data: [3, 3, 0, 1, 0] });
    });
  });

  // test_trends_query_runner.py::test_formula_with_breakdown_and_compare_total_value
  it("formula with breakdown and compare as total values", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, {
        ...day("2020-01-15", "2020-01-19"),
        series: AB,
        trendsFilter: { formula: "A+2*B", display: "BoldNumber" },
        breakdownFilter: { breakdown_type: "event", breakdown: "$browser" },
        compareFilter: { compare: true },
      });
      expect(results).toHaveLength(5);
      expect(results[0]).toMatchObject({ compare_label: "current", breakdown_value: "Chrome", label: "Formula (A+2*B)", aggregated_value: 3, count: 0 });
      expect(results[0].data ?? null).toBeNull();
      expect(results[1]).toMatchObject({ compare_label: "current", breakdown_value: "Safari", aggregated_value: 3 });
      expect(results[2]).toMatchObject({ compare_label: "previous", breakdown_value: "Chrome", aggregated_value: 9 });
    });
  });

  // test_trends_query_runner.py::test_formula_with_multi_cohort_breakdown
  it("formula with a breakdown by two cohorts", async () => {
    const data = { ...standard(), extra: { cohorts: [cohort(1, "cohort p1", [1]), cohort(2, "cohort p2", [2])] } as RefData["extra"] };
    await withReference(data, async (ref) => {
      const results = await run(ref, { ...D20, series: AB, trendsFilter: { formula: "A+B" }, breakdownFilter: { breakdown_type: "cohort", breakdown: [1, 2] } });
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ label: "Formula (A+B)", breakdown_value: 1, count: 9, data: [0, 0, 2, 2, 2, 0, 1, 0, 1, 0, 1, 0] });
      expect(results[1]).toMatchObject({ label: "Formula (A+B)", breakdown_value: 2, count: 3 });
      expect(results[0].action).toBeNull();
    });
  });

  // test_trends_query_runner.py::test_formula_with_multi_cohort_all_breakdown, test_multiple_formula_with_multi_cohort_all_breakdown
  it("formulas with a breakdown by a cohort and all users", async () => {
    const data = { ...standard(), extra: { cohorts: [cohort(1, "cohort p1", [1])] } as RefData["extra"] };
    await withReference(data, async (ref) => {
      const byCount = (rs: any[]) => [...rs].sort((a, b) => a.count - b.count);
      let results = byCount(await run(ref, { ...D20, series: AB, trendsFilter: { formula: "A+B" }, breakdownFilter: { breakdown_type: "cohort", breakdown: [1, "all"] } }));
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ label: "Formula (A+B)", breakdown_value: 1, count: 9, data: [0, 0, 2, 2, 2, 0, 1, 0, 1, 0, 1, 0] });
      expect(results[1]).toMatchObject({ label: "Formula (A+B)", breakdown_value: "all", count: 16, data: [1, 0, 2, 4, 4, 0, 2, 1, 1, 0, 1, 0] });
      results = byCount(
        await run(ref, {
          ...D20,
          series: AB,
          trendsFilter: { formulaNodes: [{ formula: "A+B", custom_name: "Formula (A+B)" }, { formula: "B+1", custom_name: "Formula (B+1)" }] },
          breakdownFilter: { breakdown_type: "cohort", breakdown: [1, "all"] },
        }),
      );
      expect(results).toHaveLength(4);
      expect(results[0]).toMatchObject({ label: "Formula (A+B)", breakdown_value: 1, count: 9, data: [0, 0, 2, 2, 2, 0, 1, 0, 1, 0, 1, 0] });
      expect(results[1]).toMatchObject({ label: "Formula (B+1)", breakdown_value: 1, count: 15, data: [1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1] });
      expect(results[2]).toMatchObject({ label: "Formula (A+B)", breakdown_value: "all", count: 16, data: [1, 0, 2, 4, 4, 0, 2, 1, 1, 0, 1, 0] });
      expect(results[3]).toMatchObject({ label: "Formula (B+1)", breakdown_value: "all", count: 18, data: [1, 1, 2, 2, 4, 1, 1, 2, 1, 1, 1, 1] });
    });
  });

  // test_trends_query_runner.py::test_formula_with_multi_cohort_all_breakdown_with_compare
  it("formula with a cohort breakdown and compare", async () => {
    const data = { ...standard(), extra: { cohorts: [cohort(1, "cohort p1", [1])] } as RefData["extra"] };
    await withReference(data, async (ref) => {
      const results = [...(await run(ref, { ...day("2020-01-15", "2020-01-20"), series: AB, trendsFilter: { formula: "A+B" }, breakdownFilter: { breakdown_type: "cohort", breakdown: [1, "all"] }, compareFilter: { compare: true } }))].sort(
        (a, b) => a.count - b.count,
      );
      expect(results).toHaveLength(4);
      expect(results.map((r) => r.compare)).toEqual([true, true, true, true]);
      expect(results.map((r) => r.compare_label)).toEqual(["current", "current", "previous", "previous"]);
      expect(results[0]).toMatchObject({ breakdown_value: 1, count: 3, data: [1, 0, 1, 0, 1, 0] });
      expect(results[1]).toMatchObject({ breakdown_value: "all", count: 5, data: [2, 1, 1, 0, 1, 0] });
      expect(results[2]).toMatchObject({ breakdown_value: 1, count: 6, data: [0, 0, 2, 2, 2, 0] });
      expect(results[3]).toMatchObject({ breakdown_value: "all", count: 11, data: [1, 0, 2, 4, 4, 0] });
    });
  });

  // test_trends_query_runner.py::test_formula_with_breakdown_and_no_data
  it("formula with a breakdown where a side has no data", async () => {
    await withReference(standard(), async (ref) => {
      const breakdownFilter = { breakdown_type: "person", breakdown: "$browser" };
      const none = await run(ref, { ...D, series: [{ kind: "EventsNode", event: "$pageviewxxx" }, { kind: "EventsNode", event: "$pageleavexxx" }], trendsFilter: { formula: "A+2*B" }, breakdownFilter });
      expect(none).toHaveLength(0);
      const one = await run(ref, { ...D, series: [pageview, { kind: "EventsNode", event: "$pageleavexxx" }], trendsFilter: { formula: "A+2*B" }, breakdownFilter });
      expect(one[0].data).toEqual([1, 0, 1, 3, 1, 0, 2, 0, 1, 0, 1]);
    });
  });

  // test_trends_query_runner.py::test_formula_rounding
  it("formula B/A keeps its fraction", async () => {
    const events: RefEvent[] = [
      { event: "$pageleave", distinct_id: "person_1", timestamp: "2020-01-11T12:00:00Z" },
      { event: "$pageview", distinct_id: "person_2", timestamp: "2020-01-11T12:00:00Z" },
      { event: "$pageview", distinct_id: "person_3", timestamp: "2020-01-11T12:00:00Z" },
      { event: "$pageview", distinct_id: "person_4", timestamp: "2020-01-11T12:00:00Z" },
    ];
    await withReference({ now: NOW, events }, async (ref) => {
      const results = await run(ref, { dateFrom: "2020-01-11T00:00:00Z", dateTo: "2020-01-11T23:59:59Z", series: AB, trendsFilter: { formula: "B/A" } });
      expect(results).toHaveLength(1);
      expect(results[0].data).toEqual([1 / 3]);
    });
  });

  // test_trends_query_runner.py::test_multiple_formulas_with_compare_to_week
  it("two formulas with compare_to a week", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...day("2020-01-15", "2020-01-19"), series: AB, trendsFilter: { formulas: ["A+B", "A-B"] }, compareFilter: { compare: true, compare_to: "-1w" } });
      expect(results).toHaveLength(4);
      expect(results[0]).toMatchObject({ compare_label: "current", label: "Formula (A+B)", data: [2, 1, 1, 0, 1] });
      expect(results[1]).toMatchObject({ compare_label: "previous", label: "Formula (A+B)", data: [0, 1, 0, 2, 4] });
      expect(results[2]).toMatchObject({ compare_label: "current", label: "Formula (A-B)", data: [2, -1, 1, 0, 1] });
      expect(results[3]).toMatchObject({ compare_label: "previous", label: "Formula (A-B)", data: [0, 1, 0, 0, 2] });
    });
  });
});

describe("test_trends_query_runner.py: compare", () => {
  // test_trends_query_runner.py::test_trends_compare
  it("compare with the previous period", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...day("2020-01-15", "2020-01-19"), trendsFilter: {}, compareFilter: { compare: true } });
      expect(results).toHaveLength(2);
      expect(results.map((r) => [r.compare, r.compare_label])).toEqual([[true, "current"], [true, "previous"]]);
      expect(results[0].days).toEqual(["2020-01-15", "2020-01-16", "2020-01-17", "2020-01-18", "2020-01-19"]);
      expect(results[1].days).toEqual(["2020-01-10", "2020-01-11", "2020-01-12", "2020-01-13", "2020-01-14"]);
      expect(results[0].labels).toEqual(["15-Jan-2020", "16-Jan-2020", "17-Jan-2020", "18-Jan-2020", "19-Jan-2020"]);
      expect(results[1].labels).toEqual(["10-Jan-2020", "11-Jan-2020", "12-Jan-2020", "13-Jan-2020", "14-Jan-2020"]);
    });
  });

  // test_trends_query_runner.py::test_trends_compare_weeks
  it("compare a relative -7d range", async () => {
    await withReference({ ...standard(), now: "2020-01-24" }, async (ref) => {
      const results = await run(ref, { dateFrom: "-7d", dateTo: null, trendsFilter: {}, compareFilter: { compare: true } });
      expect(results).toHaveLength(2);
      expect(results.map((r) => r.compare_label)).toEqual(["current", "previous"]);
      expect(results[0].days).toEqual(["2020-01-17", "2020-01-18", "2020-01-19", "2020-01-20", "2020-01-21", "2020-01-22", "2020-01-23", "2020-01-24"]);
      expect(results[1].days).toEqual(["2020-01-10", "2020-01-11", "2020-01-12", "2020-01-13", "2020-01-14", "2020-01-15", "2020-01-16", "2020-01-17"]);
      expect(results[0].labels[0]).toBe("17-Jan-2020");
      expect(results[1].labels[7]).toBe("17-Jan-2020");
    });
  });

  // test_trends_query_runner.py::test_previous_period_with_number_display
  it("compare with a number display", async () => {
    await withReference(standard(), async (ref) => {
      expect(await run(ref, { ...D20, trendsFilter: { display: "BoldNumber" }, compareFilter: { compare: true } })).toHaveLength(2);
    });
  });
});

describe("test_trends_query_runner.py: breakdowns", () => {
  // test_trends_query_runner.py::test_trends_breakdowns
  it("event property breakdown", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdown_type: "event", breakdown: "$browser" } });
      expect(values(results)).toEqual(["Chrome", "Firefox", "Edge", "Safari"]);
      expect(results.map((r) => r.label)).toEqual(["Chrome", "Firefox", "Edge", "Safari"]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_breakdowns_boolean
  it("boolean breakdown", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdown_type: "event", breakdown: "bool_field" } });
      expect(values(results)).toEqual(["true", "false"]);
      expect(results.map((r) => r.label)).toEqual(["true", "false"]);
      expect(counts(results)).toEqual([7, 3]);
    });
  });

  // test_trends_query_runner.py::test_trends_breakdowns_histogram
  it("histogram breakdown", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdown_type: "event", breakdown: "prop", breakdown_histogram_bin_count: 4 } });
      expect(values(results)).toEqual(["[10,17.5]", "[17.5,25]", "[25,32.5]", "[32.5,40.01]"]);
      expect(results.map((r) => r.label)).toEqual(["[10,17.5]", "[17.5,25]", "[25,32.5]", "[32.5,40.01]"]);
      expect(results.map((r) => r.data)).toEqual([
        [0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0],
        [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
      ]);
    });
  });

  // test_trends_query_runner.py::test_trends_breakdowns_cohort
  it("cohort breakdown", async () => {
    await withReference({ ...standard(), extra: { cohorts: [cohort(1, "cohort", [1])] } as RefData["extra"] }, async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdown_type: "cohort", breakdown: [1] } });
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ label: "cohort", count: 6, data: [0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0] });
    });
  });

  // test_trends_query_runner.py::test_trends_breakdowns_hogql, test_trends_breakdowns_multiple_hogql
  it("HogQL breakdown over one and two series", async () => {
    await withReference(standard(), async (ref) => {
      let results = await run(ref, { ...D20, breakdownFilter: { breakdown_type: "hogql", breakdown: "properties.$browser" } });
      expect(values(results)).toEqual(["Chrome", "Firefox", "Edge", "Safari"]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
      results = await run(ref, { ...D20, series: [pageview, pageleave], breakdownFilter: { breakdown_type: "hogql", breakdown: "properties.$browser" } });
      expect(values(results)).toEqual(["Chrome", "Firefox", "Edge", "Safari", "Chrome", "Edge", "Firefox", "Safari"]);
      expect(results.map((r) => r.label)).toEqual([
        "$pageview - Chrome",
        "$pageview - Firefox",
        "$pageview - Edge",
        "$pageview - Safari",
        "$pageleave - Chrome",
        "$pageleave - Edge",
        "$pageleave - Firefox",
        "$pageleave - Safari",
      ]);
      expect(counts(results)).toEqual([6, 2, 1, 1, 3, 1, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_breakdowns_and_compare
  it("breakdown and compare", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...day("2020-01-15", "2020-01-20"), trendsFilter: {}, breakdownFilter: { breakdown_type: "event", breakdown: "$browser" }, compareFilter: { compare: true } });
      expect(values(results)).toEqual(["Chrome", "Safari", "Chrome", "Firefox", "Edge"]);
      expect(counts(results)).toEqual([3, 1, 3, 2, 1]);
      expect(results.map((r) => r.compare_label)).toEqual(["current", "current", "previous", "previous", "previous"]);
      expect(results.every((r) => r.compare === true)).toBe(true);
    });
  });

  // test_trends_query_runner.py::test_trends_breakdown_and_aggregation_query_orchestration
  it("breakdown with a sum", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, series: [{ ...pageview, math: "sum", math_property: "prop" }], breakdownFilter: { breakdown_type: "event", breakdown: "$browser" } });
      expect(values(results)).toEqual(["Chrome", "Firefox", "Safari", "Edge"]);
      expect(results.map((r) => r.data)).toEqual([
        [0, 0, 10, 10, 10, 0, 10, 0, 10, 0, 10, 0],
        [20, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 40, 0, 0, 0, 0, 0],
        [0, 0, 0, 30, 0, 0, 0, 0, 0, 0, 0, 0],
      ]);
    });
  });

  const thirtyValues = (): RefData => ({
    now: NOW,
    events: Array.from({ length: 30 }, (_, value) => ({ event: "$pageview", distinct_id: `person_${value}`, timestamp: "2020-01-11T12:00:00Z", properties: { breakdown_value: `${value}` } })),
  });

  // test_trends_query_runner.py::test_breakdown_values_limit, test_breakdown_values_unknown_property (the export limit context is not ported)
  it("breakdown limit, other and hiding other", async () => {
    await withReference(thirtyValues(), async (ref) => {
      const bd = { breakdown: "breakdown_value", breakdown_type: "event" };
      const line = { display: "ActionsLineGraph" };
      expect(await run(ref, { ...D20, trendsFilter: line, breakdownFilter: bd })).toHaveLength(26);
      expect(await run(ref, { ...D20, trendsFilter: line, breakdownFilter: { ...bd, breakdown_limit: 10 } })).toHaveLength(11);
      expect(await run(ref, { ...D20, trendsFilter: line, breakdownFilter: { ...bd, breakdown_limit: 10, breakdown_hide_other_aggregation: true } })).toHaveLength(10);
      expect(await run(ref, { ...D20, trendsFilter: { display: "ActionsTable" }, breakdownFilter: { ...bd, breakdown_limit: 10 } })).toHaveLength(11);
      expect(await run(ref, { ...D20, trendsFilter: { display: "ActionsTable" }, breakdownFilter: { ...bd, breakdown_limit: 10, breakdown_hide_other_aggregation: true } })).toHaveLength(10);
    });
  });

  // test_trends_query_runner.py::test_multiple_breakdowns_values_limit (the export limit context is not ported)
  it("breakdown limit with a breakdowns list", async () => {
    await withReference(thirtyValues(), async (ref) => {
      const breakdowns = [{ property: "breakdown_value", type: "event" }];
      const line = { display: "ActionsLineGraph" };
      expect(await run(ref, { ...D20, trendsFilter: line, breakdownFilter: { breakdowns } })).toHaveLength(26);
      const limited = await run(ref, { ...D20, trendsFilter: line, breakdownFilter: { breakdowns, breakdown_limit: 10 } });
      expect(limited).toHaveLength(11);
      expect(limited[10].breakdown_value).toEqual([OTHER]);
      expect(await run(ref, { ...D20, trendsFilter: line, breakdownFilter: { breakdowns, breakdown_limit: 10, breakdown_hide_other_aggregation: true } })).toHaveLength(10);
      expect(await run(ref, { ...D20, trendsFilter: { display: "ActionsTable" }, breakdownFilter: { breakdowns, breakdown_limit: 10 } })).toHaveLength(11);
      expect(await run(ref, { ...D20, trendsFilter: { display: "ActionsTable" }, breakdownFilter: { breakdowns, breakdown_limit: 10, breakdown_hide_other_aggregation: true } })).toHaveLength(10);
    });
  });

  // test_trends_query_runner.py::test_trends_with_formula_and_multiple_breakdowns_hide_other_breakdowns
  it("formula over a breakdowns list shows other as a list item, unless hidden", async () => {
    await withReference(thirtyValues(), async (ref) => {
      const base = { ...D20, series: [pageview, pageview], trendsFilter: { display: "ActionsLineGraph", formula: "A+B" } };
      const breakdowns = [{ property: "breakdown_value", type: "event" }];
      let results = await run(ref, { ...base, breakdownFilter: { breakdowns, breakdown_limit: 10 } });
      expect(results.flatMap((r) => r.breakdown_value)).toContain(OTHER);
      results = await run(ref, { ...base, breakdownFilter: { breakdowns, breakdown_limit: 10, breakdown_hide_other_aggregation: true } });
      expect(results.flatMap((r) => r.breakdown_value)).not.toContain(OTHER);
    });
  });

  // test_trends_query_runner.py::test_to_insight_query_applies_breakdown_limit
  it("breakdown limit 2 with a single breakdown and a breakdowns list", async () => {
    await withReference(standard(), async (ref) => {
      let results = await run(ref, { ...D20, trendsFilter: { display: "ActionsBarValue" }, breakdownFilter: { breakdown: "$browser", breakdown_limit: 2 } });
      expect(values(results)).toEqual(["Chrome", "Firefox", OTHER]);
      results = await run(ref, { ...D20, trendsFilter: { display: "ActionsBarValue" }, breakdownFilter: { breakdowns: [{ property: "$browser" }], breakdown_limit: 2 } });
      expect(values(results)).toEqual([["Chrome"], ["Firefox"], [OTHER]]);
    });
  });

  // test_trends_query_runner.py::test_trends_multiple_event_breakdowns
  it("two and three event breakdowns", async () => {
    await withReference(standard(), async (ref) => {
      let results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ type: "event", property: "$browser" }, { type: "event", property: "prop" }] } });
      expect(values(results)).toEqual([["Chrome", "10"], ["Firefox", "20"], ["Edge", "30"], ["Safari", "40"]]);
      expect(results.map((r) => r.label)).toEqual(["Chrome::10", "Firefox::20", "Edge::30", "Safari::40"]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
      results = await run(ref, {
        ...D20,
        breakdownFilter: { breakdowns: [{ type: "event", property: "$browser" }, { type: "event", property: "prop" }, { type: "event", property: "bool_field" }] },
      });
      expect(values(results)).toEqual([["Chrome", "10", "true"], ["Firefox", "20", "false"], ["Edge", "30", "true"], ["Safari", "40", "false"]]);
      expect(results.map((r) => r.label)).toEqual(["Chrome::10::true", "Firefox::20::false", "Edge::30::true", "Safari::40::false"]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_and_person_breakdowns
  it("event and person breakdowns", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ type: "event", property: "$browser" }, { type: "person", property: "name" }] } });
      expect(values(results)).toEqual([["Chrome", "p1"], ["Firefox", "p2"], ["Edge", "p3"], ["Safari", "p4"]]);
      expect(results.map((r) => r.label)).toEqual(["Chrome::p1", "Firefox::p2", "Edge::p3", "Safari::p4"]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_person_group_breakdowns
  it("event and group breakdowns", async () => {
    await withReference(groupData(), async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ type: "event", property: "$browser" }, { type: "group", group_type_index: 0, property: "industry" }] } });
      expect(values(results)).toEqual([["Chrome", "finance"], ["Firefox", "technology"], ["Edge", "finance"], ["Safari", NULL]]);
      expect(results.map((r) => r.label)).toEqual(["Chrome::finance", "Firefox::technology", "Edge::finance", `Safari::${NULL}`]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_with_two_group_breakdowns
  it("two group breakdowns put rows with the null placeholder last", async () => {
    await withReference(groupData(), async (ref) => {
      const results = await run(ref, {
        ...D20,
        breakdownFilter: { breakdowns: [{ type: "group", group_type_index: 1, property: "employee_count" }, { type: "group", group_type_index: 0, property: "industry" }] },
      });
      expect(values(results)).toEqual([["50-249", "finance"], [NULL, "finance"], [NULL, "technology"], [NULL, NULL]]);
      expect(results.map((r) => r.label)).toEqual(["50-249::finance", `${NULL}::finance`, `${NULL}::technology`, `${NULL}::${NULL}`]);
      expect(counts(results)).toEqual([1, 6, 2, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_with_three_group_breakdowns
  it("three group breakdowns", async () => {
    await withReference(groupData(), async (ref) => {
      const results = await run(ref, {
        ...D20,
        breakdownFilter: {
          breakdowns: [
            { type: "group", group_type_index: 0, property: "industry" },
            { type: "group", group_type_index: 0, property: "name" },
            { type: "group", group_type_index: 1, property: "employee_count" },
          ],
        },
      });
      expect(values(results)).toEqual([["finance", "Hedgebank", "50-249"], ["finance", "Hedgeflix", NULL], ["technology", "Hedgebox", NULL], [NULL, NULL, NULL]]);
      expect(results[3].label).toBe(`${NULL}::${NULL}::${NULL}`);
      expect(counts(results)).toEqual([1, 6, 2, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_multiple_breakdowns_normalizes_url
  it("normalize_url in a breakdowns list", async () => {
    const data = createEvents([
      { distinct_id: "p1", events: P1_EVENTS, properties: { $url: "https://posthog.com/?" } },
      { distinct_id: "p2", events: P2_EVENTS, properties: { $url: "https://posthog.com" } },
      { distinct_id: "p3", events: P3_EVENTS, properties: { $url: "https://posthog.com/foo/bar/#" } },
      { distinct_id: "p4", events: P4_EVENTS, properties: { $url: "https://posthog.com/foo/bar/" } },
    ]);
    await withReference({ now: NOW, ...data }, async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "$url", normalize_url: true }] } });
      expect(values(results)).toEqual([["https://posthog.com"], ["https://posthog.com/foo/bar"]]);
      for (const normalize_url of [false, null]) {
        expect(await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "$url", normalize_url }] } })).toHaveLength(4);
      }
    });
  });

  const bins = (extra: SeriesData[] = []): RefData => ({
    now: NOW,
    ...createEvents([
      { distinct_id: "p1", events: P1_EVENTS, properties: { $bin: 4 } },
      { distinct_id: "p2", events: P2_EVENTS, properties: { $bin: 8 } },
      { distinct_id: "p3", events: P3_EVENTS, properties: { $bin: 16 } },
      { distinct_id: "p4", events: P4_EVENTS, properties: { $bin: 32 } },
      { distinct_id: "p5", events: P4_EVENTS, properties: { $bin: 64 } },
      { distinct_id: "p6", events: [["$pageview", ["2020-01-15T12:00:00Z"]], ["$pageleave", ["2020-01-16T11:00:00Z", "2020-01-16T12:00:00Z"]]], properties: { $bin: 128 } },
      ...extra,
    ]),
  });

  // test_trends_query_runner.py::test_trends_event_multiple_numeric_breakdowns
  it("numeric values in a breakdowns list are strings ranked by count", async () => {
    await withReference(bins(), async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "$bin" }] } });
      expect(values(results)).toEqual([["4"], ["8"], ["128"], ["16"], ["32"], ["64"]]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_multiple_numeric_breakdowns_into_bins
  it("histogram_bin_count in a breakdowns list", async () => {
    const p7: SeriesData = { distinct_id: "p7", events: [["$pageview", ["2020-01-15T12:00:00Z"]], ["$pageleave", ["2020-01-16T11:00:00Z", "2020-01-16T12:00:00Z"]]], properties: {} };
    await withReference(bins([p7]), async (ref) => {
      let results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "$bin", histogram_bin_count: 5 }] } });
      expect(values(results)).toEqual([["[4,28.8]"], ["[103.2,128.01]"], ["[28.8,53.6]"], ["[53.6,78.4]"], [NULL]]);
      expect(counts(results)).toEqual([9, 1, 1, 1, 1]);
      results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "$bin", histogram_bin_count: 5 }], breakdown_limit: 2 } });
      expect(values(results)).toEqual([["[4,28.8]"], ["[103.2,128.01]"], [OTHER]]);
      expect(counts(results)).toEqual([9, 1, 3]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_histogram_breakdowns_return_equal_result
  it("histogram bins are the same through breakdown and breakdowns", async () => {
    const data = {
      now: NOW,
      ...createEvents([
        { distinct_id: "p1", events: P1_EVENTS, properties: { $bin: 4 } },
        { distinct_id: "p2", events: P2_EVENTS, properties: { $bin: 8 } },
        { distinct_id: "p3", events: P3_EVENTS, properties: { $bin: 16 } },
        { distinct_id: "p4", events: P3_EVENTS, properties: {} },
      ]),
    };
    await withReference(data, async (ref) => {
      const single = await run(ref, { ...D20, breakdownFilter: { breakdown: "$bin", breakdown_histogram_bin_count: 5 } });
      const multiple = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "$bin", histogram_bin_count: 5 }] } });
      const want = ["[4,6.4]", "[6.4,8.8]", "[13.6,16.01]", NULL];
      expect(values(single)).toEqual(want);
      expect(multiple.map((r) => r.breakdown_value[0])).toEqual(want);
      expect(counts(single)).toEqual([6, 2, 1, 1]);
      expect(counts(multiple)).toEqual([6, 2, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_breakdowns_handle_null
  it("histogram of one repeated value, and of a property missing from the range", async () => {
    const data = {
      now: NOW,
      ...createEvents([
        { distinct_id: "p1", events: P1_EVENTS, properties: { $bin: 4 } },
        { distinct_id: "p2", events: P2_EVENTS, properties: { $second_bin: 2 } },
      ]),
    };
    await withReference(data, async (ref) => {
      expect(values(await run(ref, { ...D20, breakdownFilter: { breakdown: "$bin", breakdown_histogram_bin_count: 10 } }))).toEqual(["[4,4.01]", NULL]);
      expect(values(await run(ref, { ...day("2020-01-14", "2020-01-20"), breakdownFilter: { breakdown: "$second_bin", breakdown_histogram_bin_count: 10 } }))).toEqual([NULL]);
      expect(values(await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "$bin", histogram_bin_count: 10 }] } }))).toEqual([["[4,4.01]"], [NULL]]);
      expect(
        values(await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "$bin", histogram_bin_count: 10 }, { property: "$second_bin", histogram_bin_count: 10 }] } })),
      ).toEqual([["[4,4.01]", NULL], [NULL, "[2,2.01]"]]);
      expect(values(await run(ref, { ...day("2020-01-14", "2020-01-20"), breakdownFilter: { breakdowns: [{ property: "$second_bin", histogram_bin_count: 10 }] } }))).toEqual([[NULL]]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_breakdowns_can_combine_bool_sting_and_numeric_in_any_order
  // Its loop is itertools.combinations(breakdowns, 3) over three breakdowns: one run, in the listed order.
  it("bins, strings and booleans combine in any order", async () => {
    await withReference(standard(), async (ref) => {
      const breakdowns = [{ property: "prop", histogram_bin_count: 2 }, { property: "$browser" }, { property: "bool_field" }];
      const results = await run(ref, { ...D20, breakdownFilter: { breakdowns } });
      expect(results.map((r) => [...r.breakdown_value].sort())).toEqual([
        ["[10,25]", "Chrome", "true"].sort(),
        ["[10,25]", "Firefox", "false"].sort(),
        ["[25,40.01]", "Edge", "true"].sort(),
        ["[25,40.01]", "Safari", "false"].sort(),
      ]);
    });
  });

  // Not a PostHog test: the same data with bool_field first. Rows go by total (Chrome 6, Firefox 2), then equal totals
  // (Edge and Safari, 1 each) by the list of values ascending, as trends_query_builder.py's ORDER BY
  // (…, arraySum(total) DESC, breakdown_value ASC) sorts ClickHouse arrays: element by element, "false" < "true".
  it("equal totals of a breakdowns list go by its values ascending, element by element", async () => {
    await withReference(standard(), async (ref) => {
      const breakdowns = [{ property: "bool_field" }, { property: "prop", histogram_bin_count: 2 }, { property: "$browser" }];
      const results = await run(ref, { ...D20, breakdownFilter: { breakdowns } });
      expect(values(results)).toEqual([
        ["true", "[10,25]", "Chrome"],
        ["false", "[10,25]", "Firefox"],
        ["false", "[25,40.01]", "Safari"],
        ["true", "[25,40.01]", "Edge"],
      ]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_breakdowns_handle_none_histogram_bin_count
  it("a breakdowns list item without bins", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "prop", histogram_bin_count: 2 }, { property: "$browser", histogram_bin_count: null }] } });
      expect(values(results)).toEqual([["[10,25]", "Chrome"], ["[10,25]", "Firefox"], ["[25,40.01]", "Edge"], ["[25,40.01]", "Safari"]]);
    });
  });

  // test_trends_query_runner.py::test_trends_multiple_breakdowns_hogql, test_trends_multiple_breakdowns_multiple_hogql
  it("HogQL in a breakdowns list", async () => {
    await withReference(standard(), async (ref) => {
      let results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "properties.$browser", type: "hogql" }] } });
      expect(values(results)).toEqual([["Chrome"], ["Firefox"], ["Edge"], ["Safari"]]);
      expect(results.map((r) => r.label)).toEqual(["Chrome", "Firefox", "Edge", "Safari"]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
      results = await run(ref, { ...D20, series: [pageview, pageleave], breakdownFilter: { breakdowns: [{ type: "hogql", property: "properties.$browser" }] } });
      expect(values(results)).toEqual([["Chrome"], ["Firefox"], ["Edge"], ["Safari"], ["Chrome"], ["Edge"], ["Firefox"], ["Safari"]]);
      expect(results[4].label).toBe("$pageleave - Chrome");
      expect(counts(results)).toEqual([6, 2, 1, 1, 3, 1, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_multiple_breakdowns_hogql_and_numeric_prop
  it("HogQL and bins in a breakdowns list", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [{ property: "properties.$browser", type: "hogql" }, { property: "prop", histogram_bin_count: 2 }] } });
      expect(values(results)).toEqual([["Chrome", "[10,25]"], ["Firefox", "[10,25]"], ["Edge", "[25,40.01]"], ["Safari", "[25,40.01]"]]);
      expect(results.map((r) => r.label)).toEqual(["Chrome::[10,25]", "Firefox::[10,25]", "Edge::[25,40.01]", "Safari::[25,40.01]"]);
      expect(counts(results)).toEqual([6, 2, 1, 1]);
    });
  });

  // test_trends_query_runner.py::test_to_insight_query_applies_multiple_breakdowns
  it("three breakdowns with bins as a bar value", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, {
        ...D20,
        trendsFilter: { display: "ActionsBarValue" },
        breakdownFilter: { breakdowns: [{ type: "event", property: "$browser" }, { type: "event", property: "prop", histogram_bin_count: 2 }, { type: "event", property: "bool_field" }] },
      });
      expect(values(results)).toEqual([["Chrome", "[10,25]", "true"], ["Firefox", "[10,25]", "false"], ["Edge", "[25,40.01]", "true"], ["Safari", "[25,40.01]", "false"]]);
    });
  });

  // test_trends_query_runner.py::test_trends_table_uses_breakdown_bins
  it("total-value displays use the bins", async () => {
    await withReference(standard(), async (ref) => {
      for (const display of ["ActionsPie", "ActionsBarValue", "ActionsTable"]) {
        let results = await run(ref, {
          ...D20,
          trendsFilter: { display },
          breakdownFilter: { breakdown: "prop", breakdown_type: "event", breakdown_histogram_bin_count: 2, breakdown_limit: 10, breakdown_hide_other_aggregation: true },
        });
        expect(values(results)).toEqual(["[10,25]", "[25,40.01]"]);
        expect(results.map((r) => r.aggregated_value)).toEqual([8, 2]);
        results = await run(ref, {
          ...D20,
          trendsFilter: { display },
          breakdownFilter: { breakdowns: [{ property: "prop", type: "event", histogram_bin_count: 2 }], breakdown_limit: 10, breakdown_hide_other_aggregation: true },
        });
        expect(values(results)).toEqual([["[10,25]"], ["[25,40.01]"]]);
        expect(results.map((r) => r.aggregated_value)).toEqual([8, 2]);
      }
    });
  });

  // test_trends_query_runner.py::test_multiple_breakdowns_work_with_formula
  it("formula over a breakdowns list", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, trendsFilter: { display: "ActionsLineGraph", formula: "A*10" }, breakdownFilter: { breakdowns: [{ property: "$browser", type: "event" }] } });
      expect(values(results)).toEqual([["Chrome"], ["Firefox"], ["Edge"], ["Safari"]]);
      expect(results.map((r) => r.data)).toEqual([
        [0, 0, 10, 10, 10, 0, 10, 0, 10, 0, 10, 0],
        [10, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0],
      ]);
    });
  });

  // test_trends_query_runner.py::test_multiple_series_and_multiple_breakdowns_work_with_formula
  it("formula over two series and two breakdowns", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, {
        ...D20,
        series: [pageview, pageview],
        trendsFilter: { display: "ActionsLineGraph", formula: "A/B*100" },
        breakdownFilter: { breakdowns: [{ property: "$browser", type: "event" }, { property: "prop", type: "event", histogram_bin_count: 2 }] },
      });
      expect(values(results)).toEqual([["Chrome", "[10,25]"], ["Firefox", "[10,25]"], ["Edge", "[25,40.01]"], ["Safari", "[25,40.01]"]]);
      expect(results.map((r) => r.data)).toEqual([
        [0, 0, 100, 100, 100, 0, 100, 0, 100, 0, 100, 0],
        [100, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0],
      ]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_math_mau_with_breakdowns
  it("monthly active with a breakdown and a breakdowns list", async () => {
    await withReference(standard(), async (ref) => {
      const series = [{ ...pageview, math: "monthly_active" }];
      const single = await run(ref, { ...day("2020-01-09", "2020-02-10"), series, breakdownFilter: { breakdown: "$browser" } });
      const multiple = await run(ref, { ...day("2020-01-09", "2020-02-10"), series, breakdownFilter: { breakdowns: [{ property: "$browser", type: "event" }] } });
      expect(values(single)).toEqual(["Firefox", "Chrome", "Edge", "Safari"]);
      expect(multiple.map((r) => r.breakdown_value[0])).toEqual(["Firefox", "Chrome", "Edge", "Safari"]);
      expect(counts(single)).toEqual([33, 31, 30, 27]);
      expect(counts(multiple)).toEqual([33, 31, 30, 27]);
    });
  });
});

describe("test_trends_query_runner.py: maths", () => {
  const math = (m: Record<string, unknown>) => ({ ...D20, series: [{ ...pageview, ...m }] });

  // test_trends_query_runner.py::test_trends_aggregation_hogql, test_trends_aggregation_property_sum
  it("sum of a property, as HogQL and as math", async () => {
    await withReference(standard(), async (ref) => {
      const want = [20, 0, 10, 60, 10, 0, 50, 0, 10, 0, 10, 0];
      expect((await run(ref, math({ math: "hogql", math_hogql: "sum(properties.prop)" })))[0].data).toEqual(want);
      expect((await run(ref, math({ math: "sum", math_property: "prop" })))[0].data).toEqual(want);
    });
  });

  // test_trends_query_runner.py::test_trends_aggregation_total, test_trends_aggregation_dau, test_trends_aggregation_wau, test_trends_aggregation_mau,
  // test_trends_aggregation_unique, test_trends_aggregation_property_avg, test_trends_aggregation_per_actor_max
  it("total, dau, weekly and monthly active, unique sessions, avg and max per actor", async () => {
    await withReference(standard(), async (ref) => {
      expect((await run(ref, math({ math: "total" })))[0].count).toBe(10);
      expect((await run(ref, math({ math: "dau" })))[0].data).toEqual([1, 0, 1, 3, 1, 0, 2, 0, 1, 0, 1, 0]);
      expect((await run(ref, math({ math: "weekly_active" })))[0].data).toEqual([1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 2, 2]);
      expect((await run(ref, math({ math: "monthly_active" })))[0].data).toEqual([1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 4, 4]);
      expect((await run(ref, math({ math: "unique_session" })))[0].data).toEqual([1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0]);
      expect((await run(ref, math({ math: "avg", math_property: "prop" })))[0].data).toEqual([20, 0, 10, 20, 10, 0, 25, 0, 10, 0, 10, 0]);
      expect((await run(ref, math({ math: "max_count_per_actor" })))[0].data).toEqual([1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0]);
    });
  });

  // test_trends_query_runner.py::test_trends_aggregation_wau_long_interval (the actors part is not ported)
  it("weekly active with week intervals", async () => {
    await withReference(standard(), async (ref) => {
      expect((await run(ref, { ...D20, interval: "week", series: [{ ...pageview, math: "weekly_active" }] }))[0].data).toEqual([2, 4, 1]);
    });
  });

  // test_trends_query_runner.py::test_trends_aggregation_mau_long_interval
  it("monthly active with month intervals", async () => {
    await withReference(standard(), async (ref) => {
      expect((await run(ref, { dateFrom: "2019-12-31", dateTo: "2020-02-01", interval: "month", series: [{ ...pageview, math: "monthly_active" }] }))[0].data).toEqual([0, 4, 0]);
    });
  });

  // test_trends_query_runner.py::test_trends_aggregation_monthly_active_groups_long_interval
  it("monthly active groups with month intervals", async () => {
    await withReference({ ...groupData(), extra: undefined, groupTypes: [{ group_type_index: 0, group_type: "organization" }] }, async (ref) => {
      const results = await run(ref, { dateFrom: "2019-12-31", dateTo: "2020-02-01", interval: "month", series: [{ ...pageview, math: "monthly_active", math_group_type_index: 0 }] });
      expect(results[0].data).toEqual([0, 4, 0]);
    });
  });

  // test_trends_query_runner.py::test_trends_display_aggregate, test_trends_display_aggregate_interval
  it("a number display aggregates the whole range", async () => {
    await withReference(standard(), async (ref) => {
      for (const interval of ["day", "month"]) {
        const [r] = await run(ref, { ...D20, interval, trendsFilter: { display: "BoldNumber" } });
        expect(r).toMatchObject({ data: [], days: [], count: 0, aggregated_value: 10 });
      }
    });
  });

  // test_trends_query_runner.py::test_trends_display_cumulative
  it("cumulative display", async () => {
    await withReference(standard(), async (ref) => {
      const [r] = await run(ref, { ...D20, trendsFilter: { display: "ActionsLineGraphCumulative" } });
      expect(r.count).toBe(10);
      expect(r.data).toEqual([1, 1, 2, 5, 6, 6, 8, 8, 9, 9, 10, 10]);
    });
  });

  // test_trends_query_runner.py::test_trends_aggregation_total_with_null
  it("a sum skips values that are not numbers", async () => {
    const base = { $browser: "Chrome", bool_field: true };
    const data = {
      now: NOW,
      ...createEvents([
        { distinct_id: "p1", events: [["$pageview", ["2020-01-08T12:00:00Z"]]], properties: { ...base, prop: 30, nullable_prop: "1.1" } },
        { distinct_id: "p7", events: [["$pageview", ["2020-01-15T12:00:00Z"]]], properties: { ...base, prop: 30, nullable_prop: "1.1" } },
        { distinct_id: "p3", events: [["$pageview", ["2020-01-12T12:00:00Z"]]], properties: { ...base, prop: 30, nullable_prop: "garbage" } },
        { distinct_id: "p4", events: [["$pageview", ["2020-01-15T12:00:00Z"]]], properties: { ...base, prop: 40, bool_field: false, nullable_prop: "garbage" } },
        { distinct_id: "p5", events: [["$pageview", ["2020-01-09T12:00:00Z"]]], properties: { ...base, prop: 40, bool_field: false, nullable_prop: "garbage" } },
      ]),
    };
    await withReference(data, async (ref) => {
      const results = await run(ref, { ...day("2020-01-08", "2020-01-15"), series: [{ ...pageview, math: "sum", math_property: "nullable_prop" }], breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } });
      expect(results).toHaveLength(1);
      expect(results[0].data).toEqual([1.1, 0, 0, 0, 0, 0, 0, 1.1]);
    });
  });

  // test_trends_query_runner.py::test_trends_aggregation_property_avg_person_property
  it("math_property_type person_properties averages the person's property", async () => {
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["p1"], properties: { score: 5 } }],
      events: [{ event: "$pageview", distinct_id: "p1", timestamp: "2020-01-11T12:00:00Z", properties: { score: 6 } }],
    };
    await withReference(data, async (ref) => {
      const [r] = await run(ref, { ...D, series: [{ ...pageview, math: "avg", math_property: "score", math_property_type: "person_properties" }] });
      expect(r.count).toBe(5);
      expect(r.data).toEqual([0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_metadata_filter_group
  it("event_metadata filters on $group_0", async () => {
    await withReference(groupData(), async (ref) => {
      const filtered = (operator: string) => ({ ...D20, series: [{ ...pageview, properties: [{ type: "event_metadata", operator, key: "$group_0", value: "org:5" }] }] });
      expect((await run(ref, filtered("exact")))[0].count).toBe(6);
      expect((await run(ref, filtered("is_not")))[0].count).toBe(4);
    });
  });
});

describe("test_trends_query_runner.py: first time for user", () => {
  const first = (m: Record<string, unknown> = {}) => [{ ...pageview, math: "first_time_for_user", ...m }];
  const line = { display: "ActionsLineGraph" };

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_basic
  it("counts each person's first event in range", async () => {
    await withReference(standard(), async (ref) => {
      const cases: [string, number, number[]][] = [
        ["2020-01-09", 4, [1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0]],
        ["2020-01-10", 3, [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0]],
        ["2020-01-12", 2, [1, 0, 0, 1, 0, 0, 0, 0, 0]],
        ["2020-01-16", 0, [0, 0, 0, 0, 0]],
      ];
      for (const [from, count, data] of cases) {
        const results = await run(ref, { ...day(from, "2020-01-20"), series: first(), trendsFilter: line });
        expect(results).toHaveLength(1);
        expect(results[0]).toMatchObject({ count, data });
      }
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_breakdowns_basic
  it("with a breakdown and a breakdowns list", async () => {
    await withReference(standard(), async (ref) => {
      const matrix = [
        [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
      ];
      let results = await run(ref, { ...D20, series: first(), trendsFilter: line, breakdownFilter: { breakdown: "$browser" } });
      expect(counts(results)).toEqual([1, 1, 1, 1]);
      expect(values(results)).toEqual(["Chrome", "Edge", "Firefox", "Safari"]);
      expect(results.map((r) => r.data)).toEqual(matrix);
      results = await run(ref, { ...D20, series: first(), trendsFilter: line, breakdownFilter: { breakdowns: [{ property: "$browser" }] } });
      expect(counts(results)).toEqual([1, 1, 1, 1]);
      expect(values(results)).toEqual([["Chrome"], ["Edge"], ["Firefox"], ["Safari"]]);
      expect(results.map((r) => r.data)).toEqual(matrix);
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_breakdowns_with_bins
  it("with bins", async () => {
    await withReference(standard(), async (ref) => {
      const matrix = [
        [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
      ];
      let results = await run(ref, { ...D20, series: first(), trendsFilter: line, breakdownFilter: { breakdown: "prop", breakdown_type: "event", breakdown_histogram_bin_count: 2 } });
      expect(counts(results)).toEqual([2, 2]);
      expect(values(results)).toEqual(["[10,25]", "[25,40.01]"]);
      expect(results.map((r) => r.data)).toEqual(matrix);
      results = await run(ref, { ...D20, series: first(), trendsFilter: line, breakdownFilter: { breakdowns: [{ property: "prop", type: "event", histogram_bin_count: 2 }] } });
      expect(counts(results)).toEqual([2, 2]);
      expect(values(results)).toEqual([["[10,25]"], ["[25,40.01]"]]);
      expect(results.map((r) => r.data)).toEqual(matrix);
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_with_filters, test_trends_math_first_time_for_user_date_ranges
  it("with event and person filters", async () => {
    await withReference(standard(), async (ref) => {
      let results = await run(ref, { ...D20, series: first({ properties: [{ key: "$browser", operator: "exact", value: "Chrome", type: "event" }] }), trendsFilter: line });
      expect(results[0]).toMatchObject({ count: 1, data: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0] });
      expect(results[0].days).toHaveLength(12);
      expect([results[0].days[0], results[0].days[11]]).toEqual(["2020-01-09", "2020-01-20"]);
      results = await run(ref, { ...D20, series: first({ properties: [{ key: "name", operator: "exact", value: "p4", type: "person" }] }), trendsFilter: line });
      expect(results[0]).toMatchObject({ count: 1, data: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0] });
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_with_total_values
  it("as total values", async () => {
    await withReference(standard(), async (ref) => {
      for (const display of ["ActionsPie", "ActionsBarValue", "ActionsTable", "BoldNumber"]) {
        expect((await run(ref, { ...D20, series: first(), trendsFilter: { display } }))[0].aggregated_value).toBe(4);
        expect((await run(ref, { ...day("2020-01-14", "2020-01-20"), series: first(), trendsFilter: { display } }))[0].aggregated_value).toBe(1);
      }
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_handles_multiple_ids
  it("a person's distinct ids are one person", async () => {
    const data: RefData = {
      now: NOW,
      persons: [
        { distinct_ids: ["anon1", "p1"], created_at: "2020-01-11T12:00:00Z" },
        { distinct_ids: ["anon2", "p2"], created_at: "2020-01-11T12:00:00Z" },
        { distinct_ids: ["anon3"], created_at: "2020-01-11T12:00:00Z" },
      ],
      events: [
        { event: "$pageview", distinct_id: "anon1", timestamp: "2020-01-11T12:00:00Z" },
        { event: "$pageview", distinct_id: "p1", timestamp: "2020-01-12T12:00:00Z" },
        { event: "$pageview", distinct_id: "anon2", timestamp: "2020-01-12T12:00:00Z" },
        { event: "$pageview", distinct_id: "p2", timestamp: "2020-01-12T12:01:00Z" },
        { event: "$pageview", distinct_id: "anon3", timestamp: "2020-01-12T12:00:00Z" },
      ],
    };
    await withReference(data, async (ref) => {
      const [r] = await run(ref, { ...day("2020-01-09", "2020-01-12"), series: first(), trendsFilter: line });
      expect(r).toMatchObject({ count: 3, data: [0, 0, 1, 2] });
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_filters_first_events
  it("the first event must pass the filters, series or global", async () => {
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["anon1", "p1"], created_at: "2020-01-11T12:00:00Z" }],
      events: [
        { event: "$pageview", distinct_id: "anon1", timestamp: "2020-01-11T12:00:00Z", properties: { $browser: "Chrome" } },
        { event: "$pageview", distinct_id: "p1", timestamp: "2020-01-12T12:00:00Z", properties: { $browser: "Safari" } },
      ],
    };
    await withReference(data, async (ref) => {
      const filter = (value: string) => [{ key: "$browser", operator: "exact", value, type: "event" }];
      const range = day("2020-01-10", "2020-01-12");
      for (const [browser, count, series] of [["Chrome", 1, [0, 1, 0]], ["Safari", 0, [0, 0, 0]]] as const) {
        expect((await run(ref, { ...range, series: first({ properties: filter(browser) }), trendsFilter: line }))[0]).toMatchObject({ count, data: series });
        expect((await run(ref, { ...range, series: first(), trendsFilter: line, properties: filter(browser) }))[0]).toMatchObject({ count, data: series });
      }
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_prioritizes_first_event
  it("every event at the first instant is a first event", async () => {
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["p1"], created_at: "2020-01-11T12:00:00Z" }],
      events: [
        { event: "$pageview", distinct_id: "p1", timestamp: "2020-01-11T12:00:00Z", properties: { $browser: "Chrome" } },
        { event: "$pageview", distinct_id: "p1", timestamp: "2020-01-11T12:00:00Z", properties: { $browser: "Safari" } },
        { event: "$pageview", distinct_id: "p1", timestamp: "2020-01-11T12:00:01Z", properties: { $browser: "Firefox" } },
      ],
    };
    await withReference(data, async (ref) => {
      const filtered = (value: string) => ({ ...day("2020-01-10", "2020-01-12"), series: first({ properties: [{ key: "$browser", operator: "exact", value, type: "event" }] }), trendsFilter: line });
      expect((await run(ref, filtered("Chrome")))[0]).toMatchObject({ count: 1, data: [0, 1, 0] });
      expect((await run(ref, filtered("Safari")))[0]).toMatchObject({ count: 1, data: [0, 1, 0] });
      expect((await run(ref, filtered("Firefox")))[0].count).toBe(0);
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_interval_types
  it("month, week, hour and minute intervals", async () => {
    await withReference({ ...standard(), now: "2020-01-20" }, async (ref) => {
      let [r] = await run(ref, { dateFrom: "-180d", interval: "month", series: first(), trendsFilter: line });
      expect(r.count).toBe(4);
      expect(r.days).toHaveLength(7);
      [r] = await run(ref, { dateFrom: "-180d", interval: "week", series: first(), trendsFilter: line });
      expect(r.count).toBe(4);
      expect(r.days).toHaveLength(27);
      [r] = await run(ref, { dateFrom: "-30d", interval: "hour", series: first(), trendsFilter: line });
      expect(r.count).toBe(4);
      expect(r.days).toHaveLength(721);
    });
    await withReference({ ...standard(), now: "2020-01-11T12:30:00Z" }, async (ref) => {
      const [r] = await run(ref, { dateFrom: "-1h", interval: "minute", series: first(), trendsFilter: line });
      expect(r.count).toBe(1);
      expect(r.days).toHaveLength(61);
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_all_events
  it("all events", async () => {
    await withReference({ ...standard(), now: "2020-01-20" }, async (ref) => {
      const [r] = await run(ref, { dateFrom: "-180d", interval: "month", series: [{ kind: "EventsNode", event: null, math: "first_time_for_user" }], trendsFilter: line });
      expect(r.count).toBe(4);
    });
  });

  // test_trends_query_runner.py::test_trends_math_first_time_for_user_actions
  it("actions", async () => {
    const step = (event: string, value: string) => ({ event, properties: [{ key: "$browser", type: "event", value, operator: "icontains" }] });
    const actions = [
      { project_id: "1", id: 1, name: "viewed from chrome and left", steps: [step("$pageview", "Chrome"), step("$pageleave", "Chrome")] },
      { project_id: "1", id: 2, name: "viewed from chrome or firefox", steps: [step("$pageview", "Chrome"), step("$pageview", "Firefox")] },
    ];
    await withReference({ ...standard(), extra: { actions } as RefData["extra"] }, async (ref) => {
      let [r] = await run(ref, { ...D20, series: [{ kind: "ActionsNode", id: 1, math: "first_time_for_user" }], trendsFilter: line });
      expect(r).toMatchObject({ count: 1, data: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0] });
      [r] = await run(ref, { ...D20, series: [{ kind: "ActionsNode", id: 2, math: "first_time_for_user" }], trendsFilter: line });
      expect(r).toMatchObject({ count: 2, data: [1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0] });
    });
  });

  const matchingData = (extra: RefEvent[]): RefData => ({ now: NOW, persons: [{ distinct_ids: ["p1"] }, { distinct_ids: ["p2"] }, { distinct_ids: ["p3"] }], events: extra });
  const firefox = [{ key: "$browser", operator: "exact", value: "Firefox", type: "event" }];
  const matching = [{ ...pageview, math: "first_matching_event_for_user", properties: firefox }];
  const ev = (distinct_id: string, timestamp: string, properties: Record<string, unknown>): RefEvent => ({ event: "$pageview", distinct_id, timestamp, properties });

  // test_trends_query_runner.py::test_trends_aggregation_first_matching_event_for_user
  it("first matching event", async () => {
    const events = [ev("p1", "2020-01-06T12:00:00Z", { $browser: "Firefox" })];
    for (const p of ["p1", "p2"]) {
      events.push(ev(p, "2020-01-08T12:00:00Z", { $browser: "Chrome" }), ev(p, "2020-01-09T12:00:00Z", { $browser: "Chrome" }));
      events.push(ev(p, "2020-01-10T12:00:00Z", { $browser: "Firefox" }), ev(p, "2020-01-11T12:00:00Z", { $browser: "Firefox" }));
    }
    await withReference(matchingData(events), async (ref) => {
      const results = await run(ref, { ...day("2020-01-08", "2020-01-11"), series: matching, trendsFilter: line });
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ count: 1, data: [0, 0, 1, 0] });
    });
  });

  // test_trends_query_runner.py::test_trends_aggregation_first_matching_event_for_user_with_breakdown_and_filter_being_the_same
  it("first matching event broken down by the filtered property", async () => {
    const events = [
      ev("p1", "2020-01-06T12:00:00Z", { $browser: "Firefox" }),
      ev("p1", "2020-01-10T12:00:00Z", { $browser: "Firefox" }),
      ev("p2", "2020-01-10T12:00:00Z", { $browser: "Firefox" }),
      ev("p2", "2020-01-11T12:00:00Z", { $browser: "Firefox" }),
    ];
    for (const p of ["p1", "p2", "p3"]) events.push(ev(p, "2020-01-08T12:00:00Z", { $browser: "Chrome" }), ev(p, "2020-01-09T12:00:00Z", { $browser: "Chrome" }));
    await withReference(matchingData(events), async (ref) => {
      const results = await run(ref, { ...day("2020-01-08", "2020-01-11"), series: matching, trendsFilter: line, breakdownFilter: { breakdown_type: "event", breakdown: "$browser" } });
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ breakdown_value: "Firefox", count: 1, data: [0, 0, 1, 0] });
    });
  });

  // test_trends_query_runner.py::test_trends_aggregation_first_matching_event_for_user_with_breakdown_and_filter_being_different
  it("first matching event broken down by another property", async () => {
    const events: RefEvent[] = [];
    for (const [i, p] of ["p1", "p2"].entries()) {
      const n = i + 1;
      events.push(ev(p, "2020-01-08T12:00:00Z", { $browser: "Chrome", breakdown_prop: n }), ev(p, "2020-01-10T12:00:00Z", { $browser: "Firefox", breakdown_prop: n }));
      events.push(ev(p, "2020-01-11T12:00:00Z", { $browser: "Firefox", breakdown_prop: n }), ev(p, "2020-01-09T12:00:00Z", { $browser: "Chrome", breakdown_prop: n }));
    }
    await withReference(matchingData(events), async (ref) => {
      const results = [...(await run(ref, { ...day("2020-01-08", "2020-01-11"), series: matching, trendsFilter: line, breakdownFilter: { breakdown_type: "event", breakdown: "breakdown_prop" } }))].sort((a, b) =>
        String(a.breakdown_value).localeCompare(String(b.breakdown_value)),
      );
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ breakdown_value: "1", count: 1, data: [0, 0, 1, 0] });
      expect(results[1]).toMatchObject({ breakdown_value: "2", count: 1, data: [0, 0, 1, 0] });
    });
  });
});

describe("test_trends_query_runner.py: more", () => {
  // test_trends_query_runner.py::test_trends_breakdowns_session_duration_histogram
  // Events without a $session_id read a $session_duration of 0 (the sessions LEFT JOIN's default), so the 0 row shows.
  it("histogram breakdown under an average of $session_duration", async () => {
    await withReference(standard(), async (ref) => {
      const results = await run(ref, { ...D20, series: [{ ...pageview, math: "avg", math_property: "$session_duration" }], breakdownFilter: { breakdown_type: "event", breakdown: "prop", breakdown_histogram_bin_count: 4 } });
      expect(values(results)).toEqual(["[10,17.5]", "[17.5,25]", "[25,32.5]", "[32.5,40.01]"]);
      expect(results.map((r) => r.label)).toEqual(["[10,17.5]", "[17.5,25]", "[25,32.5]", "[32.5,40.01]"]);
    });
  });

  // test_trends_query_runner.py::test_breakdown_values_world_map_limit (the SQL limit is not ported)
  it("a world map shows every value", async () => {
    const events = Array.from({ length: 250 }, (_, value) => ({ event: "$pageview", distinct_id: `person_${value}`, timestamp: "2020-01-11T12:00:00Z", properties: { breakdown_value: `${value}` } }));
    await withReference({ now: NOW, events }, async (ref) => {
      expect(await run(ref, { ...D20, trendsFilter: { display: "WorldMap" }, breakdownFilter: { breakdown: "breakdown_value", breakdown_type: "event" } })).toHaveLength(250);
    });
  });

  // test_trends_query_runner.py::test_trends_multiple_breakdowns_have_max_limit
  it("at most three breakdowns", async () => {
    await withReference(standard(), async (ref) => {
      const res = await ref.queryResponse({
        kind: "TrendsQuery",
        dateRange: { date_from: "2020-01-09", date_to: "2020-01-20" },
        series: [pageview],
        breakdownFilter: { breakdowns: ["$browser", "prop", "bool_field", "bool_field"].map((property) => ({ type: "event", property })) },
      });
      expect(res.status).toBe(400);
    });
  });

  // test_trends_query_runner.py::test_trends_event_multiple_breakdowns_combined_types
  it("every pair of breakdown types answers rows", async () => {
    await withReference(groupData(), async (ref) => {
      const breakdowns = [
        { property: "prop", histogram_bin_count: 2, type: "event" },
        { property: "$browser", type: "event" },
        { property: "bool_field", type: "event" },
        { property: "properties.$browser", type: "hogql" },
        { property: "name", type: "person" },
        { property: "$session_duration", type: "session" },
        { type: "group", group_type_index: 1, property: "employee_count" },
        { type: "group", group_type_index: 0, property: "industry" },
      ];
      for (const a of breakdowns) {
        for (const b of breakdowns) {
          if (a === b) continue;
          const results = await run(ref, { ...D20, breakdownFilter: { breakdowns: [a, b] } });
          expect(results.length, JSON.stringify([a, b])).toBeGreaterThan(0);
        }
      }
    });
  });

  // test_trends_query_runner.py::test_trends_event_math_session_duration_with_breakdowns
  // Events without a $session_id read a $session_duration of 0 (the sessions LEFT JOIN's default), so the 0 row shows.
  it("median session duration broken down by session duration", async () => {
    await withReference(standard(), async (ref) => {
      const series = [{ ...pageview, math: "median", math_property: "$session_duration" }];
      const single = await run(ref, { ...D20, series, breakdownFilter: { breakdown: "$session_duration", breakdown_type: "session" } });
      const multiple = await run(ref, { ...D20, series, breakdownFilter: { breakdowns: [{ property: "$session_duration", type: "session" }] } });
      expect(values(single)).toEqual(["0"]);
      expect(multiple.map((r) => r.breakdown_value[0])).toEqual(["0"]);
      expect([single[0].label, multiple[0].label]).toEqual(["0", "0"]);
      expect([single[0].count, multiple[0].count]).toEqual([0, 0]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_math_session_duration_with_breakdowns_and_histogram_bins
  // Events without a $session_id read a $session_duration of 0 (the sessions LEFT JOIN's default), so the 0 row shows.
  it("median session duration broken down by session duration bins", async () => {
    await withReference(standard(), async (ref) => {
      const series = [{ ...pageview, math: "median", math_property: "$session_duration" }];
      const single = await run(ref, { ...D20, series, breakdownFilter: { breakdown: "$session_duration", breakdown_type: "session", breakdown_histogram_bin_count: 4 } });
      const multiple = await run(ref, { ...D20, series, breakdownFilter: { breakdowns: [{ property: "$session_duration", type: "session", histogram_bin_count: 4 }] } });
      expect(values(single)).toEqual(["[0,0.01]"]);
      expect(multiple.map((r) => r.breakdown_value[0])).toEqual(["[0,0.01]"]);
      expect([single[0].label, multiple[0].label]).toEqual(["[0,0.01]", "[0,0.01]"]);
      expect([single[0].count, multiple[0].count]).toEqual([0, 0]);
    });
  });

  // test_trends_query_runner.py::test_trends_event_math_wau_with_breakdowns
  // Events without a $session_id read a $session_duration of 0 (the sessions LEFT JOIN's default), so the 0 row shows.
  it("weekly active broken down by session duration bins", async () => {
    await withReference(standard(), async (ref) => {
      const series = [{ ...pageview, math: "weekly_active" }];
      const single = await run(ref, { ...D20, series, breakdownFilter: { breakdown: "$session_duration", breakdown_type: "session", breakdown_histogram_bin_count: 4 } });
      const multiple = await run(ref, { ...D20, series, breakdownFilter: { breakdowns: [{ property: "$session_duration", type: "session", histogram_bin_count: 4 }] } });
      expect(values(single)).toEqual(["[0,0.01]"]);
      expect(multiple.map((r) => r.breakdown_value[0])).toEqual(["[0,0.01]"]);
      expect([single[0].count, multiple[0].count]).toEqual([33, 33]);
    });
  });

  /** `_compare_trends_test`: US/Pacific, frozen at 22:00 there; an event at 21:00 and 23:00 each of the last 15 days, ten at the oldest 21:00 and the newest 23:00. */
  async function compareTrends(compareFilter: Record<string, unknown>, part: "line" | "number"): Promise<void> {
    const frozen = Date.parse("2024-06-15T22:00:00-07:00");
    const events: RefEvent[] = [];
    for (let daysAgo = 0; daysAgo < 15; daysAgo++) {
      const at = frozen - daysAgo * 86_400_000;
      for (let i = 0; i < (daysAgo === 14 ? 10 : 1); i++) events.push({ event: "$pageview", distinct_id: "test_user", timestamp: new Date(at - 3_600_000).toISOString(), properties: { key: "value" } });
      for (let i = 0; i < (daysAgo === 0 ? 10 : 1); i++) events.push({ event: "$pageview", distinct_id: "test_user", timestamp: new Date(at + 3_600_000).toISOString(), properties: { key: "value" } });
    }
    const data: RefData = { now: new Date(frozen).toISOString(), timezone: "US/Pacific", persons: [{ distinct_ids: ["test_user"] }], events };
    await withReference(data, async (ref) => {
      if (part === "line") {
        const results = await run(ref, { dateFrom: "-7d", dateTo: null, trendsFilter: { display: "ActionsLineGraph" }, compareFilter });
        expect(results.map((r) => r.compare_label)).toEqual(["current", "previous"]);
        expect(results[0].data).toEqual([2, 2, 2, 2, 2, 2, 2, 11]);
        expect(results[1].data).toHaveLength(8);
        expect(results[1].data[0]).toBe(11);
        expect(results[1].data.slice(1, -1)).toEqual([2, 2, 2, 2, 2, 2]);
      } else {
        const results = await run(ref, { dateFrom: "-7d", dateTo: null, trendsFilter: { display: "BoldNumber" }, compareFilter });
        expect(results.map((r) => r.aggregated_value)).toEqual([14, 14]);
      }
    });
  }

  // test_trends_query_runner.py::test_trends_daily_compare_to_previous_period (its line graph half)
  it("daily compare with the previous period in US/Pacific", () => compareTrends({ compare: true }, "line"));

  // test_trends_query_runner.py::test_trends_daily_compare_to_7_days_ago (its line graph half)
  it("daily compare to 7 days ago in US/Pacific", () => compareTrends({ compare: true, compare_to: "-7d" }, "line"));

  // test_trends_query_runner.py::test_trends_daily_compare_to_previous_period, test_trends_daily_compare_to_7_days_ago (their number half)
  it("a number over -7d with compare covers exactly a week", async () => {
    await compareTrends({ compare: true }, "number");
    await compareTrends({ compare: true, compare_to: "-7d" }, "number");
  });
});

const TRENDS_PY = "posthog/hogql_queries/insights/trends/test/test_trends.py";
void TRENDS_PY;

describe("test_trends.py", () => {
  const signUps = [{ id: "sign up" }, { id: "no events" }];

  // test_trends.py::test_trends_per_day
  it("per day over -7d", async () => {
    await withReference(legacyEvents("2020-01-04T13:00:01Z"), async (ref) => {
      for (const r of await both(ref, { date_from: "-7d", events: signUps })) {
        expect(r[0].label).toBe("sign up");
        expect([r[0].labels[4], r[0].data[4], r[0].labels[5], r[0].data[5]]).toEqual(["1-Jan-2020", 3, "2-Jan-2020", 1]);
      }
    });
  });

  // test_trends.py::test_trends_per_day_48hours
  it("per day over -48h", async () => {
    await withReference(legacyEvents("2020-01-03T13:00:01Z"), async (ref) => {
      for (const r of await both(ref, { date_from: "-48h", interval: "day", events: signUps })) {
        expect([r[0].data[1], r[0].labels[1]]).toEqual([1, "2-Jan-2020"]);
      }
    });
  });

  // test_trends.py::test_trends_per_day_cumulative
  it("cumulative per day", async () => {
    await withReference(legacyEvents("2020-01-04T13:00:01Z"), async (ref) => {
      for (const r of await both(ref, { date_from: "-7d", display: "ActionsLineGraphCumulative", events: [{ id: "sign up" }] })) {
        expect(r[0].label).toBe("sign up");
        expect([r[0].labels[4], r[0].data[4], r[0].labels[5], r[0].data[5]]).toEqual(["1-Jan-2020", 3, "2-Jan-2020", 4]);
      }
    });
  });

  // test_trends.py::test_trends_per_day_dau_cumulative
  it("cumulative daily actives", async () => {
    const data = legacyEvents("2020-01-04T13:00:01Z");
    data.persons!.push({ distinct_ids: ["new_user"], properties: { $some_prop: "some_val" } });
    data.events.push({ event: "sign up", distinct_id: "new_user", timestamp: "2020-01-03T13:00:01Z", properties: { $some_property: "value", $bool_prop: false } });
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { date_from: "-7d", display: "ActionsLineGraphCumulative", events: [{ id: "sign up", math: "dau" }] })) {
        expect(r[0].label).toBe("sign up");
        expect([r[0].labels[4], r[0].data[4], r[0].data[5], r[0].labels[6], r[0].data[6]]).toEqual(["1-Jan-2020", 1, 1, "3-Jan-2020", 2]);
      }
    });
  });

  // test_trends.py::test_trends_groups_per_day, test_trends_groups_per_day_cumulative
  it("unique groups per day, and cumulative", async () => {
    await withReference(countPerActorEvents("2020-01-06T13:00:01Z"), async (ref) => {
      const series = [{ id: "viewed video", math: "unique_group", math_group_type_index: 0 }];
      for (const r of await both(ref, { date_from: "-7d", display: "ActionsLineGraph", events: series })) {
        expect([r[0].label, r[0].labels.at(-1)]).toEqual(["viewed video", "6-Jan-2020"]);
        expect(r[0].data).toEqual([0, 0, 1, 0, 0, 1, 2, 0]);
      }
      for (const r of await both(ref, { date_from: "-7d", display: "ActionsLineGraphCumulative", events: series })) {
        expect(r[0].data).toEqual([0, 0, 1, 1, 1, 2, 2, 2]);
      }
    });
  });

  // test_trends.py::test_trends_breakdown_cumulative
  it("cumulative daily actives broken down", async () => {
    await withReference(legacyEvents("2020-01-04T13:00:01Z"), async (ref) => {
      for (const r of await both(ref, { date_from: "-7d", display: "ActionsLineGraphCumulative", events: [{ id: "sign up", math: "dau" }], breakdown: "$some_property" })) {
        expect(r.map((i) => i.label)).toEqual(["value", "other_value", NULL]);
        expect(r[0].labels[4]).toBe("1-Jan-2020");
        expect(r.map((i) => i.data)).toEqual([
          [0, 0, 0, 0, 1, 1, 1, 1],
          [0, 0, 0, 0, 0, 1, 1, 1],
          [0, 0, 0, 0, 1, 1, 1, 1],
        ]);
      }
    });
  });

  // test_trends.py::test_trends_breakdown_normalize_url
  it("breakdown_normalize_url", async () => {
    const events = ["http://hogflix/first", "http://hogflix/first/", "http://hogflix/second"].map((url) => ({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02", properties: { $current_url: url } }));
    await withReference({ now: "2020-01-04T13:00:01Z", events }, async (ref) => {
      for (const r of await both(ref, { date_from: "-7d", display: "ActionsLineGraphCumulative", events: [{ id: "sign up", math: "dau" }], breakdown: "$current_url", breakdown_normalize_url: true })) {
        expect(r.map((i) => i.label).sort()).toEqual(["http://hogflix/first", "http://hogflix/second"]);
        expect(r.map((i) => i.breakdown_value).sort()).toEqual(["http://hogflix/first", "http://hogflix/second"]);
      }
    });
  });

  // test_trends.py::test_trends_single_aggregate_dau
  it("a table of daily actives by week and by day", async () => {
    await withReference(legacyEvents("2020-01-04T13:00:01Z"), async (ref) => {
      for (const interval of ["week", "day"]) {
        for (const r of await both(ref, { display: "ActionsTable", interval, events: [{ id: "sign up", math: "dau" }] })) expect(r[0].aggregated_value).toBe(1);
      }
    });
  });

  const mathProps = (): RefData => ({
    now: "2020-01-04T13:00:01Z",
    persons: [{ distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } }],
    events: [
      ...[1, 1, 1, 2, 3].map((v) => ({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-01 00:06:34", properties: { $some_property: "value", $math_prop: v } })),
      ...[4, 4].map((v) => ({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02 00:06:34", properties: { $some_property: "value", $math_prop: v } })),
    ],
  });

  // test_trends.py::test_trends_single_aggregate_math
  it("a table of a median by week and by day", async () => {
    await withReference(mathProps(), async (ref) => {
      for (const interval of ["week", "day"]) {
        for (const r of await both(ref, { display: "ActionsTable", interval, events: [{ id: "sign up", math: "median", math_property: "$math_prop" }] })) expect(r[0].aggregated_value).toBe(2);
      }
    });
  });

  // test_trends.py::test_trends_breakdown_single_aggregate_math
  it("a table of a median broken down, with breakdown and breakdowns", async () => {
    await withReference(mathProps(), async (ref) => {
      for (const breakdown of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) {
        for (const interval of ["day", "week"]) {
          for (const r of await both(ref, { ...breakdown, display: "ActionsTable", interval, events: [{ id: "sign up", math: "median", math_property: "$math_prop" }] })) expect(r[0].aggregated_value).toBe(2);
        }
      }
    });
  });

  const sessions = (extra: (s: string[]) => RefEvent[] = () => []): RefData => {
    const s = ["s1", "s2", "s3", "s4"].map((n) => `0170ea2b-0000-7000-8000-00000000000${n.slice(1)}`);
    const ev = (event: string, distinct_id: string, session: string, timestamp: string, props: Record<string, unknown> = {}): RefEvent => ({ event, distinct_id, timestamp, properties: { $session_id: session, ...props } });
    return {
      now: "2020-01-04T13:00:01Z",
      persons: [
        { distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } },
        { distinct_ids: ["blabla2"], properties: { $some_prop: "some_val" } },
      ],
      events: [
        ev("sign up before", "blabla", s[0]!, "2020-01-01 00:06:30"),
        ev("sign up", "blabla", s[0]!, "2020-01-01 00:06:34"),
        ev("sign up later", "blabla", s[0]!, "2020-01-01 00:06:35"),
        ev("sign up", "blabla2", s[1]!, "2020-01-01 00:06:35"),
        ev("sign up", "blabla2", s[1]!, "2020-01-01 00:06:45"),
        ev("sign up", "blabla", s[2]!, "2020-01-01 00:06:45"),
        ev("sign up", "blabla", s[3]!, "2020-01-02 00:06:30"),
        ev("sign up", "blabla", s[3]!, "2020-01-02 00:06:45"),
        ...extra(s),
      ],
    };
  };

  // test_trends.py::test_trends_with_session_property_single_aggregate_math
  it("a table of the median session duration", async () => {
    await withReference(sessions(), async (ref) => {
      for (const interval of ["week", "day"]) {
        for (const r of await both(ref, { display: "ActionsTable", interval, events: [{ id: "sign up", math: "median", math_property: "$session_duration" }] })) expect(r[0].aggregated_value).toBe(7.5);
      }
    });
  });

  // test_trends.py::test_unique_session_with_session_breakdown
  it("unique sessions broken down by session duration bins", async () => {
    await withReference(sessions(), async (ref) => {
      const filter = {
        display: "ActionsLineGraph",
        interval: "day",
        events: [{ id: "sign up", math: "unique_session" }],
        breakdown: "$session_duration",
        breakdown_type: "session",
        insight: "TRENDS",
        breakdown_histogram_bin_count: 3,
        properties: [{ key: "$some_prop", value: "some_val", type: "person" }],
        date_from: "-3d",
      };
      for (const r of await both(ref, filter)) {
        expect(r.map((i) => [i.breakdown_value, i.count, i.data])).toEqual([
          ["[10,15.01]", 2, [1, 1, 0, 0]],
          ["[0,5]", 1, [1, 0, 0, 0]],
          ["[5,10]", 1, [1, 0, 0, 0]],
        ]);
      }
    });
  });

  const sessionBreakdown = (): RefData => {
    const [s1, s2, s3, s4] = ["1", "2", "3", "4"].map((n) => `0170ea2b-0000-7000-8000-00000000000${n}`);
    const ev = (event: string, distinct_id: string, session: string, timestamp: string, value?: string): RefEvent => ({
      event,
      distinct_id,
      timestamp,
      properties: { $session_id: session, ...(value === undefined ? {} : { $some_property: value }) },
    });
    return {
      now: "2020-01-04T13:00:33Z",
      persons: [
        { distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } },
        { distinct_ids: ["blabla2"], properties: { $some_prop: "another_val" } },
      ],
      events: [
        ev("sign up before", "blabla", s1!, "2020-01-01 00:06:30", "value1"),
        ev("sign up", "blabla", s1!, "2020-01-01 00:06:34", "value1"),
        ev("sign up later", "blabla", s1!, "2020-01-01 00:06:35", "value doesnt matter"),
        ev("sign up", "blabla2", s2!, "2020-01-01 00:06:35", "value2"),
        ev("sign up", "blabla2", s2!, "2020-01-01 00:06:45", "value1"),
        ev("sign up", "blabla", s3!, "2020-01-01 00:06:45"),
        ev("sign up", "blabla", s3!, "2020-01-01 00:06:46"),
        ev("sign up", "blabla", s4!, "2020-01-02 00:06:30", "value2"),
        ev("sign up", "blabla", s4!, "2020-01-02 00:06:35", "value2"),
        ev("sign up", "blabla", s4!, "2020-01-02 00:06:45", "value1"),
      ],
    };
  };
  const medianDuration = [{ id: "sign up", math: "median", math_property: "$session_duration" }];

  // test_trends.py::test_trends_breakdown_with_session_property_single_aggregate_math_and_breakdown
  it("a table of the median session duration broken down: each session once per value", async () => {
    await withReference(sessionBreakdown(), async (ref) => {
      for (const [breakdown, want] of [
        [{ breakdown: "$some_property" }, ["value2", "value1", NULL]],
        [{ breakdowns: [{ property: "$some_property" }] }, [["value2"], ["value1"], [NULL]]],
      ] as const) {
        for (const interval of ["week", "day"]) {
          for (const r of await both(ref, { ...breakdown, display: "ActionsTable", interval, events: medianDuration })) {
            expect(r.map((i) => i.breakdown_value)).toEqual(want);
            expect(r.map((i) => i.aggregated_value)).toEqual([12.5, 10, 1]);
          }
        }
      }
    });
  });

  // test_trends.py::test_trends_person_breakdown_with_session_property_single_aggregate_math_and_breakdown
  it("a table of the median session duration broken down by a person property", async () => {
    await withReference({ ...sessionBreakdown(), now: "2020-01-04T13:00:01Z" }, async (ref) => {
      for (const [breakdown, want] of [
        [{ breakdown: "$some_prop", breakdown_type: "person" }, ["another_val", "some_val"]],
        [{ breakdowns: [{ type: "person", property: "$some_prop" }] }, [["another_val"], ["some_val"]]],
      ] as const) {
        for (const r of await both(ref, { ...breakdown, display: "ActionsTable", interval: "week", events: medianDuration })) {
          expect(r.map((i) => i.breakdown_value).sort()).toEqual(want);
          expect(r.map((i) => i.aggregated_value).sort((a, b) => a - b)).toEqual([5, 10]);
        }
      }
    });
  });

  const browsers = (): RefData => ({
    now: "2020-01-04T13:00:01Z",
    persons: [{ distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } }],
    events: [
      ...[["Chrome", "1"], ["Chrome", "2"], ["Safari", "1"], ["Safari", "1"], ["Safari", "2"]].map(([$browser, $variant]) => ({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-01 00:06:34", properties: { $some_property: "value", $browser, $variant } })),
      ...[1, 2].map(() => ({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02 00:06:34", properties: { $some_property: "value", $browser: "Safari", $variant: "2" } })),
    ],
  });

  // test_trends.py::test_trends_breakdown_single_aggregate
  it("a table broken down by browser", async () => {
    await withReference(browsers(), async (ref) => {
      for (const r of await both(ref, { display: "ActionsTable", breakdown: "$browser", events: [{ id: "sign up" }] })) {
        expect(r.map((i) => [i.breakdown_value, i.aggregated_value])).toEqual([["Safari", 5], ["Chrome", 2]]);
      }
    });
  });

  // test_trends.py::test_trends_multiple_breakdowns_single_aggregate
  it("a table broken down by browser and variant", async () => {
    await withReference(browsers(), async (ref) => {
      for (const r of await both(ref, { display: "ActionsTable", breakdowns: [{ property: "$browser" }, { property: "$variant" }], events: [{ id: "sign up" }] })) {
        expect(r.map((i) => i.breakdown_value)).toEqual([["Safari", "2"], ["Safari", "1"], ["Chrome", "1"], ["Chrome", "2"]]);
        expect(r.map((i) => i.aggregated_value)).toEqual([3, 2, 1, 1]);
      }
    });
  });
});

describe("test_trends.py: date ranges and compare", () => {
  interface DatesCase {
    name: string;
    dates: string[];
    now: string;
    filter: Record<string, unknown>;
    want: { count: number; data: number[]; labels: string[]; days: string[] };
  }
  const days = (from: number, to: number, month: string, year = "2020") =>
    Array.from({ length: to - from + 1 }, (_, i) => `${year}-${month}-${String(from + i).padStart(2, "0")}`);
  const CASES: DatesCase[] = [
    {
      name: "test_week_interval",
      dates: ["2020-11-01", "2020-11-10", "2020-11-11", "2020-11-18"],
      now: "2020-12-01",
      filter: { interval: "week", date_from: "2020-10-29", date_to: "2020-11-24" },
      want: { count: 4, data: [0, 1, 2, 1, 0], labels: ["29–31 Oct", "1–7 Nov", "8–14 Nov", "15–21 Nov", "22–24 Nov"], days: ["2020-10-25", "2020-11-01", "2020-11-08", "2020-11-15", "2020-11-22"] },
    },
    {
      name: "test_month_interval",
      dates: ["2020-07-10", "2020-07-30", "2020-10-18"],
      now: "2020-12-01",
      filter: { interval: "month", date_from: "2020-6-01", date_to: "2020-11-24" },
      want: {
        count: 3,
        data: [0, 2, 0, 0, 1, 0],
        labels: ["Jun 2020", "Jul 2020", "Aug 2020", "Sep 2020", "Oct 2020", "Nov 2020"],
        days: ["2020-06-01", "2020-07-01", "2020-08-01", "2020-09-01", "2020-10-01", "2020-11-01"],
      },
    },
    {
      name: "test_interval_rounding",
      dates: ["2020-11-01", "2020-11-10", "2020-11-11", "2020-11-18"],
      now: "2020-12-01",
      filter: { interval: "week", date_from: "2020-11-04", date_to: "2020-11-24" },
      want: { count: 3, data: [0, 2, 1, 0], labels: ["4–7 Nov", "8–14 Nov", "15–21 Nov", "22–24 Nov"], days: ["2020-11-01", "2020-11-08", "2020-11-15", "2020-11-22"] },
    },
    {
      name: "test_interval_rounding_monthly",
      dates: ["2020-06-02", "2020-07-30"],
      now: "2020-12-01",
      filter: { interval: "month", date_from: "2020-6-7", date_to: "2020-7-30" },
      want: { count: 2, data: [1, 1], labels: ["Jun 2020", "Jul 2020"], days: ["2020-06-01", "2020-07-01"] },
    },
    {
      name: "test_today_timerange",
      dates: ["2020-11-01 10:20:00", "2020-11-01 10:22:00", "2020-11-01 10:25:00"],
      now: "2020-11-01 10:20:00",
      filter: { date_from: "dStart" },
      want: { count: 3, data: [3], labels: ["1-Nov-2020"], days: ["2020-11-01"] },
    },
    {
      name: "test_yesterday_timerange",
      dates: ["2020-11-01 05:20:00", "2020-11-01 10:22:00", "2020-11-01 10:25:00"],
      now: "2020-11-02 10:20:00",
      filter: { date_from: "-1d", date_to: "-1d" },
      want: { count: 3, data: [3], labels: ["1-Nov-2020"], days: ["2020-11-01"] },
    },
    {
      name: "test_last24hours_timerange",
      dates: ["2020-11-01 05:20:00", "2020-11-01 10:22:00", "2020-11-01 10:25:00", "2020-11-02 08:25:00"],
      now: "2020-11-02 10:20:00",
      filter: { date_from: "-24h" },
      want: { count: 3, data: [2, 1], labels: ["1-Nov-2020", "2-Nov-2020"], days: ["2020-11-01", "2020-11-02"] },
    },
    {
      name: "test_last48hours_timerange",
      dates: ["2020-11-01 05:20:00", "2020-11-01 10:22:00", "2020-11-01 10:25:00", "2020-11-02 08:25:00"],
      now: "2020-11-02 10:20:00",
      filter: { date_from: "-48h" },
      want: { count: 4, data: [0, 3, 1], labels: ["31-Oct-2020", "1-Nov-2020", "2-Nov-2020"], days: ["2020-10-31", "2020-11-01", "2020-11-02"] },
    },
    {
      name: "test_last7days_timerange",
      dates: ["2020-11-01 05:20:00", "2020-11-02 10:22:00", "2020-11-04 10:25:00", "2020-11-05 08:25:00"],
      now: "2020-11-07 10:20:00",
      filter: { date_from: "-7d" },
      want: {
        count: 4,
        data: [0, 1, 1, 0, 1, 1, 0, 0],
        labels: ["31-Oct-2020", "1-Nov-2020", "2-Nov-2020", "3-Nov-2020", "4-Nov-2020", "5-Nov-2020", "6-Nov-2020", "7-Nov-2020"],
        days: ["2020-10-31", ...days(1, 7, "11")],
      },
    },
    {
      name: "test_last14days_timerange",
      dates: ["2020-11-01 05:20:00", "2020-11-02 10:22:00", "2020-11-04 10:25:00", "2020-11-05 08:25:00", "2020-11-05 08:25:00", "2020-11-10 08:25:00"],
      now: "2020-11-14 10:20:00",
      filter: { date_from: "-14d" },
      want: {
        count: 6,
        data: [0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0],
        labels: ["31-Oct-2020", ...Array.from({ length: 14 }, (_, i) => `${i + 1}-Nov-2020`)],
        days: ["2020-10-31", ...days(1, 14, "11")],
      },
    },
    {
      name: "test_last30days_timerange",
      dates: ["2020-11-01 05:20:00", "2020-11-11 10:22:00", "2020-11-24 10:25:00", "2020-11-05 08:25:00", "2020-11-05 08:25:00", "2020-11-10 08:25:00"],
      now: "2020-11-30 10:20:00",
      filter: { date_from: "-30d", interval: "week" },
      want: {
        count: 6,
        data: [0, 3, 2, 0, 1, 0],
        labels: ["31-Oct-2020", "1–7 Nov", "8–14 Nov", "15–21 Nov", "22–28 Nov", "29–30 Nov"],
        days: ["2020-10-25", "2020-11-01", "2020-11-08", "2020-11-15", "2020-11-22", "2020-11-29"],
      },
    },
    {
      name: "test_last90days_timerange",
      dates: ["2020-09-01 05:20:00", "2020-10-05 05:20:00", "2020-10-20 05:20:00", "2020-11-01 05:20:00", "2020-11-11 10:22:00", "2020-11-24 10:25:00", "2020-11-05 08:25:00", "2020-11-05 08:25:00", "2020-11-10 08:25:00"],
      now: "2020-11-30 10:20:00",
      filter: { date_from: "-90d", interval: "month" },
      want: { count: 9, data: [1, 2, 6], labels: ["Sep 2020", "Oct 2020", "Nov 2020"], days: ["2020-09-01", "2020-10-01", "2020-11-01"] },
    },
    {
      name: "test_this_month_timerange",
      dates: ["2020-11-01 05:20:00", "2020-11-11 10:22:00", "2020-11-24 10:25:00", "2020-11-05 08:25:00", "2020-11-05 08:25:00", "2020-11-10 08:25:00"],
      now: "2020-11-30 10:20:00",
      filter: { date_from: "mStart", interval: "month" },
      want: { count: 6, data: [6], labels: ["Nov 2020"], days: ["2020-11-01"] },
    },
    {
      name: "test_previous_month_timerange",
      dates: ["2020-11-01 05:20:00", "2020-11-11 10:22:00", "2020-11-24 10:25:00", "2020-11-05 08:25:00", "2020-11-05 08:25:00", "2020-11-10 08:25:00"],
      now: "2020-12-30 10:20:00",
      filter: { date_from: "-1mStart", date_to: "-1mEnd", interval: "month" },
      want: { count: 6, data: [6], labels: ["Nov 2020"], days: ["2020-11-01"] },
    },
    {
      name: "test_year_to_date_timerange",
      dates: ["2020-01-01 05:20:00", "2020-01-11 10:22:00", "2020-02-24 10:25:00", "2020-02-05 08:25:00", "2020-03-05 08:25:00", "2020-05-10 08:25:00"],
      now: "2020-04-30 10:20:00",
      filter: { date_from: "yStart", interval: "month" },
      want: { count: 5, data: [2, 2, 1, 0], labels: ["Jan 2020", "Feb 2020", "Mar 2020", "Apr 2020"], days: ["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"] },
    },
    {
      name: "test_all_time_timerange",
      dates: ["2020-01-01 05:20:00", "2020-01-11 10:22:00", "2020-02-24 10:25:00", "2020-02-05 08:25:00", "2020-03-05 08:25:00"],
      now: "2020-04-30 10:20:00",
      filter: { date_from: "all", interval: "month" },
      want: { count: 5, data: [2, 2, 1, 0], labels: ["Jan 2020", "Feb 2020", "Mar 2020", "Apr 2020"], days: ["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01"] },
    },
    {
      name: "test_custom_range_timerange",
      dates: ["2020-01-05 05:20:00", "2020-01-05 10:22:00", "2020-01-04 10:25:00", "2020-01-11 08:25:00", "2020-01-09 08:25:00"],
      now: "2020-01-10",
      filter: { date_from: "2020-01-05" },
      want: { count: 3, data: [2, 0, 0, 0, 1, 0], labels: ["5-Jan-2020", "6-Jan-2020", "7-Jan-2020", "8-Jan-2020", "9-Jan-2020", "10-Jan-2020"], days: days(5, 10, "01") },
    },
  ];
  for (const c of CASES) {
    // test_trends.py::<name> (through _test_events_with_dates)
    it(`test_trends.py::${c.name}`, async () => {
      const data: RefData = {
        now: c.now,
        persons: [{ distinct_ids: ["person_1"], properties: { name: "John" } }],
        events: c.dates.map((timestamp) => ({ event: "event_name", distinct_id: "person_1", timestamp, properties: { $browser: "Safari" } })),
      };
      await withReference(data, async (ref) => {
        for (const r of await both(ref, { ...c.filter, events: [{ id: "event_name" }] })) {
          expect({ count: r[0].count, data: r[0].data, labels: r[0].labels, days: r[0].days }).toEqual(c.want);
        }
      });
    });
  }

  // test_trends.py::test_trends_compare_day_interval_relative_range
  it("compare over -7d by day", async () => {
    await withReference(legacyEvents("2020-01-04T13:00:01Z"), async (ref) => {
      for (const r of await both(ref, { compare: true, date_from: "-7d", events: [{ id: "sign up" }] })) {
        expect(r[0].label).toBe("sign up");
        expect([r[0].labels[4], r[0].data[4], r[0].labels[5], r[0].data[5]]).toEqual(["1-Jan-2020", 3, "2-Jan-2020", 1]);
        expect(r[0].days).toEqual([...days(28, 31, "12", "2019"), ...days(1, 4, "01")]);
        expect(r[1].days).toEqual(days(21, 28, "12", "2019"));
        expect([r[1].label, r[1].labels[3], r[1].data[3], r[1].labels[4], r[1].data[4]]).toEqual(["sign up", "24-Dec-2019", 1, "25-Dec-2019", 0]);
      }
      for (const r of await both(ref, { compare: false, events: [{ id: "sign up" }] })) {
        expect([r[0].label, r[0].labels[4], r[0].data[4], r[0].labels[5], r[0].data[5]]).toEqual(["sign up", "1-Jan-2020", 3, "2-Jan-2020", 1]);
      }
    });
  });

  /** `_create_events(use_time=True)`. */
  const timedEvents = (now: string): RefData => {
    const data = legacyEvents(now);
    const at: Record<string, string> = { "2019-12-24": "2019-12-24 03:45:34", "2020-01-01": "2020-01-01 00:06:34", "2020-01-02": "2020-01-02 16:34:34" };
    return { ...data, events: data.events.map((e) => ({ ...e, timestamp: at[e.timestamp]! })) };
  };

  // test_trends.py::test_trends_compare_day_interval_fixed_range_single
  it("compare a fixed single day", async () => {
    await withReference(timedEvents("2020-01-02T20:17:00Z"), async (ref) => {
      for (const r of await both(ref, { compare: true, date_from: "2020-01-02", interval: "day", events: [{ id: "sign up" }] })) {
        expect([r[0].days, r[0].data, r[1].days, r[1].data]).toEqual([["2020-01-02"], [1], ["2020-01-01"], [3]]);
      }
    });
  });

  // test_trends.py::test_trends_compare_hour_interval_relative_range
  it("compare today by hour", async () => {
    await withReference(timedEvents("2020-01-02T20:17:00Z"), async (ref) => {
      const hours = (d: string) => Array.from({ length: 21 }, (_, h) => `${d} ${String(h).padStart(2, "0")}:00:00`);
      for (const r of await both(ref, { compare: true, date_from: "dStart", interval: "hour", events: [{ id: "sign up" }] })) {
        expect(r[0].days).toEqual(hours("2020-01-02"));
        expect(r[0].data).toEqual(Array.from({ length: 21 }, (_, h) => (h === 16 ? 1 : 0)));
        expect(r[1].days).toEqual(hours("2020-01-01"));
        expect(r[1].data).toEqual(Array.from({ length: 21 }, (_, h) => (h === 0 ? 3 : 0)));
      }
    });
  });

  // test_trends.py::test_trends_any_event_total_count
  it("all events and one event", async () => {
    await withReference(legacyEvents("2020-01-04T13:00:01Z"), async (ref) => {
      for (const r of await both(ref, { display: "ActionsLineGraph", interval: "day", events: [{ id: null, math: "total" }] })) expect(r[0].count).toBe(5);
      for (const r of await both(ref, { display: "ActionsLineGraph", interval: "day", events: [{ id: "sign up", math: "total" }] })) expect(r[0].count).toBe(4);
    });
  });

  // test_trends.py::test_trends_breakdown_with_math_func
  it("p90 broken down keeps the value with the large number", async () => {
    const persons: RefPerson[] = [];
    const events: RefEvent[] = [];
    for (let i = 0; i < 20; i++) {
      persons.push({ distinct_ids: [`person${i}`] });
      for (let k = 0; k < 2; k++) events.push({ event: "sign up", distinct_id: `person${i}`, timestamp: "2020-01-01 00:06:34", properties: { $some_property: `value_${i}`, $math_prop: 1 } });
    }
    persons.push({ distinct_ids: ["person21"] });
    events.push({ event: "sign up", distinct_id: "person21", timestamp: "2020-01-01 00:06:34", properties: { $some_property: "value_21", $math_prop: 25 } });
    await withReference({ now: "2020-01-04T13:00:01Z", persons, events }, async (ref) => {
      const series = [{ id: "sign up", math: "p90", math_property: "$math_prop" }];
      for (const r of await both(ref, { display: "ActionsTable", interval: "day", breakdown: "$some_property", events: series })) expect(r.map((i) => i.breakdown_value)).toContain("value_21");
      for (const r of await both(ref, { display: "ActionsTable", interval: "day", breakdowns: [{ property: "$some_property" }], events: series })) expect(r.map((i) => i.breakdown_value)).toContainEqual(["value_21"]);
    });
  });
});

describe("test_trends.py: filters, maths, sessions and breakdowns", () => {
  // test_trends.py::test_property_filtering
  it("a property filter", async () => {
    await withReference(legacyEvents("2020-01-04"), async (ref) => {
      for (const r of await both(ref, { properties: [{ key: "$some_property", value: "value" }], events: [{ id: "sign up" }] })) {
        expect([r[0].labels[4], r[0].data[4], r[0].labels[5], r[0].data[5]]).toEqual(["1-Jan-2020", 1, "2-Jan-2020", 0]);
      }
    });
  });

  // test_trends.py::test_trends_with_hogql_math
  it("HogQL math by week", async () => {
    const data: RefData = {
      now: "2020-01-04T12:01:01Z",
      persons: [{ distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val", number: 8 } }],
      events: [
        { event: "sign up", distinct_id: "blabla", timestamp: "2020-01-01 00:06:30", properties: { $session_id: "s1", x: 1 } },
        { event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02 00:06:45", properties: { $session_id: "s5", x: 5 } },
      ],
    };
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { interval: "week", events: [{ id: "sign up", math: "hogql", math_hogql: "avg(properties.x) + 1000" }] })) {
        expect([...r[0].labels].sort()).toEqual(["28-Dec-2019", "29-Dec-2019 – 4-Jan-2020"].sort());
        expect([...r[0].data].sort()).toEqual([0, 1003]);
      }
    });
  });

  const fiveSessions = (values?: (string | undefined)[]): RefData => {
    const spec: [string, string, string, string][] = [
      ["sign up before", "blabla", "s1", "2020-01-01 00:06:30"],
      ["sign up", "blabla", "s1", "2020-01-01 00:06:34"],
      ["sign up later", "blabla", "s1", "2020-01-01 00:06:35"],
      ["sign up", "blabla2", "s2", "2020-01-01 00:06:35"],
      ["sign up", "blabla2", "s2", "2020-01-01 00:06:45"],
      ["sign up", "blabla", "s3", "2020-01-01 00:06:45"],
      ["sign up", "blabla", "s4", "2020-01-02 00:06:30"],
      ["sign up", "blabla", "s4", "2020-01-02 00:06:45"],
      ["sign up", "blabla", "s5", "2020-01-02 00:06:40"],
      ["sign up", "blabla", "s5", "2020-01-02 00:06:45"],
    ];
    return {
      now: "2020-01-04T13:00:01Z",
      persons: [
        { distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } },
        { distinct_ids: ["blabla2"], properties: { $some_prop: "some_val" } },
      ],
      events: spec.map(([event, distinct_id, session, timestamp], i) => ({
        event,
        distinct_id,
        timestamp,
        properties: { $session_id: session, ...(values?.[i] !== undefined ? { $some_property: values[i] } : {}) },
      })),
    };
  };
  const medianDuration = [{ id: "sign up", math: "median", math_property: "$session_duration" }];
  const sortNum = (a: number[]) => [...a].sort((x, y) => x - y);

  // test_trends.py::test_trends_with_session_property_total_volume_math
  it("median session duration by week and by day", async () => {
    await withReference(fiveSessions(), async (ref) => {
      for (const r of await both(ref, { interval: "week", events: medianDuration })) {
        expect([...r[0].labels].sort()).toEqual(["28-Dec-2019", "29-Dec-2019 – 4-Jan-2020"].sort());
        expect(sortNum(r[0].data)).toEqual([0, 5]);
      }
      for (const r of await both(ref, { interval: "day", events: medianDuration })) expect(r[0].data).toEqual([0, 0, 0, 0, 5, 10, 0, 0]);
    });
  });

  // test_trends.py::test_trends_with_session_property_total_volume_math_with_breakdowns
  it("median session duration broken down, by week and by day", async () => {
    const values = ["value1", "value2", "value2", "value2", "value1", "value1", "value2", "value2", "value1", "value1"];
    await withReference(fiveSessions(values), async (ref) => {
      for (const [breakdown, want] of [
        [{ breakdown: "$some_property" }, ["value2", "value1"]],
        [{ breakdowns: [{ property: "$some_property" }] }, [["value2"], ["value1"]]],
      ] as const) {
        for (const r of await both(ref, { ...breakdown, interval: "week", events: medianDuration })) {
          expect(r.map((i) => i.breakdown_value)).toEqual(want);
          expect([sortNum(r[0].data), sortNum(r[1].data)]).toEqual([[0, 10], [0, 5]]);
        }
        for (const r of await both(ref, { ...breakdown, interval: "day", events: medianDuration })) {
          expect(r.map((i) => i.breakdown_value)).toEqual(want);
          expect([sortNum(r[0].data), sortNum(r[1].data)]).toEqual([sortNum([0, 0, 0, 0, 7.5, 15, 0, 0]), sortNum([0, 0, 0, 0, 5, 5, 0, 0])]);
        }
      }
    });
  });

  // test_trends.py::test_trends_with_session_property_total_volume_math_with_sessions_spanning_multiple_intervals
  it("a session spanning days counts in each day it has the event", async () => {
    const data: RefData = {
      now: "2020-01-06T13:00:01Z",
      persons: [
        { distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } },
        { distinct_ids: ["blabla2"], properties: { $some_prop: "some_val" } },
      ],
      events: [
        { event: "sign up", distinct_id: "blabla", timestamp: "2020-01-01 00:06:30", properties: { $session_id: "s1" } },
        { event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02 00:06:34", properties: { $session_id: "s1" } },
        { event: "sign up", distinct_id: "blabla", timestamp: "2020-01-03 00:06:30", properties: { $session_id: "s1" } },
        { event: "sign up", distinct_id: "blabla2", timestamp: "2020-01-01 00:06:35", properties: { $session_id: "s2" } },
        { event: "sign up", distinct_id: "blabla2", timestamp: "2020-01-05 00:06:35", properties: { $session_id: "s2" } },
      ],
    };
    const DAY_S = 24 * 60 * 60;
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { interval: "day", events: medianDuration })) {
        expect(r[0].labels).toEqual(["30-Dec-2019", "31-Dec-2019", "1-Jan-2020", "2-Jan-2020", "3-Jan-2020", "4-Jan-2020", "5-Jan-2020", "6-Jan-2020"]);
        expect(r[0].data).toEqual([0, 0, 3 * DAY_S, 2 * DAY_S, 2 * DAY_S, 0, 4 * DAY_S, 0]);
      }
    });
  });

  // test_trends.py::test_filter_events_by_cohort, test_filter_events_by_precalculated_cohort
  it("a cohort filter", async () => {
    const data: RefData = {
      now: "2020-01-02T12:00:00Z",
      persons: [
        { distinct_ids: ["person_1"], properties: { name: "John" } },
        { distinct_ids: ["person_2"], properties: { name: "Jane" } },
      ],
      events: [
        { event: "event_name", distinct_id: "person_1", timestamp: "2020-01-02T12:00:00Z", properties: { $browser: "Safari" } },
        { event: "event_name", distinct_id: "person_2", timestamp: "2020-01-02T12:00:00Z", properties: { $browser: "Chrome" } },
        { event: "event_name", distinct_id: "person_2", timestamp: "2020-01-02T12:00:00Z", properties: { $browser: "Safari" } },
      ],
      extra: { cohorts: [cohort(1, "cohort1", [2])] } as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { properties: [{ key: "id", value: 1, type: "cohort" }], events: [{ id: "event_name" }] })) {
        expect([r[0].count, r[0].data.at(-1)]).toEqual([2, 2]);
      }
    });
  });

  // test_trends.py::test_interval_filtering_hour, test_interval_filtering_week, test_interval_filtering_month, test_interval_filtering_today_hourly
  it("hour, week, month and today-by-hour intervals", async () => {
    const data = legacyEvents("2020-01-02");
    const at: Record<string, string> = { "2019-12-24": "2019-12-24 03:45:34", "2020-01-01": "2020-01-01 00:06:34", "2020-01-02": "2020-01-02 16:34:34" };
    data.events = data.events.map((e) => ({ ...e, timestamp: at[e.timestamp]! }));
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { date_from: "2019-12-24", interval: "hour", events: [{ id: "sign up" }] })) {
        expect([r[0].labels[3], r[0].data[3], r[0].data[192]]).toEqual(["24-Dec 03:00", 1, 3]);
      }
      for (const r of await both(ref, { date_from: "2019-11-24", interval: "week", events: [{ id: "sign up" }] })) {
        expect(r[0].labels.slice(0, 5)).toEqual(["24–30 Nov", "1–7 Dec", "8–14 Dec", "15–21 Dec", "22–28 Dec"]);
        expect(r[0].data.slice(0, 5)).toEqual([0, 0, 0, 0, 1]);
      }
      for (const r of await both(ref, { date_from: "2019-9-24", interval: "month", events: [{ id: "sign up" }] })) {
        expect([r[0].labels[0], r[0].data[0], r[0].labels[3], r[0].data[3], r[0].labels[4], r[0].data[4]]).toEqual(["Sep 2019", 0, "Dec 2019", 1, "Jan 2020", 4]);
      }
    });
    data.now = "2020-01-02T23:31:00Z";
    data.events.push({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02 23:30" });
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { date_from: "dStart", interval: "hour", events: [{ id: "sign up" }] })) expect([r[0].labels[23], r[0].data[23]]).toEqual(["2-Jan 23:00", 1]);
    });
  });

  // test_trends.py::test_interval_filtering_breakdown
  it("hour, week, month and today-by-hour intervals broken down by a cohort", async () => {
    const data = legacyEvents("2020-01-02");
    const at: Record<string, string> = { "2019-12-24": "2019-12-24 03:45:34", "2020-01-01": "2020-01-01 00:06:34", "2020-01-02": "2020-01-02 16:34:34" };
    data.events = data.events.map((e) => ({ ...e, timestamp: at[e.timestamp]! }));
    data.extra = { ...data.extra, cohorts: [cohort(1, "cohort1", [1])] } as RefData["extra"];
    const bd = { breakdown: JSON.stringify([1]), breakdown_type: "cohort" };
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { ...bd, date_from: "2019-12-24", interval: "hour", events: [{ id: "sign up" }] })) expect([r[0].labels[3], r[0].data[3], r[0].data[192]]).toEqual(["24-Dec 03:00", 1, 3]);
      for (const r of await both(ref, { ...bd, date_from: "2019-11-24", interval: "week", events: [{ id: "sign up" }] })) {
        expect(r[0].labels.slice(0, 5)).toEqual(["24–30 Nov", "1–7 Dec", "8–14 Dec", "15–21 Dec", "22–28 Dec"]);
        expect(r[0].data.slice(0, 5)).toEqual([0, 0, 0, 0, 1]);
      }
      for (const r of await both(ref, { ...bd, date_from: "2019-9-24", interval: "month", events: [{ id: "sign up" }] })) expect([r[0].labels[3], r[0].data[3], r[0].labels[4], r[0].data[4]]).toEqual(["Dec 2019", 1, "Jan 2020", 4]);
    });
    data.now = "2020-01-02T23:31:00Z";
    data.events.push({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02 23:30" });
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { ...bd, date_from: "dStart", interval: "hour", events: [{ id: "sign up" }] })) expect([r[0].labels[23], r[0].data[23]]).toEqual(["2-Jan 23:00", 1]);
    });
  });

  // test_trends.py::test_breakdown_with_filter
  it("a breakdown under a filter on the same property", async () => {
    const data: RefData = {
      now: "2020-01-04T12:00:00Z",
      persons: [
        { distinct_ids: ["person1"], properties: { email: "test@posthog.com" } },
        { distinct_ids: ["person2"], properties: { email: "test@gmail.com" } },
      ],
      events: [
        { event: "sign up", distinct_id: "person1", timestamp: "2020-01-04T12:00:00Z", properties: { key: "val" } },
        { event: "sign up", distinct_id: "person2", timestamp: "2020-01-04T12:00:00Z", properties: { key: "oh" } },
      ],
    };
    await withReference(data, async (ref) => {
      const filter = { date_from: "-14d", breakdown: "key", events: [{ id: "sign up", name: "sign up", type: "events", order: 0 }], properties: [{ key: "key", value: "oh", operator: "not_icontains" }] };
      for (const r of await both(ref, filter)) expect(r.map((i) => i.breakdown_value)).toEqual(["val"]);
    });
  });

  const same = (a: any[], b: any[]) => expect(a.map((i) => [i.count, i.data, i.labels, i.days])).toEqual(b.map((i) => [i.count, i.data, i.labels, i.days]));

  // test_trends.py::test_action_filtering, test_dau_filtering
  it("an action equals its event, also for daily actives", async () => {
    const data = legacyEvents("2020-01-04");
    data.persons!.push({ distinct_ids: ["someone_else"] });
    data.events.push({ event: "sign up", distinct_id: "someone_else", timestamp: "2020-01-02" });
    await withReference(data, async (ref) => {
      const [byAction] = await both(ref, { actions: [{ id: 2 }] });
      const [byEvent] = await both(ref, { events: [{ id: "sign up" }] });
      expect(byAction).toHaveLength(1);
      same(byAction!, byEvent!);
      const [dauAction] = await both(ref, { actions: [{ id: 2, math: "dau" }] });
      const [dauEvent, dauQuery] = await both(ref, { events: [{ id: "sign up", math: "dau" }] });
      for (const r of [dauEvent!, dauQuery!]) expect([r[0].data[4], r[0].data[5]]).toEqual([1, 2]);
      same(dauAction!, dauEvent!);
    });
  });

  // test_trends.py::test_trends_for_non_existing_action
  it("a missing action gives no series; a missing event zeros", async () => {
    await withReference({ now: "2020-01-04", events: [] }, async (ref) => {
      const legacy = await ref.legacy("POST", "insights/trend", { actions: [{ id: 50000000 }] });
      expect(legacy.body.result).toHaveLength(0);
      for (const r of await both(ref, { events: [{ id: "DNE" }] })) expect(r[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    });
  });

  // test_trends.py::test_trends_regression_filtering_by_action_with_person_properties
  it("an action with a person condition, and a person filter", async () => {
    const data: RefData = {
      now: "2020-01-04T13:01:01Z",
      persons: [
        { distinct_ids: ["d1"], properties: { email: "foo@example.com", bar: "aa" } },
        { distinct_ids: ["d2"], properties: { email: "bar@example.com", bar: "bb" } },
        { distinct_ids: ["d3"], properties: { email: "efg@example.com", bar: "ab" } },
        { distinct_ids: ["d4"], properties: { bar: "aa" } },
      ],
      events: ["d1", "d2", "d3", "d4"].map((d) => ({ event: "$pageview", distinct_id: d, timestamp: "2020-01-02 16:34:34" })),
      extra: { actions: [{ project_id: "1", id: 1, name: "$pageview from non-internal", steps: [{ event: "$pageview", properties: [{ key: "bar", type: "person", value: "a", operator: "icontains" }] }] }] } as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { actions: [{ id: 1 }] })) expect(r.map((i) => i.count)).toEqual([3]);
      for (const r of await both(ref, { actions: [{ id: 1 }], properties: [{ key: "email", type: "person", value: "is_set", operator: "is_set" }] })) expect(r.map((i) => i.count)).toEqual([2]);
    });
  });

  /** `_create_maths_events`: test_trends.py's events, then someone_else's values now (and one null). */
  const mathsEvents = (values: unknown[]): RefData => {
    const data = legacyEvents("2020-01-04T12:00:00Z");
    data.persons!.push({ distinct_ids: ["someone_else"] });
    for (const value of [...values, null]) data.events.push({ event: "sign up", distinct_id: "someone_else", timestamp: "2020-01-04T12:00:00Z", properties: { some_number: value } });
    return data;
  };
  const hundred = Array.from({ length: 100 }, (_, i) => 101 + i);
  const MATH_CASES: [string, string, unknown[], number][] = [
    ["test_sum_filtering", "sum", [2, 3, 5.5, 7.5], 18],
    ["test_avg_filtering", "avg", [2, 3, 5.5, 7.5], 4.5],
    ["test_min_filtering", "min", [2, 3, 5.5, 7.5], 2],
    ["test_max_filtering", "max", [2, 3, 5.5, 7.5], 7.5],
    ["test_median_filtering", "median", hundred, 150],
    ["test_p75_filtering", "p75", hundred, 175],
    ["test_p90_filtering", "p90", hundred, 190],
    ["test_p95_filtering", "p95", hundred, 195],
    ["test_p99_filtering", "p99", hundred, 199],
    ["test_avg_filtering_non_number_resiliency", "avg", [2, "x", 8], 5],
  ];
  for (const [name, math, values, want] of MATH_CASES) {
    // test_trends.py::<name> (through _test_math_property_aggregation; the action and the event answer the same)
    it(`test_trends.py::${name}`, async () => {
      await withReference(mathsEvents(values), async (ref) => {
        const [byAction] = await both(ref, { actions: [{ id: 2, math, math_property: "some_number" }] });
        const [byEvent, byQuery] = await both(ref, { events: [{ id: "sign up", math, math_property: "some_number" }] });
        for (const r of [byAction!, byEvent!, byQuery!]) expect(Math.abs(r[0].data.at(-1) - want)).toBeLessThanOrEqual(name.includes("resiliency") ? 0 : 0.5);
        same(byAction!, byEvent!);
      });
    });
  }

  // test_trends.py::test_per_entity_filtering
  it("a filter per series", async () => {
    await withReference(legacyEvents("2020-01-04T13:00:01Z"), async (ref) => {
      const events = [
        { id: "sign up", properties: [{ key: "$some_property", value: "value" }] },
        { id: "sign up", properties: [{ key: "$some_property", value: "other_value" }] },
      ];
      for (const r of await both(ref, { date_from: "-7d", events })) {
        expect([r[0].labels[4], r[0].data[4], r[0].count, r[1].labels[5], r[1].data[5], r[1].count]).toEqual(["1-Jan-2020", 1, 1, "2-Jan-2020", 1, 1]);
      }
    });
  });

  // test_trends.py::test_person_property_filtering, test_person_property_filtering_clashing_with_event_property, test_entity_person_property_filtering
  it("person property filters, beside an event property of the same name", async () => {
    await withReference(multiplePeople("2020-01-04"), async (ref) => {
      const check = (r: any[]) => expect([r[0].labels[4], r[0].data[4], r[0].labels[5], r[0].data[5]]).toEqual(["1-Jan-2020", 1, "2-Jan-2020", 0]);
      for (const r of await both(ref, { properties: [{ key: "name", value: "person1", type: "person" }], events: [{ id: "watched movie" }] })) check(r);
      for (const r of await both(ref, { properties: [{ key: "name", value: "1", type: "event" }], events: [{ id: "watched movie" }] })) check(r);
      for (const r of await both(ref, { events: [{ id: "watched movie", properties: [{ key: "name", value: "person1", type: "person" }] }] })) check(r);
    });
  });

  // test_trends.py::test_breakdown_by_empty_cohort
  it("a breakdown by all users", async () => {
    const data: RefData = { now: "2020-01-04T13:01:01Z", persons: [{ distinct_ids: ["p1"], properties: { name: "p1" } }], events: [{ event: "$pageview", distinct_id: "p1", timestamp: "2020-01-04T12:00:00Z" }] };
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { date_from: "-14d", breakdown: JSON.stringify(["all"]), breakdown_type: "cohort", events: [{ id: "$pageview", type: "events", order: 0 }] })) {
        expect(r[0].label).toBe("all users");
        expect(r[0].data.reduce((a: number, b: number) => a + b, 0)).toBe(1);
      }
    });
  });

  // test_trends.py::test_breakdown_by_event_metadata
  it("a breakdown by the distinct id (event_metadata)", async () => {
    const events = ["p1", "p2", "p1"].map((d) => ({ event: "$pageview", distinct_id: d, timestamp: "2020-01-04T12:00:00Z" }));
    await withReference({ now: "2020-01-04T13:01:01Z", events }, async (ref) => {
      for (const r of await both(ref, { date_from: "-7d", interval: "hour", events: [{ id: "$pageview" }], breakdown: "distinct_id", breakdown_type: "event_metadata" })) {
        expect(r.map((i) => [i.label, i.count])).toEqual([["p1", 2], ["p2", 1]]);
      }
    });
  });

  // test_trends.py::test_breakdown_by_person_property, test_breakdown_by_person_property_for_person_on_events (single and breakdowns list; the action part too)
  it("a breakdown by a person property", async () => {
    const data = multiplePeople("2020-01-04T13:01:01Z");
    data.extra = { actions: [{ project_id: "1", id: 1, name: "watched movie", steps: [{ event: "watched movie" }] }] } as RefData["extra"];
    await withReference(data, async (ref) => {
      for (const [breakdown, want] of [
        [{ breakdown: "name", breakdown_type: "person" }, ["person1", "person2", "person3"]],
        [{ breakdowns: [{ type: "person", property: "name" }] }, [["person1"], ["person2"], ["person3"]]],
      ] as const) {
        const [byAction] = await both(ref, { ...breakdown, date_from: "-14d", actions: [{ id: 1, type: "actions", order: 0 }] });
        const results = await both(ref, { ...breakdown, date_from: "-14d", events: [{ id: "watched movie", name: "watched movie", type: "events", order: 0 }] });
        for (const r of results) {
          expect(r.map((i) => i.breakdown_value).sort()).toEqual(want);
          const count = (v: string) => r.find((i) => String(i.breakdown_value) === v)?.count;
          expect([count("person1"), count("person2"), count("person3")]).toEqual([1, 3, 3]);
        }
        same(results[0]!, byAction!);
      }
    });
  });
});

describe("test_trends.py: active users and breakdown filtering", () => {
  /** `_create_active_users_events`. */
  const activeUsers = (): RefData => {
    const ev = (d: string, timestamp: string, key: string): RefEvent => ({ event: "$pageview", distinct_id: d, timestamp, properties: { key } });
    return {
      now: "2020-01-20T12:00:00Z",
      persons: [
        { distinct_ids: ["p0"], properties: { name: "p1" } },
        { distinct_ids: ["p1"], properties: { name: "p1" } },
        { distinct_ids: ["p2"], properties: { name: "p2" } },
      ],
      events: [
        ev("p0", "2020-01-03T11:00:00Z", "val"),
        ev("p0", "2020-01-03T12:00:00Z", "val"),
        ev("p1", "2020-01-09T12:00:00Z", "bor"),
        ev("p2", "2020-01-09T12:00:00Z", "val"),
        ev("p1", "2020-01-10T12:00:00Z", "bor"),
        ev("p1", "2020-01-11T12:00:00Z", "val"),
        ev("p2", "2020-01-11T12:00:00Z", "bor"),
        ev("p0", "2020-01-12T12:00:00Z", "val"),
      ],
      extra: { actions: [{ project_id: "1", id: 1, name: "$pageview", steps: [{ event: "$pageview" }] }] } as RefData["extra"],
    };
  };
  const wau = [{ id: "$pageview", type: "events", order: 0, math: "weekly_active" }];

  // test_trends.py::test_weekly_active_users_aggregated_range_wider_than_week, ..._with_sampling, test_weekly_active_users_aggregated_range_narrower_than_week
  it("weekly active as a table", async () => {
    await withReference(activeUsers(), async (ref) => {
      for (const sampling of [{}, { sampling_factor: 1 }]) {
        for (const r of await both(ref, { ...sampling, date_from: "2020-01-01", date_to: "2020-01-18", display: "ActionsTable", events: wau })) expect(r[0].aggregated_value).toBe(1);
      }
      for (const r of await both(ref, { date_from: "2020-01-11", date_to: "2020-01-12", display: "ActionsTable", events: wau })) expect(r[0].aggregated_value).toBe(3);
    });
  });

  // test_trends.py::test_weekly_active_users_daily, test_weekly_active_users_daily_based_on_action (UTC only)
  it("weekly active by day, of an event and of an action", async () => {
    await withReference(activeUsers(), async (ref) => {
      const want = [1, 3, 2, 2, 3, 3, 3, 3, 3, 3, 1, 0];
      for (const r of await both(ref, { date_from: "2020-01-08", date_to: "2020-01-19", events: wau })) {
        expect(r[0].days).toEqual(Array.from({ length: 12 }, (_, i) => `2020-01-${String(8 + i).padStart(2, "0")}`));
        expect(r[0].data).toEqual(want);
      }
      for (const r of await both(ref, { date_from: "2020-01-08", date_to: "2020-01-19", actions: [{ id: 1, type: "actions", order: 0, math: "weekly_active" }] })) expect(r[0].data).toEqual(want);
    });
  });

  // test_trends.py::test_weekly_active_users_weekly
  it("weekly active by week", async () => {
    await withReference(activeUsers(), async (ref) => {
      for (const r of await both(ref, { date_from: "2019-12-29", date_to: "2020-01-18", interval: "week", events: wau })) {
        expect([r[0].days, r[0].data]).toEqual([["2019-12-29", "2020-01-05", "2020-01-12"], [1, 2, 1]]);
      }
    });
  });

  // test_trends.py::test_weekly_active_users_hourly
  it("weekly active by hour", async () => {
    await withReference(activeUsers(), async (ref) => {
      for (const r of await both(ref, { date_from: "2020-01-09T06:00:00Z", date_to: "2020-01-09T17:00:00Z", interval: "hour", events: wau })) {
        expect(r[0].days).toEqual(Array.from({ length: 12 }, (_, i) => `2020-01-09 ${String(6 + i).padStart(2, "0")}:00:00`));
        expect(r[0].data).toEqual([1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3]);
      }
    });
  });

  // test_trends.py::test_weekly_active_users_hourly_full_week
  it("weekly active by hour over more than a week", async () => {
    const data: RefData = {
      now: "2020-01-20T12:00:00Z",
      persons: ["p0", "p1", "p2"].map((d) => ({ distinct_ids: [d] })),
      events: [
        { event: "$pageview", distinct_id: "p0", timestamp: "2020-01-03T10:59:59Z", properties: { key: "val" } },
        { event: "$pageview", distinct_id: "p1", timestamp: "2020-01-03T11:00:00Z", properties: { key: "val" } },
        { event: "$pageview", distinct_id: "p2", timestamp: "2020-01-03T11:00:01Z", properties: { key: "val" } },
      ],
    };
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { date_from: "2020-01-03T00:00:00Z", date_to: "2020-01-11T17:00:00Z", interval: "hour", events: wau })) {
        expect(r[0].data.reduce((a: number, b: number) => a + b, 0)).toBe(24 * 7 * 3);
        expect([r[0].days[10], r[0].data[10], r[0].days[11]]).toEqual(["2020-01-03 10:00:00", 1, "2020-01-03 11:00:00"]);
        expect(r[0].data.slice(11, 178).every((x: number) => x === 3)).toBe(true);
        expect([r[0].data[178], r[0].days[178]]).toEqual([2, "2020-01-10 10:00:00"]);
      }
    });
  });

  // test_trends.py::test_weekly_active_groups_daily (UTC only)
  it("weekly active groups by day", async () => {
    const data = countPerActorEvents("2020-01-20T12:00:00Z");
    data.events.push({ event: "viewed video", distinct_id: "blabla", timestamp: "2020-01-19", properties: { $group_0: "bouba" } });
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { date_from: "2020-01-08", date_to: "2020-01-19", events: [{ id: "viewed video", type: "events", order: 0, math: "weekly_active", math_group_type_index: 0 }] })) {
        expect(r[0].data).toEqual([2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 1]);
      }
    });
  });

  const twoPeopleKeyVal = (third: boolean): RefData => {
    const ev = (d: string, day: number): RefEvent => ({ event: "$pageview", distinct_id: d, timestamp: `2020-01-${String(day).padStart(2, "0")}T12:00:00Z`, properties: { key: "val" } });
    return {
      now: "2020-01-20T12:00:00Z",
      persons: [{ distinct_ids: ["p1"], properties: { name: "p1" } }, { distinct_ids: ["p2"], properties: { name: "p2" } }, ...(third ? [{ distinct_ids: ["p3"], properties: { name: "p3" } }] : [])],
      events: [ev("p1", 9), ev("p1", 10), ev("p1", 11), ev("p2", 9), ev("p2", 11), ...(third ? [ev("p3", 9), ev("p3", 11)] : [])],
    };
  };

  // test_trends.py::test_breakdown_weekly_active_users_daily
  it("weekly active by day broken down", async () => {
    await withReference(twoPeopleKeyVal(false), async (ref) => {
      for (const r of await both(ref, { date_from: "2020-01-01T00:00:00Z", date_to: "2020-01-12T00:00:00Z", breakdown: "key", events: wau })) {
        expect(r[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2]);
      }
    });
  });

  // test_trends.py::test_weekly_active_users_filtering
  it("weekly active by day under a person filter", async () => {
    const data: RefData = {
      now: "2020-01-20T12:00:00Z",
      persons: [1, 2, 3].map((n) => ({ distinct_ids: [`p${n}`], properties: { name: `person-${n}` } })),
      events: [9, 10, 11].map((day, i) => ({ event: "$pageview", distinct_id: `p${i + 1}`, timestamp: `2020-01-${String(day).padStart(2, "0")}T12:00:00Z` })),
    };
    await withReference(data, async (ref) => {
      const filter = { date_from: "2020-01-01T00:00:00Z", date_to: "2020-01-12T00:00:00Z", events: wau, properties: [{ key: "name", operator: "exact", value: ["person-1", "person-2"], type: "person" }] };
      for (const r of await both(ref, filter)) expect(r[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2]);
    });
  });

  // test_trends.py::test_bar_chart_by_value
  it("a bar chart by value", async () => {
    await withReference(legacyEvents("2020-01-04T13:00:01Z"), async (ref) => {
      for (const r of await both(ref, { date_from: "-7d", events: [{ id: "sign up" }, { id: "no events" }], display: "ActionsBarValue" })) expect(r.map((i) => i.aggregated_value)).toEqual([4, 1]);
    });
  });

  // test_trends.py::test_breakdown_filtering_limit
  it("25 values are all shown", async () => {
    const events = Array.from({ length: 25 }, (_, i) => ({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02", properties: { $some_property: i } }));
    await withReference({ now: "2020-01-04T13:01:01Z", events }, async (ref) => {
      for (const breakdown of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) {
        for (const r of await both(ref, { ...breakdown, date_from: "-14d", events: [{ id: "sign up", name: "sign up", type: "events", order: 0 }] })) expect(r).toHaveLength(25);
      }
    });
  });

  // test_trends.py::test_breakdown_filtering
  it("two series broken down", async () => {
    await withReference(legacyEvents("2020-01-04T13:01:01Z"), async (ref) => {
      for (const breakdown of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) {
        for (const r of await both(ref, { ...breakdown, date_from: "-14d", events: [{ id: "sign up", name: "sign up", type: "events", order: 0 }, { id: "no events" }] })) {
          expect(r.map((i) => i.label)).toEqual(["sign up - value", "sign up - other_value", `sign up - ${NULL}`, `no events - ${NULL}`]);
          expect(r.map((i) => i.data.reduce((a: number, b: number) => a + b, 0))).toEqual([2, 1, 2, 1]);
        }
      }
    });
  });

  // test_trends.py::test_multiple_breakdowns_label_formatting
  it("labels of two breakdowns, and the other item", async () => {
    const ev = (timestamp: string, $browser: string, $variant: string): RefEvent => ({ event: "sign up", distinct_id: "blabla", timestamp, properties: { $some_property: "value", $browser, $variant } });
    const data: RefData = {
      now: "2020-01-04T13:00:01Z",
      persons: [{ distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } }],
      events: [
        ev("2020-01-01 00:06:34", "Chrome", "1"),
        ev("2020-01-01 00:06:34", "Chrome", "2"),
        ev("2020-01-01 00:06:34", "Safari", "1"),
        ev("2020-01-01 00:06:34", "Safari", "1"),
        ev("2020-01-01 00:06:34", "Safari", "2"),
        ev("2020-01-01 00:06:34", "Safari", ""),
        ev("2020-01-02 00:06:34", "Safari", "2"),
        ev("2020-01-02 00:06:34", "Safari", "2"),
        ev("2020-01-02 00:06:34", "Chrome", ""),
      ],
    };
    await withReference(data, async (ref) => {
      const base = { date_from: "-14d", events: [{ id: "sign up", name: "sign up", type: "events", order: 0 }, { id: "no events" }], breakdowns: [{ property: "$browser" }, { property: "$variant" }] };
      for (const r of await both(ref, base)) {
        expect(r.map((i) => i.label)).toEqual([
          "sign up - Safari::2",
          "sign up - Safari::1",
          "sign up - Chrome::1",
          "sign up - Chrome::2",
          `sign up - Chrome::${NULL}`,
          `sign up - Safari::${NULL}`,
        ]);
      }
      for (const r of await both(ref, { ...base, breakdown_limit: 1 })) expect(r.map((i) => i.label)).toEqual(["sign up - Safari::2", `sign up - ${OTHER}::${OTHER}`]);
    });
  });

  // test_trends.py::test_breakdown_filtering_persons, test_breakdown_filtering_persons_with_action_props
  it("a breakdown by a person's email, of an event and of an action with a condition", async () => {
    const data: RefData = {
      now: "2020-01-04T12:00:00Z",
      persons: [
        { distinct_ids: ["person1"], properties: { email: "test@posthog.com" } },
        { distinct_ids: ["person2"], properties: { email: "test@gmail.com" } },
        { distinct_ids: ["person3"], properties: {} },
      ],
      events: ["person1", "person2", "person3"].map((d) => ({ event: "sign up", distinct_id: d, timestamp: "2020-01-04T12:00:00Z", properties: { key: "val" } })),
      extra: { actions: [{ project_id: "1", id: 1, name: "sign up", steps: [{ event: "sign up", properties: [{ key: "key", type: "event", value: ["val"], operator: "exact" }] }] }] } as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      for (const breakdown of [{ breakdown: "email", breakdown_type: "person" }, { breakdowns: [{ type: "person", property: "email" }] }]) {
        for (const series of [{ events: [{ id: "sign up", name: "sign up", type: "events", order: 0 }] }, { actions: [{ id: 1, type: "actions", order: 0 }] }]) {
          for (const r of await both(ref, { ...breakdown, ...series, date_from: "-14d" })) {
            expect(r.map((i) => [i.label, i.count])).toEqual([["test@gmail.com", 1], ["test@posthog.com", 1], [NULL, 1]]);
          }
        }
      }
    });
  });

  // test_trends.py::test_dau_with_breakdown_filtering
  it("daily actives broken down, of an event and of an action", async () => {
    const data = legacyEvents("2020-01-04T13:01:01Z");
    data.events.push({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02T13:01:01Z", properties: { $some_property: "other_value" } });
    await withReference(data, async (ref) => {
      for (const breakdown of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) {
        const [byAction] = await both(ref, { ...breakdown, actions: [{ id: 2, math: "dau" }] });
        const results = await both(ref, { ...breakdown, events: [{ id: "sign up", math: "dau" }] });
        for (const r of results) {
          expect(r.map((i) => i.label)).toEqual(["other_value", "value", NULL]);
          const sum = (i: any) => i.data.reduce((a: number, b: number) => a + b, 0);
          expect([sum(r[0]), r[0].data[5], sum(r[1]), r[1].data[4]]).toEqual([1, 1, 1, 1]);
        }
        expect(byAction!.map((i) => [i.count, i.data])).toEqual(results[0]!.map((i) => [i.count, i.data]));
      }
    });
  });

  // test_trends.py::test_mau_with_breakdown_filtering_and_prop_filter
  it("monthly actives broken down by a person property under a person filter", async () => {
    const data: RefData = {
      now: "2020-01-04T13:01:01Z",
      persons: [
        { distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val", filter_prop: "filter_val" } },
        { distinct_ids: ["blabla2"], properties: { $some_prop: "some_val3", filter_prop: "filter_val2" } },
        { distinct_ids: ["blabla3"], properties: { $some_prop: "some_val2", filter_prop: "filter_val" } },
      ],
      events: ["2020-01-02T13:01:01Z", "2020-01-03T13:01:01Z"].flatMap((timestamp) => ["blabla", "blabla2", "blabla3"].map((d) => ({ event: "sign up", distinct_id: d, timestamp }))),
    };
    await withReference(data, async (ref) => {
      for (const breakdown of [{ breakdown: "$some_prop", breakdown_type: "person" }, { breakdowns: [{ property: "$some_prop", type: "person" }] }]) {
        const filter = { ...breakdown, events: [{ id: "sign up", math: "monthly_active" }], properties: [{ key: "filter_prop", value: "filter_val", type: "person" }], display: "ActionsLineGraph" };
        for (const r of await both(ref, filter)) {
          expect(r.slice(0, 2).map((i) => i.label)).toEqual(["some_val", "some_val2"]);
          const sum = (i: any) => i.data.reduce((a: number, b: number) => a + b, 0);
          expect([sum(r[0]), r[0].data[5], sum(r[1]), r[1].data[5]]).toEqual([3, 1, 3, 1]);
        }
      }
    });
  });
});

describe("test_trends.py: more filters", () => {
  // test_trends.py::test_no_props_string, test_no_props_numeric, test_no_props_boolean (no data: only that it answers)
  it("a breakdown by a property no event has", async () => {
    await withReference({ now: "2020-01-04T13:01:01Z", events: [] }, async (ref) => {
      const events = [{ id: "sign up", name: "sign up", type: "events", order: 0 }, { id: "no events" }];
      for (const breakdown of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) await both(ref, { date_from: "-14d", ...breakdown, events });
    });
  });

  // test_trends.py::test_breakdown_with_person_property_filter
  it("a breakdown under a person filter, of an event and of an action", async () => {
    const data = multiplePeople("2020-01-04T13:01:01Z", true);
    await withReference(data, async (ref) => {
      for (const [breakdown, first, second] of [
        [{ breakdown: "order" }, "2", "1"],
        [{ breakdowns: [{ property: "order" }] }, ["2"], ["1"]],
      ] as const) {
        const [byAction] = await both(ref, { ...breakdown, date_from: "-14d", actions: [{ id: 1, type: "actions", order: 0 }], properties: [{ key: "name", value: "person2", type: "person" }] });
        const results = await both(ref, {
          ...breakdown,
          date_from: "-14d",
          events: [{ id: "watched movie", name: "watched movie", type: "events", order: 0, properties: [{ key: "name", value: "person2", type: "person" }] }],
        });
        for (const r of results) expect(r.slice(0, 2).map((i) => [i.count, i.breakdown_value])).toEqual([[2, first], [1, second]]);
        expect(byAction!.map((i) => [i.count, i.data])).toEqual(results[0]!.map((i) => [i.count, i.data]));
      }
    });
  });

  // test_trends.py::test_breakdown_filtering_with_properties, test_breakdown_filtering_with_properties_in_new_format
  it("a breakdown under series and global filters, flat and as AND/OR groups", async () => {
    const ev = (d: string, timestamp: string, url: string, $browser: string, $os: string): RefEvent => ({ event: "sign up", distinct_id: d, timestamp, properties: { $current_url: url, $browser, $os } });
    const flat: RefData = {
      now: "2020-01-05T13:01:01Z",
      events: [
        ev("blabla", "2020-01-03T13:01:01Z", "first url", "Firefox", "Mac"),
        ev("blabla", "2020-01-03T13:01:01Z", "first url", "Chrome", "Windows"),
        ev("blabla", "2020-01-04T13:01:01Z", "second url", "Firefox", "Mac"),
        ev("blabla", "2020-01-04T13:01:01Z", "second url", "Chrome", "Windows"),
      ],
    };
    const series = [{ id: "sign up", name: "sign up", type: "events", order: 0, properties: [{ key: "$os", value: "Mac" }] }];
    const breakdowns = [{ breakdown: "$current_url" }, { breakdowns: [{ property: "$current_url" }] }];
    await withReference(flat, async (ref) => {
      for (const breakdown of breakdowns) {
        for (const r of await both(ref, { ...breakdown, date_from: "-7d", events: series, properties: [{ key: "$browser", value: "Firefox" }] })) {
          const sorted = [...r].sort((a, b) => String(a.label).localeCompare(String(b.label)));
          expect(sorted.map((i) => [i.label, i.data.reduce((a: number, b: number) => a + b, 0), i.breakdown_value])).toEqual(
            "breakdown" in breakdown ? [["first url", 1, "first url"], ["second url", 1, "second url"]] : [["first url", 1, ["first url"]], ["second url", 1, ["second url"]]],
          );
        }
      }
    });
    const grouped: RefData = {
      now: "2020-01-05T13:01:01Z",
      events: [
        ev("blabla", "2020-01-03T13:01:01Z", "first url", "Firefox", "Windows"),
        ev("blabla", "2020-01-03T13:01:01Z", "first url", "Chrome", "Mac"),
        ev("blabla1", "2020-01-04T13:01:01Z", "second url", "Firefox", "Mac"),
        ev("blabla2", "2020-01-04T13:01:01Z", "second url", "Chrome", "Windows"),
      ],
    };
    await withReference(grouped, async (ref) => {
      for (const breakdown of breakdowns) {
        const or = { type: "OR", values: [{ key: "$browser", value: "Firefox" }, { key: "$os", value: "Windows" }] };
        for (const r of await both(ref, { ...breakdown, date_from: "-14d", events: series, properties: or })) {
          expect(r.map((i) => [i.label, i.data.reduce((a: number, b: number) => a + b, 0), i.breakdown_value])).toEqual([["second url", 1, "breakdown" in breakdown ? "second url" : ["second url"]]]);
        }
        for (const r of await both(ref, { ...breakdown, date_from: "-14d", events: series, properties: { ...or, type: "AND" } })) expect(r).toHaveLength(0);
      }
    });
  });

  // test_trends.py::test_dau_with_breakdown_filtering_with_prop_filter
  it("daily actives broken down under a filter", async () => {
    const data = legacyEvents("2020-01-04T13:01:01Z");
    data.events.push({ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02T13:01:01Z", properties: { $some_property: "other_value", $os: "Windows" } });
    await withReference(data, async (ref) => {
      for (const breakdown of [{ breakdown: "$some_property" }, { breakdowns: [{ property: "$some_property" }] }]) {
        const properties = [{ key: "$os", value: "Windows" }];
        const [byAction] = await both(ref, { ...breakdown, actions: [{ id: 2, math: "dau" }], properties });
        const results = await both(ref, { ...breakdown, events: [{ id: "sign up", math: "dau" }], properties });
        for (const r of results) expect([r[0].label, r[0].data.reduce((a: number, b: number) => a + b, 0), r[0].data[5]]).toEqual(["other_value", 1, 1]);
        expect(byAction!.map((i) => [i.count, i.data])).toEqual(results[0]!.map((i) => [i.count, i.data]));
      }
    });
  });

  // test_trends.py::test_against_clashing_entity_and_property_filter_naming
  it("a series filter and a global filter on the same key", async () => {
    const data: RefData = {
      now: "2020-01-04T13:01:01Z",
      persons: [{ distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } }],
      events: [{ event: "$pageview", distinct_id: "blabla", timestamp: "2020-01-03T12:00:00Z", properties: { $host: "app.example.com" } }],
    };
    await withReference(data, async (ref) => {
      for (const breakdown of [{ breakdown: "$some_prop", breakdown_type: "person" }, { breakdowns: [{ property: "$some_prop", type: "person" }] }]) {
        const filter = { ...breakdown, events: [{ id: "$pageview", properties: [{ key: "$host", operator: "icontains", value: ".com" }] }], properties: [{ key: "$host", value: ["app.example.com", "another.com"] }] };
        for (const r of await both(ref, filter)) expect(r[0].count).toBe(1);
      }
    });
  });

  // test_trends.py::test_action_with_prop
  it("an action's condition and a global filter on the same key both apply", async () => {
    const data: RefData = {
      now: "2020-01-04T13:01:01Z",
      persons: [{ distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } }],
      events: [{ event: "sign up", distinct_id: "blabla", timestamp: "2020-01-02T13:01:01Z", properties: { $current_url: "https://posthog.com/feedback/1234" } }],
      extra: {
        actions: [{ project_id: "1", id: 1, name: "sign up", steps: [{ event: "sign up", properties: [{ key: "$current_url", type: "event", value: ["https://posthog.com/feedback/1234"], operator: "exact" }] }] }],
      } as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      for (const r of await both(ref, { actions: [{ id: 1, math: "dau" }], properties: [{ key: "$current_url", value: "fake" }] })) expect(r[0].count).toBe(0);
    });
  });

  // test_trends.py::test_combine_all_cohort_and_icontains
  it("a cohort and all-users breakdown under a filter nothing passes", async () => {
    const data = legacyEvents("2020-01-04T13:01:01Z");
    data.extra = { ...data.extra, cohorts: [cohort(1, "a", [])] } as RefData["extra"];
    await withReference(data, async (ref) => {
      const filter = { actions: [{ id: 2, math: "dau" }], properties: [{ key: "$current_url", value: "ii", operator: "icontains" }], breakdown: [1, "all"], breakdown_type: "cohort" };
      for (const r of await both(ref, filter)) expect(r).toHaveLength(0);
    });
  });

  // test_trends.py::test_breakdown_user_props_with_filter (person1's distinct id moved to person3)
  it("a breakdown by a person property under person and event filters", async () => {
    const data: RefData = {
      now: "2020-01-04T12:00:00Z",
      persons: [
        { distinct_ids: ["person2"], properties: { email: "test@gmail.com" } },
        { distinct_ids: ["person3", "person1"], properties: { email: "test@gmail.com" } },
      ],
      events: ["person1", "person2"].map((d) => ({ event: "sign up", distinct_id: d, timestamp: "2020-01-04T12:00:00Z", properties: { key: "val" } })),
    };
    await withReference(data, async (ref) => {
      const filter = {
        date_from: "-14d",
        breakdown: "email",
        breakdown_type: "person",
        events: [{ id: "sign up", name: "sign up", type: "events", order: 0 }],
        properties: [{ key: "email", value: "@posthog.com", operator: "not_icontains", type: "person" }, { key: "key", value: "val" }],
      };
      for (const r of await both(ref, filter)) expect(r.map((i) => i.breakdown_value)).toEqual(["test@gmail.com"]);
    });
  });
});

describe("test_trends.py: pies and cohorts", () => {
  // test_trends.py::test_breakdown_by_person_property_pie
  it("a pie of daily actives broken down by a person property", async () => {
    await withReference(multiplePeople("2020-01-04T13:01:01Z", true), async (ref) => {
      for (const [breakdown, want] of [
        [{ breakdown: "name", breakdown_type: "person" }, ["person1", "person2", "person3"]],
        [{ breakdowns: [{ type: "person", property: "name" }] }, [["person1"], ["person2"], ["person3"]]],
      ] as const) {
        for (const r of await both(ref, { ...breakdown, date_from: "-14d", display: "ActionsPie", events: [{ id: "watched movie", name: "watched movie", type: "events", order: 0, math: "dau" }] })) {
          const sorted = [...r].sort((a, b) => String(a.breakdown_value).localeCompare(String(b.breakdown_value)));
          expect(sorted.map((i) => [i.breakdown_value, i.aggregated_value])).toEqual(want.map((v) => [v, 1]));
        }
      }
    });
  });

  // test_trends.py::test_breakdown_by_person_property_pie_with_event_dau_filter
  it("a pie of daily actives broken down by a person property, under a person condition", async () => {
    await withReference(multiplePeople("2020-01-04T13:01:01Z", true), async (ref) => {
      const series = [{ id: "watched movie", name: "watched movie", type: "events", order: 0, math: "dau", properties: [{ key: "name", operator: "not_icontains", value: "person3", type: "person" }] }];
      for (const [breakdown, want] of [
        [{ breakdown: "name", breakdown_type: "person" }, ["person1", "person2"]],
        [{ breakdowns: [{ type: "person", property: "name" }] }, [["person1"], ["person2"]]],
      ] as const) {
        for (const r of await both(ref, { ...breakdown, date_from: "-14d", display: "ActionsPie", events: series })) {
          const sorted = [...r].sort((a, b) => String(a.breakdown_value).localeCompare(String(b.breakdown_value)));
          expect(sorted.map((i) => [i.breakdown_value, i.aggregated_value])).toEqual(want.map((v) => [v, 1]));
        }
      }
    });
  });

  const johnJane = (): RefData => ({
    now: "2020-01-02T12:00:00Z",
    persons: [
      { distinct_ids: ["person_1"], properties: { name: "John" } },
      { distinct_ids: ["person_2"], properties: { name: "Jane" } },
    ],
    events: ["person_1", "person_2", "person_2"].map((d) => ({ event: "event_name", distinct_id: d, timestamp: "2020-01-02T12:00:00Z" })),
    extra: { cohorts: [cohort(1, "cohort1", [2])] } as RefData["extra"],
  });

  // test_trends.py::test_filter_by_precalculated_cohort
  it("a cohort filter (precalculated)", async () => {
    await withReference(johnJane(), async (ref) => {
      for (const r of await both(ref, { events: [{ id: "event_name" }], properties: [{ type: "cohort", key: "id", value: 1 }] })) expect([r[0].count, r[0].data.at(-1)]).toEqual([2, 2]);
    });
  });

  // test_trends.py::test_breakdown_filter_by_precalculated_cohort
  it("a person breakdown under a cohort filter", async () => {
    await withReference(johnJane(), async (ref) => {
      for (const [breakdown, want] of [
        [{ breakdown: "name", breakdown_type: "person" }, "Jane"],
        [{ breakdowns: [{ type: "person", property: "name" }] }, ["Jane"]],
      ] as const) {
        for (const r of await both(ref, { ...breakdown, events: [{ id: "event_name" }], properties: [{ type: "cohort", key: "id", value: 1 }] })) {
          expect([r[0].breakdown_value, r[0].count, r[0].data.at(-1)]).toEqual([want, 2, 2]);
        }
      }
    });
  });
});

/**
 * Ports of PostHog's trends formula tests (posthog/hogql_queries/insights/trends/test/test_formula.py, the stored
 * version with the HogQL alias tests): the test's data, its TrendsQuery sent to the query API, and the numbers it asserts.
 */
import { describe, expect, it } from "vitest";
import { withReference, type RefData, type RefEvent, type Reference } from "./support.ts";

const NULL = "$$_posthog_breakdown_null_$$";
/** `uuid7("2020-01-02T13:01:01Z", 1)`: one session holds every event of the test. */
const S1 = "016f6658-4ec8-7000-8000-000000000001";
const RUN_AT = "2020-01-04T13:01:01Z";
const COHORT_ID = 999932324;

const sessionEvent = (event: string, timestamp: string, properties: Record<string, unknown>): RefEvent => ({
  event,
  distinct_id: "blabla",
  timestamp,
  properties: { ...properties, $session_id: S1, $group_0: "org:5" },
});

/** `setUp`: one person with two distinct ids, one organization, and the session's events at their frozen times. */
function formulaData(now: string): RefData {
  return {
    now,
    persons: [{ distinct_ids: ["blabla", "anonymous_id"], properties: { $some_prop: "some_val" } }],
    events: [
      sessionEvent("session start", "2020-01-02T13:01:01Z", { xyz: 200, location: "Paris", $current_url: "http://example.org" }),
      sessionEvent("session start", "2020-01-02T13:01:01Z", { xyz: 300, location: "Paris" }),
      sessionEvent("session start", "2020-01-02T13:01:01Z", { xyz: 400, location: "London" }),
      sessionEvent("session start", "2020-01-03T13:01:01Z", { xyz: 400, location: "London" }),
      sessionEvent("session start", "2020-01-03T13:04:01Z", { xyz: 500, location: "London" }),
      sessionEvent("session end", "2020-01-03T13:04:01Z", { xyz: 500, location: "London" }),
      sessionEvent("session end", "2020-01-03T13:04:01Z", { xyz: 500, location: "Belo Horizonte" }),
      sessionEvent("session end", "2020-01-03T13:04:01Z", { xyz: 400, location: "" }),
    ],
    groupTypes: [{ group_type_index: 0, group_type: "organization" }],
    extra: {
      groups: [{ project_id: "1", group_type_index: 0, group_key: "org:5", properties: { industry: "finance" } }],
      cohorts: [
        {
          project_id: "1",
          id: COHORT_ID,
          name: "cohort1",
          filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "$some_prop", value: "some_val", type: "person" }] }] } },
        },
      ],
    } as RefData["extra"],
  };
}

const event = (name: string, more: Record<string, unknown> = {}) => ({ kind: "EventsNode", event: name, ...more });
const DEFAULT_SERIES = [event("session start", { math: "sum", math_property: "xyz" }), event("session start", { math: "avg", math_property: "xyz" })];

/** `_run`: the default query (A sum of xyz, B its average, formula A + B) with the test's fields over it. */
async function run(ref: Reference, extra: Record<string, unknown> = {}): Promise<any[]> {
  const body = await ref.query({ kind: "TrendsQuery", series: DEFAULT_SERIES, trendsFilter: { formula: "A + B" }, ...extra });
  return body.results;
}

const data = (results: any[]) => results.map((r) => r.data);
const zeros = (n: number) => Array.from({ length: n }, () => 0);
const WEEK_DAYS = ["2019-12-28", "2019-12-29", "2019-12-30", "2019-12-31", "2020-01-01", "2020-01-02", "2020-01-03", "2020-01-04"];
const WEEK_LABELS = ["28-Dec-2019", "29-Dec-2019", "30-Dec-2019", "31-Dec-2019", "1-Jan-2020", "2-Jan-2020", "3-Jan-2020", "4-Jan-2020"];

describe("test_formula.py: intervals", () => {
  // test_formula.py::test_hour_interval_hour_level_relative, test_hour_interval_day_level_relative, test_day_interval,
  // test_week_interval, test_month_interval (all run at 2020-01-03T13:05:01Z)
  it("-24h and -1d by hour, -3d by day, -2w by week, -2m by month", async () => {
    await withReference(formulaData("2020-01-03T13:05:01Z"), async (ref) => {
      const [hours24] = await run(ref, { dateRange: { date_from: "-24h" }, interval: "hour" });
      expect(hours24.data).toEqual([1200, ...zeros(23), 1350]);
      const [hoursDay] = await run(ref, { dateRange: { date_from: "-1d" }, interval: "hour" });
      expect(hoursDay.data).toEqual([...zeros(13), 1200, ...zeros(23), 1350]);
      expect((await run(ref, { dateRange: { date_from: "-3d" } }))[0].data).toEqual([0, 0, 1200, 1350]);
      expect((await run(ref, { dateRange: { date_from: "-2w" }, interval: "week" }))[0].data).toEqual([0, 0, 2160]);
      expect((await run(ref, { dateRange: { date_from: "-2m" }, interval: "month" }))[0].data).toEqual([0, 0, 2160]);
    });
  });
});

describe("test_formula.py: formulas", () => {
  // test_formula.py::test_formula
  it("arithmetic, and a division by zero is 0", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const formula = (f: string) => run(ref, { trendsFilter: { formula: f } });
      expect((await formula("A - B"))[0].data).toEqual([0, 0, 0, 0, 0, 600, 450, 0]);
      expect((await formula("A * B"))[0].data).toEqual([0, 0, 0, 0, 0, 270000, 405000, 0]);
      expect((await formula("A / B"))[0].data).toEqual([0, 0, 0, 0, 0, 3, 2, 0]);
      const [ratio] = await formula("(A/3600)/B");
      expect(ratio.data).toEqual([0, 0, 0, 0, 0, 1 / 1200, 1 / 1800, 0]);
      expect(ratio.count).toBe(1 / 720);
      const [byZero] = await formula("A/0");
      expect(byZero.data).toEqual(zeros(8));
      expect(byZero.count).toBe(0);
    });
  });

  // test_formula.py::test_formula_with_unique_sessions
  it("unique sessions over daily actives", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const [r] = await run(ref, { series: [event("session start", { math: "unique_session" }), event("session start", { math: "dau" })], trendsFilter: { formula: "A / B" } });
      expect(r.data).toEqual([0, 0, 0, 0, 0, 1, 1, 0]);
    });
  });

  // test_formula.py::test_regression_formula_with_unique_sessions_2x_and_duration_filter
  it("unique sessions with a session duration filter over unique sessions", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const longer = { key: "$session_duration", value: 12, operator: "gt", type: "session" };
      const [r] = await run(ref, {
        series: [event("session start", { math: "unique_session", properties: [longer] }), event("session start", { math: "unique_session" })],
        trendsFilter: { formula: "A / B" },
      });
      expect(r.data).toEqual([0, 0, 0, 0, 0, 1, 1, 0]);
    });
  });

  // test_formula.py::test_regression_formula_with_unique_sessions_2x_and_duration_filter_2x
  it("a formula of the second series only, each with its own session duration filter", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const [r] = await run(ref, {
        series: [
          event("$autocapture", { math: "unique_session", properties: [{ key: "$session_duration", type: "session", value: 30, operator: "lt" }] }),
          event("session start", { math: "unique_session", properties: [{ key: "$session_duration", type: "session", value: 500, operator: "gt" }] }),
        ],
        trendsFilter: { formula: "B" },
      });
      expect(r.data).toEqual([0, 0, 0, 0, 0, 1, 1, 0]);
    });
  });

  // test_formula.py::test_regression_formula_with_session_duration_aggregation
  it("average session duration over a count", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const [r] = await run(ref, {
        series: [event("session start", { name: "$pageview", math: "avg", math_property: "$session_duration" }), event("session end", { name: "$pageview", math: "total" })],
        trendsFilter: { formula: "A / B" },
      });
      expect(r.data).toEqual([0, 0, 0, 0, 0, 0, 28860, 0]);
    });
  });

  // test_formula.py::test_aggregated_one_without_events
  it("a number where one series has no events", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const [r] = await run(ref, {
        trendsFilter: { display: "BoldNumber", formula: "B + A" },
        series: [
          event("session start", { name: "session start", math: "sum", math_property: "xyz" }),
          event("session error", { name: "session error", math: "sum", math_property: "session not here" }),
        ],
      });
      expect(r.aggregated_value).toBe(1800);
      expect(r.label).toBe("Formula (B + A)");
    });
  });

  // test_formula.py::test_formula_with_hogql_math_no_matching_events
  it("a number where a HogQL-math series has no events counts it as 0", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const [r] = await run(ref, {
        trendsFilter: { display: "BoldNumber", formula: "A + B" },
        series: [
          event("nonexistent_event_that_has_no_data", { name: "custom hogql", math: "hogql", math_hogql: "sum(toFloat(properties.xyz))" }),
          event("session start", { name: "session start", math: "sum", math_property: "xyz" }),
        ],
      });
      expect(r.aggregated_value).toBe(1800);
      expect(r.label).toBe("Formula (A + B)");
    });
  });

  // test_formula.py::test_formula_referencing_missing_series_returns_error (an ExposedHogQLError: a 400 here)
  it("a formula naming a series the query lacks is refused", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const res = await ref.queryResponse({ kind: "TrendsQuery", series: [DEFAULT_SERIES[0]], trendsFilter: { formula: "A/B" } });
      expect(res.status).toBe(400);
    });
  });
});

describe("test_formula.py: breakdowns", () => {
  // test_formula.py::test_breakdown
  it("by location", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, { trendsFilter: { formula: "A - B" }, breakdownFilter: { breakdown: "location" } });
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ data: [0, 0, 0, 0, 0, 0, 450, 0], breakdown_value: "London" });
      expect(results[1]).toMatchObject({ data: [0, 0, 0, 0, 0, 250, 0, 0], label: "Formula (A - B)", breakdown_value: "Paris" });
    });
  });

  // test_formula.py::test_breakdown_aggregated
  it("by location as a pie", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, { trendsFilter: { formula: "A - B", display: "ActionsPie" }, breakdownFilter: { breakdown: "location" } });
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ aggregated_value: 866.6666666666667, label: "Formula (A - B)", breakdown_value: "London" });
      expect(results[1]).toMatchObject({ aggregated_value: 250, label: "Formula (A - B)", breakdown_value: "Paris" });
    });
  });

  // test_formula.py::test_breakdown_with_different_breakdown_values_per_series
  it("values present in one series only still get their row", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, {
        series: [event("session start", { math: "sum", math_property: "xyz" }), event("session end", { math: "sum", math_property: "xyz" })],
        trendsFilter: { formula: "A + B" },
        breakdownFilter: { breakdown: "location" },
      });
      expect(results).toHaveLength(4);
      expect(results[0]).toMatchObject({ data: [0, 0, 0, 0, 0, 400, 1400, 0], label: "Formula (A + B)", breakdown_value: "London" });
      expect(results[1]).toMatchObject({ data: [0, 0, 0, 0, 0, 500, 0, 0], label: "Formula (A + B)", breakdown_value: "Paris" });
      expect(results[2]).toMatchObject({ data: [0, 0, 0, 0, 0, 0, 500, 0], label: "Formula (A + B)", breakdown_value: "Belo Horizonte" });
      expect(results[3]).toMatchObject({ data: [0, 0, 0, 0, 0, 0, 400, 0], label: "Formula (A + B)", breakdown_value: NULL });
    });
  });

  // test_formula.py::test_breakdown_counts_of_different_events_one_without_events (the whole item but its top-level
  // `order`, which this server does not answer)
  it("counts where the divisor series has no events", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, {
        trendsFilter: { display: "ActionsLineGraph", formula: "B / A" },
        breakdownFilter: { breakdown: "location", breakdown_type: "event" },
        series: [event("session start", { name: "session start" }), event("session error", { name: "session error" })],
      });
      const row = (breakdown_value: string) => ({ data: zeros(8), count: 0, labels: WEEK_LABELS, days: WEEK_DAYS, label: "Formula (B / A)", breakdown_value, action: null });
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject(row("Paris"));
      expect(results[1]).toMatchObject(row("London"));
    });
  });

  // test_formula.py::test_breakdown_cohort
  it("by all users and a cohort", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, { breakdownFilter: { breakdown: ["all", COHORT_ID], breakdown_type: "cohort" } });
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ data: [0, 0, 0, 0, 0, 1200, 1350, 0], breakdown_value: "all", label: "Formula (A + B)" });
      expect(results[1]).toMatchObject({ data: [0, 0, 0, 0, 0, 1200, 1350, 0], label: "Formula (A + B)", breakdown_value: COHORT_ID });
    });
  });

  // test_formula.py::test_breakdown_hogql
  it("by a HogQL expression", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, { breakdownFilter: { breakdown: "concat(person.properties.$some_prop, ' : ', properties.location)", breakdown_type: "hogql" } });
      expect(results.map((r) => r.breakdown_value)).toEqual(["some_val : London", "some_val : Paris"]);
      expect(data(results)).toEqual([
        [0, 0, 0, 0, 0, 800, 1350, 0],
        [0, 0, 0, 0, 0, 750, 0, 0],
      ]);
    });
  });

  // test_formula.py::test_breakdown_hogql_with_as_alias, test_breakdown_hogql_alias_forms (bare, double_quoted,
  // backticked, nested, inside_call, system_alias_collision)
  it("an alias in a HogQL breakdown changes nothing", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const byHogql = (breakdown: string) => run(ref, { breakdownFilter: { breakdown, breakdown_type: "hogql" } });
      const baseline = await byHogql("properties.location");
      const forms = [
        'properties.location AS "Location"',
        "properties.location AS Location",
        'properties.location AS "Some Location"',
        "properties.location AS `Some Location`",
        'properties.location AS Inner AS "Outer"',
        "concat(properties.location AS Inner, '') AS \"Outer\"",
        "properties.location AS breakdown_value",
      ];
      for (const form of forms) {
        const results = await byHogql(form);
        expect(results.map((r) => r.breakdown_value), form).toEqual(baseline.map((r) => r.breakdown_value));
        expect(data(results), form).toEqual(data(baseline));
      }
    });
  });

  // test_formula.py::test_multiple_breakdowns_with_hogql_aliases
  it("aliases in a list of HogQL breakdowns change nothing", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const byHogql = (properties: string[]) => run(ref, { breakdownFilter: { breakdowns: properties.map((property) => ({ property, type: "hogql" })) } });
      const results = await byHogql(['properties.location AS "Location"', "person.properties.$some_prop AS `Some Prop`"]);
      const baseline = await byHogql(["properties.location", "person.properties.$some_prop"]);
      expect(results.map((r) => r.breakdown_value)).toEqual(baseline.map((r) => r.breakdown_value));
      expect(data(results)).toEqual(data(baseline));
    });
  });

  // test_formula.py::test_breakdown_mismatching_sizes
  it("series with different breakdown values", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, { series: [event("session start"), event("session end")], breakdownFilter: { breakdown: "location" }, trendsFilter: { formula: "A + B" } });
      expect(results).toHaveLength(4);
      expect(results.map((r) => r.breakdown_value)).toEqual(["London", "Paris", "Belo Horizonte", NULL]);
      expect(data(results)).toEqual([
        [0, 0, 0, 0, 0, 1, 3, 0],
        [0, 0, 0, 0, 0, 2, 0, 0],
        [0, 0, 0, 0, 0, 0, 1, 0],
        [0, 0, 0, 0, 0, 0, 1, 0],
      ]);
    });
  });
});

describe("test_formula.py: filters, compare and displays", () => {
  // test_formula.py::test_global_properties
  it("a global property filter", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      expect((await run(ref, { properties: [{ key: "$current_url", value: "http://example.org" }] }))[0].data).toEqual([0, 0, 0, 0, 0, 400, 0, 0]);
    });
  });

  // test_formula.py::test_properties_with_escape_params
  it("a filter value full of characters to escape", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const value =
        "http://localhost:8000/insights?insight=TRENDS&interval=day&display=ActionsLineGraph&actions=%5B%5D&events=%5B%7B%22id%22%3A%22%24pageview%22%2C%22name%22%3A%22%24pageview%22%2C%22type%22%3A%22events%22%2C%22order%22%3A0%7D%2C%7B%22id%22%3A%22%24pageview%2";
      expect((await run(ref, { properties: [{ key: "$current_url", value }] }))[0].data).toEqual(zeros(8));
    });
  });

  // test_formula.py::test_event_properties
  it("a property filter on one series", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const [r] = await run(ref, {
        series: [event("session start", { math: "sum", math_property: "xyz", properties: [{ key: "$current_url", value: "http://example.org" }] }), event("session start", { math: "avg", math_property: "xyz" })],
      });
      expect(r.data).toEqual([0, 0, 0, 0, 0, 500, 450, 0]);
    });
  });

  // test_formula.py::test_compare
  it("compare with the previous period", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, { dateRange: { date_from: "-1dStart" }, compareFilter: { compare: true } });
      expect(results[0].days).toEqual(["2020-01-03", "2020-01-04"]);
      expect(results[1].days).toEqual(["2020-01-01", "2020-01-02"]);
      expect(results[0].data).toEqual([1350, 0]);
      expect(results[1].data).toEqual([0, 1200]);
    });
  });

  // test_formula.py::test_aggregated
  it("a pie aggregates the range", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      expect((await run(ref, { trendsFilter: { display: "ActionsPie", formula: "A + B" } }))[0].aggregated_value).toBe(2160);
    });
  });

  // test_formula.py::test_cumulative
  it("cumulative", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const results = await run(ref, { trendsFilter: { display: "ActionsLineGraphCumulative", formula: "A + B" } });
      expect(results).toHaveLength(1);
      expect(results[0].data).toEqual([0, 0, 0, 0, 0, 1200, 2550, 2550]);
      expect(results[0].days).toEqual(WEEK_DAYS);
    });
  });

  // test_formula.py::test_multiple_events
  it("a third series the formula does not name", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const [r] = await run(ref, { series: [...DEFAULT_SERIES, event("session start", { math: "avg", math_property: "xyz" })] });
      expect(r.data).toEqual([0, 0, 0, 0, 0, 1200, 1350, 0]);
    });
  });

  // test_formula.py::test_session_formulas
  it("unique sessions plus unique sessions", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const [r] = await run(ref, { series: [event("session start", { math: "unique_session" }), event("session start", { math: "unique_session" })] });
      expect(r.data).toEqual([0, 0, 0, 0, 0, 2, 2, 0]);
    });
  });

  // test_formula.py::test_group_formulas
  it("unique organizations plus unique organizations", async () => {
    await withReference(formulaData(RUN_AT), async (ref) => {
      const orgs = event("session start", { math: "unique_group", math_group_type_index: 0 });
      expect((await run(ref, { series: [orgs, orgs] }))[0].data).toEqual([0, 0, 0, 0, 0, 2, 2, 0]);
    });
  });
});

/**
 * Ports of PostHog's dashboard filter tests (posthog/hogql_queries/insights/trends/test/test_trends_dashboard_filters.py,
 * the stored version a51d9bfffa98): each test rewrites a TrendsQuery with TrendsQueryRunner.apply_dashboard_filters and
 * asserts the rewritten query. Here the same query and DashboardFilter go to the query API as `filters_override`, and
 * the numbers asserted are those of the rewritten query, worked out by hand over the data below (PostHog's tests
 * have none). The last test holds a saved insight loaded with `from_dashboard` to the same rule.
 */
import { describe, expect, it } from "vitest";
import { P, withReference, type RefData, type RefEvent, type Reference } from "./support.ts";

const pageview = (timestamp: string, properties: Record<string, unknown>): RefEvent => ({ event: "$pageview", distinct_id: "p1", timestamp, properties });

/**
 * Three pageviews inside the test's range (2020-01-09 … 01-20), two in July 2024 (now is 2024-07-14 12:00), and
 * 30 `$screen` events on 2020-01-12 with one value of `n` each.
 */
const DATA: RefData = {
  now: "2024-07-14T12:00:00Z",
  persons: [{ distinct_ids: ["p1"] }],
  events: [
    pageview("2020-01-10 10:00", { key: "value", abc: "foo", xyz: "bar", $browser: "Chrome" }),
    pageview("2020-01-15 10:00", { abc: "foo", $browser: "Safari" }),
    pageview("2020-01-19 10:00", { xyz: "bar", klm: "foo", $browser: "Chrome" }),
    pageview("2024-07-08 10:00", { abc: "foo" }),
    pageview("2024-07-10 10:00", {}),
    ...Array.from({ length: 30 }, (_, i): RefEvent => ({ event: "$screen", distinct_id: "p1", timestamp: "2020-01-12 10:00", properties: { n: i + 1 } })),
  ],
};

/** `_create_query_runner`: a daily TrendsQuery of $pageview over 2020-01-09 … 2020-01-20, with the test's extra fields. */
const trends = (more: Record<string, unknown> = {}) => ({
  kind: "TrendsQuery",
  dateRange: { date_from: "2020-01-09", date_to: "2020-01-20" },
  interval: "day",
  series: [{ kind: "EventsNode", event: "$pageview" }],
  ...more,
});

/** The query API's answer to the query with `filters_override` (no override when undefined). */
async function withOverride(ref: Reference, query: Record<string, unknown>, override?: Record<string, unknown>): Promise<any[]> {
  const res = await ref.server.post(`${P}/query/`, { query, ...(override ? { filters_override: override } : {}) });
  expect(res.status, res.text).toBe(200);
  return res.body.results;
}

const exact = (key: string, value: string) => ({ key, value, operator: "exact", type: "event" });

describe("test_trends_dashboard_filters.py", () => {
  // test_trends_dashboard_filters.py::test_empty_dashboard_filters_change_nothing
  it("an empty override changes nothing", async () => {
    await withReference(DATA, async (ref) => {
      const [row] = await withOverride(ref, trends(), {});
      expect(row.days).toHaveLength(12);
      expect(row.count).toBe(3);
      expect(row).toEqual((await withOverride(ref, trends()))[0]);
    });
  });

  // test_trends_dashboard_filters.py::test_date_from_override_updates_whole_date_range
  it("date_from alone replaces the whole range: date_to goes back to now", async () => {
    await withReference(DATA, async (ref) => {
      const [row] = await withOverride(ref, trends(), { date_from: "-14d" });
      // -14d from 2024-07-14: 2024-06-30 … 2024-07-14, 15 days; the pageviews of 07-08 and 07-10.
      expect(row.days[0]).toBe("2024-06-30");
      expect(row.days.at(-1)).toBe("2024-07-14");
      expect(row.count).toBe(2);
    });
  });

  // test_trends_dashboard_filters.py::test_date_from_and_date_to_override_updates_whole_date_range
  it("date_from and date_to replace the range", async () => {
    await withReference(DATA, async (ref) => {
      const [row] = await withOverride(ref, trends(), { date_from: "2024-07-07", date_to: "2024-07-14" });
      expect(row.days).toEqual(["2024-07-07", "2024-07-08", "2024-07-09", "2024-07-10", "2024-07-11", "2024-07-12", "2024-07-13", "2024-07-14"]);
      expect(row.data).toEqual([0, 1, 0, 1, 0, 0, 0, 0]);
    });
  });

  // test_trends_dashboard_filters.py::test_properties_set_when_no_filters_present
  it("the override's properties become the query's when it has none", async () => {
    await withReference(DATA, async (ref) => {
      const [row] = await withOverride(ref, trends(), { properties: [exact("key", "value")] });
      expect(row.count).toBe(1); // the pageview of 2020-01-10
    });
  });

  // test_trends_dashboard_filters.py::test_properties_list_extends_filters_list
  it("the override's properties are ANDed with the query's list", async () => {
    await withReference(DATA, async (ref) => {
      const query = trends({ properties: [exact("abc", "foo")] });
      expect((await withOverride(ref, query))[0].count).toBe(2); // 01-10 and 01-15 have abc=foo
      const [row] = await withOverride(ref, query, { properties: [{ key: "xyz", value: "bar", operator: "regex", type: "event" }] });
      expect(row.count).toBe(1); // of those, only 01-10 has xyz matching bar
    });
  });

  // test_trends_dashboard_filters.py::test_properties_list_extends_filters_group
  it("the override's properties are ANDed with the query's group, kept whole", async () => {
    await withReference(DATA, async (ref) => {
      const group = { type: "OR", values: [{ type: "OR", values: [exact("abc", "foo")] }, { type: "AND", values: [exact("klm", "foo")] }] };
      const query = trends({ properties: group });
      expect((await withOverride(ref, query))[0].count).toBe(3); // abc=foo (01-10, 01-15) or klm=foo (01-19)
      const [row] = await withOverride(ref, query, { properties: [{ key: "xyz", value: "bar", operator: "regex", type: "event" }] });
      expect(row.count).toBe(2); // of those, 01-10 and 01-19 have xyz
    });
  });

  // test_trends_dashboard_filters.py::test_breakdown_limit_is_not_removed_for_dashboard
  it("a breakdown limit above the default stays on a dashboard", async () => {
    await withReference(DATA, async (ref) => {
      const query = trends({ series: [{ kind: "EventsNode", event: "$screen" }], breakdownFilter: { breakdown: "n", breakdown_limit: 50 } });
      const rows = await withOverride(ref, query, {});
      // 30 values of n under a limit of 50: every one a row, no "other" (the default limit of 25 would fold 5).
      expect(rows).toHaveLength(30);
      expect(rows.every((r) => r.count === 1)).toBe(true);
    });
  });

  // test_trends_dashboard_filters.py::test_dashboard_breakdown_filter_updates_breakdown_filter
  it("the override's breakdown replaces the query's", async () => {
    await withReference(DATA, async (ref) => {
      const query = trends({ breakdownFilter: { breakdown: "abc", breakdown_limit: 5 } });
      const rows = await withOverride(ref, query, { breakdown_filter: { breakdown: "$browser", breakdown_type: "event", breakdown_limit: 10 } });
      expect(rows.map((r) => [r.breakdown_value, r.count])).toEqual([["Chrome", 2], ["Safari", 1]]);
    });
  });

  // test_trends_dashboard_filters.py::test_compare_is_removed_for_all_time_range
  it("compare is turned off for an all-time range", async () => {
    await withReference(DATA, async (ref) => {
      const query = trends({ dateRange: { date_from: "2024-07-07", date_to: "2024-07-14" }, trendsFilter: {}, compareFilter: { compare: true } });
      expect(await withOverride(ref, query)).toHaveLength(2); // current and previous
      const rows = await withOverride(ref, query, { date_from: "all" });
      expect(rows).toHaveLength(1);
      expect(rows[0].compare).toBeUndefined();
      expect(rows[0].count).toBe(5); // every pageview
    });
  });
});

describe("the actors of a query with filters_override", () => {
  // PostHog's ActorsQueryRunner.apply_dashboard_filters hands the filters to its source insight's runner.
  it("are those of the rewritten source insight", async () => {
    await withReference(DATA, async (ref) => {
      const actorsOf = async (override?: Record<string, unknown>) => {
        const query = { kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source: trends(), day: "2020-01-10" }, select: ["actor", "event_count"] };
        const res = await ref.server.post(`${P}/query/`, { query, ...(override ? { filters_override: override } : {}) });
        expect(res.status, res.text).toBe(200);
        return res.body.results.map((row: any[]) => [row[0].distinct_ids[0], row[1]]);
      };
      expect(await actorsOf()).toEqual([["p1", 1]]);
      expect(await actorsOf({ properties: [exact("key", "value")] })).toEqual([["p1", 1]]);
      expect(await actorsOf({ properties: [exact("key", "other")] })).toEqual([]);
    });
  });
});

describe("a saved insight loaded from a dashboard", () => {
  // PostHog applies the dashboard's filters by the same apply_dashboard_filters (posthog/api/insight.py, from_dashboard).
  it("takes the dashboard's range and ANDs its properties with the insight's", async () => {
    await withReference(DATA, async (ref) => {
      const dashboard = await ref.server.post(`${P}/dashboards/`, { name: "D", filters: { date_from: "2020-01-01", properties: [{ key: "xyz", value: "bar", operator: "regex", type: "event" }] } });
      expect(dashboard.status, dashboard.text).toBe(201);
      const query = { kind: "InsightVizNode", source: trends({ properties: [exact("abc", "foo")] }) };
      const insight = await ref.server.post(`${P}/insights/`, { name: "I", query, dashboards: [dashboard.body.id] });
      expect(insight.status, insight.text).toBe(201);
      const own = await ref.server.get(`${P}/insights/${insight.body.id}/?refresh=true`);
      expect(own.body.result[0].count).toBe(2);
      const loaded = await ref.server.get(`${P}/insights/${insight.body.id}/?from_dashboard=${dashboard.body.id}&refresh=true`);
      expect(loaded.status, loaded.text).toBe(200);
      // 2020-01-01 … now, abc=foo and xyz matching bar: the pageview of 2020-01-10 only.
      expect(loaded.body.result[0].count).toBe(1);
      expect(loaded.body.result[0].days[0]).toBe("2020-01-01");
      expect(loaded.body.result[0].days.at(-1)).toBe("2024-07-14");
    });
  });
});

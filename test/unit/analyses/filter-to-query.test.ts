import { describe, expect, it } from "vitest";
import { filtersToQuery } from "../../../src/analyses/filter-to-query.ts";
import { computeFunnel } from "../../../src/analyses/funnels/index.ts";
import { computeLifecycle } from "../../../src/analyses/lifecycle/index.ts";
import { computePaths } from "../../../src/analyses/paths/index.ts";
import { queryNodeToFilter } from "../../../src/analyses/query-node.ts";
import { computeRetention } from "../../../src/analyses/retention/index.ts";
import { computeStickiness } from "../../../src/analyses/stickiness/index.ts";
import { computeTrends } from "../../../src/analyses/trends/index.ts";
import { contextFor, ev, journeys, worked } from "./support.ts";

type Loose = Record<string, unknown>;
const sortedQuery = (url: string) => {
  const parsed = new URL(url, "http://x");
  return `${parsed.pathname}?${[...parsed.searchParams].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join("&")}`;
};
const roundTrip = (filter: Loose) => queryNodeToFilter(filtersToQuery(filter)).filter;

describe("filters → query node (the real service's filter_to_query)", () => {
  it("wraps a trends filter in an InsightVizNode: series in order, dateRange, breakdownFilter, compareFilter, trendsFilter", () => {
    const filter = {
      insight: "TRENDS",
      events: [{ id: "$pageview", type: "events", order: 1, math: "dau" }],
      actions: [{ id: 7, type: "actions", order: 0, name: "Signed up" }],
      date_from: "-7d",
      interval: "day",
      properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }],
      filter_test_accounts: true,
      breakdown: "$browser",
      breakdown_type: "event",
      compare: true,
      display: "ActionsLineGraph",
      smoothing_intervals: 7,
    };
    expect(filtersToQuery(filter)).toEqual({
      kind: "InsightVizNode",
      source: {
        kind: "TrendsQuery",
        series: [
          { kind: "ActionsNode", id: 7, name: "Signed up" },
          { kind: "EventsNode", event: "$pageview", math: "dau" },
        ],
        dateRange: { date_from: "-7d" },
        interval: "day",
        properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }],
        filterTestAccounts: true,
        breakdownFilter: { breakdown: "$browser", breakdown_type: "event" },
        compareFilter: { compare: true },
        trendsFilter: { display: "ActionsLineGraph", smoothingIntervals: 7 },
      },
    });
  });

  it("puts funnel keys (attribution, exclusions as nodes) in funnelsFilter", () => {
    const filter = {
      insight: "FUNNELS",
      events: [{ id: "$pageview", order: 0 }, { id: "purchase", order: 1, custom_name: "Buy" }],
      funnel_window_interval: 14,
      funnel_window_interval_unit: "day",
      breakdown_attribution_type: "first_touch",
      exclusions: [{ id: "$pageleave", type: "events", funnel_from_step: 0, funnel_to_step: 1 }],
    };
    expect(filtersToQuery(filter).source).toEqual({
      kind: "FunnelsQuery",
      series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "purchase", custom_name: "Buy" }],
      funnelsFilter: {
        funnelWindowInterval: 14,
        funnelWindowIntervalUnit: "day",
        breakdownAttributionType: "first_touch",
        exclusions: [{ kind: "EventsNode", event: "$pageleave", funnelFromStep: 0, funnelToStep: 1 }],
      },
    });
  });

  it("gives retention and paths no series, and their own sub-filter (renames included)", () => {
    const retention = { insight: "RETENTION", target_entity: { id: "signup", type: "events" }, total_intervals: 5, period: "Day" };
    expect(filtersToQuery(retention).source).toEqual({
      kind: "RetentionQuery",
      retentionFilter: { targetEntity: { id: "signup", type: "events" }, totalIntervals: 5, period: "Day" },
    });
    const paths = { insight: "PATHS", paths_hogql_expression: "event", step_limit: 4 };
    expect(filtersToQuery(paths).source).toEqual({ kind: "PathsQuery", pathsFilter: { pathsHogQLExpression: "event", stepLimit: 4 } });
    expect((filtersToQuery({ events: [] }).source as Loose).kind).toBe("TrendsQuery");
  });
});

describe("filters → query → filters computes the same (worked data, reference: analytics §2.8)", () => {
  const w = worked();
  const ctx = contextFor(w);
  const range = { date_from: "2024-03-01", date_to: "2024-03-03" };

  it("trends: $pageview per day is 3, 1, 1 both ways", () => {
    const filter = { insight: "TRENDS", events: [{ id: "$pageview", type: "events", order: 0 }], interval: "day", ...range };
    const data = (f: Loose) => computeTrends(w.events, f, ctx).map((i) => i.data);
    expect(data(filter)).toEqual([[3, 1, 1]]);
    expect(data(roundTrip(filter))).toEqual([[3, 1, 1]]);
  });

  it("trends with a breakdown and dau: the same series both ways (A and C on Chrome and Safari the first day)", () => {
    const filter = { events: [{ id: "$pageview", math: "dau" }], breakdown: "$browser", ...range };
    const series = (f: Loose) => computeTrends(w.events, f, ctx).map((i) => [i.breakdown_value, i.data]);
    expect(series(roundTrip(filter))).toEqual(series(filter));
    expect(Object.fromEntries(series(filter) as [string, number[]][])).toEqual({ Chrome: [1, 0, 1], Firefox: [0, 1, 0], Safari: [1, 0, 0] });
  });

  it("funnels: the strict pageview → signup → purchase funnel is 3, 1, 1 both ways", () => {
    const filter = {
      insight: "FUNNELS",
      events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }, { id: "purchase", order: 2 }],
      funnel_order_type: "strict",
      date_from: "2024-03-01",
      date_to: "2024-03-04",
    };
    const counts = (f: Loose) => (computeFunnel(w.events, f, ctx) as { count: number }[]).map((s) => s.count);
    expect(counts(filter)).toEqual([3, 1, 1]);
    expect(counts(roundTrip(filter))).toEqual([3, 1, 1]);
  });

  it("stickiness: 3 days give 3 positions; persons by active days are 2, 1, 0 both ways (A on 2 days, B and C on 1)", () => {
    const filter = { insight: "STICKINESS", events: [{ id: "$pageview", order: 0 }], interval: "day", ...range };
    const data = (f: Loose) => computeStickiness(w.events, f, ctx).map((i) => i.data);
    expect(data(filter)).toEqual([[2, 1, 0]]);
    expect(data(roundTrip(filter))).toEqual([[2, 1, 0]]);
  });

  it("lifecycle and retention: the same result both ways", () => {
    const lifecycle = { insight: "LIFECYCLE", events: [{ id: "$pageview", order: 0 }], interval: "day", ...range };
    expect(computeLifecycle(w.events, roundTrip(lifecycle), ctx)).toEqual(computeLifecycle(w.events, lifecycle, ctx));
    const retention = { insight: "RETENTION", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "purchase", type: "events" }, total_intervals: 3, period: "Day", date_to: "2024-03-03" };
    // The people URLs carry the same parameters, in the order the filter lists them: compared sorted.
    const cohorts = (f: Loose) => computeRetention(w.events, f, ctx).map((c) => ({ ...c, people_url: sortedQuery(c.people_url) }));
    expect(cohorts(roundTrip(retention))).toEqual(cohorts(retention));
    // 1 March: A and C viewed, neither purchases on 2 or 3 March; 2 March: B, who purchases on 3 March; 3 March: A.
    expect(cohorts(retention).map((c) => c.values.map((v) => v.count))).toEqual([[2, 0, 0], [1, 1, 0], [1, 0, 0]]);
  });

  it("paths: reference §8.2's example gives / → /pricing twice (7 min on average), /pricing → /signup once, both ways", () => {
    const view = (url: string, at: string) => ev("$pageview", at, { $current_url: url });
    const world = journeys({
      one: [view("/", "2024-03-01T10:00"), view("/pricing", "2024-03-01T10:05"), view("/signup", "2024-03-01T10:07")],
      two: [view("/", "2024-03-01T11:00"), view("/pricing", "2024-03-01T11:09")],
    });
    const paths = { insight: "PATHS", include_event_types: ["$pageview"], step_limit: 3, ...range };
    const want = [
      { source: "1_/", target: "2_/pricing", value: 2, average_conversion_time: 7 * 60_000 },
      { source: "2_/pricing", target: "3_/signup", value: 1, average_conversion_time: 2 * 60_000 },
    ];
    expect(computePaths(world.events, paths, contextFor(world))).toEqual(want);
    expect(computePaths(world.events, roundTrip(paths), contextFor(world))).toEqual(want);
  });
});

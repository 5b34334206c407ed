import { describe, expect, it } from "vitest";
import { computeFunnel } from "../../../src/analyses/funnels/index.ts";
import { queryNodeToFilter } from "../../../src/analyses/query-node.ts";
import { computeTrends } from "../../../src/analyses/trends/index.ts";
import { contextFor, worked } from "./support.ts";

describe("query nodes (reference §10)", () => {
  const trendsNode = {
    kind: "InsightVizNode",
    source: {
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview", name: "$pageview", math: "dau" }],
      dateRange: { date_from: "2024-03-01", date_to: "2024-03-03" },
      interval: "day",
      properties: [],
      filterTestAccounts: false,
      breakdownFilter: { breakdown: "$browser", breakdown_type: "event" },
      trendsFilter: { display: "ActionsLineGraph", formula: null, smoothingIntervals: 1 },
      compareFilter: { compare: false },
    },
  };

  it("maps a TrendsQuery to the legacy filter", () => {
    expect(queryNodeToFilter(trendsNode)).toEqual({
      kind: "TRENDS",
      filter: {
        insight: "TRENDS",
        date_from: "2024-03-01",
        date_to: "2024-03-03",
        interval: "day",
        properties: [],
        filter_test_accounts: false,
        breakdown: "$browser",
        breakdown_type: "event",
        compare: false,
        events: [{ id: "$pageview", type: "events", order: 0, name: "$pageview", math: "dau" }],
        actions: [],
        display: "ActionsLineGraph",
        smoothing_intervals: 1,
      },
    });
  });

  it("computes exactly like the equivalent filter", () => {
    const w = worked();
    const legacy = { events: [{ id: "$pageview", math: "dau" }], date_from: "2024-03-01", date_to: "2024-03-03", breakdown: "$browser" };
    const strip = (items: { data: unknown; breakdown_value?: unknown }[]) => items.map((i) => [i.breakdown_value, i.data]);
    expect(strip(computeTrends(w.events, queryNodeToFilter(trendsNode).filter, contextFor(w)))).toEqual(strip(computeTrends(w.events, legacy, contextFor(w))));
  });

  it("maps a FunnelsQuery, its funnelsFilter and exclusions", () => {
    const node = {
      kind: "InsightVizNode",
      source: {
        kind: "FunnelsQuery",
        series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "ActionsNode", id: 5, name: "Signed up" }, { kind: "EventsNode", event: "purchase", custom_name: "Buy" }],
        dateRange: { date_from: "2024-03-01", date_to: "2024-03-04", explicitDate: false },
        funnelsFilter: {
          funnelVizType: "steps", funnelOrderType: "strict", funnelWindowInterval: 14, funnelWindowIntervalUnit: "day",
          exclusions: [{ kind: "EventsNode", event: "$pageleave", funnelFromStep: 0, funnelToStep: 1 }],
          breakdownAttributionType: "first_touch", binCount: 4,
        },
      },
    };
    const { kind, filter } = queryNodeToFilter(node);
    expect(kind).toBe("FUNNELS");
    expect(filter).toMatchObject({
      insight: "FUNNELS",
      explicit_date: false,
      events: [{ id: "$pageview", type: "events", order: 0, name: "$pageview" }, { id: "purchase", type: "events", order: 2, name: "purchase", custom_name: "Buy" }],
      actions: [{ id: 5, type: "actions", order: 1, name: "Signed up" }],
      funnel_viz_type: "steps",
      funnel_order_type: "strict",
      funnel_window_interval: 14,
      funnel_window_interval_unit: "day",
      exclusions: [{ id: "$pageleave", type: "events", name: "$pageleave", funnel_from_step: 0, funnel_to_step: 1 }],
      breakdown_attribution_type: "first_touch",
      bin_count: 4,
    });
  });

  it("a FunnelsQuery computes like its filter: the worked strict funnel", () => {
    const w = worked();
    const node = {
      kind: "FunnelsQuery",
      series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "signup" }, { kind: "EventsNode", event: "purchase" }],
      dateRange: { date_from: "2024-03-01", date_to: "2024-03-04" },
      funnelsFilter: { funnelOrderType: "strict" },
    };
    const steps = computeFunnel(w.events, queryNodeToFilter(node).filter, contextFor(w)) as { count: number }[];
    expect(steps.map((s) => s.count)).toEqual([3, 1, 1]);
  });

  it("maps the other insight kinds and the minute interval", () => {
    expect(queryNodeToFilter({ kind: "RetentionQuery", retentionFilter: { retentionType: "retention_first_time", totalIntervals: 5, period: "Week" } })).toEqual({
      kind: "RETENTION",
      filter: { insight: "RETENTION", retention_type: "retention_first_time", total_intervals: 5, period: "Week" },
    });
    expect(queryNodeToFilter({ kind: "PathsQuery", pathsFilter: { pathsHogQLExpression: "event", stepLimit: 4 } }).filter).toMatchObject({ paths_hogql_expression: "event", step_limit: 4 });
    // A TrendsQuery keeps its minutes beside the legacy `hour` (PostHog test_trends_math_first_time_for_user_interval_types); other kinds do not.
    expect(queryNodeToFilter({ kind: "TrendsQuery", series: [], interval: "minute" }).filter).toMatchObject({ interval: "hour", query_interval: "minute" });
    expect(queryNodeToFilter({ kind: "StickinessQuery", series: [], interval: "minute" }).filter).not.toHaveProperty("query_interval");
    expect(queryNodeToFilter({ kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "a", math: "avg", math_property: "score", math_property_type: "person_properties" }] }).filter.events).toMatchObject([
      { math_property_type: "person_properties" },
    ]);
    expect(queryNodeToFilter({ kind: "LifecycleQuery", series: [] }).kind).toBe("LIFECYCLE");
    expect(queryNodeToFilter({ kind: "StickinessQuery", series: [] }).kind).toBe("STICKINESS");
  });

  const unknown: [string, Record<string, unknown>][] = [
    ["a HogQLQuery", { kind: "HogQLQuery", query: "select 1" }],
    ["an InsightVizNode without source", { kind: "InsightVizNode" }],
    ["a DataWarehouseNode series", { kind: "TrendsQuery", series: [{ kind: "DataWarehouseNode", table_name: "t" }] }],
  ];
  it.each(unknown)("%s is a 400 on query", (_name, node) => {
    expect(() => queryNodeToFilter(node)).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "query" }));
  });
});

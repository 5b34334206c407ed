/**
 * The planner (src/analyses/plan.ts) decides from the request alone: requests made of fields the column kernels
 * were written for take them, including what the real web app sends only to draw the answer; any other field takes
 * the general scan, named in the plan. The engines' answers are compared in parallel-scan.test.ts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { planAnalysis } from "../../../src/analyses/plan.ts";
import { queryNodeToFilter } from "../../../src/analyses/query-node.ts";

const pageviews = [{ id: "$pageview", type: "events", order: 0, math: "dau" }];

describe("the planner", () => {
  it("gives the column kernels a request made of fields they know, for every kind", () => {
    const requests: [string, Record<string, unknown>][] = [
      ["TRENDS", { events: pageviews, date_from: "-7d", interval: "day", breakdown: "$browser", breakdown_type: "event", display: "ActionsLineGraph", formula: "A * 2" }],
      ["STICKINESS", { events: pageviews, compare: true, show_legend: true }],
      ["LIFECYCLE", { events: pageviews, toggledLifecycles: ["new"], filter_test_accounts: true }],
      ["FUNNELS", { events: pageviews, funnel_viz_type: "trends", funnel_window_interval: 1, funnel_window_interval_unit: "day", exclusions: [{ id: "x", funnel_from_step: 0, funnel_to_step: 1 }] }],
      ["FUNNEL_CORRELATION", { events: pageviews, funnel_correlation_type: "events", funnel_correlation_exclude_event_names: ["a"] }],
      ["RETENTION", { target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: null, type: "events" }, period: "Week", total_intervals: 8, retention_custom_brackets: [2, 4] }],
      ["PATHS", { include_event_types: ["$pageview"], start_point: "/", step_limit: 4, path_groupings: ["/docs/*"] }],
    ];
    for (const [kind, filter] of requests) expect(planAnalysis(kind, filter, 2), kind).toEqual({ engine: "columns", unknownFields: [], threads: 2 });
  });

  it("keeps the kernels for what the real web app sends to draw a chart", () => {
    const node = {
      kind: "InsightVizNode",
      source: {
        kind: "TrendsQuery",
        series: [{ kind: "EventsNode", event: "$pageview", name: "$pageview", math: "total" }],
        interval: "day",
        dateRange: { date_from: "-7d", explicitDate: false },
        trendsFilter: { display: "ActionsBar", showLegend: true, showValuesOnSeries: false, aggregationAxisFormat: "numeric", decimalPlaces: 2, yAxisScaleType: "linear", showPercentStackView: false },
        breakdownFilter: { breakdown: "$browser", breakdown_type: "event", breakdown_limit: 10 },
        filterTestAccounts: false,
      },
    };
    const { kind, filter } = queryNodeToFilter(node);
    expect(planAnalysis(kind, filter, 1).engine).toBe("columns");
  });

  it("sends a request with a field it does not know to the general scan, naming the field", () => {
    expect(planAnalysis("TRENDS", { events: pageviews, stickiness_criteria: { operator: "gte", value: 2 } }, 2)).toEqual({
      engine: "general",
      unknownFields: ["stickiness_criteria"],
      threads: 2,
    });
    expect(planAnalysis("STICKINESS", { events: pageviews, computed_as: "cumulative" }, 1).unknownFields).toEqual(["computed_as"]);
    expect(planAnalysis("RETENTION", { target_entity: { id: "a", type: "events" }, minimum_occurrences: 2 }, 1).unknownFields).toEqual(["minimum_occurrences"]);
  });

  it("looks inside series, exclusions and retention entities, also when they come JSON-encoded", () => {
    const plan = planAnalysis("FUNNELS", { events: JSON.stringify([{ id: "a", math_property_type: "person_properties" }]), exclusions: [{ id: "b", uuid: "x" }] }, 1);
    expect(plan.engine).toBe("general");
    expect(plan.unknownFields).toEqual(["events[0].math_property_type", "exclusions[0].uuid"]);
    expect(planAnalysis("RETENTION", { returning_entity: { id: "a", type: "events", cohort: 1 } }, 1).unknownFields).toEqual(["returning_entity.cohort"]);
  });

  it("sends a kind it has no kernels for to the general scan, and plans at least one thread", () => {
    expect(planAnalysis("SOMETHING_NEW", { events: pageviews }, 4).engine).toBe("general");
    expect(planAnalysis("TRENDS", { events: pageviews }, 0).threads).toBe(1);
  });
});

/**
 * The document's request bodies are what clients send: each field the kernels are not written for is listed here
 * on purpose (neither engine implements it, or it belongs to another kind), so a field added to the document later
 * fails this test until someone decides which engine may take it.
 */
interface Schema {
  properties?: Record<string, unknown>;
  allOf?: (Schema | { $ref: string })[];
}
/** A schema's properties, those of the schemas it is all of (by relative $ref) included. */
function propertiesOf(schema: Schema): string[] {
  const parts = (schema.allOf ?? []).map((part) =>
    "$ref" in part ? (parse(readFileSync(new URL(`../../../openapi/components/schemas/${part.$ref}`, import.meta.url), "utf8")) as Schema) : part,
  );
  return [...Object.keys(schema.properties ?? {}), ...parts.flatMap(propertiesOf)];
}

describe("the planner over the document's request bodies", () => {
  const fieldsOf = (schema: string): Record<string, unknown> => {
    const doc = parse(readFileSync(new URL(`../../../openapi/components/schemas/${schema}.yaml`, import.meta.url), "utf8")) as Schema;
    return Object.fromEntries(propertiesOf(doc).map((key) => [key, 1]));
  };
  const trendOnly = ["formula", "breakdown", "breakdown_type", "breakdown_limit", "breakdown_hide_other_aggregation", "breakdown_histogram_bin_count", "breakdown_normalize_url", "breakdown_group_type_index", "smoothing_intervals", "breakdowns", "formulas", "formulaNodes"];
  // Stickiness' own options: every kind sends them to the general scan (only the general scan reads them).
  const stickinessOnly = ["interval_count", "stickiness_criteria", "computed_as"];
  const funnelUnread = ["funnel_aggregate_by_hogql"];
  const cases: [string, string, string[]][] = [
    ["TrendRequest", "TRENDS", stickinessOnly],
    ["TrendRequest", "STICKINESS", [...trendOnly, ...stickinessOnly]],
    ["TrendRequest", "LIFECYCLE", ["compare", "compare_to", ...trendOnly, ...stickinessOnly].sort()],
    ["FunnelRequest", "FUNNELS", funnelUnread],
    ["FunnelCorrelationRequest", "FUNNEL_CORRELATION", funnelUnread],
    // The columns mark a period's returns without counting them: minimum_occurrences is the general scan's, as are
    // property sums and 24-hour windows.
    ["RetentionRequest", "RETENTION", ["minimum_occurrences", "aggregation_type", "aggregation_property", "aggregation_property_type", "time_window_mode"]],
    ["PathRequest", "PATHS", ["breakdowns", "funnel_filter", "paths_hogql_expression"]],
  ];
  for (const [schema, kind, unknown] of cases) {
    it(`${schema} as ${kind.toLowerCase()}`, () => expect([...planAnalysis(kind, fieldsOf(schema), 1).unknownFields].sort()).toEqual([...unknown].sort()));
  }
});

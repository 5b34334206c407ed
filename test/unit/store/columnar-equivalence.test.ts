/**
 * The column store underneath the analyses changes nothing they answer: every analysis over a project's column
 * table equals the same analysis over the same events as plain records (the representation the hand-worked
 * analysis tests use). The generated dataset gives both shapes of every kind of property and event.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { computeCorrelation } from "../../../src/analyses/correlation/index.ts";
import { computeFunnel } from "../../../src/analyses/funnels/index.ts";
import { computeLifecycle } from "../../../src/analyses/lifecycle/index.ts";
import { computePaths } from "../../../src/analyses/paths/index.ts";
import { computeRetention } from "../../../src/analyses/retention/index.ts";
import { computeStickiness } from "../../../src/analyses/stickiness/index.ts";
import type { AnalysisContext } from "../../../src/analyses/shared/context.ts";
import { computeTrends } from "../../../src/analyses/trends/index.ts";
import { createClock } from "../../../src/core/clock.ts";
import { loadHogql } from "../../../src/hogql/parse.ts";
import { generatedState } from "../../../src/fixtures/generated-state.ts";
import type { EventList } from "../../../src/store/schema.ts";
import { createStore, type Store } from "../../../src/store/store.ts";
import { analysisContextOf } from "../../support/analysis-context.ts";

const NOW = new Date("2025-06-01T00:00:00Z");

type Analysis = (events: EventList, filter: never, ctx: AnalysisContext) => unknown;
const last60 = { date_from: "-60d", interval: "day" };
const funnelSteps = ["$pageview", "signed_up", "purchase"].map((id, order) => ({ id, type: "events", order }));

const CASES: [string, Analysis, Record<string, unknown>][] = [
  ["trend total", computeTrends as Analysis, { events: [{ id: "$pageview" }], ...last60 }],
  ["trend dau, weekly", computeTrends as Analysis, { events: [{ id: "$pageview", math: "dau" }], date_from: "-60d", interval: "week" }],
  ["trend weekly active", computeTrends as Analysis, { events: [{ id: "$pageview", math: "weekly_active" }], ...last60 }],
  ["trend sum of a property", computeTrends as Analysis, { events: [{ id: "purchase", math: "sum", math_property: "amount" }], ...last60 }],
  ["trend $browser breakdown", computeTrends as Analysis, { events: [{ id: "$pageview" }], breakdown: "$browser", breakdown_type: "event", ...last60 }],
  ["trend person breakdown", computeTrends as Analysis, { events: [{ id: "$pageview", math: "dau" }], breakdown: "plan", breakdown_type: "person", ...last60 }],
  ["trend session breakdown", computeTrends as Analysis, { events: [{ id: "$pageview" }], breakdown: "$entry_pathname", breakdown_type: "session", ...last60 }],
  ["trend histogram breakdown", computeTrends as Analysis, { events: [{ id: "$pageleave" }], breakdown: "duration_ms", breakdown_type: "event", breakdown_histogram_bin_count: 5, ...last60 }],
  [
    "trend with property filters and a formula",
    computeTrends as Analysis,
    {
      events: [
        { id: "$pageview", properties: [{ key: "$os", value: ["Mac OS X", "iOS"], operator: "exact", type: "event" }] },
        { id: "signed_up", math: "dau" },
      ],
      formula: "A / B",
      ...last60,
    },
  ],
  ["trend first time", computeTrends as Analysis, { events: [{ id: "signed_up", math: "first_time_for_user" }], ...last60 }],
  ["trend hogql math", computeTrends as Analysis, { events: [{ id: "purchase", math: "hogql", math_hogql: "sum(toFloat(properties.amount))" }], ...last60 }],
  ["funnel 3 steps", computeFunnel as Analysis, { insight: "FUNNELS", events: funnelSteps, date_from: "-60d" }],
  ["funnel strict with breakdown", computeFunnel as Analysis, { insight: "FUNNELS", events: funnelSteps, funnel_order_type: "strict", breakdown: "$browser", breakdown_type: "event", date_from: "-60d" }],
  ["funnel by company", computeFunnel as Analysis, { insight: "FUNNELS", events: funnelSteps, aggregation_group_type_index: 1, date_from: "-60d" }],
  ["retention", computeRetention as Analysis, { insight: "RETENTION", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Week", total_intervals: 6 }],
  ["paths", computePaths as Analysis, { insight: "PATHS", include_event_types: ["$pageview"], date_from: "-30d" }],
  ["stickiness", computeStickiness as Analysis, { insight: "STICKINESS", events: [{ id: "$pageview" }], ...last60 }],
  ["lifecycle", computeLifecycle as Analysis, { insight: "LIFECYCLE", events: [{ id: "$pageview" }], ...last60 }],
  ["correlation", computeCorrelation as Analysis, { insight: "FUNNELS", events: funnelSteps, funnel_correlation_type: "events", date_from: "-60d" }],
];

let store: Store;

beforeAll(async () => {
  await loadHogql();
  const clock = createClock(NOW.getTime());
  store = await createStore(generatedState({ seed: 7, now: NOW, events: 30_000 }, NOW.getTime()), clock, null, { persist: false });
});

const contextFor = (events: EventList) => analysisContextOf(store, NOW, events);

describe("analyses over the column table equal the same analyses over plain records", () => {
  it("the table holds the whole dataset", () => {
    expect(store.analysisData.events("1").length).toBeGreaterThan(10_000);
  });

  for (const [name, analysis, filter] of CASES) {
    it(name, () => {
      const table = store.analysisData.events("1");
      const records = [...table].map((row) => row.toJSON());
      const fromTable = analysis(table, filter as never, contextFor(table));
      expect(JSON.stringify(fromTable).length).toBeGreaterThan(50);
      expect(fromTable).toEqual(analysis(records, filter as never, contextFor(records)));
    });
  }
});

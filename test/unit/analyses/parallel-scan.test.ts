/**
 * Trend counts over every core: the rows cut into ranges (one per worker and one for the main thread), counted
 * in place in shared memory and merged, give exactly the single-threaded answer; and a scan reads the rows as
 * they were when it started while capture appends, late events are inserted, ids are deleted and times shift.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { countRows, type CountJob, type CountResult } from "../../../src/analyses/parallel/count-kernel.ts";
import { splitRange } from "../../../src/analyses/parallel/claims.ts";
import { startCount } from "../../../src/analyses/parallel/count-scan.ts";
import { parallelScanStats } from "../../../src/analyses/parallel/scan-settings.ts";
import { parallelScanReady, setParallelScan } from "../../../src/analyses/parallel/worker-pool.ts";
import { correlationActors, funnelActors } from "../../../src/analyses/actors/funnels.ts";
import { lifecycleActors, stickinessActors, trendActors } from "../../../src/analyses/actors/trends.ts";
import { pathActors, retentionActors } from "../../../src/analyses/actors/retention-paths.ts";
import type { ActorRow } from "../../../src/analyses/actors/types.ts";
import { computeCorrelation } from "../../../src/analyses/correlation/index.ts";
import { computeFunnel } from "../../../src/analyses/funnels/index.ts";
import { computeLifecycle } from "../../../src/analyses/lifecycle/index.ts";
import { computePaths } from "../../../src/analyses/paths/index.ts";
import { computeRetention } from "../../../src/analyses/retention/index.ts";
import { computeStickiness } from "../../../src/analyses/stickiness/index.ts";
import { computeTrends } from "../../../src/analyses/trends/index.ts";
import { createClock } from "../../../src/core/clock.ts";
import { analysisStats, createAnalysisService, type AnalysisKind } from "../../../src/services/analysis-service.ts";
import type { ActorsKind } from "../../../src/analyses/actors/index.ts";
import { generatedState } from "../../../src/fixtures/generated-state.ts";
import type { ScanSnapshot } from "../../../src/store/columns/column-arrays.ts";
import { EventTable } from "../../../src/store/event-table.ts";
import type { EventList, EventRecord } from "../../../src/store/schema.ts";
import { createStore, type Store } from "../../../src/store/store.ts";
import { analysisContextOf } from "../../support/analysis-context.ts";
import type { AnalysisContext } from "../../../src/analyses/shared/context.ts";

const NOW = new Date("2025-06-01T00:00:00Z");
const WORKERS = 2;
let store: Store;

beforeAll(async () => {
  setParallelScan({ minRows: 0, workers: WORKERS, maxLoad: Infinity });
  expect(await parallelScanReady()).toBe(WORKERS);
  const clock = createClock(NOW.getTime());
  store = await createStore(generatedState({ seed: 11, now: NOW, events: 30_000 }, NOW.getTime()), clock, null, { persist: false });
});

afterAll(() => setParallelScan({ minRows: 200_000, workers: 0, maxLoad: 2, mainCounts: true }));


type Compute = (events: EventList, filter: never, ctx: AnalysisContext) => unknown;

/**
 * The kind over the column table (scans cut into parts, `partitioned`: counted as such) equals the same kind over
 * plain records, which take the general per-event scan: the reference answer. `nonZero` shows it counted something.
 */
function equalsGeneralScan(compute: Compute, filter: Record<string, unknown>, nonZero: RegExp, partitioned = true): void {
  const table = store.analysisData.events("1");
  const records: EventList = [...table].map((row) => row.toJSON());
  const before = parallelScanStats().partitioned;
  const fromColumns = compute(table, filter as never, analysisContextOf(store, NOW, table));
  if (partitioned) expect(parallelScanStats().partitioned).toBeGreaterThan(before);
  expect(JSON.stringify(fromColumns)).toMatch(nonZero);
  expect(fromColumns).toEqual(compute(records, filter as never, analysisContextOf(store, NOW, records)));
}

const last60 = { date_from: "-60d", interval: "day" };
const chromeOrPro = { type: "OR", values: [{ type: "AND", values: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] }, { type: "AND", values: [{ key: "plan", value: "pro", operator: "exact", type: "person" }] }] };
const TRENDS: [string, Record<string, unknown>][] = [
  ["total count by day", { events: [{ id: "$pageview" }], ...last60 }],
  ["total count by hour over a week", { events: [{ id: "$pageview" }], date_from: "-7d", interval: "hour" }],
  ["total value over any event", { events: [{ id: null, type: "events" }], display: "BoldNumber", ...last60 }],
  ["daily actives", { events: [{ id: "$pageview", math: "dau" }], ...last60 }],
  ["weekly buckets of actives", { events: [{ id: "$pageview", math: "dau" }], date_from: "-90d", interval: "week" }],
  ["weekly actives by day", { events: [{ id: "$pageview", math: "weekly_active" }], ...last60 }],
  ["monthly actives by day, up to now", { events: [{ id: "signed_up", math: "monthly_active" }], date_from: "-45d", date_to: "2025-05-31T15:30:00Z", interval: "day" }],
  ["weekly actives by week", { events: [{ id: "$pageview", math: "weekly_active" }], date_from: "-90d", interval: "week" }],
  ["weekly actives as one value", { events: [{ id: null, type: "events", math: "weekly_active" }], display: "BoldNumber", date_from: "-14d" }],
  ["two series and a formula", { events: [{ id: "$pageview" }, { id: "signed_up", math: "dau" }], formula: "A / B", ...last60 }],
  ["unique groups by day", { events: [{ id: "$pageview", math: "unique_group", math_group_type_index: 0 }], ...last60 }],
  ["unique groups under a condition, by week", { events: [{ id: null, type: "events", math: "unique_group", math_group_type_index: 0, properties: [chromeOrPro] }], date_from: "-90d", interval: "week" }],
  ["events of groups, and daily active groups", { events: [{ id: "$pageview" }, { id: "$pageview", math: "dau" }], aggregation_group_type_index: 0, ...last60 }],
  ["average events per person, by day", { events: [{ id: "$pageview", math: "avg_count_per_actor" }], ...last60 }],
  ["median events per person under a condition, by week", { events: [{ id: null, type: "events", math: "median_count_per_actor", properties: [chromeOrPro] }], date_from: "-90d", interval: "week" }],
  ["most events of one person as one value", { events: [{ id: "$pageview", math: "max_count_per_actor" }], display: "BoldNumber", ...last60 }],
  ["p90 of events per person, by hour", { events: [{ id: "$pageview", math: "p90_count_per_actor" }], date_from: "-3d", interval: "hour" }],
  ["first time for each person, by week", { events: [{ id: "signed_up", math: "first_time_for_user" }], date_from: "-90d", interval: "week" }],
  ["first matching event for each person, under a condition", { events: [{ id: "$pageview", math: "first_matching_event_for_user", properties: [chromeOrPro] }], ...last60 }],
  ["first time of any event as one value", { events: [{ id: null, type: "events", math: "first_time_for_user" }], display: "BoldNumber", date_from: "-14d" }],
  ["breakdown by $browser", { events: [{ id: "$pageview" }], breakdown: "$browser", breakdown_type: "event", ...last60 }],
  ["breakdown with an other item", { events: [{ id: "$pageview" }], breakdown: "$current_url", breakdown_type: "event", breakdown_limit: 3, ...last60 }],
  ["breakdown by normalised url", { events: [{ id: "$pageview" }], breakdown: "$current_url", breakdown_normalize_url: true, breakdown_type: "event", ...last60 }],
  ["breakdown by a property most events lack", { events: [{ id: null, type: "events" }], breakdown: "amount", breakdown_type: "event", ...last60 }],
  ["breakdown by a person property", { events: [{ id: "$pageview" }], breakdown: "plan", breakdown_type: "person", ...last60 }],
  ["breakdown by a person property few persons have, with a limit", { events: [{ id: null, type: "events" }], breakdown: "company", breakdown_type: "person", breakdown_limit: 2, ...last60 }],
  ["-24h by hour starts at the start of its hour", { events: [{ id: "$pageview" }, { id: "$pageview", math: "dau" }], date_from: "-24h", interval: "hour" }],
  ["-48h by day starts at the start of its hour", { events: [{ id: null, type: "events" }], date_from: "-48h", interval: "day" }],
];

describe("trends counted over partitions equal the single-threaded trends", () => {
  for (const [name, filter] of TRENDS) it(name, () => equalsGeneralScan(computeTrends, filter, /"(count|aggregated_value)":[1-9]/));
});

const pageviews = (properties: unknown[], extra: Record<string, unknown> = {}) => ({ events: [{ id: "$pageview", properties }], ...last60, ...extra });
const anyEvent = (properties: unknown[], extra: Record<string, unknown> = {}) => ({ events: [{ id: null, type: "events", properties }], ...last60, ...extra });
const FILTERED: [string, Record<string, unknown>][] = [
  ["exact", pageviews([{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }])],
  ["exact against a list", pageviews([{ key: "$browser", value: ["Chrome", "Firefox"], operator: "exact", type: "event" }])],
  ["is_not (events lacking the key pass)", anyEvent([{ key: "$os", value: "Mac OS X", operator: "is_not", type: "event" }])],
  ["icontains", pageviews([{ key: "$current_url", value: "PRICING", operator: "icontains", type: "event" }])],
  ["not_icontains", pageviews([{ key: "$current_url", value: "docs", operator: "not_icontains", type: "event" }])],
  ["regex", pageviews([{ key: "$current_url", value: "/(docs|pricing)", operator: "regex", type: "event" }])],
  ["not_regex", anyEvent([{ key: "$current_url", value: "^https://", operator: "not_regex", type: "event" }])],
  ["gt on a number", anyEvent([{ key: "duration_ms", value: 20_000, operator: "gt", type: "event" }])],
  ["lt against a numeric string", anyEvent([{ key: "amount", value: "100", operator: "lt", type: "event" }])],
  ["between", anyEvent([{ key: "amount", value: [10, 200], operator: "between", type: "event" }])],
  ["exact on a number given as text", anyEvent([{ key: "amount", value: ["49", "99", "19"], operator: "exact", type: "event" }])],
  ["exact on a boolean", pageviews([{ key: "is_first_visit", value: ["true"], operator: "exact", type: "event" }])],
  ["is_set", anyEvent([{ key: "amount", operator: "is_set", type: "event" }])],
  ["is_not_set", anyEvent([{ key: "duration_ms", operator: "is_not_set", type: "event" }])],
  ["a date operator", anyEvent([{ key: "trial_ends_at", value: "-70d", operator: "is_date_after", type: "event" }])],
  ["two properties and-ed", pageviews([{ key: "$browser", value: "Chrome", type: "event" }, { key: "$os", value: "Windows", operator: "is_not", type: "event" }])],
  ["a person property", pageviews([{ key: "plan", value: ["pro", "team"], operator: "exact", type: "person" }])],
  ["a person property not set", pageviews([{ key: "email", operator: "is_not_set", type: "person" }])],
  ["in a cohort", pageviews([{ key: "id", value: 1, type: "cohort" }])],
  ["not in a cohort", pageviews([{ key: "id", value: 2, operator: "not_in", type: "cohort" }])],
  ["an OR group of an event and a person property", pageviews([chromeOrPro])],
  ["global properties with the series' own", { ...pageviews([{ key: "$browser", value: "Safari", operator: "is_not", type: "event" }]), properties: { type: "AND", values: [chromeOrPro] } }],
  ["test accounts left out", { ...pageviews([]), filter_test_accounts: true }],
  ["daily actives", pageviews([{ key: "$browser", value: "Chrome", type: "event" }], { events: [{ id: "$pageview", math: "dau", properties: [{ key: "$browser", value: "Chrome", type: "event" }] }] })],
  ["weekly actives of a cohort", { events: [{ id: "$pageview", math: "weekly_active", properties: [{ key: "id", value: 1, type: "cohort" }] }], ...last60 }],
  ["a breakdown", { ...pageviews([{ key: "$current_url", value: "docs", operator: "icontains", type: "event" }]), breakdown: "$browser", breakdown_type: "event" }],
  ["a person breakdown with test accounts left out", { ...pageviews([]), filter_test_accounts: true, breakdown: "plan", breakdown_type: "person" }],
];

describe("filtered trends counted over partitions equal the general scan", () => {
  for (const [name, filter] of FILTERED) it(name, () => equalsGeneralScan(computeTrends, filter, /"(count|aggregated_value)":[1-9]/));
  // The columns decline a cohort breakdown; its rows come the largest first, ties by cohort id, on either engine
  // (PostHog test_trends.py::test_breakdown_multiple_cohorts).
  it("a breakdown by cohorts and all users (declined by the columns)", () =>
    equalsGeneralScan(computeTrends, { ...pageviews([]), breakdown: [2, 1, "all"], breakdown_type: "cohort" }, /"(count|aggregated_value)":[1-9]/, false));
});

const purchases = (math: string, extra: Record<string, unknown> = {}) => ({ events: [{ id: "purchase", math, math_property: "amount" }], ...last60, ...extra });
const durations = (math: string, extra: Record<string, unknown> = {}) => ({ events: [{ id: null, type: "events", math, math_property: "duration_ms" }], ...last60, ...extra });
const MATH_TRENDS: [string, Record<string, unknown>][] = [
  ...["sum", "avg", "min", "max", "median", "p75", "p90", "p95", "p99"].map((math): [string, Record<string, unknown>] => [`${math} of a purchase's amount`, purchases(math)]),
  ["sum over every event, most lacking the property", durations("sum")],
  ["avg by week over 90 days", durations("avg", { date_from: "-90d", interval: "week" })],
  ["p90 as one value", durations("p90", { display: "BoldNumber" })],
  ["cumulative sum", purchases("sum", { display: "ActionsLineGraphCumulative" })],
  ["sum under a filter", { events: [{ id: null, type: "events", math: "sum", math_property: "duration_ms", properties: [{ key: "$browser", value: "Chrome", type: "event" }] }], ...last60, filter_test_accounts: true }],
  ["avg broken down by an event property", durations("avg", { breakdown: "$browser", breakdown_type: "event" })],
  ["sum broken down with an other item", durations("sum", { breakdown: "$current_url", breakdown_type: "event", breakdown_limit: 3 })],
  ["median broken down by normalised url", durations("median", { breakdown: "$current_url", breakdown_normalize_url: true, breakdown_type: "event" })],
  ["p95 broken down by a person property", purchases("p95", { breakdown: "plan", breakdown_type: "person" })],
  ["max broken down by a property few events have", durations("max", { breakdown: "amount", breakdown_type: "event" })],
  // Pages whose events hold no amount sum to 0 and are shown, as PostHog shows every value of the range's events.
  ["sum broken down by values whose events lack the property", { events: [{ id: null, type: "events", math: "sum", math_property: "amount" }], ...last60, breakdown: "$current_url", breakdown_type: "event" }],
  ["unique sessions by day", { events: [{ id: "$pageview", math: "unique_session" }], ...last60 }],
  ["unique sessions of every event by week, filtered", { events: [{ id: null, type: "events", math: "unique_session", properties: [{ key: "$browser", value: "Safari", operator: "icontains", type: "event" }] }], date_from: "-90d", interval: "week" }],
  ["unique sessions as one value", { events: [{ id: null, type: "events", math: "unique_session" }], display: "BoldNumber", ...last60 }],
];

describe("property maths and unique sessions over partitions equal the general scan's, to the bit", () => {
  for (const [name, filter] of MATH_TRENDS) it(name, () => equalsGeneralScan(computeTrends, filter, /"(count|aggregated_value)":[1-9]/));
});

describe("per-value verdicts kept between queries", () => {
  it("are extended to the values capture adds, with the general scan's answers", async () => {
    const clock = createClock(NOW.getTime());
    const own = await createStore(generatedState({ seed: 13, now: NOW, events: 20_000 }, NOW.getTime()), clock, null, { persist: false });
    const filter = {
      events: [{ id: "$pageview", math: "sum", math_property: "load_ms", properties: [{ key: "$browser", value: "^(Chrome|Brave)$", operator: "regex", type: "event" }] }],
      date_from: "-90d",
    };
    const answers = () => {
      const table = own.analysisData.events("1");
      const records: EventList = [...table].map((row) => row.toJSON());
      const before = parallelScanStats().partitioned;
      const fromColumns = computeTrends(table, filter as never, analysisContextOf(own, NOW, table)) as { count: number }[];
      expect(parallelScanStats().partitioned).toBeGreaterThan(before);
      expect(fromColumns).toEqual(computeTrends(records, filter as never, analysisContextOf(own, NOW, records)));
      return fromColumns[0]!.count;
    };
    expect(answers()).toBe(0);
    // New values of both properties (a browser and numbers never seen), some as numeric text.
    const added = Array.from({ length: 40 }, (_, n) => ({ ...event(n, NOW.getTime() - 3_600_000 - n * 60_000), event: "$pageview", properties: { $browser: n % 2 ? "Brave" : "Chrome", load_ms: n % 4 === 1 ? String(n + 0.25) : n + 0.5 } }));
    await own.events.append("1", added);
    expect(answers()).toBe(added.reduce((sum, e) => sum + Number(e.properties.load_ms), 0));
  });
});

describe("unique sessions over the columns", () => {
  it("count a number and its text as one session, and events without one as one more, as the general scan does", async () => {
    const clock = createClock(NOW.getTime());
    const own = await createStore(generatedState({ seed: 14, now: NOW, events: 20_000 }, NOW.getTime()), clock, null, { persist: false });
    const at = (n: number) => NOW.getTime() - 3 * DAY + n * 60_000;
    const sessions: unknown[] = [7, "7", null, undefined, "s-1", 7.5, "7.5", true, "true"];
    const odd = sessions.map((id, n) => ({ ...event(n, at(n)), event: "odd_session", properties: id === undefined ? {} : { $session_id: id } }));
    await own.events.append("1", odd);
    const filter = { events: [{ id: "odd_session", math: "unique_session" }], date_from: "-90d" };
    const table = own.analysisData.events("1");
    const records: EventList = [...table].map((row) => row.toJSON());
    const before = parallelScanStats().partitioned;
    const fromColumns = computeTrends(table, filter as never, analysisContextOf(own, NOW, table)) as { count: number }[];
    expect(parallelScanStats().partitioned).toBeGreaterThan(before);
    // "7", "", "s-1", "7.5", "true".
    expect(fromColumns[0]!.count).toBe(5);
    expect(fromColumns).toEqual(computeTrends(records, filter as never, analysisContextOf(own, NOW, records)));
  });
});

describe("minute buckets (a TrendsQuery's minute interval)", () => {
  it("count the same through the columns and the general scan", () => {
    equalsGeneralScan(computeTrends, { events: [{ id: null, type: "events" }, { id: "$pageview", math: "dau" }], date_from: "-3d", interval: "hour", query_interval: "minute" }, /"count":[1-9]/, false);
  });
});

describe("a series the columns cannot answer", () => {
  const FALLBACKS: [string, Record<string, unknown>][] = [
    ["a group property condition", pageviews([{ key: "industry", value: ["software", "fintech"], type: "group", group_type_index: 0 }])],
    ["a group condition beside an event one in an OR group", pageviews([{ type: "OR", values: [{ key: "$browser", value: "Chrome", type: "event" }, { key: "industry", value: ["software", "fintech"], type: "group", group_type_index: 0 }] }])],
    ["an action", { actions: [{ id: 1, type: "actions" }], ...last60 }],
    ["a count per actor, cumulative", { events: [{ id: "$pageview", math: "avg_count_per_actor" }], display: "ActionsLineGraphCumulative", ...last60 }],
    // Fewer rows than values in the dictionary, none of whose verdicts are kept yet: the table would cost more than
    // the rows' own tests.
    ["a short range, a condition not seen before", anyEvent([{ key: "$current_url", value: "/pricing", operator: "icontains", type: "event" }], { date_from: "-7d", interval: "hour" })],
    // The columns hold event properties; these read the person's property, or a column of the event row.
    ["a sum of the person's property (math_property_type)", { events: [{ id: "$pageview", math: "sum", math_property: "age", math_property_type: "person_properties" }], ...last60 }],
    ["a median of the session's $session_duration", { events: [{ id: "$pageview", math: "median", math_property: "$session_duration" }], ...last60 }],
    ["weekly actives broken down by $session_duration bins", { events: [{ id: "$pageview", math: "weekly_active" }], ...last60, breakdown: "$session_duration", breakdown_type: "session", breakdown_histogram_bin_count: 4 }],
    ["an event_metadata condition", pageviews([{ key: "distinct_id", value: "1", operator: "icontains", type: "event_metadata" }])],
  ];
  for (const [name, filter] of FALLBACKS) {
    it(`takes the general scan, with the same answer: ${name}`, () => {
      const before = parallelScanStats().partitioned;
      equalsGeneralScan(computeTrends, filter, /"(count|aggregated_value)":[1-9]/, false);
      expect(parallelScanStats().partitioned).toBe(before);
    });
  }
});

const funnelSteps = (...ids: (string | null)[]) => ids.map((id, order) => ({ id, type: "events", order }));
const threeSteps = { insight: "FUNNELS", events: funnelSteps("$pageview", "signed_up", "purchase"), date_from: "-60d" };
const FUNNELS: [string, Record<string, unknown>][] = [
  ["ordered steps", threeSteps],
  ["a one-hour window", { ...threeSteps, funnel_window_interval: 1, funnel_window_interval_unit: "hour" }],
  // A window of zero or less is 14 of its unit (PostHog test_funnel_conversion_window.py).
  ["a window of minus one hour", { ...threeSteps, funnel_window_interval: -1, funnel_window_interval_unit: "hour" }],
  ["strict order", { ...threeSteps, funnel_order_type: "strict" }],
  ["any order", { ...threeSteps, funnel_order_type: "unordered" }],
  ["an exclusion between two steps", { ...threeSteps, exclusions: [{ id: "$pageleave", type: "events", funnel_from_step: 0, funnel_to_step: 1 }] }],
  ["a step of any event", { ...threeSteps, events: funnelSteps("$pageview", null, "purchase") }],
  ["time to convert", { ...threeSteps, funnel_viz_type: "time_to_convert" }],
  ["time to convert from step 2, in 5 bins, with an exclusion", { ...threeSteps, funnel_viz_type: "time_to_convert", funnel_from_step: 1, funnel_to_step: 2, bin_count: 5, exclusions: [{ id: "$pageleave", type: "events", funnel_from_step: 1, funnel_to_step: 2 }] }],
  ["conversion trends", { ...threeSteps, funnel_viz_type: "trends", interval: "week" }],
  // Unordered funnels keep every step for time to convert and trends, whatever funnel_to_step (any step may come first).
  ["unordered time to convert up to step 2", { ...threeSteps, funnel_viz_type: "time_to_convert", funnel_order_type: "unordered", funnel_to_step: 1 }],
  ["strict conversion trends by day, from step 2", { ...threeSteps, funnel_viz_type: "trends", funnel_order_type: "strict", funnel_from_step: 1 }],
  // An unordered funnel's exclusions span the whole funnel (PostHog test_funnel_unordered.py::test_funnel_exclusions_invalid_params).
  ["unordered conversion trends with an exclusion", { ...threeSteps, funnel_viz_type: "trends", funnel_order_type: "unordered", exclusions: [{ id: "$pageleave", type: "events", funnel_from_step: 0, funnel_to_step: 2 }] }],
  ["a breakdown by the first touch", { ...threeSteps, breakdown: "$browser", breakdown_type: "event" }],
  ["a breakdown by the last touch, with other values merged", { ...threeSteps, breakdown: "$current_url", breakdown_type: "event", breakdown_attribution_type: "last_touch", breakdown_limit: 2 }],
  ["a breakdown by normalised url, strict", { ...threeSteps, funnel_order_type: "strict", breakdown: "$current_url", breakdown_normalize_url: true, breakdown_type: "event" }],
  ["time to convert with a breakdown", { ...threeSteps, funnel_viz_type: "time_to_convert", breakdown: "$browser", breakdown_type: "event" }],
  ["a step under an event property condition", { ...threeSteps, events: [{ id: "$pageview", type: "events", order: 0, properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] }, ...threeSteps.events.slice(1)] }],
  ["a step under a person property, and a cohort over the funnel", { ...threeSteps, events: [threeSteps.events[0], { id: "signed_up", type: "events", order: 1, properties: [{ key: "plan", value: "pro", operator: "exact", type: "person" }] }, threeSteps.events[2]], properties: [{ key: "id", value: 1, type: "cohort" }] }],
  ["strict, with the funnel's own OR group and test accounts left out", { ...threeSteps, funnel_order_type: "strict", properties: { type: "AND", values: [chromeOrPro] }, filter_test_accounts: true }],
  ["an exclusion under a condition, time to convert", { ...threeSteps, funnel_viz_type: "time_to_convert", exclusions: [{ id: "$pageleave", type: "events", funnel_from_step: 0, funnel_to_step: 1, properties: [{ key: "$browser", value: "Safari", operator: "is_not", type: "event" }] }] }],
  ["conversion trends of any event under a condition", { ...threeSteps, funnel_viz_type: "trends", events: [{ id: null, type: "events", order: 0, properties: [{ key: "$current_url", value: "pricing", operator: "icontains", type: "event" }] }, ...threeSteps.events.slice(1)] }],
  ["steps of groups", { ...threeSteps, aggregation_group_type_index: 0 }],
  ["strict conversion trends of groups, a step under a condition", { ...threeSteps, funnel_viz_type: "trends", funnel_order_type: "strict", aggregation_group_type_index: 0, events: [threeSteps.events[0], { id: "signed_up", type: "events", order: 1, properties: [chromeOrPro] }, threeSteps.events[2]] }],
  ["time to convert of groups", { ...threeSteps, funnel_viz_type: "time_to_convert", aggregation_group_type_index: 0 }],
  // These take journeys.ts over the columns.
  ["conversion trends by browser", { ...threeSteps, funnel_viz_type: "trends", breakdown: "$browser", breakdown_type: "event" }],
  ["a breakdown by step 2's value", { ...threeSteps, breakdown: "$browser", breakdown_type: "event", breakdown_attribution_type: "step", breakdown_attribution_value: 1 }],
  ["a breakdown by every value", { ...threeSteps, breakdown: "$browser", breakdown_type: "event", breakdown_attribution_type: "all_events" }],
  ["a breakdown by a person property", { ...threeSteps, breakdown: "plan", breakdown_type: "person" }],
  // A column of the event row, not an event property (PostHog test_funnel.py::test_funnel_query_with_event_metadata_breakdown).
  ["a breakdown by the event's distinct_id (event_metadata)", { ...threeSteps, breakdown: "distinct_id", breakdown_type: "event_metadata" }],
  // A group property's value is shown unboxed (PostHog breakdown_cases.py::test_funnel_breakdown_group).
  ["a breakdown by a group property", { ...threeSteps, breakdown: "industry", breakdown_type: "group", breakdown_group_type_index: 0 }],
  // First-time steps read every event of a person (first-time.ts): the column path declines them.
  ["a first-time step, then a first matching one", { ...threeSteps, events: [{ id: "$pageview", type: "events", order: 0 }, { id: "signed_up", type: "events", order: 1, math: "first_time_for_user" }, { id: "purchase", type: "events", order: 2, math: "first_matching_event_for_user", properties: [{ key: "$browser", value: "Safari", operator: "is_not", type: "event" }] }] }],
  // An excluded attempt further than every clean one drops the actor; exclusions at a step's instant do not count.
  ["an exclusion over the whole funnel, a short window", { ...threeSteps, funnel_window_interval: 2, funnel_window_interval_unit: "hour", exclusions: [{ id: "$autocapture", type: "events", funnel_from_step: 0, funnel_to_step: 2 }] }],
  // An attempt voided by an exclusion it then went past leaves the actor only its converted periods
  // (PostHog test_funnel_trends.py::test_excluded_completion): both engines through forEachAttemptStart.
  ["conversion trends with an exclusion attempts go past, a short window", { ...threeSteps, funnel_viz_type: "trends", funnel_window_interval: 2, funnel_window_interval_unit: "hour", exclusions: [{ id: "$autocapture", type: "events", funnel_from_step: 0, funnel_to_step: 1 }] }],
  // Optional steps: both engines through optional-steps.ts (PostHog test_funnel_udf.py::test_funnel_with_optional_steps).
  ["an optional second step", { ...threeSteps, events: [threeSteps.events[0], { ...threeSteps.events[1], optionalInFunnel: true }, threeSteps.events[2]] }],
  ["strict, an optional second step, a short window", { ...threeSteps, funnel_order_type: "strict", funnel_window_interval: 2, funnel_window_interval_unit: "hour", events: [threeSteps.events[0], { ...threeSteps.events[1], optionalInFunnel: true }, threeSteps.events[2]] }],
  ["an optional second step, by browser", { ...threeSteps, breakdown: "$browser", breakdown_type: "event", events: [threeSteps.events[0], { ...threeSteps.events[1], optionalInFunnel: true }, threeSteps.events[2]] }],
  // A HogQL expression's values as actors are read per event with its person: the general scan on both runs.
  ["steps counted by a HogQL expression's values", { ...threeSteps, funnel_aggregate_by_hogql: "concat(person.properties.plan, properties.$browser)" }],
];

describe("funnels over the columns equal the single-threaded funnels", () => {
  // Funnels without a breakdown, or steps by a first- or last-touch event property, run over the parts (time to
  // convert ignores a breakdown); the others take journeys.ts over the columns.
  const touch = (filter: Record<string, unknown>) =>
    filter.breakdown_type === "event" && filter.funnel_viz_type !== "trends" && ["first_touch", "last_touch", undefined].includes(filter.breakdown_attribution_type as string);
  const firstTime = (filter: Record<string, unknown>) => (filter.events as { math?: string }[]).some((e) => e.math?.startsWith("first_"));
  const partitioned = (filter: Record<string, unknown>) =>
    !firstTime(filter) && !filter.funnel_aggregate_by_hogql && (!filter.breakdown || filter.funnel_viz_type === "time_to_convert" || touch(filter));
  for (const [name, filter] of FUNNELS) it(name, () => equalsGeneralScan(computeFunnel, filter, /"(count|conversion_rate|average_conversion_time|data)":\[?[1-9]/, partitioned(filter)));
});

const LIFECYCLE: [string, Record<string, unknown>][] = [
  ["lifecycle of test accounts left out, under a person condition", { insight: "LIFECYCLE", events: [{ id: "$pageview", properties: [{ key: "plan", value: "free", operator: "is_not", type: "person" }] }], filter_test_accounts: true, ...last60 }],
  ["daily lifecycle", { insight: "LIFECYCLE", events: [{ id: "$pageview" }], ...last60 }],
  ["weekly lifecycle of sign-ups", { insight: "LIFECYCLE", events: [{ id: "signed_up" }], date_from: "-90d", interval: "week" }],
];
const RETENTION: [string, Record<string, unknown>][] = [
  ["daily recurring retention", { insight: "RETENTION", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 14, date_to: "2025-05-20" }],
  ["weekly retention from sign-up to purchase", { insight: "RETENTION", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: "purchase", type: "events" }, period: "Week", total_intervals: 8 }],
  ["daily first-time retention", { insight: "RETENTION", retention_type: "retention_first_time", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 14, date_to: "2025-05-20" }],
  ["weekly first-time retention from sign-up to any event", { insight: "RETENTION", retention_type: "retention_first_time", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: null, type: "events" }, period: "Week", total_intervals: 10 }],
  ["recurring retention of Chrome page views among pro users", { insight: "RETENTION", target_entity: { id: "$pageview", type: "events", properties: [{ key: "$browser", value: "Chrome", type: "event" }] }, returning_entity: { id: "$pageview", type: "events" }, properties: [{ key: "plan", value: "pro", type: "person" }], period: "Day", total_intervals: 14, date_to: "2025-05-20" }],
  ["first-time retention under the insight's filter, test accounts left out", { insight: "RETENTION", retention_type: "retention_first_time", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: "$pageview", type: "events", properties: [chromeOrPro] }, properties: [{ key: "$browser", value: "Safari", operator: "is_not", type: "event" }], filter_test_accounts: true, period: "Week", total_intervals: 8 }],
  ["first-ever occurrence retention", { insight: "RETENTION", retention_type: "retention_first_ever_occurrence", target_entity: { id: "purchase", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Week", total_intervals: 8 }],
  // date_from makes one cohort per period from it to date_to, each of total_intervals values.
  ["recurring retention from date_from to date_to", { insight: "RETENTION", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 5, date_from: "2025-05-01", date_to: "2025-05-20" }],
  ["first-time retention from date_from, rolling", { insight: "RETENTION", retention_type: "retention_first_time", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Week", total_intervals: 6, date_from: "-70d", cumulative: true }],
  ["rolling recurring retention", { insight: "RETENTION", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "purchase", type: "events" }, period: "Day", total_intervals: 14, date_to: "2025-05-20", cumulative: true }],
  // Custom brackets group the kernels' returns as the general scan's (retention/brackets.ts, applied after either).
  ["daily recurring retention in custom brackets", { insight: "RETENTION", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 14, date_to: "2025-05-20", retention_custom_brackets: [1, 3, 7] }],
  ["weekly first-time retention in custom brackets, rolling", { insight: "RETENTION", retention_type: "retention_first_time", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Week", total_intervals: 8, retention_custom_brackets: [2, 4], cumulative: true }],
];
const PATHS: [string, Record<string, unknown>][] = [
  ["pageview paths", { insight: "PATHS", include_event_types: ["$pageview"], ...last60 }],
  ["paths of every event, five steps", { insight: "PATHS", step_limit: 5, ...last60 }],
  ["paths up to an end point", { insight: "PATHS", include_event_types: ["$pageview", "custom_event"], end_point: "signed_up", ...last60 }],
  ["paths from a start point", { insight: "PATHS", include_event_types: ["$pageview", "custom_event"], start_point: "signed_up", step_limit: 4, ...last60 }],
  ["paths of Chrome or pro users' page views, test accounts left out", { insight: "PATHS", include_event_types: ["$pageview"], properties: { type: "AND", values: [chromeOrPro] }, filter_test_accounts: true, ...last60 }],
  ["paths with exclusions, groupings and cleaning", { insight: "PATHS", include_event_types: ["$pageview"], exclude_events: ["/pricing"], path_groupings: ["/docs/*"], local_path_cleaning_filters: [{ regex: "\\d+", alias: ":id" }], path_replacements: true, ...last60 }],
];
/** Property aggregation and 24-hour windows: the kernels decline them (retention/index.ts), both runs take the general scan. */
const DECLINED_RETENTION: [string, Record<string, unknown>][] = [
  ["daily retention in custom brackets, twice a day", { insight: "RETENTION", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 14, date_to: "2025-05-20", minimum_occurrences: 2, retention_custom_brackets: [2, 5] }],
  ["weekly sign-up to purchase, summing the amount", { insight: "RETENTION", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: "purchase", type: "events" }, period: "Week", total_intervals: 8, aggregation_type: "sum", aggregation_property: "amount" }],
  ["daily purchases, the average amount by plan", { insight: "RETENTION", target_entity: { id: "purchase", type: "events" }, returning_entity: { id: "purchase", type: "events" }, period: "Day", total_intervals: 14, date_to: "2025-05-20", aggregation_type: "avg", aggregation_property: "amount", breakdown: "plan", breakdown_type: "person" }],
  ["daily retention over 24-hour windows by browser", { insight: "RETENTION", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 14, date_to: "2025-05-20", time_window_mode: "24_hour_windows", breakdown: "$browser", breakdown_type: "event" }],
  ["weekly first-time retention over 24-hour windows", { insight: "RETENTION", retention_type: "retention_first_time", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Week", total_intervals: 8, time_window_mode: "24_hour_windows" }],
];
const CORRELATION: [string, Record<string, unknown>][] = [
  ["event correlation", { ...threeSteps, funnel_correlation_type: "events" }],
  ["event property correlation", { ...threeSteps, funnel_correlation_type: "event_with_properties", funnel_correlation_event_names: ["activated", "$pageleave", "$autocapture", "$identify", "$screen", "insight_created"] }],
  // Without $autocapture among the events their properties are read (with it, elements chains: correlation/autocapture.ts).
  ["event property correlation of properties", { ...threeSteps, funnel_correlation_type: "event_with_properties", funnel_correlation_event_names: ["activated", "$pageleave", "$screen", "insight_created"] }],
  ["person property correlation", { ...threeSteps, funnel_correlation_type: "properties", funnel_correlation_names: ["$all"] }],
];
const STICKINESS: [string, Record<string, unknown>][] = [
  ["stickiness under an event and a cohort condition", { insight: "STICKINESS", events: [{ id: "$pageview", properties: [{ key: "$browser", value: "Chrome", type: "event" }] }], properties: [{ key: "id", value: 1, type: "cohort" }], ...last60 }],
  ["daily stickiness", { insight: "STICKINESS", events: [{ id: "$pageview" }], ...last60 }],
  ["weekly stickiness of any event", { insight: "STICKINESS", events: [{ id: null, type: "events" }], date_from: "-90d", interval: "week" }],
  ["stickiness of two series against the previous period", { insight: "STICKINESS", events: [{ id: "$pageview" }, { id: "signed_up" }], compare: true, date_from: "-30d", interval: "day" }],
];

describe("stickiness, lifecycle, retention, paths and correlation read from the columns equal the general scan's", () => {
  const cases: (readonly [string, Record<string, unknown>, Compute])[] = [
    ...STICKINESS.map(([name, filter]) => [name, filter, computeStickiness] as const),
    ...LIFECYCLE.map(([name, filter]) => [name, filter, computeLifecycle] as const),
    ...RETENTION.map(([name, filter]) => [name, filter, computeRetention] as const),
    ...PATHS.map(([name, filter]) => [name, filter, computePaths] as const),
    ...CORRELATION.map(([name, filter]) => [name, filter, computeCorrelation] as const),
  ];
  for (const [name, filter, compute] of cases) it(name, () => equalsGeneralScan(compute, filter, /"(count|value|success_count)":[1-9]/));
  for (const [name, filter] of DECLINED_RETENTION) it(name, () => equalsGeneralScan(computeRetention, filter, /"count":[1-9]/, false));
});

describe("correlation aggregated by groups (groups' funnels are not partitioned) equals the general scan's", () => {
  const byGroups = { ...CORRELATION[0]![1], aggregation_group_type_index: 0 };
  it("group property correlation reads the groups' properties", () =>
    equalsGeneralScan(computeCorrelation, { ...byGroups, funnel_correlation_type: "properties", funnel_correlation_names: ["$all"] }, /"success_count":[1-9]/, false));
  it("which groups of an industry dropped off", () =>
    equalsGeneralScan(
      (events, filter, ctx) => correlationActors(events, filter, ctx, { funnel_correlation_property_values: [{ key: "industry", value: "software", operator: "exact", type: "group", group_type_index: 0 }], funnel_correlation_person_converted: "false" }),
      byGroups,
      /"key":"/,
      false,
    ));
});

describe("the actors behind a funnel, read from the columns, are the general scan's", () => {
  const cases: [string, Compute][] = [
    ["who reached step 2", (events, filter, ctx) => funnelActors(events, filter, ctx, { funnel_step: 2 })],
    ["who dropped off before step 3", (events, filter, ctx) => funnelActors(events, filter, ctx, { funnel_step: -3 })],
    ["who reached step 2 on Chrome", (events, filter, ctx) => funnelActors(events, { ...(filter as object), breakdown: "$browser", breakdown_type: "event" }, ctx, { funnel_step: 2, funnel_step_breakdown: "Chrome" })],
    ["who converted after an event", (events, filter, ctx) => correlationActors(events, filter, ctx, { funnel_correlation_person_entity: { id: "$pageleave", type: "events" }, funnel_correlation_person_converted: "true" })],
    ["who did an event, converted or not", (events, filter, ctx) => correlationActors(events, filter, ctx, { funnel_correlation_person_entity: { id: "$pageleave", type: "events" } })],
    ["which persons of a plan dropped off", (events, filter, ctx) => correlationActors(events, filter, ctx, { funnel_correlation_property_values: [{ key: "plan", value: "pro", operator: "exact", type: "person" }], funnel_correlation_person_converted: "false" })],
  ];
  for (const [name, compute] of cases) it(name, () => equalsGeneralScan(compute, CORRELATION[0]![1], /"key":[1-9]/));
  // A conversion trend's actors come from the general scan over either input (its journeys), never from the parts.
  const trendDay = { ...threeSteps, events: funnelSteps("$pageview", "signed_up"), funnel_viz_type: "trends", interval: "day" };
  /** The actors of the trend's first day with a conversion (or, dropped off, without all converting), as that engine counts it. */
  const firstConvertingDay = (dropOff: boolean): Compute => (events, filter, ctx) => {
    const [trend] = computeFunnel(events, filter, ctx) as { data: number[]; days: string[] }[];
    const day = trend!.days[trend!.data.findIndex((rate) => (dropOff ? rate < 100 : rate > 0))]!;
    return funnelActors(events, filter, ctx, { entrance_period_start: `${day} 00:00:00`, drop_off: dropOff });
  };
  for (const dropOff of [false, true]) {
    it(`who entered a conversion trend's day and ${dropOff ? "dropped off" : "converted"}`, () => equalsGeneralScan(firstConvertingDay(dropOff), trendDay, /"key":[1-9]/, false));
  }
});

/**
 * A distinct id without a person is an actor of its own, listed only in `missing_persons`: each engine numbers such
 * actors its own way (negative keys), so they are compared as one kind, in their places in the list.
 */
const withoutPersonKeys = (rows: { key: unknown; value: unknown }[]) => rows.map((row) => (typeof row.key === "number" && row.key < 0 ? { ...row, key: "no person" } : row));

const TREND_ACTORS: [string, Record<string, unknown>, Record<string, unknown>][] = [
  ["the events of a 60-day total", { events: [{ id: "$pageview" }], ...last60 }, { entity_order: 0 }],
  ["the daily actives of one day", { events: [{ id: "$pageview", math: "dau" }], date_from: "2025-05-20", date_to: "2025-05-20" }, { entity_order: 0 }],
  ["a filtered series' events by week", { events: [{ id: "$pageview", properties: [chromeOrPro] }], date_from: "-60d", interval: "week", filter_test_accounts: true }, { entity_order: 0 }],
  ["a browser's events", { events: [{ id: "$pageview" }], breakdown: "$browser", breakdown_type: "event", ...last60 }, { entity_order: 0, breakdown_value: "Chrome" }],
  ["the events of the other browsers", { events: [{ id: "$pageview" }], breakdown: "$browser", breakdown_type: "event", breakdown_limit: 2, ...last60 }, { entity_order: 0, breakdown_value: "$$_posthog_breakdown_other_$$" }],
  ["the events without a plan", { events: [{ id: null, type: "events" }], breakdown: "plan", breakdown_type: "event", ...last60 }, { entity_order: 0, breakdown_value: "$$_posthog_breakdown_null_$$" }],
  ["every row but the hidden other", { events: [{ id: "$pageview" }], breakdown: "$browser", breakdown_type: "event", breakdown_limit: 2, breakdown_hide_other_aggregation: true, ...last60 }, { entity_order: 0 }],
  ["a person property's value", { events: [{ id: "$pageview" }], breakdown: "plan", breakdown_type: "person", ...last60 }, { entity_order: 0, breakdown_value: "pro" }],
  // Asked by its own value, a browser the limit folds into other is still its own events (test_trends_persons.py::test_trends_breakdown_by_boolean).
  ["a browser beyond the limit", { events: [{ id: "$pageview" }], breakdown: "$browser", breakdown_type: "event", breakdown_limit: 1, ...last60 }, { entity_order: 0, breakdown_value: "Safari" }],
];

describe("the actors behind a trend, read from the columns, are the general scan's", () => {
  for (const [name, filter, point] of TREND_ACTORS) {
    it(name, () => {
      const table = store.analysisData.events("1");
      const records: EventList = [...table].map((row) => row.toJSON());
      const before = parallelScanStats().partitioned;
      const fromColumns = trendActors(table, filter, analysisContextOf(store, NOW, table), point);
      expect(parallelScanStats().partitioned).toBeGreaterThan(before);
      expect(fromColumns.filter((row) => typeof row.key === "number" && row.key > 0).length).toBeGreaterThan(0);
      expect(withoutPersonKeys(fromColumns)).toEqual(withoutPersonKeys(trendActors(records, filter, analysisContextOf(store, NOW, records), point)));
    });
  }
});

describe("the actors behind stickiness, lifecycle and retention, read from the columns, are the general scan's", () => {
  const cases: [string, Compute][] = [
    ["stickiness: active on exactly 3 days", (events, _filter, ctx) => stickinessActors(events, STICKINESS[1]![1], ctx, { stickiness_days: 3 })],
    ["stickiness under an event and a cohort condition: active on one day", (events, _filter, ctx) => stickinessActors(events, STICKINESS[0]![1], ctx, { stickiness_days: 1 })],
    ["lifecycle: returning on a day", (events, _filter, ctx) => lifecycleActors(events, LIFECYCLE[0]![1], ctx, { target_date: "2025-05-20", lifecycle_type: "returning" })],
    ["lifecycle: resurrecting on a day", (events, _filter, ctx) => lifecycleActors(events, LIFECYCLE[0]![1], ctx, { target_date: "2025-05-20", lifecycle_type: "resurrecting" })],
    ["retention: a recurring cohort", (events, _filter, ctx) => retentionActors(events, RETENTION[0]![1], ctx, { selected_interval: 1 })],
    ["retention: a first-time cohort", (events, _filter, ctx) => retentionActors(events, RETENTION[2]![1], ctx, { selected_interval: 1 })],
  ];
  for (const [name, compute] of cases) {
    it(name, () => {
      const table = store.analysisData.events("1");
      const records: EventList = [...table].map((row) => row.toJSON());
      const before = parallelScanStats().partitioned;
      const fromColumns = compute(table, {} as never, analysisContextOf(store, NOW, table)) as ActorRow[];
      expect(parallelScanStats().partitioned).toBeGreaterThan(before);
      expect(fromColumns.filter((row) => typeof row.key === "number" && row.key > 0).length).toBeGreaterThan(0);
      expect(withoutPersonKeys(fromColumns)).toEqual(withoutPersonKeys(compute(records, {} as never, analysisContextOf(store, NOW, records)) as ActorRow[]));
    });
  }
});

describe("the actors behind paths, read from the columns, are the general scan's", () => {
  type Edge = { source: string; target: string };
  /** Points on a paths answer: an edge, what leaves its source, what reaches its target, paths ending there. */
  const pointsOf = (edges: Edge[]): Record<string, string>[] => [
    { path_start_key: edges[0]!.source, path_end_key: edges[0]!.target },
    { path_start_key: edges[1]!.source },
    { path_end_key: edges[2]!.target },
    { path_dropoff_key: edges[3]!.target },
    { path_start_key: "0_/", path_end_key: edges[0]!.target },
    {},
    // The cut middle of paths longer than the step limit between two points.
    ...edges.filter((e) => e.target.endsWith("_...")).slice(0, 1).map((e) => ({ path_start_key: e.source, path_end_key: e.target })),
  ];
  const cases: [string, Record<string, unknown>][] = [
    ["pageview paths", PATHS[0]![1]],
    ["paths of every event between two points, the middle cut", { insight: "PATHS", include_event_types: ["$pageview", "custom_event"], start_point: "https://app.example.com/dashboard", end_point: "https://app.example.com/pricing", step_limit: 4, ...last60 }],
    ["filtered, cleaned and grouped paths", PATHS[5]![1]],
  ];
  for (const [name, filter] of cases) {
    it(name, () => {
      const table = store.analysisData.events("1");
      const records: EventList = [...table].map((row) => row.toJSON());
      const edges = computePaths(records, filter, analysisContextOf(store, NOW, records)) as Edge[];
      expect(edges.length).toBeGreaterThan(3);
      if (filter.start_point) expect(edges.some((e) => e.target.endsWith("_..."))).toBe(true);
      for (const point of pointsOf(edges)) {
        const before = parallelScanStats().partitioned;
        const fromColumns = pathActors(table, filter, analysisContextOf(store, NOW, table), point);
        expect(parallelScanStats().partitioned).toBeGreaterThan(before);
        expect(fromColumns, JSON.stringify(point)).toEqual(pathActors(records, filter, analysisContextOf(store, NOW, records), point));
        if (!String(point.path_start_key).startsWith("0_")) expect(fromColumns.length, JSON.stringify(point)).toBeGreaterThan(0);
      }
    });
  }
});

describe("an analysis for a request", () => {
  const cases: [AnalysisKind, Record<string, unknown>][] = [
    ["TRENDS", { events: [{ id: "$pageview" }, { id: "signed_up", math: "dau" }], breakdown: "$browser", breakdown_type: "event", ...last60 }],
    ["TRENDS", { events: [{ id: "$pageview", properties: [chromeOrPro] }, { id: null, type: "events", math: "p90", math_property: "duration_ms" }], filter_test_accounts: true, ...last60 }],
    ["FUNNELS", { ...threeSteps, funnel_viz_type: "trends" }],
    ["FUNNELS", threeSteps],
    ["FUNNEL_CORRELATION", CORRELATION[0]![1]],
    ["STICKINESS", STICKINESS[3]![1]],
  ];
  for (const [kind, filter] of cases) {
    const shape = filter.filter_test_accounts ? ", filtered, a property math" : String(filter.funnel_viz_type ?? "");
    it(`leaves every scan to the workers, with the same answer (${kind.toLowerCase()}${shape && ` ${shape}`})`, async () => {
      const service = createAnalysisService(store, createClock(NOW.getTime()));
      const project = store.projects.get("1")!;
      const { workerChunks, mainChunks } = parallelScanStats();
      const pkg = await service.runAsync(project, kind, filter, { refresh: true });
      // Every part ran on a worker: the main thread only waited for their answers, with its event loop free.
      expect(parallelScanStats().workerChunks).toBeGreaterThan(workerChunks);
      expect(parallelScanStats().mainChunks).toBe(mainChunks);
      expect(pkg.result).toEqual(service.run(project, kind, filter, { refresh: true }).result);
    });
  }

  const actorCases: [ActorsKind, Record<string, unknown>, Record<string, unknown>][] = [
    ["FUNNELS", threeSteps, { funnel_step: 2 }],
    ["TRENDS", TREND_ACTORS[4]![1], TREND_ACTORS[4]![2]],
    ["TRENDS", TREND_ACTORS[1]![1], TREND_ACTORS[1]![2]],
    ["PATHS", PATHS[0]![1], { path_start_key: "1_https://app.example.com/dashboard", path_end_key: "2_https://app.example.com/settings" }],
  ];
  for (const [kind, filter, point] of actorCases) {
    it(`leaves every scan of the actors of ${kind.toLowerCase()} to the workers, with the same actors (${JSON.stringify(point)})`, async () => {
      const service = createAnalysisService(store, createClock(NOW.getTime()));
      const project = store.projects.get("1")!;
      const { workerChunks, mainChunks } = parallelScanStats();
      const pkg = await service.actorsAsync(project, kind, filter, point);
      expect(parallelScanStats().workerChunks).toBeGreaterThan(workerChunks);
      expect(parallelScanStats().mainChunks).toBe(mainChunks);
      expect(pkg.is_cached).toBe(false);
      expect(pkg.actors.length).toBeGreaterThan(0);
      expect(pkg.actors).toEqual(createAnalysisService(store, createClock(NOW.getTime())).actors(project, kind, filter, point).actors);
    });
  }
});

/**
 * A question asked for a request (`runAsync`: scans on the workers, the analysis run again with their answers) is
 * planned once: the same answer however many threads plan it, and when the count a plan would choose changes
 * between the passes of one request (issue 36: a funnel's conversion trends came out [0, 0, 2.33, …] where one
 * thread gave [2.65, 0.63, 1.17, …]). The counts are forced (`threads`), not left to the machine's load.
 */
describe("an analysis for a request gives one answer, however its scans are planned", () => {
  const cases: [AnalysisKind, string, Record<string, unknown>][] = [
    ["FUNNELS", "conversion trends", { ...threeSteps, funnel_viz_type: "trends" }],
    ["FUNNELS", "steps", threeSteps],
    ["FUNNELS", "strict steps by browser", { ...threeSteps, funnel_order_type: "strict", breakdown: "$browser", breakdown_type: "event" }],
    ["FUNNEL_CORRELATION", "event correlation", CORRELATION[0]![1]],
    ["RETENTION", "first-time retention", RETENTION[2]![1]],
    ["PATHS", "pageview paths", PATHS[0]![1]],
  ];
  const plans: [string, number[]][] = [
    ["on 2 threads", [2]],
    ["on 3 threads", [3]],
    ["on 8 threads", [8]],
    ["planned for 2, then 3 when run again", [2, 3]],
    ["planned for 3, then 1 (the general scan) when run again", [3, 1]],
    ["planned for 1, then 2 when run again", [1, 2]],
  ];
  /** Thread counts in turn, the last one kept: each call is a plan (or a run's replan, were it made again). */
  const inTurn = (counts: number[]) => {
    let k = 0;
    return () => counts[Math.min(k++, counts.length - 1)]!;
  };

  for (const [kind, shape, filter] of cases) {
    it(`${kind.toLowerCase()}, ${shape}`, async () => {
      const service = createAnalysisService(store, createClock(NOW.getTime()));
      const project = store.projects.get("1")!;
      onTestFinished(() => setParallelScan({ threads: undefined }));
      setParallelScan({ threads: () => 1 });
      const single = service.run(project, kind, filter, { refresh: true }).result;
      expect(JSON.stringify(single)).toMatch(/[1-9]/);
      for (const [name, counts] of plans) {
        setParallelScan({ threads: inTurn(counts) });
        const pkg = await service.runAsync(project, kind, filter, { refresh: true });
        expect(pkg.result, name).toEqual(single);
      }
    });
  }
});

/**
 * One planner decides the engine, from the request alone (src/analyses/plan.ts): a field it does not know sends the
 * request to the general scan, so a field added later that changes counts is never silently ignored by the kernels.
 * Which engine ran is seen from the kernels' own counters: the general scan runs no kernel part.
 */
describe("a request field the planner does not know", () => {
  const kernelParts = () => parallelScanStats().mainChunks + parallelScanStats().workerChunks;
  const cases: [AnalysisKind, Record<string, unknown>][] = [
    ["TRENDS", { events: [{ id: "$pageview" }], ...last60 }],
    ["STICKINESS", STICKINESS[1]![1]],
    ["LIFECYCLE", LIFECYCLE[1]![1]],
    ["FUNNELS", threeSteps],
    ["FUNNEL_CORRELATION", CORRELATION[0]![1]],
    ["RETENTION", RETENTION[0]![1]],
    ["PATHS", PATHS[0]![1]],
  ];
  for (const [kind, filter] of cases) {
    it(`sends ${kind.toLowerCase()} to the general scan, with the kernels' answer`, () => {
      const service = createAnalysisService(store, createClock(NOW.getTime()));
      const project = store.projects.get("1")!;
      const [parts, engines] = [kernelParts(), analysisStats().engines];
      const fromKernels = service.run(project, kind, filter, { refresh: true }).result;
      expect(kernelParts()).toBeGreaterThan(parts);
      expect(analysisStats().engines.columns).toBe(engines.columns + 1);

      const [partsThen, enginesThen] = [kernelParts(), analysisStats().engines];
      const unknown = service.run(project, kind, { ...filter, a_field_from_the_future: true }, { refresh: true }).result;
      expect(kernelParts()).toBe(partsThen);
      expect(analysisStats().engines.general).toBe(enginesThen.general + 1);
      expect(JSON.stringify(unknown)).toMatch(/[1-9]/);
      // Persons URLs carry the request's fields back, the unknown one too; every number is the same.
      expect(JSON.parse(JSON.stringify(unknown).replaceAll("&a_field_from_the_future=true", ""))).toEqual(fromKernels);
    });
  }

  it.each([
    ["a property aggregation", DECLINED_RETENTION.find(([name]) => name.includes("summing the amount"))![1]],
    ["24-hour windows", DECLINED_RETENTION.find(([name]) => name.includes("over 24-hour windows by browser"))![1]],
  ])("sends retention with %s to the general scan", (_shape, filter) => {
    const service = createAnalysisService(store, createClock(NOW.getTime()));
    const [parts, engines] = [kernelParts(), analysisStats().engines];
    const result = service.run(store.projects.get("1")!, "RETENTION", filter, { refresh: true }).result;
    expect(kernelParts()).toBe(parts);
    expect(analysisStats().engines.general).toBe(engines.general + 1);
    expect(JSON.stringify(result)).toMatch(/"count":[1-9]/);
  });

  it("in a series entity sends the request to the general scan too", () => {
    const service = createAnalysisService(store, createClock(NOW.getTime()));
    const project = store.projects.get("1")!;
    const filter = { events: [{ id: "$pageview", math: "dau" }], ...last60 };
    const fromKernels = service.run(project, "TRENDS", filter, { refresh: true }).result;
    const parts = kernelParts();
    const unknown = service.run(project, "TRENDS", { ...filter, events: [{ id: "$pageview", math: "dau", math_from_the_future: "x" }] }, { refresh: true }).result;
    expect(kernelParts()).toBe(parts);
    expect(unknown).toEqual(fromKernels);
  });
});

/**
 * What may change while a request's analysis runs on the workers changes who runs its parts, never how they are
 * cut: workers that become ready between its passes, and a machine that becomes too busy for the workers.
 */
describe("an analysis for a request, while the threads change under it", () => {
  const cases: [AnalysisKind, Record<string, unknown>][] = [
    ["FUNNELS", { ...threeSteps, funnel_viz_type: "trends" }],
    ["FUNNELS", threeSteps],
    ["PATHS", PATHS[0]![1]],
    ["RETENTION", RETENTION[2]![1]],
  ];
  for (const [kind, filter] of cases) {
    it(`gives the single thread's answer: ${kind.toLowerCase()} ${String(filter.funnel_viz_type ?? "")}`, async () => {
      const service = createAnalysisService(store, createClock(NOW.getTime()));
      const project = store.projects.get("1")!;
      onTestFinished(async () => {
        setParallelScan({ threads: undefined, workers: WORKERS, maxLoad: Infinity });
        await parallelScanReady();
      });
      setParallelScan({ threads: () => 1 });
      const single = service.run(project, kind, filter, { refresh: true }).result;
      setParallelScan({ threads: undefined, workers: 1 });
      await parallelScanReady();

      // One worker ready when it is planned; three by its later passes.
      const growing = service.runAsync(project, kind, filter, { refresh: true });
      setParallelScan({ workers: 3 });
      await parallelScanReady();
      expect((await growing).result).toEqual(single);

      // Planned on an idle machine; every later pass finds the cores busy and runs on the main thread.
      const busy = service.runAsync(project, kind, filter, { refresh: true });
      setParallelScan({ maxLoad: -1 });
      expect((await busy).result).toEqual(single);
    });
  }
});

const T0 = Date.parse("2025-01-01T00:00:00Z");
const event = (n: number, at: number, distinctId = `user-${n % 97}`): EventRecord => ({
  uuid: `0190a1b2-c3d4-7e5f-8a9b-${String(n).padStart(12, "0")}`,
  project_id: "1",
  event: n % 3 ? "$pageview" : "signed_up",
  distinct_id: distinctId,
  timestamp: at,
  properties: n % 5 ? { $browser: ["Chrome", "Safari", "Firefox"][n % 3] } : {},
  elements_chain: "",
});

const DAY = 86_400_000;
const PER_DAY = 6_000;
const ROWS = 40 * PER_DAY;

/** 40 days of events at an even pace: ranges big enough that the workers still scan while the main thread writes. */
function bigTable(): EventTable {
  const table = new EventTable("1");
  table.addAll(Array.from({ length: ROWS }, (_, n) => event(n, T0 + (n * DAY) / PER_DAY)));
  return table;
}

describe("an analysis for a request, while captures arrive", () => {
  it("starts over on the new data when the data changes while the workers scan", async () => {
    const clock = createClock(NOW.getTime());
    const own = await createStore(generatedState({ seed: 12, now: NOW, events: 20_000 }, NOW.getTime()), clock, null, { persist: false });
    const service = createAnalysisService(own, clock);
    const project = own.projects.get("1")!;
    const filter = { events: [{ id: "$pageview" }], date_from: "-7d", interval: "day" };
    const before = service.run(project, "TRENDS", filter, { refresh: true }).result as { count: number }[];
    const asked = service.runAsync(project, "TRENDS", filter, { refresh: true });
    // Its first run waits for the workers now; these land before its next run.
    const late = Array.from({ length: 50 }, (_, n) => ({ ...event(n, NOW.getTime() - 3_600_000), project_id: "1", event: "$pageview" }));
    await own.events.append("1", late);
    const answer = (await asked).result as { count: number }[];
    expect(answer[0]!.count).toBe(before[0]!.count + 50);
    expect(answer).toEqual(service.run(project, "TRENDS", filter, { refresh: true }).result);
  });

  it("starts a funnel over on the new data when the data changes while its passes run", async () => {
    const clock = createClock(NOW.getTime());
    const own = await createStore(generatedState({ seed: 13, now: NOW, events: 20_000 }, NOW.getTime()), clock, null, { persist: false });
    const service = createAnalysisService(own, clock);
    const project = own.projects.get("1")!;
    const filter = { insight: "FUNNELS", events: funnelSteps("$pageview", "signed_up"), date_from: "-7d" };
    const before = service.run(project, "FUNNELS", filter, { refresh: true }).result as { count: number }[];
    const asked = service.runAsync(project, "FUNNELS", filter, { refresh: true });
    // Twenty new persons view a page then sign up, an hour ago: they land while the workers run the first pass.
    const late = Array.from({ length: 20 }, (_, n) => [
      { ...event(n, NOW.getTime() - 3_600_000, `late-${n}`), event: "$pageview" },
      { ...event(n + 100, NOW.getTime() - 3_000_000, `late-${n}`), event: "signed_up" },
    ]).flat();
    await own.events.append("1", late);
    const answer = (await asked).result as { count: number }[];
    expect(answer.map((s) => s.count)).toEqual(before.map((s) => s.count + 20));
    expect(answer).toEqual(service.run(project, "FUNNELS", filter, { refresh: true }).result);
  });
});


const jobFor = (table: EventTable, snap: ScanSnapshot, mode: CountJob["mode"]): CountJob => ({
  start: 0,
  end: snap.length,
  wanted: Uint8Array.from({ length: snap.names }, (_, id) => (table.nameOfId(id) === "$pageview" ? 1 : 0)),
  edges: Float64Array.from({ length: 41 }, (_, d) => T0 + d * DAY),
  mode,
  keyPos: mode === "breakdown" ? table.keyPositions("$browser").slice(0, snap.shapes) : null,
  words: Math.ceil(snap.distinctIds / 32),
  didCode: null,
  filter: null,
  mathPos: null,
  num: null,
  sessionOf: null,
  noSession: 0,
  groupOf: null,
});

/** The columns copied: what a scan of the snapshot must see whatever happens to the table afterwards. */
const frozen = (snap: ScanSnapshot): ScanSnapshot => ({ ...snap, ts: snap.ts.slice(0, snap.length), name: snap.name.slice(0, snap.length), did: snap.did.slice(0, snap.length), shape: snap.shape.slice(0, snap.length), valueStart: snap.valueStart.slice(0, snap.length), vals: snap.vals.slice() });

/** A result with breakdown rows ordered by value code: threads meet the values in any order, the sums are what count. */
function canonical(result: CountResult): unknown {
  if (result.mode !== "breakdown") return result;
  const order = [...result.codes.keys()].sort((a, b) => result.codes[a]! - result.codes[b]!);
  return { codes: order.map((j) => result.codes[j]), rows: order.map((j) => Array.from(result.rows[j]!)) };
}

describe("a partitioned scan", () => {
  it("cuts the rows into contiguous ranges that cover them once", () => {
    expect(splitRange(10, 20, 3)).toEqual([
      [10, 14],
      [14, 18],
      [18, 20],
    ]);
    expect(splitRange(0, 2, 3)).toEqual([
      [0, 1],
      [1, 2],
      [2, 2],
    ]);
  });

  for (const mode of ["count", "unique", "breakdown"] as const) {
    it(`merges ${mode} results exactly and reads the rows as they were at its start`, () => {
      // The workers alone count: their results, merged, must make the answer.
      setParallelScan({ mainCounts: false });
      onTestFinished(() => setParallelScan({ mainCounts: true }));
      const workerChunks = parallelScanStats().workerChunks;
      const table = bigTable();
      const snap = table.scanSnapshot();
      const job = jobFor(table, snap, mode);
      const expected = countRows(frozen(snap), job);
      const pending = startCount(snap, job);
      expect(pending.partitions).toBeGreaterThan(WORKERS);
      // While the workers scan: capture appends, late events go in between, a person's events are deleted,
      // and every timestamp moves by a day.
      table.addAll(Array.from({ length: 5_000 }, (_, k) => event(500_000 + k, T0 + 40 * DAY + k)));
      table.addAll(Array.from({ length: 2_000 }, (_, k) => event(600_000 + k, T0 + k * 1_000, "late-user")));
      expect(table.retainDistinctIds((id) => id !== "user-1")).toBe(true);
      table.shiftTimestamps(DAY);
      expect(table.length).toBe(ROWS + 7_000 - Math.ceil(ROWS / 97) - Math.ceil(5_000 / 97));
      expect(canonical(pending.finish())).toEqual(canonical(expected));
      expect(parallelScanStats().workerChunks - workerChunks).toBe(pending.partitions);
    });
  }

  it("stays on the main thread below the size that repays the workers, and when no core is idle", () => {
    const table = bigTable();
    const snap = table.scanSnapshot();
    const job = jobFor(table, snap, "count");
    const expected = countRows(snap, job);
    for (const settings of [{ minRows: ROWS + 1 }, { maxLoad: -Infinity }]) {
      setParallelScan(settings);
      onTestFinished(() => setParallelScan({ minRows: 0, maxLoad: Infinity }));
      const before = parallelScanStats();
      const pending = startCount(snap, job);
      expect(pending.partitions).toBe(1);
      expect(pending.finish()).toEqual(expected);
      const after = parallelScanStats();
      expect([after.partitioned, after.workerChunks]).toEqual([before.partitioned, before.workerChunks]);
      expect(after.mainChunks).toBeGreaterThan(before.mainChunks);
      setParallelScan({ minRows: 0, maxLoad: Infinity });
    }
  });

  it("gives the counts a single pass gives", () => {
    const table = bigTable();
    const snap = table.scanSnapshot();
    const job = jobFor(table, snap, "count");
    const result = startCount(snap, job).finish();
    if (result.mode !== "count") throw new Error("count expected");
    // Two thirds of each day's events are page views (n % 3 !== 0).
    expect(Array.from(result.counts)).toEqual(Array.from({ length: 40 }, (_, d) => [...Array(PER_DAY).keys()].filter((k) => (d * PER_DAY + k) % 3 !== 0).length));
  });
});

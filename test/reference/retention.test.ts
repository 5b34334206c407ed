/**
 * PostHog's retention query-runner tests, ported (posthog/hogql_queries/insights/retention/test/
 * test_retention_query_runner.py, the newest stored version). Data, requests and the numbers asserted are PostHog's.
 * Tests that cannot be ported are listed in SKIPPED.md.
 */
import { describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.ts";
import { P, referenceDocument, withReference, type RefData, type RefEvent, type Reference } from "./support.ts";
import { createEvents, D, data, type Ev } from "./retention-support.ts";

/** Persons of several distinct ids each (`[ids]` or `[[ids], properties]`). */
const persons = (...ids: (string[] | [string[], Record<string, unknown>])[]): RefData["persons"] =>
  ids.map((p) => (Array.isArray(p[0]) ? { distinct_ids: p[0] as string[], properties: p[1] as Record<string, unknown> } : { distinct_ids: p as string[] }));

interface Row {
  label: string;
  date: string;
  breakdown_value?: string | number;
  values: { count: number; label: string }[];
}

const node = (q: Record<string, unknown>) => ({ kind: "RetentionQuery", ...q, retentionFilter: q.retentionFilter ?? {} });
const results = async (ref: Reference, q: Record<string, unknown>): Promise<Row[]> => (await ref.query<{ results: Row[] }>(node(q))).results;
const run = (d: RefData, q: Record<string, unknown>) => withReference(d, (ref) => results(ref, q));

const counts = (rows: Row[]) => rows.map((r) => r.values.map((v) => v.count));
const labels = (rows: Row[]) => rows.map((r) => r.label);
const dates = (rows: Row[]) => rows.map((r) => Date.parse(r.date));
const byBreakdown = (rows: Row[], value: string) => counts(rows.filter((r) => String(r.breakdown_value) === value));
/** PostHog's `pad`: each row filled with zeros to the first row's length. */
const pad = (rows: number[][]) => rows.map((r) => [...r, ...Array<number>(rows[0]!.length - r.length).fill(0)]);
const dayLabels = (n: number, period = "Day") => Array.from({ length: n }, (_, i) => `${period} ${i}`);
const utc = (...parts: [number, number, number, number?]) => Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3] ?? 0);

/** The actors of one cohort (InsightActorsQuery `interval`), as their distinct ids. */
async function actorIds(ref: Reference, interval: number, q: Record<string, unknown>, breakdown?: string[], search?: string): Promise<string[][]> {
  const res = await ref.query<{ results: unknown[][] }>({
    kind: "ActorsQuery",
    select: ["person"],
    ...(search ? { search } : {}),
    source: { kind: "InsightActorsQuery", interval, source: node(q), ...(breakdown ? { breakdown } : {}) },
  });
  return res.results.map((row) => ((row[0] as { distinct_ids?: string[]; id: string }).distinct_ids ?? [(row[0] as { id: string }).id]));
}

/**
 * PostHog's `run_actors_query`: the cohort's actors with their `appearances` (and the columns asked), most
 * appearances first, then by actor id. `actor` is our column for PostHog's `group` too.
 */
async function actorsWithAppearances(ref: Reference, interval: number, q: Record<string, unknown>, select: string[] = [], breakdown?: string[]): Promise<unknown[][]> {
  const res = await ref.query<{ results: unknown[][] }>({
    kind: "ActorsQuery",
    select: ["actor", "appearances", ...select],
    orderBy: ["length(appearances) DESC", "actor_id"],
    source: { kind: "InsightActorsQuery", interval, source: node(q), ...(breakdown ? { breakdown } : {}) },
  });
  return res.results;
}
/** The appearances of the person with distinct id `id` among the rows. */
const appearancesOf = (rows: unknown[][], id: string) => rows.find(([actor]) => (actor as { distinct_ids: string[] }).distinct_ids.includes(id))?.[1];
/** Each row's actor (a person's distinct ids, a group's key) and the columns after it. */
const actorsAnd = (rows: unknown[][]) => rows.map(([actor, ...rest]) => [(actor as { distinct_ids?: string[]; id: string }).distinct_ids ?? (actor as { id: string }).id, ...rest]);

const twoPersons = () => persons(["person1", "alias1"], ["person2"]);
const standardEvents: Ev[] = [
  ["person1", D(0)],
  ["person1", D(1)],
  ["person1", D(2)],
  ["person1", D(5)],
  ["alias1", D(5, 9)],
  ["person1", D(6)],
  ["person2", D(1)],
  ["person2", D(2)],
  ["person2", D(3)],
  ["person2", D(6)],
];
const standardDayTable = pad([
  [1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0],
  [2, 2, 1, 0, 1, 2, 0, 0, 0, 0],
  [2, 1, 0, 1, 2, 0, 0, 0, 0],
  [1, 0, 0, 1, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0],
  [1, 1, 0, 0, 0, 0],
  [2, 0, 0, 0, 0],
  [0, 0, 0, 0],
  [0, 0, 0],
  [0, 0],
  [0],
]);

describe("retention periods and windows", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_default
  it("test_retention_default", async () => {
    const rows = await run(data(twoPersons(), createEvents(standardEvents)), { retentionFilter: { totalIntervals: 11 } });
    expect(counts(rows)).toEqual(pad([[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0], [0], [0], [0], [0], [0], [0], [0], [0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_day_interval
  it("test_day_interval", async () => {
    const rows = await run(data(twoPersons(), createEvents(standardEvents)), { dateRange: { date_to: D(10, 6) }, retentionFilter: { totalIntervals: 11 } });
    expect(rows).toHaveLength(11);
    expect(labels(rows)).toEqual(dayLabels(11));
    expect(Date.parse(rows[0]!.date)).toBe(utc(2020, 6, 10));
    expect(counts(rows)).toEqual(standardDayTable);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_month_interval
  it("test_month_interval", async () => {
    const p = persons([["person1", "alias1"], { email: "person1@test.com" }], [["person2"], { email: "person2@test.com" }]);
    const events = createEvents([
      ["person1", D(0, 5, -5)],
      ["person2", D(0, 5, -5)],
      ["person1", D(0, 5, -4)],
      ["person2", D(0, 5, -4)],
      ["person1", D(0, 5, -3)],
      ["person2", D(0, 5, -3)],
      ["person1", D(0, 5, -1)],
      ["person1", D(0, 5, 0)],
      ["person2", D(0, 5, 0)],
      ["person2", D(0, 5, 1)],
      ["person1", D(0, 5, 3)],
      ["person2", D(0, 5, 5)],
    ]);
    const rows = await run(data(p, events), { dateRange: { date_to: D(15, 0, 5) }, retentionFilter: { period: "Month", totalIntervals: 11 } });
    expect(labels(rows)).toEqual(dayLabels(11, "Month"));
    expect(counts(rows)).toEqual(
      pad([
        [2, 2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
        [2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
        [2, 0, 1, 2, 1, 0, 1, 0, 1],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 1, 0, 0],
        [2, 1, 0, 1, 0, 1],
        [1, 0, 0, 0, 1],
        [0, 0, 0, 0],
        [1, 0, 0],
        [0, 0],
        [1],
      ]),
    );
    expect(dates(rows)).toEqual(Array.from({ length: 11 }, (_, i) => utc(2020, i + 1, 1)));
  });

  const weekEvents = (): Ev[] => [
    ["person1", D(0)],
    ["person2", D(0)],
    ["person1", D(1)],
    ["person2", D(1)],
    ["person1", D(7)],
    ["person2", D(7)],
    ["person1", D(14)],
    ["person1", D(-6, 5, 1)],
    ["person2", D(-6, 5, 1)],
    ["person2", D(1, 5, 1)],
    ["person1", D(1, 5, 1)],
    ["person2", D(15, 5, 1)],
  ];
  const weekTable = pad([[2, 2, 1, 2, 2, 0, 1], [2, 1, 2, 2, 0, 1], [1, 1, 1, 0, 0], [2, 2, 0, 1], [2, 0, 1], [0, 0], [1]]);
  const emailPersons = () => persons([["person1", "alias1"], { email: "person1@test.com" }], [["person2"], { email: "person2@test.com" }]);

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_week_interval
  it("test_week_interval", async () => {
    const query = { dateRange: { date_to: D(10, 0, 1) }, retentionFilter: { period: "Week", totalIntervals: 7 } };
    const sunday = await run(data(emailPersons(), createEvents(weekEvents())), query);
    expect(labels(sunday)).toEqual(dayLabels(7, "Week"));
    expect(counts(sunday)).toEqual(weekTable);
    expect(dates(sunday)).toEqual([utc(2020, 6, 7), utc(2020, 6, 14), utc(2020, 6, 21), utc(2020, 6, 28), utc(2020, 7, 5), utc(2020, 7, 12), utc(2020, 7, 19)]);
    const monday = await run(data(emailPersons(), createEvents(weekEvents()), { weekStartDay: 1 }), query);
    expect(labels(monday)).toEqual(dayLabels(7, "Week"));
    expect(counts(monday)).toEqual(weekTable);
    expect(dates(monday)).toEqual([utc(2020, 6, 8), utc(2020, 6, 15), utc(2020, 6, 22), utc(2020, 6, 29), utc(2020, 7, 6), utc(2020, 7, 13), utc(2020, 7, 20)]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_interval_rounding
  it("test_interval_rounding", async () => {
    const rows = await run(data(emailPersons(), createEvents(weekEvents())), { dateRange: { date_to: D(14, 0, 1) }, retentionFilter: { period: "Week", totalIntervals: 7 } });
    expect(labels(rows)).toEqual(dayLabels(7, "Week"));
    expect(counts(rows)).toEqual(weekTable);
    expect(dates(rows)).toEqual([utc(2020, 6, 7), utc(2020, 6, 14), utc(2020, 6, 21), utc(2020, 6, 28), utc(2020, 7, 5), utc(2020, 7, 12), utc(2020, 7, 19)]);
  });

  const hourEvents = (): Ev[] => [
    ["person1", D(0, 6)],
    ["person2", D(0, 6)],
    ["person1", D(0, 7)],
    ["person2", D(0, 7)],
    ["person1", D(0, 8)],
    ["person2", D(0, 8)],
    ["person1", D(0, 10)],
    ["person1", D(0, 11)],
    ["person2", D(0, 11)],
    ["person2", D(0, 12)],
    ["person1", D(0, 14)],
    ["person2", D(0, 16)],
  ];
  const hourTable = pad([
    [2, 2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
    [2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
    [2, 0, 1, 2, 1, 0, 1, 0, 1],
    [0, 0, 0, 0, 0, 0, 0, 0],
    [1, 1, 0, 0, 1, 0, 0],
    [2, 1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1],
    [0, 0, 0, 0],
    [1, 0, 0],
    [0, 0],
    [1],
  ]);

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_hour_interval
  it("test_hour_interval", async () => {
    const rows = await run(data(emailPersons(), createEvents(hourEvents())), { dateRange: { date_to: D(0, 16, 0, 13) }, retentionFilter: { period: "Hour", totalIntervals: 11 } });
    expect(labels(rows)).toEqual(dayLabels(11, "Hour"));
    expect(counts(rows)).toEqual(hourTable);
    expect(dates(rows)).toEqual(Array.from({ length: 11 }, (_, i) => utc(2020, 6, 10, 6 + i)));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_hour_interval_team_timezone
  it("test_hour_interval_team_timezone", async () => {
    const rows = await run(data(emailPersons(), createEvents(hourEvents()), { timezone: "US/Pacific" }), { dateRange: { date_to: D(0, 16, 0, 13) }, retentionFilter: { period: "Hour", totalIntervals: 11 } });
    expect(labels(rows)).toEqual(dayLabels(11, "Hour"));
    expect(counts(rows)).toEqual(hourTable);
    expect(dates(rows)).toEqual(Array.from({ length: 11 }, (_, i) => utc(2020, 6, 10, 13 + i)));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_timezones
  it("test_timezones", async () => {
    const events = createEvents([
      ["person1", D(-1, 1)],
      ["person1", D(0, 1)],
      ["person1", D(1, 1)],
      ["person2", D(6, 1)],
      ["person2", D(6, 9)],
    ]);
    const query = { dateRange: { date_to: D(10, 6) }, retentionFilter: { totalIntervals: 11 } };
    const rows = await run(data(twoPersons(), events), query);
    const pacific = await run(data(twoPersons(), events, { timezone: "US/Pacific" }), query);
    expect(labels(pacific)).toEqual(dayLabels(11));
    expect(pacific[0]!.date).toBe("2020-06-10T00:00:00-07:00");
    expect(counts(rows)).toEqual(pad([[1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1], [0], [0], [0], [0], [1, 0, 0, 0, 0], [0], [0], [0], [0]]));
    expect(counts(pacific)).toEqual(pad([[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0], [0], [0], [0], [1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0], [0], [0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_day_interval_sampled
  it("test_day_interval_sampled", async () => {
    const rows = await run(data(twoPersons(), createEvents(standardEvents)), { dateRange: { date_to: D(10, 6) }, samplingFactor: 1, retentionFilter: { totalIntervals: 11 } });
    expect(rows).toHaveLength(11);
    expect(labels(rows)).toEqual(dayLabels(11));
    expect(Date.parse(rows[0]!.date)).toBe(utc(2020, 6, 10));
    expect(counts(rows)).toEqual(standardDayTable);
  });
});

const fivePersons = () => persons(["person1"], ["person2"], ["person3"], ["person4"], ["person5"]);
const rollingEvents = (extra = 1): Ev[] => [
  ["person1", D(0)],
  ["person1", D(3)],
  ...Array.from({ length: extra }, (): Ev => ["person1", D(4)]),
  ["person2", D(0)],
  ["person2", D(1)],
  ["person3", D(1)],
  ["person3", D(2)],
  ...Array.from({ length: extra }, (): Ev => ["person3", D(3)]),
  ["person4", D(3)],
  ["person4", D(4)],
  ["person5", D(4)],
];
const allEvents = { id: null, name: "All events" };

describe("rolling retention and minimum occurrences", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_rolling_retention
  it("test_rolling_retention", async () => {
    const rows = await run(data(fivePersons(), createEvents(rollingEvents())), {
      dateRange: { date_to: D(5, 6) },
      retentionFilter: { cumulative: true, totalIntervals: 5, targetEntity: allEvents, returningEntity: allEvents },
    });
    expect(counts(rows)).toEqual(pad([[2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 2, 0], [3, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_rolling_retention_with_minimum_occurrences
  it("test_rolling_retention_with_minimum_occurrences", async () => {
    const rows = await run(data(fivePersons(), createEvents(rollingEvents(3))), {
      dateRange: { date_to: D(5, 6) },
      retentionFilter: { cumulative: true, totalIntervals: 5, minimumOccurrences: 3, targetEntity: allEvents, returningEntity: allEvents },
    });
    expect(counts(rows)).toEqual(pad([[2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 1, 0], [3, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_rolling_retention_doesnt_double_count_same_user
  it("test_rolling_retention_doesnt_double_count_same_user", async () => {
    const rows = await run(data(fivePersons(), createEvents(rollingEvents())), {
      dateRange: { date_to: D(5, 6) },
      retentionFilter: { cumulative: true, totalIntervals: 6, targetEntity: allEvents, returningEntity: allEvents },
    });
    expect(counts(rows)).toEqual(pad([[2, 2, 1, 1, 1, 0], [2, 1, 1, 0, 0], [1, 1, 0, 0], [3, 2, 0], [3, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_all_events_with_minimum_occurrences
  it("test_all_events_with_minimum_occurrences", async () => {
    const want = pad([[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], [2, 0, 0, 0, 1], [2, 0, 0, 1], [1], [0], [1], [2], [0], [0], [0], [0]]);
    await withReference(data(twoPersons(), createEvents(standardEvents)), async (ref) => {
      const rows = await results(ref, {
        dateRange: { date_to: D(10, 6) },
        retentionFilter: { totalIntervals: 11, targetEntity: allEvents, returningEntity: { id: "$pageview", type: "events" }, minimumOccurrences: 2 },
      });
      expect(counts(rows)).toEqual(want);
      // The same request as a legacy filter.
      const legacy = await ref.legacy("GET", "insights/retention", { date_to: D(10, 6), total_intervals: 11, target_entity: JSON.stringify({ id: null, type: "events" }), returning_entity: JSON.stringify({ id: "$pageview", type: "events" }), minimum_occurrences: 2 });
      expect(legacy.status, legacy.text).toBe(200);
      expect(counts((legacy.body as { result: Row[] }).result)).toEqual(want);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_user_properties_and_minimum_occurrences
  it("test_retention_with_user_properties_and_minimum_occurrences", async () => {
    const p = persons([["person1", "alias1"], { email: "person1@test.com" }], [["person2"], { email: "person2@test.com" }]);
    const events = [...createEvents([...standardEvents, ...standardEvents]), ...createEvents([["person1", D(3)]])];
    const rows = await run(data(p, events), {
      dateRange: { date_to: D(6, 0) },
      properties: { type: "AND", values: [{ type: "AND", values: [{ key: "email", operator: "exact", type: "person", value: ["person1@test.com"] }] }] },
      retentionFilter: { totalIntervals: 7, minimumOccurrences: 2 },
    });
    expect(rows).toHaveLength(7);
    expect(labels(rows)).toEqual(dayLabels(7));
    expect(Date.parse(rows[0]!.date)).toBe(utc(2020, 6, 10));
    expect(counts(rows)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [1, 0, 1, 1], [0, 0, 0], [1, 1], [1]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_breakdown_event_properties_and_minimum_occurrences
  it("test_retention_with_breakdown_event_properties_and_minimum_occurrences", async () => {
    const once = browserEvents();
    const events = [...createEvents([...once, ...once]), ...createEvents([["person1", D(5), { browser: "Chrome" }], ["person2", D(2), { browser: "Safari" }], ["person3", D(3), { browser: "Chrome" }], ["person4", D(3), { browser: "Firefox" }]])];
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"], ["person4"]), events), {
      dateRange: { date_to: D(5, 0) },
      retentionFilter: { totalIntervals: 6, period: "Day", minimumOccurrences: 2 },
      breakdownFilter: { breakdowns: [{ property: "browser", type: "event" }] },
    });
    expect(new Set(rows.map((r) => r.breakdown_value))).toEqual(new Set(["Chrome", "Safari", "Firefox"]));
    expect(byBreakdown(rows, "Chrome")).toEqual(pad([[2, 1, 1, 1, 0, 0], [1, 0, 1], [1], [2], [0], [1]]));
    expect(byBreakdown(rows, "Safari")).toEqual(pad([[1, 1, 0, 0, 1, 0], [1, 0, 0, 1], [1, 0, 1], [0], [1], [0]]));
    expect(byBreakdown(rows, "Firefox")).toEqual(pad([[1, 0, 0, 0, 0, 1], [0], [0], [1, 0, 1], [0], [1]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_cumulative_with_breakdown_event_properties
  it("test_retention_cumulative_with_breakdown_event_properties", async () => {
    const events = createEvents([
      ["person1", D(0), { browser: "Chrome" }],
      ["person1", D(1), { browser: "Chrome" }],
      ["person1", D(3), { browser: "Chrome" }],
      ["person2", D(0), { browser: "Safari" }],
      ["person2", D(1), { browser: "Safari" }],
      ["person2", D(2), { browser: "Safari" }],
      ["person3", D(0), { browser: "Firefox" }],
      ["person3", D(2), { browser: "Firefox" }],
    ]);
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"]), events), {
      dateRange: { date_to: D(5, 0) },
      retentionFilter: { totalIntervals: 6, period: "Day", cumulative: true },
      breakdownFilter: { breakdowns: [{ property: "browser", type: "event" }] },
    });
    expect(new Set(rows.map((r) => r.breakdown_value))).toEqual(new Set(["Chrome", "Safari", "Firefox"]));
    expect(byBreakdown(rows, "Chrome")[0]!.slice(0, 4)).toEqual([1, 1, 1, 1]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_with_minimum_occurrences
  it("test_retention_first_time_ever_with_minimum_occurrences", async () => {
    const events = [
      ...createEvents([["person1", D(1)]], "$user_signed_up"),
      ...createEvents([["person1", D(2)], ["person1", D(2, 1)]]),
      ...createEvents([["person1", D(4)]]),
      ...createEvents([["person2", D(2)]], "$user_signed_up"),
      ...createEvents([["person2", D(3)], ["person2", D(3, 1)], ["person2", D(3, 2)]]),
      ...createEvents([["person2", D(5)], ["person2", D(5, 1)]]),
      ...createEvents([["person3", D(3)]], "$user_signed_up"),
      ...createEvents([["person3", D(4)]]),
    ];
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"]), events), {
      dateRange: { date_from: D(0), date_to: D(7) },
      retentionFilter: { ...firstEverSignup, minimumOccurrences: 2 },
    });
    expect(rows).toHaveLength(8);
    expect(labels(rows)).toEqual(dayLabels(8));
    expect(counts(rows)).toEqual([[0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0], [1, 1, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0], ...zeros(4, 7)]);
  });
});

const zeros = (rows: number, width: number) => Array.from({ length: rows }, () => Array<number>(width).fill(0));
const firstEverSignup = {
  period: "Day",
  totalIntervals: 7,
  retentionType: "retention_first_ever_occurrence",
  targetEntity: { id: "$user_signed_up", name: "$user_signed_up", type: "events" },
  returningEntity: { id: "$pageview", name: "$pageview", type: "events" },
};
function browserEvents(): Ev[] {
  return [
    ["person1", D(0), { browser: "Chrome" }],
    ["person1", D(1), { browser: "Chrome" }],
    ["person1", D(3), { browser: "Chrome" }],
    ["person3", D(0), { browser: "Chrome" }],
    ["person3", D(2), { browser: "Chrome" }],
    ["person2", D(0), { browser: "Safari" }],
    ["person2", D(1), { browser: "Safari" }],
    ["person2", D(4), { browser: "Safari" }],
    ["person4", D(0), { browser: "Firefox" }],
    ["person4", D(5), { browser: "Firefox" }],
  ];
}

const action = (id: number, name: string, steps: Record<string, unknown>[]) => ({ extra: { actions: [{ project_id: "1", id, name, steps }] } }) as Partial<RefData>;
const pageview = { id: "$pageview", type: "events" };

describe("target and returning entities", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_all_events
  it("test_all_events", async () => {
    const d = data(twoPersons(), createEvents(standardEvents), action(7, "any", [{ event: null }, { event: "non_matching_event" }]));
    await withReference(d, async (ref) => {
      const rows = await results(ref, { dateRange: { date_to: D(10, 6) }, retentionFilter: { totalIntervals: 11, targetEntity: allEvents, returningEntity: pageview } });
      expect(counts(rows)).toEqual(standardDayTable);
      const viaAction = await results(ref, { dateRange: { date_to: D(10, 6) }, retentionFilter: { totalIntervals: 11, targetEntity: { id: 7, type: "actions" }, returningEntity: pageview } });
      expect(counts(viaAction)).toEqual(standardDayTable);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_all_events_target_first_time
  it("test_all_events_target_first_time", async () => {
    const events = [...createEvents([["person1", D(0)], ["person1", D(1)], ["person1", D(2)]], "event1"), ...createEvents([["person1", D(2)], ["person1", D(3)]], "event2")];
    await withReference(data(persons(["person1"]), events), async (ref) => {
      const base = { retentionType: "retention_first_time", totalIntervals: 4, targetEntity: { id: "event2", type: "events" } };
      const allReturns = await results(ref, { dateRange: { date_to: D(2, 6) }, retentionFilter: { ...base, returningEntity: allEvents } });
      const specific = await results(ref, { dateRange: { date_to: D(2, 6) }, retentionFilter: { ...base, returningEntity: { id: "event2", type: "events" } } });
      expect(counts(specific)).toEqual(pad([[0, 0, 0, 0], [0, 0, 0], [0, 0], [1]]));
      // PostHog's rows carry no persons URL; ours name the returning entity in it.
      const rowOf = ({ people_url: _url, ...row }: Row & { people_url?: string }) => row;
      expect(allReturns.map(rowOf)).toEqual(specific.map(rowOf));
    });
  });

  const multipleEvents = (): RefEvent[] => [
    ...createEvents(
      [
        ["person1", D(0)],
        ["person1", D(1)],
        ["person1", D(2)],
        ["person1", D(3)],
        ["person2", D(0)],
        ["person2", D(1)],
        ["person2", D(2)],
        ["person2", D(3)],
        ["person3", D(5)],
      ],
      "$some_event",
    ),
    ...createEvents([["person1", D(5)], ["person1", D(6)], ["person2", D(5)]]),
  ];
  const fourPersons = () => persons(["person1", "alias1"], ["person2"], ["person3"], ["person4"]);

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_multiple_events
  it("test_retention_multiple_events", async () => {
    const rows = await run(data(fourPersons(), multipleEvents()), {
      dateRange: { date_to: D(6, 6) },
      retentionFilter: { period: "Day", totalIntervals: 7, targetEntity: { id: "$some_event", name: "$some_event", type: "events" }, returningEntity: { id: "$pageview", name: "$pageview", type: "events" } },
    });
    expect(rows).toHaveLength(7);
    expect(labels(rows)).toEqual(dayLabels(7));
    expect(counts(rows)).toEqual(pad([[2, 0, 0, 0, 0, 2, 1], [2, 0, 0, 0, 2, 1], [2, 0, 0, 2, 1], [2, 0, 2, 1], [0, 0, 0], [1, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_any_event
  it("test_retention_any_event", async () => {
    const rows = await run(data(fourPersons(), multipleEvents()), {
      dateRange: { date_to: D(6, 6) },
      retentionFilter: { period: "Day", totalIntervals: 7, targetEntity: { id: null, type: "events" }, returningEntity: { id: null, type: "events" } },
    });
    expect(rows).toHaveLength(7);
    expect(labels(rows)).toEqual(dayLabels(7));
    expect(counts(rows)).toEqual(pad([[2, 2, 2, 2, 0, 2, 1], [2, 2, 2, 0, 2, 1], [2, 2, 0, 2, 1], [2, 0, 2, 1], [0, 0, 0], [3, 1], [1]]));
  });

  const signUps = (list: Ev[]): Partial<RefData> & { events: RefEvent[] } => ({ events: createEvents(list, "sign up"), ...action(11, "sign up", [{ event: "sign up" }]) });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_event_action
  it("test_retention_event_action", async () => {
    const { events, ...extra } = signUps([
      ["person1", D(0)],
      ["person1", D(1)],
      ["person1", D(2)],
      ["person1", D(3)],
      ["person2", D(0)],
      ["person2", D(1)],
      ["person2", D(2)],
      ["person2", D(3)],
    ]);
    const rows = await run(data(twoPersons(), [...events, ...createEvents([["person1", D(3)], ["person2", D(5)]], "$some_event")], extra), {
      dateRange: { date_to: D(6, 0) },
      retentionFilter: { totalIntervals: 7, targetEntity: { id: 11, name: "sign up", type: "actions" }, returningEntity: { id: "$some_event", name: "$some_event", type: "events" } },
    });
    expect(rows).toHaveLength(7);
    expect(labels(rows)).toEqual(dayLabels(7));
    expect(Date.parse(rows[0]!.date)).toBe(utc(2020, 6, 10));
    expect(counts(rows)).toEqual(pad([[2, 0, 0, 1, 0, 1, 0], [2, 0, 1, 0, 1, 0], [2, 1, 0, 1, 0], [2, 0, 1, 0], [0, 0, 0], [0, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_action_start_point
  it("test_retention_action_start_point", async () => {
    const { events, ...extra } = signUps(standardEvents);
    const rows = await run(data(twoPersons(), events, extra), {
      dateRange: { date_to: D(6, 0) },
      retentionFilter: { period: "Day", totalIntervals: 7, targetEntity: { id: 11, name: "sign up", type: "actions" }, returningEntity: { id: 11, name: "sign up", type: "actions" } },
    });
    expect(rows).toHaveLength(7);
    expect(labels(rows)).toEqual(dayLabels(7));
    expect(Date.parse(rows[0]!.date)).toBe(utc(2020, 6, 10));
    expect(counts(rows)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1], [2, 2, 1, 0, 1, 2], [2, 1, 0, 1, 2], [1, 0, 0, 1], [0, 0, 0], [1, 1], [2]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_user_properties_via_action
  it("test_retention_with_user_properties_via_action", async () => {
    const p = persons([["person1", "alias1"], { email: "person1@test.com" }], [["person2"], { email: "person2@test.com" }]);
    const extra = action(12, "person1 views", [{ event: "$pageview", properties: [{ key: "email", value: "person1@test.com", type: "person" }] }, { event: "non_matching_event" }]);
    const rows = await run(data(p, createEvents(standardEvents), extra), {
      dateRange: { date_to: D(6, 0) },
      retentionFilter: { totalIntervals: 7, targetEntity: { id: 12, name: "person1 views", type: "actions" }, returningEntity: { id: "$pageview", name: "$pageview", type: "events" } },
    });
    expect(rows).toHaveLength(7);
    expect(labels(rows)).toEqual(dayLabels(7));
    expect(Date.parse(rows[0]!.date)).toBe(utc(2020, 6, 10));
    expect(counts(rows)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0], [1, 1], [1]]));
  });
});

/** `_create_first_time_retention_events`: sign-ups before and inside the window, page views after them. */
function firstTimeRetentionEvents(): RefEvent[] {
  return [
    ...createEvents(
      [
        ["shouldnt_include", D(-5)],
        ["shouldnt_include", D(-1)],
        ["person1", D(-1)],
        ["person1", D(1)],
        ["person1", D(2)],
        ["person1", D(3)],
        ["person1", D(4)],
        ["person2", D(-1)],
      ],
      "$user_signed_up",
    ),
    ...createEvents(standardEvents),
    ...createEvents([["person3", D(0)]], "$user_signed_up"),
    ...createEvents([["person3", D(1)], ["person3", D(3)], ["person3", D(4)], ["person3", D(5)]]),
    ...createEvents([["person4", D(2)]], "$user_signed_up"),
    ...createEvents([["person4", D(3)], ["person4", D(5)]]),
  ];
}
const firstTimePersons = () => persons(["person1", "alias1"], ["person2"], ["person3"], ["person4"], ["shouldnt_include"]);
const signupToPageview = (period: string) => ({
  period,
  totalIntervals: 7,
  retentionType: "retention_first_time",
  targetEntity: { id: "$user_signed_up", name: "$user_signed_up", type: "events" },
  returningEntity: { id: "$pageview", name: "$pageview", type: "events" },
});

describe("first-time retention", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_first_time_retention
  it("test_first_time_retention", async () => {
    const rows = await run(data(firstTimePersons(), firstTimeRetentionEvents()), { dateRange: { date_to: D(5, 6) }, retentionFilter: signupToPageview("Day") });
    expect(rows).toHaveLength(7);
    expect(labels(rows)).toEqual(dayLabels(7));
    expect(counts(rows)).toEqual(pad([[2, 1, 2, 2, 1, 0, 1], [1, 1, 0, 1, 1, 1], [0, 0, 0, 0, 0], [1, 1, 0, 1], [0, 0, 0], [0, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_first_time_retention_weeks
  it("test_first_time_retention_weeks", async () => {
    const rows = await run(data(firstTimePersons(), firstTimeRetentionEvents()), { dateRange: { date_to: D(5, 6) }, retentionFilter: signupToPageview("Week") });
    expect(rows).toHaveLength(7);
    expect(counts(rows)).toEqual(pad([[0, 0, 0, 0, 0, 0, 0], [0], [0], [0], [1, 0, 0], [4, 4], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_people_first_time
  it("test_retention_people_first_time", async () => {
    await withReference(data(firstTimePersons(), firstTimeRetentionEvents()), async (ref) => {
      const filter = { targetEntity: { id: "$user_signed_up", type: "events" }, returningEntity: pageview, retentionType: "retention_first_time" };
      expect(await actorIds(ref, 0, { dateRange: { date_to: D(10, 6) }, retentionFilter: { ...filter, totalIntervals: 11 } })).toEqual([["person3"]]);
      expect(await actorIds(ref, 0, { dateRange: { date_to: D(14, 6) }, retentionFilter: filter })).toEqual([]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_vs_first_ever_occurrence
  it("test_retention_first_time_vs_first_ever_occurrence", async () => {
    const events = [
      ...createEvents([["person1", D(0), { prop: "wrong" }]], "target_event"),
      ...createEvents([["person1", D(1), { prop: "correct" }]], "target_event"),
      ...createEvents([["person1", D(2)], ["person1", D(3)]], "returning_event"),
    ];
    const base = {
      dateRange: { date_from: D(0), date_to: D(5) },
      retentionFilter: { totalIntervals: 5, targetEntity: { id: "target_event", type: "events", properties: [{ key: "prop", value: "correct", type: "event" }] }, returningEntity: { id: "returning_event", type: "events" } },
    };
    await withReference(data(persons(["person1"]), events), async (ref) => {
      const firstTime = await results(ref, { ...base, retentionFilter: { ...base.retentionFilter, retentionType: "retention_first_time" } });
      const firstEver = await results(ref, { ...base, retentionFilter: { ...base.retentionFilter, retentionType: "retention_first_ever_occurrence" } });
      expect(firstTime).not.toEqual(firstEver);
      expect(counts(firstTime)).toEqual([[0, 0, 0, 0, 0], [1, 1, 1, 0, 0], ...zeros(4, 5)]);
      expect(counts(firstEver)).toEqual(zeros(6, 5));
    });
  });
});

const eventProp = (key: string, value = "value") => [{ key, type: "event", operator: "exact", value: [value] }];
const elevenDays = (rows: Row[]) => {
  expect(rows).toHaveLength(11);
  expect(labels(rows)).toEqual(dayLabels(11));
  expect(Date.parse(rows[0]!.date)).toBe(utc(2020, 6, 10));
};
const withProp = (index: number, key = "$target_event_property"): Ev[] => standardEvents.map((e, i): Ev => (i === index ? [e[0], e[1], { [key]: "value" }] : e));

describe("property filters", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties
  it("test_retention_with_properties", async () => {
    const rows = await run(data(twoPersons(), createEvents(standardEvents)), {
      dateRange: { date_to: D(10, 0) },
      retentionFilter: { totalIntervals: 11 },
      properties: { type: "AND", values: [{ type: "AND", values: [{ key: "$some_property", operator: "exact", value: ["value"] }] }] },
    });
    elevenDays(rows);
    expect(counts(rows)).toEqual(pad([[1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0], [1, 0, 1], [1, 0, 0, 1], [1], [0], [1], [0], [0], [0], [0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties_on_start_event
  it("test_retention_with_properties_on_start_event", async () => {
    const rows = await run(data(twoPersons(), createEvents(withProp(0))), {
      dateRange: { date_to: D(10, 0) },
      retentionFilter: { targetEntity: { id: "$pageview", properties: eventProp("$target_event_property") }, totalIntervals: 11 },
    });
    elevenDays(rows);
    expect(counts(rows)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0], [0], [0], [0], [0], [0], [0], [0], [0], [0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties_on_start_event_for_first_time
  it("test_retention_with_properties_on_start_event_for_first_time", async () => {
    const list = standardEvents.map((e, i): Ev => (i === 2 || i === 3 ? [e[0], e[1], { $target_event_property: "value" }] : e));
    const rows = await run(data(twoPersons(), createEvents(list)), {
      dateRange: { date_to: D(10, 0) },
      retentionFilter: { retentionType: "retention_first_time", totalIntervals: 11, targetEntity: { id: "$pageview", properties: eventProp("$target_event_property") } },
    });
    elevenDays(rows);
    expect(counts(rows)).toEqual(pad([[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0], [1, 0, 0, 1, 1, 0, 0, 0, 0], [0], [0], [0], [0], [0], [0], [0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties_on_return_event
  it("test_retention_with_properties_on_return_event", async () => {
    const rows = await run(data(twoPersons(), createEvents(withProp(1))), {
      dateRange: { date_to: D(10, 0) },
      retentionFilter: { totalIntervals: 11, returningEntity: { id: "$pageview", properties: eventProp("$target_event_property") } },
    });
    elevenDays(rows);
    expect(counts(rows)).toEqual(pad([[1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [2], [2], [1], [0], [1], [2], [0], [0], [0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties_on_return_event_with_first_time
  it("test_retention_with_properties_on_return_event_with_first_time", async () => {
    const rows = await run(data(twoPersons(), createEvents(withProp(3))), {
      dateRange: { date_to: D(10, 0) },
      retentionFilter: { retentionType: "retention_first_time", totalIntervals: 11, returningEntity: { id: "$pageview", properties: eventProp("$target_event_property") } },
    });
    elevenDays(rows);
    expect(counts(rows)).toEqual(pad([[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], [1], [0], [0], [0], [0], [0], [0], [0], [0], [0]]));
  });

  const twoDays = (key: string, onStart: boolean): RefEvent[] =>
    createEvents(
      onStart
        ? [["person1", D(0), { [key]: "value" }], ["person2", D(0), { [key]: "other" }], ["person1", D(1)], ["person2", D(1)]]
        : [["person1", D(0)], ["person2", D(0)], ["person1", D(1), { [key]: "value" }], ["person2", D(1), { [key]: "other" }]],
    );
  const sevenDays = (filter: Record<string, unknown>) => ({ dateRange: { date_to: D(6, 0) }, retentionFilter: { period: "Day", totalIntervals: 7, ...filter } });
  const pageviewAction = action(21, "pageview_action", [{ event: "$pageview" }]);

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties_on_all_events_target_entity
  it("test_retention_with_properties_on_all_events_target_entity", async () => {
    const rows = await run(data(persons(["person1"], ["person2"]), twoDays("$target_event_property", true)), sevenDays({ targetEntity: { id: null, type: "events", properties: eventProp("$target_event_property") }, returningEntity: { id: null, type: "events" } }));
    expect(rows[0]!.values[0]!.count).toBe(1);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties_on_all_events_returning_entity
  it("test_retention_with_properties_on_all_events_returning_entity", async () => {
    const rows = await run(data(persons(["person1"], ["person2"]), twoDays("$return_event_property", false)), sevenDays({ targetEntity: { id: null, type: "events" }, returningEntity: { id: null, type: "events", properties: eventProp("$return_event_property") } }));
    expect(rows[0]!.values[0]!.count).toBe(2);
    expect(rows[0]!.values[1]!.count).toBe(1);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties_on_action_target_entity
  it("test_retention_with_properties_on_action_target_entity", async () => {
    const rows = await run(data(persons(["person1"], ["person2"]), twoDays("$target_event_property", true), pageviewAction), sevenDays({ targetEntity: { id: 21, type: "actions", properties: eventProp("$target_event_property") }, returningEntity: pageview }));
    expect(rows[0]!.values[0]!.count).toBe(1);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_properties_on_action_returning_entity
  it("test_retention_with_properties_on_action_returning_entity", async () => {
    const rows = await run(data(persons(["person1"], ["person2"]), twoDays("$return_event_property", false), pageviewAction), sevenDays({ targetEntity: pageview, returningEntity: { id: 21, type: "actions", properties: eventProp("$return_event_property") } }));
    expect(rows[0]!.values[0]!.count).toBe(2);
    expect(rows[0]!.values[1]!.count).toBe(1);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_user_properties
  it("test_retention_with_user_properties", async () => {
    const p = persons([["person1", "alias1"], { email: "person1@test.com" }], [["person2"], { email: "person2@test.com" }]);
    const rows = await run(data(p, createEvents(standardEvents)), {
      dateRange: { date_to: D(6, 0) },
      properties: { type: "AND", values: [{ type: "AND", values: [{ key: "email", operator: "exact", type: "person", value: ["person1@test.com"] }] }] },
      retentionFilter: { totalIntervals: 7 },
    });
    expect(rows).toHaveLength(7);
    expect(labels(rows)).toEqual(dayLabels(7));
    expect(Date.parse(rows[0]!.date)).toBe(utc(2020, 6, 10));
    expect(counts(rows)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0], [1, 1], [1]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_filter_test_accounts
  it("test_filter_test_accounts", async () => {
    const p = persons([["person1", "alias1"], { email: "test@posthog.com" }], ["person2"]);
    // APIBaseTest's team filters out persons with a posthog.com email: the project of the fixture document says so.
    const doc = referenceDocument(data(p, createEvents(standardEvents)));
    doc.projects![0]!.test_account_filters = [{ key: "email", value: "@posthog.com", operator: "not_icontains", type: "person" }];
    const server = await startTestServer(doc);
    try {
      const res = await server.post(`${P}/query/`, { query: node({ dateRange: { date_to: D(10, 6) }, filterTestAccounts: true, retentionFilter: { totalIntervals: 11 } }) });
      expect(res.status).toBe(200);
      const rows = (res.body as { results: Row[] }).results;
      elevenDays(rows);
      expect(counts(rows)).toEqual(pad([[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0], [1, 1, 0, 0, 1], [1, 0, 0, 1], [0], [0], [1], [0], [0], [0], [0]]));
    } finally {
      await server.close();
    }
  });
});

/** `_create_first_time_ever_retention_events`. */
function firstEverEvents(): RefEvent[] {
  return [
    ...createEvents([["person1", D(0)]]),
    ...createEvents([["person1", D(1)]], "$user_signed_up"),
    ...createEvents([["person1", D(1)], ["person1", D(3)], ["person1", D(5)]]),
    ...createEvents([["person2", D(1)]], "$user_signed_up"),
    ...createEvents([["person2", D(2)], ["person2", D(4)]]),
    ...createEvents([["person3", D(2)]]),
    ...createEvents([["person3", D(3)]], "$user_signed_up"),
    ...createEvents([["person3", D(4)], ["person3", D(6)]]),
    ...createEvents([["person4", D(-1)]]),
    ...createEvents([["person4", D(2)]], "$user_signed_up"),
    ...createEvents([["person4", D(3)]]),
    ...createEvents([["person5", D(3)]], "$user_signed_up"),
    ...createEvents([["person5", D(4)], ["person5", D(5)]]),
  ];
}
const firstEverPersons = () => persons(["person1", "alias1"], ["person2"], ["person3"], ["person4"], ["person5"]);
const eightDays = { date_from: D(0), date_to: D(7) };
const ageEvents = (source?: (d: string) => Record<string, unknown>): RefEvent[] => {
  const p = (d: string) => (source ? source(d) : undefined);
  return [
    ...createEvents([["person1", D(1), p("web")]]),
    ...createEvents([["person1", D(2), p("web")]], "$user_signed_up"),
    ...createEvents([["person1", D(3), p("web")], ["person1", D(5), p("web")]]),
    ...createEvents([["person2", D(1), p("mobile")]], "$user_signed_up"),
    ...createEvents([["person2", D(2), p("mobile")], ["person2", D(4), p("mobile")]]),
    ...createEvents([["person3", D(2), p("web")]], "$user_signed_up"),
    ...createEvents([["person3", D(3), p("web")], ["person3", D(5), p("web")]]),
  ];
};
const person4Events = (): RefEvent[] => [
  ...createEvents([["person4", D(3)]]),
  ...createEvents([["person4", D(4)]], "$user_signed_up"),
  ...createEvents([["person4", D(5)], ["person4", D(6)]]),
];
const agePersons = () => persons([["person1"], { age: "25" }], [["person2"], { age: "30" }], [["person3"], { age: "25" }], [["person4"], { age: "30" }]);
const young = [[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [2, 2, 0, 2, 0, 0, 0], ...zeros(5, 7)];
const older = [[0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0, 0], ...zeros(3, 7)];

describe("first-ever occurrence retention over a date range", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_basic
  it("test_retention_first_time_ever_basic", async () => {
    const rows = await run(data(firstEverPersons(), firstEverEvents()), { dateRange: eightDays, retentionFilter: firstEverSignup });
    expect(rows).toHaveLength(8);
    expect(labels(rows)).toEqual(dayLabels(8));
    expect(counts(rows)).toEqual([[0, 0, 0, 0, 0, 0, 0], [2, 1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0], [2, 2, 1, 1, 0, 0, 0], ...zeros(4, 7)]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_with_person_breakdown
  it("test_retention_first_time_ever_with_person_breakdown", async () => {
    const rows = await run(data(agePersons(), [...ageEvents(), ...person4Events()]), { dateRange: eightDays, retentionFilter: firstEverSignup, breakdownFilter: { breakdown: "age", breakdown_type: "person" } });
    expect(rows).toHaveLength(16);
    expect(byBreakdown(rows, "25")).toEqual(young);
    expect(byBreakdown(rows, "30")).toEqual(older);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_with_event_breakdown
  it("test_retention_first_time_ever_with_event_breakdown", async () => {
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"]), ageEvents((source) => ({ source }))), { dateRange: eightDays, retentionFilter: firstEverSignup, breakdownFilter: { breakdown: "source", breakdown_type: "event" } });
    expect(rows).toHaveLength(16);
    expect(byBreakdown(rows, "web")).toEqual(young);
    expect(byBreakdown(rows, "mobile")).toEqual([[0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 1, 0, 0, 0], ...zeros(6, 7)]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_with_cohort_breakdown
  it("test_retention_first_time_ever_with_cohort_breakdown", async () => {
    const cohort = (id: number, name: string, age: string) => ({ project_id: "1", id, name, filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "age", operator: "exact", value: [age], type: "person" }] }] } } });
    const rows = await run(data(agePersons(), [...ageEvents(), ...person4Events()], { extra: { cohorts: [cohort(1, "Young users", "25"), cohort(2, "Older users", "30")] } }), {
      dateRange: eightDays,
      retentionFilter: firstEverSignup,
      breakdownFilter: { breakdown: [1, 2], breakdown_type: "cohort" },
    });
    expect(rows).toHaveLength(16);
    expect(byBreakdown(rows, "1")).toEqual(young);
    expect(byBreakdown(rows, "2")).toEqual(older);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_breakdown_does_not_inflate_buckets
  it("test_retention_first_time_ever_breakdown_does_not_inflate_buckets", async () => {
    const flag = (value: string) => ({ "$feature/new_design": value });
    const events = [
      ...createEvents([["old_user", D(0)]], "app_opened"),
      ...createEvents([["old_user", D(2), flag("control")]], "app_opened"),
      ...createEvents([["old_user", D(3), flag("control")]], "insight_viewed"),
      ...createEvents([["new_user", D(2), flag("variant_a")]], "app_opened"),
      ...createEvents([["new_user", D(3), flag("variant_a")]], "insight_viewed"),
    ];
    const base = {
      dateRange: { date_from: D(0), date_to: D(4) },
      retentionFilter: { period: "Day", totalIntervals: 4, retentionType: "retention_first_ever_occurrence", targetEntity: { id: "app_opened", name: "app_opened", type: "events" }, returningEntity: { id: "insight_viewed", name: "insight_viewed", type: "events" } },
    };
    const broken = { ...base, breakdownFilter: { breakdown: "$feature/new_design", breakdown_type: "event" } };
    await withReference(data(persons(["old_user"], ["new_user"]), events), async (ref) => {
      const unbroken = await results(ref, base);
      const brokenDown = await results(ref, broken);
      const totals = new Map<string, number>();
      for (const row of brokenDown) totals.set(row.date, (totals.get(row.date) ?? 0) + row.values[0]!.count);
      for (const row of unbroken) expect(totals.get(row.date) ?? 0).toBe(row.values[0]!.count);
      const cohortCount = (value: string, day: number) => brokenDown.filter((r) => r.breakdown_value === value && r.date === unbroken[day]!.date).reduce((sum, r) => sum + r.values[0]!.count, 0);
      expect(cohortCount("", 0)).toBe(1);
      expect(cohortCount("variant_a", 2)).toBe(1);
      expect(cohortCount("control", 2)).toBe(0);
      const ids = async (interval: number, value: string) => (await actorIds(ref, interval, broken, [value])).flat().sort();
      expect(await ids(0, "")).toEqual(["old_user"]);
      expect(await ids(2, "variant_a")).toEqual(["new_user"]);
      expect(await ids(2, "control")).toEqual([]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_actors_query
  it("test_retention_first_time_ever_actors_query", async () => {
    await withReference(data(firstEverPersons(), firstEverEvents()), async (ref) => {
      const query = { dateRange: eightDays, retentionFilter: firstEverSignup };
      const day1 = await actorIds(ref, 1, query);
      expect(day1).toHaveLength(2);
      expect(new Set(day1.map((ids) => [...ids].sort().join(",")))).toEqual(new Set(["alias1,person1", "person2"]));
      // Of day 1's cohort, only person2 came back on day 4 (value 3).
      const backOnDay4 = (await actorsWithAppearances(ref, 1, query)).filter(([, appearances]) => (appearances as number[]).includes(3));
      expect(actorsAnd(backOnDay4).map(([ids]) => ids)).toEqual([["person2"]]);
      expect(await actorIds(ref, 3, query)).toHaveLength(2);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_different_intervals
  it("test_retention_first_time_ever_different_intervals", async () => {
    const events = [
      ...createEvents([["person1", D(1)]], "$user_signed_up"),
      ...createEvents([["person1", D(8)], ["person1", D(15)]]),
      ...createEvents([["person2", D(8)]]),
      ...createEvents([["person2", D(14)]], "$user_signed_up"),
      ...createEvents([["person2", D(20)]]),
      ...createEvents([["person3", D(14)]], "$user_signed_up"),
      ...createEvents([["person3", D(20)], ["person3", D(20, 5, 1)]]),
    ];
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"]), events), {
      dateRange: { date_from: D(0), date_to: D(20, 5, 1) },
      retentionFilter: { ...firstEverSignup, period: "Week", totalIntervals: 5 },
    });
    expect(rows).toHaveLength(8);
    expect(labels(rows)).toEqual(dayLabels(8, "Week"));
    expect(counts(rows)).toEqual([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0], [2, 2, 0, 0, 0], ...zeros(5, 5)]);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_first_time_ever_with_properties
  it("test_retention_first_time_ever_with_properties", async () => {
    const src = (source: string) => ({ source });
    const events = [
      ...createEvents([["person1", D(1), src("organic")]]),
      ...createEvents([["person1", D(2), src("organic")]], "$user_signed_up"),
      ...createEvents([["person1", D(3), src("organic")], ["person1", D(5), src("organic")]]),
      ...createEvents([["person2", D(1), src("paid")]], "$user_signed_up"),
      ...createEvents([["person2", D(2), src("paid")], ["person2", D(4), src("paid")]]),
      ...createEvents([["person3", D(2), src("organic")]], "$user_signed_up"),
      ...createEvents([["person3", D(3), src("organic")], ["person3", D(5), src("organic")]]),
    ];
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"]), events), {
      dateRange: eightDays,
      retentionFilter: firstEverSignup,
      properties: [{ key: "source", operator: "exact", value: ["organic"], type: "event" }],
    });
    expect(rows).toHaveLength(8);
    expect(labels(rows)).toEqual(dayLabels(8));
    expect(counts(rows)).toEqual(young);
  });
});

const sixDays = (extra: Record<string, unknown> = {}, breakdownFilter?: Record<string, unknown>) => ({
  dateRange: { date_to: D(5, 0) },
  retentionFilter: { totalIntervals: 6, period: "Day", ...extra },
  ...(breakdownFilter ? { breakdownFilter } : {}),
});
const threeDays = (breakdownFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ dateRange: { date_to: D(2, 0) }, retentionFilter: { totalIntervals: 3, period: "Day", ...extra }, breakdownFilter });
const countryPersons = () => persons([["person1"], { country: "US" }], [["person2"], { country: "UK" }], [["person3"], { country: "US" }], [["person4"], { country: "Germany" }]);
const byCountry = { breakdowns: [{ property: "country", type: "person" }] };
const byBrowser = { breakdowns: [{ property: "browser", type: "event" }] };
const cohortOfNames = (id: number, ...names: string[]) => ({
  project_id: "1",
  id,
  name: `cohort${id}`,
  filters: { properties: { type: "OR", values: names.map((name) => ({ type: "AND", values: [{ key: "name", value: name, type: "person" }] })) } },
});
const named = (...names: string[]) => persons(...names.map((n): [string[], Record<string, unknown>] => [[n], { name: n }]));

describe("breakdowns", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_breakdown_with_person_properties
  it("test_retention_with_breakdown_with_person_properties", async () => {
    const events = createEvents([
      ["person1", D(0)],
      ["person1", D(1)],
      ["person1", D(3)],
      ["person3", D(0)],
      ["person3", D(2)],
      ["person2", D(0)],
      ["person2", D(1)],
      ["person2", D(4)],
      ["person4", D(0)],
      ["person4", D(5)],
    ]);
    const rows = await run(data(countryPersons(), events), sixDays({}, byCountry));
    expect(new Set(rows.map((r) => r.breakdown_value))).toEqual(new Set(["Germany", "UK", "US"]));
    expect(byBreakdown(rows, "US")).toEqual(pad([[2, 1, 1, 1, 0, 0], [1, 0, 1], [1], [1], [0], [0]]));
    expect(byBreakdown(rows, "UK")).toEqual(pad([[1, 1, 0, 0, 1, 0], [1, 0, 0, 1], [0], [0], [1], [0]]));
    expect(byBreakdown(rows, "Germany")).toEqual(pad([[1, 0, 0, 0, 0, 1], [0], [0], [0], [0], [1]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_actor_query_with_breakdown
  it("test_retention_actor_query_with_breakdown", async () => {
    const events = createEvents([
      ["person1", D(0)],
      ["person1", D(1)],
      ["person1", D(2)],
      ["person2", D(0)],
      ["person2", D(1)],
      ["person2", D(2)],
      ["person3", D(0)],
      ["person3", D(1)],
    ]);
    await withReference(data(countryPersons(), events), async (ref) => {
      expect((await actorIds(ref, 0, threeDays(byCountry), ["US"])).flat().sort()).toEqual(["person1", "person3"]);
      expect((await actorIds(ref, 1, threeDays(byCountry), ["UK"])).flat()).toContain("person2");
      const us = await actorsWithAppearances(ref, 0, threeDays(byCountry), [], ["US"]);
      expect([appearancesOf(us, "person1"), appearancesOf(us, "person3")]).toEqual([[0, 1, 2], [0, 1]]);
      expect(appearancesOf(await actorsWithAppearances(ref, 1, threeDays(byCountry), [], ["UK"]), "person2")).toEqual([0, 1]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_actor_query_with_breakdown_and_minimum_occurrences
  it("test_retention_actor_query_with_breakdown_and_minimum_occurrences", async () => {
    const twice = (id: string, day: number): Ev[] => [[id, D(day)], [id, D(day)]];
    const events = createEvents([
      ["person1", D(0)],
      ...twice("person1", 1),
      ...twice("person1", 2),
      ["person1", D(3)],
      ["person2", D(0)],
      ...twice("person2", 1),
      ...twice("person2", 2),
      ["person2", D(3)],
      ["person3", D(0)],
      ...twice("person3", 1),
      ["person3", D(3)],
    ]);
    await withReference(data(countryPersons(), events), async (ref) => {
      expect((await actorIds(ref, 0, threeDays(byCountry, { minimumOccurrences: 2 }), ["US"])).flat().sort()).toEqual(["person1", "person3"]);
      expect((await actorIds(ref, 1, threeDays(byCountry, { minimumOccurrences: 2 }), ["UK"])).flat()).toContain("person2");
      // Day 3's single views are not returns.
      const us = await actorsWithAppearances(ref, 0, threeDays(byCountry, { minimumOccurrences: 2 }), [], ["US"]);
      expect([appearancesOf(us, "person1"), appearancesOf(us, "person3")]).toEqual([[0, 1, 2], [0, 1]]);
      expect(appearancesOf(await actorsWithAppearances(ref, 1, threeDays(byCountry, { minimumOccurrences: 2 }), [], ["UK"]), "person2")).toEqual([0, 1]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_breakdown_event_properties
  it("test_retention_with_breakdown_event_properties", async () => {
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"], ["person4"]), createEvents(browserEvents())), sixDays({}, byBrowser));
    expect(new Set(rows.map((r) => r.breakdown_value))).toEqual(new Set(["Chrome", "Safari", "Firefox"]));
    expect(byBreakdown(rows, "Chrome")).toEqual(pad([[2, 1, 1, 1, 0, 0], [1, 0, 1], [1], [1], [0], [0]]));
    expect(byBreakdown(rows, "Safari")).toEqual(pad([[1, 1, 0, 0, 1, 0], [1, 0, 0, 1], [0], [0], [1], [0]]));
    expect(byBreakdown(rows, "Firefox")).toEqual(pad([[1, 0, 0, 0, 0, 1], [0], [0], [0], [0], [1]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_actor_query_with_event_property_breakdown
  it("test_retention_actor_query_with_event_property_breakdown", async () => {
    const events = createEvents([
      ["person1", D(0), { browser: "Chrome" }],
      ["person1", D(1), { browser: "Chrome" }],
      ["person1", D(2), { browser: "Chrome" }],
      ["person2", D(0), { browser: "Safari" }],
      ["person2", D(1), { browser: "Safari" }],
      ["person2", D(2), { browser: "Safari" }],
      ["person3", D(0), { browser: "Chrome" }],
      ["person3", D(1), { browser: "Chrome" }],
    ]);
    await withReference(data(persons(["person1"], ["person2"], ["person3"]), events), async (ref) => {
      expect((await actorIds(ref, 0, threeDays(byBrowser), ["Chrome"])).flat().sort()).toEqual(["person1", "person3"]);
      expect(await actorIds(ref, 0, threeDays(byBrowser), ["Safari"])).toEqual([["person2"]]);
      const chrome = await actorsWithAppearances(ref, 0, threeDays(byBrowser), [], ["Chrome"]);
      expect([appearancesOf(chrome, "person1"), appearancesOf(chrome, "person3")]).toEqual([[0, 1, 2], [0, 1]]);
      expect(appearancesOf(await actorsWithAppearances(ref, 0, threeDays(byBrowser), [], ["Safari"]), "person2")).toEqual([0, 1, 2]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_breakdown_different_entities
  it("test_retention_with_breakdown_different_entities", async () => {
    const cat = (category?: string, type = "purchase") => ({ ...(category ? { category } : {}), $event_type: type });
    const events = [
      ...createEvents(
        [
          ["person1", D(0), cat("clothing", "signup")],
          ["person2", D(0), cat("clothing", "signup")],
          ["person3", D(0), cat("electronics", "signup")],
          ["person4", D(1), cat("electronics", "signup")],
        ],
        "signup",
      ),
      ...createEvents(
        [
          ["person1", D(1), cat("clothing")],
          ["person1", D(3), cat()],
          ["person1", D(5), cat("electronics")],
          ["person2", D(2), cat("clothing")],
          ["person3", D(1), cat("electronics")],
          ["person3", D(4), cat("electronics")],
          ["person4", D(1), cat("electronics")],
          ["person4", D(2), cat("electronics")],
          ["person4", D(3), cat("clothing")],
        ],
        "purchase",
      ),
    ];
    const entities = { targetEntity: { id: "signup", type: "events" }, returningEntity: { id: "purchase", type: "events" } };
    const byCategory = { breakdowns: [{ property: "category", type: "event" }] };
    await withReference(data(persons(["person1"], ["person2"], ["person3"], ["person4"]), events), async (ref) => {
      const rows = await results(ref, sixDays(entities, byCategory));
      expect(new Set(rows.map((r) => r.breakdown_value))).toEqual(new Set(["clothing", "electronics"]));
      expect(byBreakdown(rows, "clothing")).toEqual(pad([[2, 1, 1, 0, 0, 0], [0], [0], [0], [0], [0]]));
      expect(byBreakdown(rows, "electronics")).toEqual(pad([[1, 1, 0, 0, 1, 0], [1, 1, 0, 0, 0, 0], [0], [0], [0], [0]]));
      // person4's purchase on its sign-up day is value 0; its clothing purchase is not an electronics return.
      expect(appearancesOf(await actorsWithAppearances(ref, 1, sixDays(entities, byCategory), [], ["electronics"]), "person4")).toEqual([0, 1]);
      const clothing = await actorsWithAppearances(ref, 0, { ...sixDays(entities, byCategory), dateRange: { date_to: D(5, 10) } }, [], ["clothing"]);
      expect([appearancesOf(clothing, "person1"), appearancesOf(clothing, "person2")]).toEqual([[0, 1], [0, 2]]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_breakdown_event_metadata
  it("test_retention_with_breakdown_event_metadata", async () => {
    const g = (name: string) => ({ $group_0: name });
    const events = createEvents([
      ["person1", D(0), g("Apple")],
      ["person1", D(1), g("Apple")],
      ["person1", D(3), g("Apple")],
      ["person3", D(0), g("Apple")],
      ["person3", D(2), g("Apple")],
      ["person2", D(0), g("Google")],
      ["person2", D(1), g("Google")],
      ["person2", D(4), g("Google")],
      ["person4", D(0), g("Stripe")],
      ["person4", D(5), g("Stripe")],
    ]);
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"], ["person4"]), events, { groupTypes: [{ group_type_index: 0, group_type: "organization" }] }), sixDays({}, { breakdowns: [{ property: "$group_0", type: "event_metadata" }] }));
    expect(new Set(rows.map((r) => r.breakdown_value))).toEqual(new Set(["Apple", "Google", "Stripe"]));
    expect(byBreakdown(rows, "Apple")).toEqual(pad([[2, 1, 1, 1, 0, 0], [1, 0, 1], [1], [1], [0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_breakdown_on_start_event
  it("test_retention_with_breakdown_on_start_event", async () => {
    const events = [
      ...createEvents([["person1", D(0), { category: "clothing" }], ["person2", D(0), { category: "clothing" }], ["person3", D(0), { category: "electronics" }]], "signup"),
      ...createEvents(
        [
          ["person1", D(1)],
          ["person1", D(3)],
          ["person1", D(5)],
          ["person2", D(2)],
          ["person3", D(1)],
          ["person3", D(4)],
          ["person4", D(1)],
          ["person4", D(4)],
        ],
        "purchase",
      ),
    ];
    const rows = await run(data(persons(["person1"], ["person2"], ["person3"]), events), sixDays({ targetEntity: { id: "signup", type: "events" }, returningEntity: { id: "purchase", type: "events" } }, { breakdowns: [{ property: "category", type: "event" }] }));
    expect(new Set(rows.map((r) => r.breakdown_value))).toEqual(new Set(["clothing", "electronics"]));
    expect(byBreakdown(rows, "clothing")).toEqual(pad([[2, 0, 0, 0, 0, 0], [0], [0], [0], [0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_breakdown_limit
  it("test_retention_with_breakdown_limit", async () => {
    const b = (browser: string) => ({ browser });
    const events = createEvents([
      ["p_chrome_1", D(0), b("Chrome")],
      ["p_chrome_1", D(1), b("Chrome")],
      ["p_chrome_2", D(0), b("Chrome")],
      ["p_chrome_2", D(2), b("Chrome")],
      ["p_chrome_3", D(0), b("Chrome")],
      ["p_safari_1", D(0), b("Safari")],
      ["p_safari_1", D(1), b("Safari")],
      ["p_safari_2", D(0), b("Safari")],
      ["p_firefox_1", D(0), b("Firefox")],
      ["p_firefox_1", D(3), b("Firefox")],
      ["p_edge_1", D(0), b("Edge")],
      ["p_edge_1", D(4), b("Edge")],
    ]);
    const p = persons(["p_chrome_1"], ["p_chrome_2"], ["p_chrome_3"], ["p_safari_1"], ["p_safari_2"], ["p_firefox_1"], ["p_edge_1"]);
    const rows = await run(data(p, events), sixDays({}, { ...byBrowser, breakdown_limit: 2 }));
    const OTHER = "$$_posthog_breakdown_other_$$";
    expect(new Set(rows.map((r) => r.breakdown_value))).toEqual(new Set(["Chrome", "Safari", OTHER]));
    expect(byBreakdown(rows, "Chrome")).toEqual(pad([[3, 1, 1, 0, 0, 0], [1], [1], [0], [0], [0]]));
    expect(byBreakdown(rows, "Safari")).toEqual(pad([[2, 1, 0, 0, 0, 0], [1], [0], [0], [0], [0]]));
    expect(byBreakdown(rows, OTHER)).toEqual(pad([[2, 0, 0, 1, 1, 0], [0], [0], [1], [1], [0]]));
  });

  const cohortEvents: Ev[] = [
    ["person1", D(0)],
    ["person2", D(0)],
    ["person3", D(0)],
    ["person1", D(1)],
    ["person2", D(1)],
    ["person1", D(2)],
    ["person3", D(3)],
  ];
  const fiveDays = (breakdown: unknown[]) => ({ dateRange: { date_to: D(4, 0) }, retentionFilter: { totalIntervals: 5, period: "Day" }, breakdownFilter: { breakdown_type: "cohort", breakdown } });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_cohort_breakdown
  it("test_retention_with_cohort_breakdown", async () => {
    const rows = await run(data(named("person1", "person2", "person3"), createEvents(cohortEvents), { extra: { cohorts: [cohortOfNames(1, "person1", "person2")] } }), fiveDays([1]));
    expect(new Set(rows.map((r) => String(r.breakdown_value)))).toEqual(new Set(["1"]));
    expect(byBreakdown(rows, "1")).toEqual(pad([[2, 2, 1, 0, 0], [2, 1, 0, 0], [1, 0, 0], [0, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_multiple_cohort_breakdowns
  it("test_retention_with_multiple_cohort_breakdowns", async () => {
    const events = createEvents([["person1", D(0)], ["person2", D(0)], ["person3", D(0)], ["person1", D(1)], ["person2", D(2)], ["person3", D(3)]]);
    const rows = await run(data(named("person1", "person2", "person3"), events, { extra: { cohorts: [cohortOfNames(1, "person1"), cohortOfNames(2, "person2")] } }), fiveDays([1, 2]));
    expect(new Set(rows.map((r) => String(r.breakdown_value)))).toEqual(new Set(["1", "2"]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_all_users_cohort_breakdown
  it("test_retention_with_all_users_cohort_breakdown", async () => {
    const rows = await run(data(named("person1", "person2", "person3"), createEvents(cohortEvents)), fiveDays([0]));
    expect(new Set(rows.map((r) => String(r.breakdown_value)))).toEqual(new Set(["0"]));
    expect(byBreakdown(rows, "0")).toEqual(pad([[3, 2, 1, 1, 0], [2, 1, 0, 0], [1, 0, 0], [1, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_with_all_users_cohort_breakdown_string_value
  it("test_retention_with_all_users_cohort_breakdown_string_value", async () => {
    const events = createEvents([["person1", D(0)], ["person2", D(0)], ["person1", D(1)]]);
    const rows = await run(data(named("person1", "person2"), events), { dateRange: { date_to: D(2, 0) }, retentionFilter: { totalIntervals: 2, period: "Day" }, breakdownFilter: { breakdown_type: "cohort", breakdown: ["all"] } });
    expect(new Set(rows.map((r) => String(r.breakdown_value)))).toEqual(new Set(["0"]));
    expect(byBreakdown(rows, "0")).toEqual(pad([[1, 0], [0]]));
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_actor_query_with_multiple_cohort_breakdowns
  it("test_retention_actor_query_with_multiple_cohort_breakdowns", async () => {
    const events = createEvents([["person1", D(0)], ["person2", D(0)], ["person1", D(1)], ["person2", D(2)]]);
    await withReference(data(named("person1", "person2"), events, { extra: { cohorts: [cohortOfNames(1, "person1"), cohortOfNames(2, "person2")] } }), async (ref) => {
      expect(await actorIds(ref, 0, fiveDays([1, 2]), ["1"])).toEqual([["person1"]]);
      expect(await actorIds(ref, 0, fiveDays([1, 2]), ["2"])).toEqual([["person2"]]);
      // Each one's appearances: person1 back on day 1, person2 on day 2.
      expect(actorsAnd(await actorsWithAppearances(ref, 0, fiveDays([1, 2]), [], ["1"]))).toEqual([[["person1"], [0, 1]]]);
      expect(actorsAnd(await actorsWithAppearances(ref, 0, fiveDays([1, 2]), [], ["2"]))).toEqual([[["person2"], [0, 2]]]);
    });
  });
});

describe("breakdown ranking", () => {
  const countryQuery = (limit?: number) => ({
    dateRange: { date_from: D(0), date_to: D(10) },
    retentionFilter: { period: "Day", totalIntervals: 7 },
    breakdownFilter: { breakdown: "country", breakdown_type: "person", ...(limit ? { breakdown_limit: limit } : {}) },
  });
  const day0 = (rows: Row[], value: string) => rows.find((r) => r.breakdown_value === value && r.label === "Day 0")!.values[0]!.count;

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_breakdown_person_property_is_stable
  it("test_retention_breakdown_person_property_is_stable", async () => {
    // The person's country was set after its first events: persons are read with their current properties.
    const others = Array.from({ length: 20 }, (_, i) => `person_${i}`);
    const p = persons([["person_no_country"], { country: "Taiwan" }], [["person_with_country"], { country: "Taiwan" }], ...others.map((id, i): [string[], Record<string, unknown>] => [[id], { country: `Country_${i}` }]));
    const events = [
      ...createEvents([["person_no_country", D(0)], ["person_no_country", D(1)], ["person_with_country", D(0)], ["person_with_country", D(1)]]),
      ...createEvents([["person_no_country", D(2)], ["person_with_country", D(2)]]),
      ...others.flatMap((id) => createEvents([[id, D(0)], [id, D(1)]])),
    ];
    const rows = await run(data(p, events), countryQuery());
    expect(new Set(rows.map((r) => r.breakdown_value))).toContain("Taiwan");
    expect(day0(rows, "Taiwan")).toBe(2);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_breakdown_uses_most_recent_property_value
  it("test_retention_breakdown_uses_most_recent_property_value", async () => {
    const others = Array.from({ length: 15 }, (_, i) => `other_${i}`);
    const p = persons([["person_changing"], { country: "USA" }], [["usa_baseline"], { country: "USA" }], ...others.map((id, i): [string[], Record<string, unknown>] => [[id], { country: `Other_${i}` }]));
    const events = [
      ...createEvents([["person_changing", D(0)]]),
      ...createEvents([["person_changing", D(1)]]),
      ...createEvents([["person_changing", D(2)]]),
      ...createEvents([["usa_baseline", D(0)]]),
      ...others.flatMap((id) => createEvents([[id, D(0)]])),
    ];
    const rows = await run(data(p, events), countryQuery(5));
    const values = new Set(rows.map((r) => r.breakdown_value));
    expect(values).toContain("USA");
    expect(values).not.toContain("Canada");
    expect(day0(rows, "USA")).toBe(2);
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_breakdown_other_grouping_logic
  it("test_retention_breakdown_other_grouping_logic", async () => {
    const group = (prefix: string, n: number, country: string) => Array.from({ length: n }, (_, i): [string[], Record<string, unknown>] => [[`${prefix}_${i}`], { country }]);
    const p = persons(...group("usa_user", 5, "USA"), ...group("can_user", 3, "Canada"), ...group("ger_user", 2, "Germany"), [["fra_user"], { country: "France" }], [["spa_user"], { country: "Spain" }]);
    const events = p!.flatMap((person) => createEvents([[person.distinct_ids[0]!, D(0)]]));
    const rows = await run(data(p, events), countryQuery(3));
    const values = new Set(rows.map((r) => r.breakdown_value));
    const OTHER = "$$_posthog_breakdown_other_$$";
    for (const v of ["USA", "Canada", "Germany", OTHER]) expect(values).toContain(v);
    for (const v of ["France", "Spain"]) expect(values).not.toContain(v);
    expect(day0(rows, OTHER)).toBe(2);
    expect(day0(rows, "USA")).toBe(5);
    expect(day0(rows, "Canada")).toBe(3);
  });
});

describe("groups", () => {
  const groupsData = (): RefData =>
    data(
      persons(["person1", "alias1"], ["person2"], ["person3"]),
      createEvents([
        ["person1", D(0), { $group_0: "org:5", $group_1: "company:1" }],
        ["person2", D(0), { $group_0: "org:6" }],
        ["person3", D(0)],
        ["person1", D(1), { $group_0: "org:5" }],
        ["person2", D(1), { $group_0: "org:6" }],
        ["person1", D(7), { $group_0: "org:5" }],
        ["person2", D(7), { $group_0: "org:6" }],
        ["person1", D(14), { $group_0: "org:5" }],
        ["person1", D(-6, 5, 1), { $group_0: "org:5", $group_1: "company:1" }],
        ["person2", D(-6, 5, 1), { $group_0: "org:6" }],
        ["person2", D(1, 5, 1), { $group_0: "org:6" }],
        ["person1", D(1, 5, 1), { $group_0: "org:5" }],
        ["person2", D(15, 5, 1), { $group_0: "org:6", $group_1: "company:1" }],
      ]),
      {
        groupTypes: [
          { group_type_index: 0, group_type: "organization" },
          { group_type_index: 1, group_type: "company" },
        ],
        extra: {
          groups: [
            { project_id: "1", group_type_index: 0, group_key: "org:5", properties: { industry: "finance" } },
            { project_id: "1", group_type_index: 0, group_key: "org:6", properties: { industry: "technology" } },
            { project_id: "1", group_type_index: 1, group_key: "company:1", properties: {} },
            { project_id: "1", group_type_index: 1, group_key: "company:2", properties: {} },
          ] as never,
        },
      },
    );
  const weekly = (index: number) => ({ dateRange: { date_to: D(10, 0, 1) }, aggregation_group_type_index: index, retentionFilter: { period: "Week", totalIntervals: 7 } });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_groups_aggregating
  it("test_groups_aggregating", async () => {
    await withReference(groupsData(), async (ref) => {
      expect(counts(await results(ref, weekly(0)))).toEqual(pad([[2, 2, 1, 2, 2, 0, 1], [2, 1, 2, 2, 0, 1], [1, 1, 1, 0, 0], [2, 2, 0, 1], [2, 0, 1], [0, 0], [1]]));
      expect((await actorIds(ref, 0, weekly(0))).flat().sort()).toEqual(["org:5", "org:6"]);
      expect(counts(await results(ref, weekly(1)))).toEqual(pad([[1, 0, 0, 1, 0, 0, 1], [0], [0], [1, 0, 0, 1], [0], [0], [1]]));
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_groups_in_period
  it("test_groups_in_period", async () => {
    await withReference(groupsData(), async (ref) => {
      expect(actorsAnd(await actorsWithAppearances(ref, 0, weekly(0)))).toEqual([["org:5", [0, 1, 2, 3, 4]], ["org:6", [0, 1, 3, 4, 6]]]);
    });
  });
});

describe("actors of a cohort", () => {
  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_people_basic
  it("test_retention_people_basic", async () => {
    await withReference(data(twoPersons(), createEvents(standardEvents)), async (ref) => {
      const query = { dateRange: { date_to: D(10, 6) }, retentionFilter: { totalIntervals: 11 } };
      expect(await actorIds(ref, 0, query)).toEqual([["person1", "alias1"]]);
      const days = await actorsWithAppearances(ref, 0, query, ["day_0", "day_1", "day_2", "day_3", "day_4"]);
      expect(days).toHaveLength(1);
      expect(days[0]!.slice(2)).toEqual([1, 1, 1, 0, 0]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_people_in_period
  it("test_retention_people_in_period", async () => {
    await withReference(data(twoPersons(), createEvents([...standardEvents, ["person2", D(7)]])), async (ref) => {
      const rows = await actorsWithAppearances(ref, 2, { dateRange: { date_to: D(10, 6) }, retentionFilter: { totalIntervals: 11 } });
      // Most appearances first.
      expect(actorsAnd(rows)).toEqual([[["person2"], [0, 1, 4, 5]], [["person1", "alias1"], [0, 3, 4]]]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_people_in_period_first_time
  it("test_retention_people_in_period_first_time", async () => {
    await withReference(data(firstTimePersons(), firstTimeRetentionEvents()), async (ref) => {
      const filter = { targetEntity: { id: "$user_signed_up", type: "events" }, returningEntity: pageview, retentionType: "retention_first_time", totalIntervals: 11 };
      const rows = await actorsWithAppearances(ref, 0, { dateRange: { date_to: D(10, 6) }, retentionFilter: filter });
      expect(actorsAnd(rows)).toEqual([[["person3"], [0, 1, 3, 4, 5]]]);
    });
  });

  // posthog/hogql_queries/insights/retention/test/test_retention_query_runner.py::test_retention_people_search
  it("test_retention_people_search", async () => {
    const p = persons([["person1", "alias1"], { email: "person1@test.com" }], [["person2"], { email: "person2@test.com" }]);
    await withReference(data(p, createEvents([...standardEvents, ["person2", D(7)]])), async (ref) => {
      expect(await actorIds(ref, 2, { dateRange: { date_to: D(10, 6) }, retentionFilter: { totalIntervals: 11 } }, undefined, "test")).toHaveLength(2);
    });
  });
});

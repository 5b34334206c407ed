import { describe, expect, it } from "vitest";
import { computeRetention, type RetentionCohort } from "../../../src/analyses/retention/index.ts";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { bracketLabels, bracketOf } from "../../../src/analyses/retention/brackets.ts";
import { contextFor, ev, journeys, worked, type ContextOptions, type World } from "./support.ts";

const retention = (world: World, filter: Record<string, unknown>, options: ContextOptions = {}) => computeRetention(world.events, filter, contextFor(world, options));
const table = (rows: RetentionCohort[]) => rows.map((r) => r.values.map((v) => v.count));
const daily = { period: "Day", total_intervals: 3, date_to: "2024-03-03" };
const entity = (id: string) => ({ id, type: "events" });

// The §2.8 data: pageviews A 1 Mar (×2) and 3 Mar, B 2 Mar, C 1 Mar; signups A 1 Mar, B 2 Mar, C 5 Mar;
// purchases A 1 Mar, B 3 Mar.
describe("retention (reference §7)", () => {
  const cases: [string, World, Record<string, unknown>, number[][], ContextOptions?][] = [
    ["the worked example: recurring $pageview, 3 days to 3 March", worked(), daily, [[2, 0, 1], [1, 0, 0], [1, 0, 0]]],
    ["first time: A's 3 March view forms no cohort", worked(), { ...daily, retention_type: "retention_first_time" }, [[2, 0, 1], [1, 0, 0], [0, 0, 0]]],
    ["first ever occurrence behaves the same without entity properties", worked(), { ...daily, retention_type: "retention_first_ever_occurrence" }, [[2, 0, 1], [1, 0, 0], [0, 0, 0]]],
    ["target signup, returning purchase: B buys the day after signing up", worked(), { ...daily, target_entity: entity("signup"), returning_entity: entity("purchase") }, [[1, 0, 0], [1, 1, 0], [0, 0, 0]]],
    ["entities may arrive JSON-encoded (GET)", worked(), { ...daily, target_entity: JSON.stringify(entity("signup")), returning_entity: JSON.stringify(entity("purchase")) }, [[1, 0, 0], [1, 1, 0], [0, 0, 0]]],
    ["a global property filter keeps only Chrome views (A's)", worked(), { ...daily, properties: [{ key: "$browser", value: "Chrome" }] }, [[1, 0, 1], [0, 0, 0], [1, 0, 0]]],
    ["weeks start on Sunday: 25 Feb and 3 Mar", worked(), { period: "Week", total_intervals: 2, date_to: "2024-03-05" }, [[3, 1], [1, 0]]],
    ["weeks start on Monday: A's 3 March view is in the first week", worked(), { period: "Week", total_intervals: 2, date_to: "2024-03-05" }, [[3, 0], [0, 0]], { weekStartDay: 1 }],
    ["month: one cohort, March", worked(), { period: "Month", total_intervals: 1, date_to: "2024-03-05" }, [[3]]],
    ["periods are case-insensitive", worked(), { ...daily, period: "day" }, [[2, 0, 1], [1, 0, 0], [1, 0, 0]]],
    ["hours: 10:10 is before the window of 11:00–13:59", journeys({ x: [ev("$pageview", "2024-03-01T10:10"), ev("$pageview", "2024-03-01T11:50"), ev("$pageview", "2024-03-01T13:05")] }),
      { period: "Hour", total_intervals: 3, date_to: "2024-03-01 13:30" }, [[1, 0, 1], [0, 0, 0], [1, 0, 0]]],
    ["first time: a first view before the window forms no cohort", journeys({ y: [ev("$pageview", "2024-02-20T10:00"), ev("$pageview", "2024-03-02T10:00")] }),
      { ...daily, retention_type: "retention_first_time" }, [[0, 0, 0], [0, 0, 0], [0, 0, 0]]],
  ];
  it.each(cases)("%s", (_name, world, filter, want, options) => {
    expect(table(retention(world, filter, options))).toEqual(want);
  });

  it("labels rows and values by period, dates them in the project zone, and links the cohort's persons", () => {
    const rows = retention(worked(), daily);
    expect(rows[0]).toEqual({
      values: [{ count: 2, people: [], label: "Day 0" }, { count: 0, people: [], label: "Day 1" }, { count: 1, people: [], label: "Day 2" }],
      label: "Day 0",
      date: "2024-03-01T00:00:00Z",
      people_url: "/api/projects/1/persons/retention/?period=Day&total_intervals=3&date_to=2024-03-03&selected_interval=0",
    });
    expect(rows.map((r) => r.label)).toEqual(["Day 0", "Day 1", "Day 2"]);
    expect(retention(worked(), daily, { timezone: "Asia/Tokyo" })[0]!.date).toBe("2024-03-01T00:00:00+09:00");
  });

  it("defaults to $pageview and 11 daily cohorts ending today", () => {
    const rows = retention(worked(), {}, { now: "2024-03-05T12:00" });
    expect(rows).toHaveLength(11);
    expect(rows[0]!.date).toBe("2024-02-24T00:00:00Z");
    expect(rows[6]!.values.map((v) => v.count).slice(0, 3)).toEqual([2, 0, 1]);
  });

  it("first ever occurrence: the very first target event must match the entity's properties", () => {
    const w = journeys({ z: [ev("$pageview", "2024-03-01T10:00", { $browser: "Safari" }), ev("$pageview", "2024-03-02T10:00", { $browser: "Chrome" })] });
    const target = { id: "$pageview", type: "events", properties: [{ key: "$browser", value: "Chrome" }] };
    expect(table(retention(w, { ...daily, target_entity: target, retention_type: "retention_first_ever_occurrence" }))).toEqual([[0, 0, 0], [0, 0, 0], [0, 0, 0]]);
    expect(table(retention(w, { ...daily, target_entity: target, retention_type: "retention_first_time" }))).toEqual([[0, 0, 0], [1, 0, 0], [0, 0, 0]]);
  });

  it("breaks down by a person property: one block of cohorts per value, most actors first, then by value", () => {
    const w = journeys({
      x: { properties: { plan: "pro" }, events: [ev("$pageview", "2024-03-02T10:00"), ev("$pageview", "2024-03-03T10:00")] },
      y: { properties: { plan: "free" }, events: [ev("$pageview", "2024-03-02T11:00")] },
      v: { properties: { plan: "free" }, events: [ev("$pageview", "2024-03-03T11:00")] },
      z: { events: [ev("$pageview", "2024-03-03T12:00")] },
    });
    const rows = retention(w, { period: "Day", total_intervals: 2, date_to: "2024-03-03", breakdown: "plan", breakdown_type: "person" });
    expect(rows.map((r) => [r.breakdown_value, r.values.map((v) => v.count)])).toEqual([
      ["free", [1, 0]], ["free", [1, 0]],
      ["", [0, 0]], ["", [1, 0]],
      ["pro", [1, 1]], ["pro", [1, 0]],
    ]);
    expect(rows[0]!.people_url).toContain("&selected_interval=0&breakdown_value=free");
  });

  it.each([
    ["period", { period: "Year" }],
    ["total_intervals", { total_intervals: 0 }],
    ["retention_type", { retention_type: "retention_sometimes" }],
  ])("rejects a bad %s with a 400 naming it", (attr, filter) => {
    try {
      retention(worked(), { ...daily, ...filter });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AnalysisInputError);
      expect((e as AnalysisInputError).attr).toBe(attr);
    }
  });
});

// Custom brackets (PostHog retention_query_runner.py `get_bracket_labels`, retention_base_query_fixed.py
// `_get_custom_bracket_intervals_from_base_expr`); the numbers worked out by hand below.
describe("retention with custom brackets", () => {
  const brackets = [3, 4];
  it.each([
    [0, -1], [-2, -1], [1, 1], [3, 1], [4, 2], [7, 2], [8, -1],
  ])("a return %i periods after the anchor is in bracket %i of [3, 4]", (distance, want) => expect(bracketOf(distance, brackets)).toBe(want));

  it.each([
    [[4, 10, 3], ["Day 0", "Day 1-4", "Day 5-14", "Day 15-17"]],
    [[7, 1], ["Day 0", "Day 1-7", "Day 8"]],
    [[0, 2], ["Day 0", "Day 1-0", "Day 1-2"]],
  ])("labels %j", (sizes, want) => expect(bracketLabels("Day", sizes)).toEqual(want));

  // x views on days 0, 3 and 5 of 1–7 March: brackets [3, 4] are days 1-3 and 4-7 after the anchor.
  const x = journeys({ x: [ev("$pageview", "2024-03-01T10:00"), ev("$pageview", "2024-03-04T10:00"), ev("$pageview", "2024-03-06T10:00")] });
  const week = { period: "Day", total_intervals: 7, date_to: "2024-03-07", retention_custom_brackets: brackets };

  it("measures every return from the actor's first cohort in the window, in each of its recurring cohorts (as PostHog's start_event_timestamps[1])", () => {
    // Day 0: day 3 is 3 after it (bracket 1), day 5 is 5 (bracket 2); days 3 and 5 are cohorts too, with the same brackets.
    expect(table(retention(x, week))).toEqual([[1, 1, 1], [0, 0, 0], [0, 0, 0], [1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]]);
    expect(retention(x, week)[0]!.values.map((v) => v.label)).toEqual(["Day 0", "Day 1-3", "Day 4-7"]);
  });

  it("first time: the one cohort is the anchor", () => {
    expect(table(retention(x, { ...week, retention_type: "retention_first_time" }))[0]).toEqual([1, 1, 1]);
  });

  it("cumulative: a return in bracket 2 counts in bracket 1 too", () => {
    const late = journeys({ y: [ev("$pageview", "2024-03-01T10:00"), ev("$pageview", "2024-03-06T10:00")] });
    expect(table(retention(late, week))[0]).toEqual([1, 0, 1]);
    expect(table(retention(late, { ...week, cumulative: true }))[0]).toEqual([1, 1, 1]);
  });

  it("24-hour windows group nothing: the values are the first windows under the brackets' labels (PostHog's rolling query reads no brackets)", () => {
    // z: 10:00 on 1 March, then 25 and 50 hours later: windows 1 and 2, both in bracket 1 were it read.
    const z = journeys({ z: [ev("$pageview", "2024-03-01T10:00"), ev("$pageview", "2024-03-02T11:00"), ev("$pageview", "2024-03-03T12:00")] });
    const rows = retention(z, { ...week, time_window_mode: "24_hour_windows" });
    expect(table(rows)[0]).toEqual([1, 1, 1]);
    expect(rows[0]!.values.map((v) => v.label)).toEqual(["Day 0", "Day 1-3", "Day 4-7"]);
  });

  it.each([[[-1]], [[1.5]], [Array<number>(101).fill(1)], ["[2, 3"]])("rejects brackets %j naming retention_custom_brackets", (bad) => {
    expect(() => retention(x, { ...week, retention_custom_brackets: bad })).toThrow(expect.objectContaining({ attr: "retention_custom_brackets" }));
  });
});

import { describe, expect, it } from "vitest";
import { computeRetention, type RetentionCohort } from "../../../src/analyses/retention/index.ts";
import { AnalysisInputError } from "../../../src/analyses/errors.ts";
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

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHogql, setParseTimeLimit } from "../../../src/hogql/parse.ts";
import { closeEngine, print, runHogql } from "./printer-support.ts";

beforeAll(async () => {
  setParseTimeLimit(20_000);
  await loadHogql();
});
afterAll(closeEngine);

/**
 * `{filters.dateRange.from}` and `{filters.dateRange.to}` as PostHog's posthog/hogql/filters.py replaces them
 * (ReplaceFilters.visit_placeholder and _skip_unbounded_date_placeholder: a set bound is its instant, an unset one
 * makes its comparison a no-op). PostHog's own tests of them (test_filters.py: the nested-placeholder cases and
 * test_raises_for_unsupported_filters_placeholder) are ported in filters-placeholder.test.ts; the cases here are
 * ours, worked by hand. Team 7's six events (printer-support.ts):
 * 03-01 10:00, 03-01 11:00, 03-02 09:00, 03-02 12:00, 03-02 13:00, 03-02 23:30 (UTC); the clock is 03-03 00:00.
 */
describe("{filters.dateRange.from} / {filters.dateRange.to}", () => {
  const WHERE = "SELECT count() FROM events WHERE timestamp >= {filters.dateRange.from} AND timestamp < {filters.dateRange.to}";
  const cases: Array<[string, string, Record<string, unknown> | undefined, number]> = [
    // 03-02 00:00 ≤ t < 03-02 12:00: only 03-02 09:00
    ["both bounds, bare dates and a time", WHERE, { dateRange: { date_from: "2024-03-02", date_to: "2024-03-02T12:00:00Z" } }, 1],
    // t ≥ 03-02 00:00: four events; date_to unset makes its comparison true
    ["from only: the `to` comparison holds for every row", WHERE, { dateRange: { date_from: "2024-03-02" } }, 4],
    // t < 03-01 11:00: one event; date_from unset
    ["to only", WHERE, { dateRange: { date_to: "2024-03-01T11:00:00Z" } }, 1],
    // date_from `all` is no lower bound (filters.py: `dateFrom != "all"`)
    ["from `all` is unset", WHERE, { dateRange: { date_from: "all", date_to: "2024-03-02" } }, 2],
    // no filters at all: both comparisons are no-ops, every event counts
    ["no filters", WHERE, undefined, 6],
    ["empty filters", WHERE, {}, 6],
    // -1d from 03-03 00:00 is 03-02 00:00, exactly (relative_date_parse without truncation)
    ["a relative bound", "SELECT count() FROM events WHERE timestamp >= {filters.dateRange.from}", { dateRange: { date_from: "-1d" } }, 4],
    // the placeholder on the left of its comparison, and nested in a function inside the comparison
    ["on the left", "SELECT count() FROM events WHERE {filters.dateRange.to} > timestamp", { dateRange: { date_to: "2024-03-02" } }, 2],
    ["inside a call inside a comparison, unset", "SELECT count() FROM events WHERE toDate(timestamp) >= toDate({filters.dateRange.from})", undefined, 6],
    ["inside a call inside a comparison, set", "SELECT count() FROM events WHERE toDate(timestamp) >= toDate({filters.dateRange.from})", { dateRange: { date_from: "2024-03-02T18:00:00Z" } }, 4],
  ];
  it.each(cases)("%s", (_name, hogql, filters, want) => {
    expect(runHogql(hogql, filters ? { filters } : {})).toEqual([[want]]);
  });

  it("reads a bare date at midnight in the project's zone", () => {
    // Tokyo is UTC+9: 2024-03-02 in Tokyo starts at 03-01 15:00 UTC, after both of 03-01's events
    const sql = print("SELECT count() FROM events WHERE timestamp >= {filters.dateRange.from}", { timezone: "Asia/Tokyo", filters: { dateRange: { date_from: "2024-03-02" } } }).clickhouse;
    expect(sql).toContain("2024-03-01T15:00:00.000Z");
  });

  it("prints an unset bound's comparison as true = true", () => {
    const sql = print("SELECT event FROM events WHERE timestamp >= {filters.dateRange.from}").clickhouse;
    expect(sql).not.toContain("greaterOrEquals");
  });

  it("refuses an unset bound outside any comparison, and other filters placeholders", () => {
    expect(() => print("SELECT {filters.dateRange.from}")).toThrow("The `{filters.dateRange.from}` placeholder must be used directly in a comparison");
    expect(() => print("SELECT count() FROM events WHERE {filters.properties}")).toThrow("Unsupported filters placeholder `{filters.properties}`");
  });

  it("uses a set bound anywhere, as a date-time", () => {
    expect(runHogql("SELECT toString(toDate({filters.dateRange.to}))", { filters: { dateRange: { date_to: "2024-03-02T12:00:00Z" } } })).toEqual([["2024-03-02"]]);
  });
});

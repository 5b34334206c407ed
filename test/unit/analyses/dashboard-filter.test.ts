import { describe, expect, it } from "vitest";
import { applyDashboardFilter } from "../../../src/analyses/shared/dashboard-filter.ts";

/**
 * A dashboard's filters over an insight's legacy filter, table-driven: [name, kind, insight filter, dashboard
 * filters, want]. The rules are PostHog's QueryRunner.apply_dashboard_filters (and TrendsQueryRunner's for compare).
 */
type Case = [string, string, Record<string, unknown>, Record<string, unknown> | undefined, Record<string, unknown>];

const a = { key: "a", value: "1", type: "event" };
const b = { key: "b", value: "2", type: "event" };
const range = { date_from: "2020-01-09", date_to: "2020-01-20" };

const cases: Case[] = [
  ["no dashboard changes nothing", "TRENDS", range, undefined, range],
  ["empty filters change nothing", "TRENDS", { ...range, breakdown: "x", breakdown_limit: 50 }, {}, { ...range, breakdown: "x", breakdown_limit: 50 }],
  ["date_from alone replaces the range: date_to goes", "TRENDS", range, { date_from: "-14d" }, { date_from: "-14d" }],
  ["date_to alone replaces the range: date_from goes", "TRENDS", range, { date_to: "2020-01-15" }, { date_to: "2020-01-15" }],
  ["both dates", "TRENDS", range, { date_from: "2024-07-07", date_to: "2024-07-14" }, { date_from: "2024-07-07", date_to: "2024-07-14" }],
  ["explicitDate travels with the range", "TRENDS", range, { date_from: "-1d", explicitDate: true }, { date_from: "-1d", explicit_date: true }],
  ["properties set when the insight has none", "TRENDS", {}, { properties: [b] }, { properties: [b] }],
  ["an empty own list counts as none", "TRENDS", { properties: [] }, { properties: [b] }, { properties: [b] }],
  ["a list is ANDed as a group", "TRENDS", { properties: [a] }, { properties: [b] }, { properties: { type: "AND", values: [{ type: "AND", values: [a] }, { type: "AND", values: [b] }] } }],
  [
    "a group is kept whole",
    "TRENDS",
    { properties: { type: "OR", values: [{ type: "OR", values: [a] }] } },
    { properties: [b] },
    { properties: { type: "AND", values: [{ type: "OR", values: [{ type: "OR", values: [a] }] }, { type: "AND", values: [b] }] } },
  ],
  ["an empty dashboard list adds nothing", "TRENDS", { properties: [a] }, { properties: [] }, { properties: [a] }],
  [
    "a breakdown replaces the whole breakdown",
    "TRENDS",
    { breakdown: "abc", breakdown_limit: 5, breakdown_histogram_bin_count: 3 },
    { breakdown_filter: { breakdown: "$browser", breakdown_type: "event", breakdown_limit: 10 } },
    { breakdown: "$browser", breakdown_type: "event", breakdown_limit: 10 },
  ],
  ["no breakdown on a stickiness", "STICKINESS", { interval: "day" }, { breakdown_filter: { breakdown: "$browser" } }, { interval: "day" }],
  ["interval replaced", "TRENDS", { interval: "day" }, { interval: "week" }, { interval: "week" }],
  ["no interval on a retention", "RETENTION", { period: "Day" }, { interval: "week" }, { period: "Day" }],
  ["test accounts, either way", "FUNNELS", { filter_test_accounts: true }, { filterTestAccounts: false }, { filter_test_accounts: false }],
  ["all time turns a trends compare off", "TRENDS", { ...range, compare: true }, { date_from: "all" }, { date_from: "all", compare: false }],
  ["another range keeps compare", "TRENDS", { ...range, compare: true }, { date_from: "-7d" }, { date_from: "-7d", compare: true }],
];

describe("applyDashboardFilter", () => {
  it.each(cases)("%s", (_name, kind, filter, dashboard, want) => {
    const before = structuredClone(filter);
    expect(applyDashboardFilter(kind, filter, dashboard)).toEqual(want);
    expect(filter).toEqual(before);
  });
});

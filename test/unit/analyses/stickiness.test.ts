import { describe, expect, it } from "vitest";
import { computeStickiness, type StickinessItem } from "../../../src/analyses/stickiness/index.ts";
import { contextFor, ev, journeys, worked, type ContextOptions, type World } from "./support.ts";

const stickiness = (world: World, filter: Record<string, unknown>, options: ContextOptions = {}) =>
  computeStickiness(world.events, { insight: "STICKINESS", ...filter }, contextFor(world, options));
const brief = (items: StickinessItem[]) => items.map(({ label, data, count, compare_label }) => ({ label, data, count, ...(compare_label ? { compare_label } : {}) }));
const march = { date_from: "2024-03-01", date_to: "2024-03-03" };
const pageviews = { events: [{ id: "$pageview" }], ...march };

// The §2.8 data: A views on 1 and 3 March (as a-anon and a: one person), B on 2 March, C on 1 March.
// Positions are the buckets of the range (PostHog's current runner: its tests moved from N + 1 positions to N).
describe("stickiness (reference §3)", () => {
  type Case = [string, Record<string, unknown>, { label: string; data: number[]; count: number; compare_label?: string }[]];
  const cases: Case[] = [
    ["the worked example: 3 buckets give 3 positions; A on 2 days, B and C on 1", pageviews, [{ label: "$pageview", data: [2, 1, 0], count: 3 }]],
    ["two events on one day are one active day (A on 1 March)", { ...pageviews, date_to: "2024-03-01" }, [{ label: "$pageview", data: [2], count: 2 }]],
    ["a global property filter: only Chrome views (A's)", { ...pageviews, properties: [{ key: "$browser", value: "Chrome" }] }, [{ label: "$pageview", data: [0, 1, 0], count: 1 }]],
    ["one item per series; signups on 1 and 2 March (C's is on the 5th)", { ...march, events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }] }, [
      { label: "$pageview", data: [2, 1, 0], count: 3 },
      { label: "signup", data: [2, 0, 0], count: 2 },
    ]],
    ["week interval: 1–14 March touches 3 weeks, so 3 positions; A in 2 of them", { ...pageviews, date_to: "2024-03-14", interval: "week" }, [{ label: "$pageview", data: [2, 1, 0], count: 3 }]],
    ["month interval: a range inside March gives 1 position", { ...pageviews, date_to: "2024-03-20", interval: "month" }, [{ label: "$pageview", data: [3], count: 3 }]],
    ["any math counts persons (dau), not events", { ...march, events: [{ id: "$pageview", math: "total" }] }, [{ label: "$pageview", data: [2, 1, 0], count: 3 }]],
    ["compare: current 4–6 March (nobody), previous 1–3 March", { events: [{ id: "$pageview" }], date_from: "2024-03-04", date_to: "2024-03-06", compare: true }, [
      { label: "$pageview", data: [0, 0, 0], count: 0, compare_label: "current" },
      { label: "$pageview", data: [2, 1, 0], count: 3, compare_label: "previous" },
    ]],
    // computed_as, interval_count and stickiness_criteria (PostHog's StickinessQuery intervalCount and stickinessFilter).
    ["cumulative: position k counts actors on k or more days; count stays 3", { ...pageviews, computed_as: "cumulative" }, [{ label: "$pageview", data: [3, 1, 0], count: 3 }]],
    // Two-day periods back from the end of 3 March: {2, 3 March} is period 0, {1 March} period 1; 3 days give 2 positions.
    ["interval_count 2: A in both periods, B and C in one", { ...pageviews, interval_count: 2 }, [{ label: "$pageview", data: [2, 1], count: 3 }]],
    // 7-day periods back from 14 March 23:59: 1–3 March are all 11 to 13 days before it, one period (calendar weeks: two).
    ["interval_count 1 by week: periods count back from the end of the range, not calendar weeks", { ...pageviews, date_to: "2024-03-14", interval: "week", interval_count: 1 }, [{ label: "$pageview", data: [3, 0, 0], count: 3 }]],
    // A viewed twice on 1 March and once on 3 March; B and C once.
    ["criteria gte 2: only A's 1 March counts", { ...pageviews, stickiness_criteria: { operator: "gte", value: 2 } }, [{ label: "$pageview", data: [1, 0, 0], count: 1 }]],
    ["criteria lte 1: A's 3 March, B's and C's day count", { ...pageviews, stickiness_criteria: { operator: "lte", value: 1 } }, [{ label: "$pageview", data: [3, 0, 0], count: 3 }]],
  ];
  it.each(cases)("%s", (_name, filter, want) => {
    expect(brief(stickiness(worked(), filter))).toEqual(want);
  });

  it("refuses options outside the real service's rules, naming the field", () => {
    expect(() => stickiness(worked(), { ...pageviews, computed_as: "rolling" })).toThrow(/not a computation mode/);
    expect(() => stickiness(worked(), { ...pageviews, interval_count: 1.5 })).toThrow(/intervalCount must be a positive integer/);
    expect(() => stickiness(worked(), { ...pageviews, stickiness_criteria: { operator: "gt", value: 1 } })).toThrow(/not a stickiness criteria operator/);
  });

  it("labels positions `k days or more` when cumulative", () => {
    const [item] = stickiness(worked(), { ...pageviews, computed_as: "cumulative" });
    expect(item!.labels).toEqual(["1 day or more", "2 days or more", "3 days or more"]);
  });

  it("answers days 1…N and labels by interval", () => {
    const [item] = stickiness(worked(), pageviews);
    expect(item!.days).toEqual([1, 2, 3]);
    expect(item!.labels).toEqual(["1 day", "2 days", "3 days"]);
    expect(item!.action).toMatchObject({ id: "$pageview", type: "events", order: 0, name: "$pageview" });
    const [weekly] = stickiness(worked(), { ...pageviews, date_to: "2024-03-14", interval: "week" });
    expect(weekly!.labels).toEqual(["1 week", "2 weeks", "3 weeks"]);
  });

  it("hour interval: buckets 10:00, 11:00 and 12:00; active in two of them", () => {
    const w = journeys({ x: [ev("$pageview", "2024-03-01T10:05"), ev("$pageview", "2024-03-01T10:40"), ev("$pageview", "2024-03-01T12:10")] });
    const [item] = stickiness(w, { events: [{ id: "$pageview" }], date_from: "2024-03-01 10:00", date_to: "2024-03-01 12:59:59", interval: "hour" });
    expect(item).toMatchObject({ data: [0, 1, 0], labels: ["1 hour", "2 hours", "3 hours"], count: 1 });
  });

  it("counts groups with unique_group", () => {
    const w = journeys({
      x: [ev("$pageview", "2024-03-01T10:00", { $group_0: "acme" }), ev("$pageview", "2024-03-02T10:00", { $group_0: "acme" })],
      y: [ev("$pageview", "2024-03-02T11:00", { $group_0: "acme" }), ev("$pageview", "2024-03-03T10:00", { $group_0: "globex" })],
    });
    const [item] = stickiness(w, { ...march, events: [{ id: "$pageview", math: "unique_group", math_group_type_index: 0 }] });
    // acme on 1 and 2 March, globex on 3 March.
    expect(item!.data).toEqual([1, 1, 0]);
  });
});

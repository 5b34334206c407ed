import { describe, expect, it } from "vitest";
import { computeLifecycle, type LifecycleItem } from "../../../src/analyses/lifecycle/index.ts";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { contextFor, ev, journeys, worked, type World } from "./support.ts";

const lifecycle = (world: World, filter: Record<string, unknown>) => computeLifecycle(world.events, { insight: "LIFECYCLE", ...filter }, contextFor(world));
const byStatus = (items: LifecycleItem[]) => Object.fromEntries(items.map((i) => [i.status, i.data]));
const pageviews = { events: [{ id: "$pageview" }] };

describe("lifecycle (reference §4, §11 item 13)", () => {
  type Want = { new: number[]; returning: number[]; resurrecting: number[]; dormant: number[] };
  const cases: [string, World, Record<string, unknown>, Want][] = [
    // A created and active 1 March, again 3 March; C created and active 1 March; B created and active 2 March.
    ["the worked example, 1–4 March", worked(), { date_from: "2024-03-01", date_to: "2024-03-04" }, {
      new: [2, 1, 0, 0], returning: [0, 0, 0, 0], resurrecting: [0, 0, 1, 0], dormant: [0, -2, -1, -1],
    }],
    // 1 March is the look-back bucket: A and C are new there (not shown), so dormant on the 2nd.
    ["the bucket before date_from is looked at", worked(), { date_from: "2024-03-02", date_to: "2024-03-04" }, {
      new: [1, 0, 0], returning: [0, 0, 0], resurrecting: [0, 1, 0], dormant: [-2, -1, -1],
    }],
    ["active two days running is returning", journeys({ p: { created_at: "2024-03-01T09:00:00Z", events: [ev("$pageview", "2024-03-01T10:00"), ev("$pageview", "2024-03-02T10:00"), ev("$pageview", "2024-03-04T10:00")] } }),
      { date_from: "2024-03-01", date_to: "2024-03-05" }, {
        new: [1, 0, 0, 0, 0], returning: [0, 1, 0, 0, 0], resurrecting: [0, 0, 0, 1, 0], dormant: [0, 0, -1, 0, -1],
      }],
    ["a person created before its first activity is resurrecting, not new", journeys({ q: { created_at: "2024-02-01T00:00:00Z", events: [ev("$pageview", "2024-03-03T10:00")] } }),
      { date_from: "2024-03-01", date_to: "2024-03-04" }, {
        new: [0, 0, 0, 0], returning: [0, 0, 0, 0], resurrecting: [0, 0, 1, 0], dormant: [0, 0, 0, -1],
      }],
    ["activity in the look-back bucket makes the first bucket returning", journeys({ r: { created_at: "2024-02-29T08:00:00Z", events: [ev("$pageview", "2024-02-29T09:00"), ev("$pageview", "2024-03-01T09:00")] } }),
      { date_from: "2024-03-01", date_to: "2024-03-02" }, {
        new: [0, 0], returning: [1, 0], resurrecting: [0, 0], dormant: [0, -1],
      }],
    // PostHog joins persons for created_at: events of a distinct id with no person count for no one
    // (test_lifecycle_query_runner.py::test_excludes_personless_events).
    ["personless events are left out", journeys({
      p: { created_at: "2024-03-01T09:00:00Z", events: [ev("$pageview", "2024-03-01T10:00"), ev("$pageview", "2024-03-02T10:00")] },
      ghost: { anonymous: true, events: [ev("$pageview", "2024-03-01T10:00"), ev("$pageview", "2024-03-03T10:00")] },
    }), { date_from: "2024-03-01", date_to: "2024-03-03" }, {
      new: [1, 0, 0], returning: [0, 1, 0], resurrecting: [0, 0, 0], dormant: [0, 0, -1],
    }],
    // Weeks of 25 Feb, 3 Mar, 10 Mar: all three are created and active in the first; A again in the second.
    ["week interval", worked(), { date_from: "2024-03-01", date_to: "2024-03-14", interval: "week" }, {
      new: [3, 0, 0], returning: [0, 1, 0], resurrecting: [0, 0, 0], dormant: [0, -2, -1],
    }],
  ];
  it.each(cases)("%s", (_name, world, filter, want) => {
    expect(byStatus(lifecycle(world, { ...pageviews, ...filter }))).toEqual(want);
  });

  it("answers four items in status order with labels, counts, days and legacy labels", () => {
    const items = lifecycle(worked(), { ...pageviews, date_from: "2024-03-01", date_to: "2024-03-04" });
    expect(items.map(({ label, status, count }) => ({ label, status, count }))).toEqual([
      { label: "$pageview - new", status: "new", count: 3 },
      { label: "$pageview - returning", status: "returning", count: 0 },
      { label: "$pageview - resurrecting", status: "resurrecting", count: 1 },
      { label: "$pageview - dormant", status: "dormant", count: -4 },
    ]);
    expect(items[0]!.days).toEqual(["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"]);
    expect(items[0]!.labels).toEqual(["1-Mar-2024", "2-Mar-2024", "3-Mar-2024", "4-Mar-2024"]);
    const weekly = lifecycle(worked(), { ...pageviews, date_from: "2024-03-01", date_to: "2024-03-14", interval: "week" });
    expect(weekly[0]!.days).toEqual(["2024-02-25", "2024-03-03", "2024-03-10"]);
  });

  it.each([
    ["no series", {}],
    ["two series", { events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }] }],
  ])("needs exactly one series: %s is a 400 on events", (_name, filter) => {
    const run = () => lifecycle(worked(), { date_from: "2024-03-01", date_to: "2024-03-04", ...filter });
    expect(run).toThrow(AnalysisInputError);
    try {
      run();
    } catch (e) {
      expect((e as AnalysisInputError).attr).toBe("events");
    }
  });
});

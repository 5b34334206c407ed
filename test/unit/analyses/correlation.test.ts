import { describe, expect, it } from "vitest";
import { computeCorrelation, type CorrelationResult } from "../../../src/analyses/correlation/index.ts";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { contextFor, ev, journeys, worked, type JourneyEvent, type PersonSpec, type World } from "./support.ts";

const correlate = (world: World, filter: Record<string, unknown>) => computeCorrelation(world.events, filter, contextFor(world));
const steps = (...names: string[]) => names.map((id, order) => ({ id, type: "events", order }));
const brief = (result: CorrelationResult) => ({
  skewed: result.skewed,
  events: result.events.map((e) => [e.event.event, e.success_count, e.failure_count, e.odds_ratio, e.correlation_type]),
});

/** Four shoppers: 1 and 2 buy (1 scrolls first); 3 scrolls and leaves, 4 leaves. S = 2, F = 2. */
const shoppers = (): World =>
  journeys({
    p1: { properties: { plan: "pro" }, events: [ev("view", "2024-03-01T10:00"), ev("scroll", "2024-03-01T10:01"), ev("buy", "2024-03-01T10:02")] },
    p2: { properties: { plan: "free" }, events: [ev("view", "2024-03-01T11:00"), ev("buy", "2024-03-01T11:05")] },
    p3: { properties: { plan: "free" }, events: [ev("view", "2024-03-01T12:00"), ev("scroll", "2024-03-01T12:01"), ev("leave", "2024-03-01T12:02")] },
    p4: { events: [ev("view", "2024-03-01T13:00"), ev("leave", "2024-03-01T13:01")] },
  });
const shop = { events: steps("view", "buy"), date_from: "2024-03-01", date_to: "2024-03-04" };

describe("funnel correlation (reference §6)", () => {
  type Row = [string, number, number, number, string];
  const cases: [string, World, Record<string, unknown>, { skewed: boolean; events: Row[] }][] = [
    // A buys an hour after viewing with a signup between; B buys the next day with a $pageleave and a signup
    // between; C never buys (its signup on 5 March is after date_to). S = 2, F = 1.
    ["the worked data: $pageview → purchase", worked(), { events: steps("$pageview", "purchase"), date_from: "2024-03-01", date_to: "2024-03-04" }, {
      skewed: false,
      events: [["signup", 2, 0, (3 * 2) / (1 * 1), "success"], ["$pageleave", 1, 0, (2 * 2) / (2 * 1), "success"]],
    }],
    ["excluded event names are left out", worked(), { events: steps("$pageview", "purchase"), date_from: "2024-03-01", date_to: "2024-03-04", funnel_correlation_exclude_event_names: ["signup"] }, {
      skewed: false,
      events: [["$pageleave", 1, 0, 2, "success"]],
    }],
    // leave: s 0, f 2 ⇒ (1·1)/(3·3) = 1/9; scroll: s 1, f 1 ⇒ (2·2)/(2·2) = 1, not above 1 so a failure.
    ["failures sort by ratio ascending", shoppers(), shop, {
      skewed: false,
      events: [["leave", 0, 2, 1 / 9, "failure"], ["scroll", 1, 1, 1, "failure"]],
    }],
    // plan::pro s 1, f 0 ⇒ (2·3)/(2·1) = 3; plan::free s 1, f 1 ⇒ 1; p4 has no plan: a named property it lacks is
    // the value "" (PostHog test_funnel_correlation.py::test_correlation_with_multiple_properties, "$nice::"),
    // plan:: s 0, f 1 ⇒ (1·2)/(3·2) = 1/3.
    ["person property values", shoppers(), { ...shop, funnel_correlation_type: "properties", funnel_correlation_names: ["plan"] }, {
      skewed: false,
      events: [["plan::pro", 1, 0, 3, "success"], ["plan::", 0, 1, 1 / 3, "failure"], ["plan::free", 1, 1, 1, "failure"]],
    }],
    ["$all person properties, minus the excluded ones", shoppers(), { ...shop, funnel_correlation_type: "properties", funnel_correlation_names: ["$all"], funnel_correlation_exclude_names: ["plan"] }, {
      skewed: false,
      events: [],
    }],
    ["everyone converts: nothing to compare, skewed", shoppers(), { ...shop, events: steps("view", "view") }, { skewed: true, events: [] }],
  ];
  it.each(cases)("%s", (_name, world, filter, want) => {
    expect(brief(correlate(world, filter))).toEqual(want);
  });

  it("event property values need more than two actors", () => {
    const leaver = (at: string, reason: string): PersonSpec => ({ events: [ev("view", `2024-03-01T${at}`), ev("leave", `2024-03-01T${at.replace(":00", ":01")}`, { reason })] });
    const w = journeys({ b: [ev("view", "2024-03-01T09:00"), ev("buy", "2024-03-01T09:01")], l1: leaver("10:00", "price"), l2: leaver("11:00", "price"), l3: leaver("12:00", "price"), l4: leaver("13:00", "bored") });
    // leave::reason::price: s 0, f 3 of S 1, F 4 ⇒ (1·2)/(2·4) = 1/4; "bored" has one actor and is dropped.
    expect(brief(correlate(w, { ...shop, funnel_correlation_type: "event_with_properties", funnel_correlation_event_names: ["leave"] }))).toEqual({
      skewed: false,
      events: [["leave::reason::price", 0, 3, 1 / 4, "failure"]],
    });
  });

  it("drops values held by fewer than min(25, 2 % of entrants) actors, and flags a 1:10 skew", () => {
    const people: Record<string, JourneyEvent[]> = {};
    for (let i = 0; i < 55; i++) people[`s${i}`] = [ev("view", "2024-03-01T10:00"), ...(i === 0 ? [ev("rare", "2024-03-01T10:01")] : []), ev("buy", "2024-03-01T10:02")];
    for (let i = 0; i < 5; i++) people[`f${i}`] = [ev("view", "2024-03-01T11:00"), ...(i < 2 ? [ev("twice", "2024-03-01T11:01")] : [])];
    // 60 entrants ⇒ threshold 1.2: "rare" (1 actor) goes, "twice" (2) stays: s 0, f 2 ⇒ (1·4)/(56·3).
    // S/F = 55/5 = 11 > 10 ⇒ skewed.
    expect(brief(correlate(journeys(people), shop))).toEqual({ skewed: true, events: [["twice", 0, 2, 4 / 168, "failure"]] });
  });

  it("keeps the top 10 success values", () => {
    const people: Record<string, JourneyEvent[]> = {};
    const extras = Array.from({ length: 12 }, (_, k) => `e${String(k).padStart(2, "0")}`);
    // Successful actor i does e00 … e(i): e00 is done by all 12 successes, e11 by 1; 20 failures do nothing.
    // e_k: s = 12 − k, f = 0 ⇒ ratio (13 − k)·21 / (k + 1), above 1 and falling with k: the top 10 are e00 … e09.
    for (let i = 0; i < 12; i++) people[`s${i}`] = [ev("view", "2024-03-01T10:00"), ...extras.slice(0, i + 1).map((e) => ev(e, "2024-03-01T10:01")), ev("buy", "2024-03-01T10:02")];
    for (let i = 0; i < 20; i++) people[`f${i}`] = [ev("view", "2024-03-01T11:00")];
    const result = correlate(journeys(people), shop);
    expect(result.events.map((e) => e.event.event)).toEqual(extras.slice(0, 10));
  });

  it("links each row to the persons endpoint with the row as the data point", () => {
    const [signup] = correlate(worked(), { events: steps("$pageview", "purchase"), date_from: "2024-03-01", date_to: "2024-03-04" }).events;
    const url = new URL(signup!.success_people_url, "http://x");
    expect(url.pathname).toBe("/api/projects/1/persons/funnel/correlation/");
    expect(JSON.parse(url.searchParams.get("funnel_correlation_person_entity")!)).toEqual({ id: "signup", type: "events" });
    expect(url.searchParams.get("funnel_correlation_person_converted")).toBe("true");
    expect(new URL(signup!.failure_people_url, "http://x").searchParams.get("funnel_correlation_person_converted")).toBe("false");
  });

  it.each([
    ["funnel_correlation_type", { funnel_correlation_type: "sessions" }],
    ["funnel_correlation_names", { funnel_correlation_type: "properties" }],
    ["funnel_correlation_event_names", { funnel_correlation_type: "event_with_properties" }],
    ["events", { events: steps("view") }],
  ])("answers 400 naming %s", (attr, filter) => {
    try {
      correlate(shoppers(), { ...shop, ...filter });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AnalysisInputError);
      expect((e as AnalysisInputError).attr).toBe(attr);
    }
  });
});

import { describe, expect, it } from "vitest";
import { computeFunnel, type FunnelStep } from "../../../src/analyses/funnels/index.ts";
import { contextFor, ev, journeys, worked, type ContextOptions, type World } from "./support.ts";

const funnel = (world: World, filter: Record<string, unknown>, options: ContextOptions = {}) => computeFunnel(world.events, filter, contextFor(world, options));
const steps = (...names: string[]) => names.map((id, order) => ({ id, type: "events", order }));
const counts = (result: unknown) => (result as FunnelStep[]).map((s) => s.count);
const times = (result: unknown) => (result as FunnelStep[]).map((s) => [s.average_conversion_time, s.median_conversion_time]);
const shop = { events: steps("$pageview", "signup", "purchase"), date_from: "2024-03-01", date_to: "2024-03-04" };
const january = { events: steps("signup", "pay"), date_from: "2024-01-01", date_to: "2024-01-31" };

describe("the worked funnel (reference §5.5)", () => {
  const cases: [string, Record<string, unknown>, number[], (number | null)[][]][] = [
    ["ordered, window 1 day", { funnel_window_interval: 1, funnel_window_interval_unit: "day" }, [3, 2, 1], [[null, null], [1200, 1200], [3000, 3000]]],
    ["ordered, window 14 days", { funnel_window_interval: 14, funnel_window_interval_unit: "day" }, [3, 2, 2], [[null, null], [1200, 1200], [45600, 45600]]],
    ["strict, 14 days", { funnel_order_type: "strict" }, [3, 1, 1], [[null, null], [600, 600], [3000, 3000]]],
    ["ordered, 14 days, exclusion $pageleave 0→1", { exclusions: [{ id: "$pageleave", type: "events", funnel_from_step: 0, funnel_to_step: 1 }] }, [2, 1, 1], [[null, null], [600, 600], [3000, 3000]]],
  ];
  it.each(cases)("%s", (_name, extra, wantCounts, wantTimes) => {
    const result = funnel(worked(), { ...shop, ...extra });
    expect(counts(result)).toEqual(wantCounts);
    expect(times(result)).toEqual(wantTimes);
  });

  it("step objects carry the legacy fields and people URLs", () => {
    const [first, second] = funnel(worked(), { events: steps("$pageview", "signup"), date_from: "2024-03-01", date_to: "2024-03-04" }, { now: "2024-03-10" }) as FunnelStep[];
    const query = "events=%5B%7B%22id%22%3A%22%24pageview%22%2C%22type%22%3A%22events%22%2C%22order%22%3A0%7D%2C%7B%22id%22%3A%22signup%22%2C%22type%22%3A%22events%22%2C%22order%22%3A1%7D%5D&date_from=2024-03-01&date_to=2024-03-04";
    expect(first).toEqual({
      action_id: "$pageview", name: "$pageview", custom_name: null, order: 0, type: "events", people: [], count: 3,
      average_conversion_time: null, median_conversion_time: null,
      converted_people_url: `/api/projects/1/persons/funnel/?${query}&funnel_step=1`, dropped_people_url: null,
    });
    expect(second).toMatchObject({ order: 1, count: 2, converted_people_url: `/api/projects/1/persons/funnel/?${query}&funnel_step=2`, dropped_people_url: `/api/projects/1/persons/funnel/?${query}&funnel_step=-2` });
  });

  it("merged distinct ids convert as one person (§1.1)", () => {
    const w = journeys({ a: { ids: ["a", "a-anon"], events: [ev("$pageview", "2024-03-01T10:00", {}, "a-anon"), ev("signup", "2024-03-01T10:05")] } });
    expect(counts(funnel(w, { events: steps("$pageview", "signup"), date_from: "2024-03-01", date_to: "2024-03-02" }))).toEqual([1, 1]);
  });
});

describe("conversion window (reference §5.2, §11 item 8)", () => {
  it("is inclusive at the limit and closed one second past it", () => {
    const w = journeys({
      ann: [ev("signup", "2024-01-01T10:00"), ev("pay", "2024-01-15T10:00")],
      bob: [ev("signup", "2024-01-01T10:00"), ev("pay", "2024-01-15T10:00:01")],
    });
    const result = funnel(w, january) as FunnelStep[];
    expect(counts(result)).toEqual([2, 1]);
    expect(result[1]!.average_conversion_time).toBe(14 * 86400);
  });

  it("is measured from step 1, not from the previous step", () => {
    const w = journeys({ c: [ev("a", "2024-01-01T00:00"), ev("b", "2024-01-02T00:00"), ev("c", "2024-01-03T12:00")] });
    expect(counts(funnel(w, { ...january, events: steps("a", "b", "c"), funnel_window_interval: 2 }))).toEqual([1, 1, 0]);
  });

  it("needs every step inside the date range", () => {
    const w = journeys({ d: [ev("signup", "2023-12-31T23:00"), ev("pay", "2024-01-01T01:00")] });
    expect(funnel(w, january)).toEqual([]);
  });

  const units: [string, Record<string, unknown>, number[]][] = [
    ["funnel_window_interval_type HOUR (API doc spelling)", { funnel_window_interval: 2, funnel_window_interval_type: "HOUR" }, [2, 1]],
    ["funnel_window_interval_unit minute", { funnel_window_interval: 90, funnel_window_interval_unit: "minute" }, [2, 1]],
    ["funnel_window_interval_unit second", { funnel_window_interval: 3600, funnel_window_interval_unit: "second" }, [2, 1]],
    ["deprecated funnel_window_days", { funnel_window_days: 1 }, [2, 2]],
    ["default 14 days", {}, [2, 2]],
  ];
  // e converts after 1 hour, f after 3 hours.
  const two = journeys({ e: [ev("signup", "2024-01-05T10:00"), ev("pay", "2024-01-05T11:00")], f: [ev("signup", "2024-01-05T10:00"), ev("pay", "2024-01-05T13:00")] });
  it.each(units)("%s", (_name, extra, want) => {
    expect(counts(funnel(two, { ...january, ...extra }))).toEqual(want);
  });

  it("an unknown window unit is a 400", () => {
    expect(() => funnel(two, { ...january, funnel_window_interval: 1, funnel_window_interval_unit: "fortnight" })).toThrow(expect.objectContaining({ name: "AnalysisInputError" }));
  });
});

describe("the attempt that counts", () => {
  const twoSteps = { ...january, events: steps("$pageview", "signup") };
  const conversion = (w: World) => (funnel(w, twoSteps) as FunnelStep[])[1]!.average_conversion_time;

  it("is the latest start among those reaching the last step first, even after the furthest step is known", () => {
    // 10:00 → 10:30 reaches signup first; 10:10 reaches it as soon and starts later: 20 min. 10:40 starts after.
    const w = journeys({ a: [ev("$pageview", "2024-01-01T10:00"), ev("$pageview", "2024-01-01T10:10"), ev("signup", "2024-01-01T10:30"), ev("$pageview", "2024-01-01T10:40")] });
    expect(conversion(w)).toBe(1200);
  });

  it("may start at the very time the step was reached", () => {
    // The 10:30 pageview shares signup's timestamp: its attempt reaches signup at 10:30 too, and starts later.
    const w = journeys({ a: [ev("$pageview", "2024-01-01T10:00"), ev("signup", "2024-01-01T10:30"), ev("$pageview", "2024-01-01T10:30")] });
    expect(conversion(w)).toBe(0);
  });

  it("is the first of the furthest for unordered funnels", () => {
    // signup 10:00 then pageview 10:20 completes both (20 min); the pageview at 10:20 then signup 10:50 comes later.
    const w = journeys({ a: [ev("signup", "2024-01-01T10:00"), ev("$pageview", "2024-01-01T10:20"), ev("signup", "2024-01-01T10:50")] });
    expect((funnel(w, { ...twoSteps, funnel_order_type: "unordered" }) as FunnelStep[])[1]!.average_conversion_time).toBe(1200);
  });
});

describe("order types", () => {
  it("ordered: other events in between do not matter; the furthest attempt counts", () => {
    const w = journeys({ g: [ev("view", "2024-01-02T10:00"), ev("scroll", "2024-01-02T10:01"), ev("signup", "2024-01-02T10:02"), ev("view", "2024-01-03T10:00")] });
    expect(counts(funnel(w, { ...january, events: steps("view", "signup") }))).toEqual([1, 1]);
  });

  it("strict: broken by any event of the person, not only funnel events (§11 item 9)", () => {
    const w = journeys({ h: [ev("view", "2024-01-02T10:00"), ev("scroll", "2024-01-02T10:01"), ev("signup", "2024-01-02T10:02")] });
    expect(counts(funnel(w, { ...january, events: steps("view", "signup"), funnel_order_type: "strict" }))).toEqual([1, 0]);
    expect(counts(funnel(w, { ...january, events: steps("scroll", "signup"), funnel_order_type: "strict" }))).toEqual([1, 1]);
  });

  it("unordered: steps in any order, named 'Completed N steps' with action_id null (§11 item 12)", () => {
    const w = journeys({ i: [ev("signup", "2024-01-02T10:00"), ev("view", "2024-01-02T10:10")], j: [ev("view", "2024-01-03T10:00")] });
    const result = funnel(w, { ...january, events: steps("view", "signup"), funnel_order_type: "unordered" }) as FunnelStep[];
    expect(result.map(({ name, action_id, custom_name, count }) => ({ name, action_id, custom_name, count }))).toEqual([
      { name: "Completed 1 step", action_id: null, custom_name: null, count: 2 },
      { name: "Completed 2 steps", action_id: null, custom_name: null, count: 1 },
    ]);
    expect(result[1]!.average_conversion_time).toBe(600);
  });

  it("the same event twice needs two events", () => {
    const w = journeys({ k: [ev("view", "2024-01-02T10:00")], l: [ev("view", "2024-01-02T10:00"), ev("view", "2024-01-02T10:05")] });
    expect(counts(funnel(w, { ...january, events: steps("view", "view") }))).toEqual([2, 1]);
  });

  it("actions are steps too, with the action id as action_id", () => {
    const actions = [{ project_id: "1", id: 12, name: "Paid", steps: [{ event: "pay" }] }];
    const w = journeys({ m: [ev("signup", "2024-01-02T10:00"), ev("pay", "2024-01-02T11:00")] });
    const result = funnel(w, { ...january, events: [{ id: "signup", order: 0 }], actions: [{ id: 12, order: 1 }] }, { actions }) as FunnelStep[];
    expect(result.map(({ action_id, name, type, count }) => ({ action_id, name, type, count }))).toEqual([
      { action_id: "signup", name: "signup", type: "events", count: 1 },
      { action_id: 12, name: "Paid", type: "actions", count: 1 },
    ]);
  });
});

describe("exclusions (reference §5.3, §11 item 10)", () => {
  const leave = (from = 0, to = 1) => ({ exclusions: [{ id: "leave", type: "events", funnel_from_step: from, funnel_to_step: to }] });
  const two = { ...january, events: steps("view", "signup") };

  it("remove the person from every step, step 1 included, when no clean attempt exists", () => {
    const w = journeys({ n: [ev("view", "2024-01-02T10:00"), ev("leave", "2024-01-02T10:01"), ev("signup", "2024-01-02T10:02")] });
    expect(funnel(w, { ...two, ...leave() })).toEqual([]);
  });

  it("a later clean attempt still counts", () => {
    const w = journeys({ o: [ev("view", "2024-01-02T10:00"), ev("leave", "2024-01-02T10:01"), ev("signup", "2024-01-02T10:02"), ev("view", "2024-01-05T10:00"), ev("signup", "2024-01-05T10:01")] });
    expect(counts(funnel(w, { ...two, ...leave() }))).toEqual([1, 1]);
  });

  it("an exclusion after the window closes does not matter; one before it voids a dropped attempt", () => {
    const late = journeys({ p: [ev("view", "2024-01-02T10:00"), ev("leave", "2024-01-20T10:00")] });
    expect(counts(funnel(late, { ...two, ...leave() }))).toEqual([1, 0]);
    const early = journeys({ q: [ev("view", "2024-01-02T10:00"), ev("leave", "2024-01-03T10:00")] });
    expect(funnel(early, { ...two, ...leave() })).toEqual([]);
  });

  it("only the excluded step range counts", () => {
    const w = journeys({ r: [ev("view", "2024-01-02T10:00"), ev("leave", "2024-01-02T10:01"), ev("signup", "2024-01-02T10:02"), ev("pay", "2024-01-02T10:03")] });
    expect(counts(funnel(w, { ...january, events: steps("view", "signup", "pay"), ...leave(1, 2) }))).toEqual([1, 1, 1]);
  });

  it("conversion trends: an attempt voided by an exclusion it went past leaves the person only its converted days", () => {
    // n drops off on the 2nd (no signup within the hour) and on the 3rd signs up after leaving: PostHog's trends UDF
    // then drops n's unconverted entries, so the 2nd counts m alone (1 of 1), not 1 of 2.
    const w = journeys({
      m: [ev("view", "2024-01-02T10:00"), ev("signup", "2024-01-02T10:05")],
      n: [ev("view", "2024-01-02T10:00"), ev("view", "2024-01-03T10:00"), ev("leave", "2024-01-03T10:01"), ev("signup", "2024-01-03T10:02")],
    });
    const trend = funnel(w, { ...two, ...leave(), date_from: "2024-01-02", date_to: "2024-01-03", funnel_viz_type: "trends", funnel_window_interval: 1, funnel_window_interval_unit: "hour" });
    expect((trend as { data: number[] }[])[0]!.data).toEqual([100, 0]);
  });

  const invalid: [string, unknown, string][] = [
    ["from ≥ to", { id: "leave", type: "events", funnel_from_step: 0, funnel_to_step: 0 }, "exclusions__0__funnel_to_step"],
    ["to beyond the last step", { id: "leave", type: "events", funnel_from_step: 0, funnel_to_step: 2 }, "exclusions__0__funnel_to_step"],
    ["from beyond the last-but-one step", { id: "leave", type: "events", funnel_from_step: 1, funnel_to_step: 2 }, "exclusions__0__funnel_from_step"],
    ["identical to a step of its range", { id: "signup", type: "events", funnel_from_step: 0, funnel_to_step: 1 }, "exclusions__0__id"],
  ];
  it.each(invalid)("rejects an exclusion with %s", (_name, exclusion, attr) => {
    expect(() => funnel(worked(), { ...two, exclusions: [exclusion] })).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr }));
  });
});

describe("validation (reference §5.1)", () => {
  const invalid: [string, Record<string, unknown>, string][] = [
    ["fewer than 2 steps", { events: steps("view") }, "events"],
    ["funnel_from_step out of range", { events: steps("a", "b"), funnel_from_step: 2 }, "funnel_from_step"],
    ["funnel_to_step not after funnel_from_step", { events: steps("a", "b", "c"), funnel_from_step: 1, funnel_to_step: 1 }, "funnel_to_step"],
    ["funnel_to_step beyond the last step", { events: steps("a", "b"), funnel_to_step: 2 }, "funnel_to_step"],
    ["a group type index beyond 4", { events: steps("a", "b"), aggregation_group_type_index: 5 }, "aggregation_group_type_index"],
    ["an unknown order type", { events: steps("a", "b"), funnel_order_type: "random" }, "funnel_order_type"],
    ["step attribution beyond the steps", { events: steps("a", "b"), breakdown: "x", breakdown_attribution_type: "step", breakdown_attribution_value: 2 }, "breakdown_attribution_value"],
  ];
  it.each(invalid)("%s is a 400", (_name, filter, attr) => {
    expect(() => funnel(worked(), { date_from: "2024-03-01", ...filter })).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr }));
  });

  it("nobody in the funnel gives []", () => {
    expect(funnel(worked(), { events: steps("nothing", "signup"), date_from: "2024-03-01", date_to: "2024-03-04" })).toEqual([]);
  });
});

describe("breakdowns and attribution (reference §5.4)", () => {
  const browsers = journeys({
    s: [ev("view", "2024-01-02T10:00", { b: "Chrome" }), ev("signup", "2024-01-02T10:05", { b: "Safari" })],
    t: [ev("view", "2024-01-03T10:00", { b: "Chrome" })],
    u: [ev("view", "2024-01-04T10:00", { b: "Firefox" }), ev("signup", "2024-01-04T10:05")],
    v: [ev("view", "2024-01-04T10:00", { b: "Safari" })],
    w: [ev("view", "2024-01-04T10:00"), ev("signup", "2024-01-04T10:05")],
  });
  const two = { ...january, events: steps("view", "signup"), breakdown: "b" };
  // A one-property breakdown's value is a list of one (PostHog test_funnel.py::test_parses_breakdowns_correctly).
  const only = (value: unknown) => (Array.isArray(value) && value.length === 1 ? value[0] : ["not a list of one", value]);
  const table = (result: unknown) => (result as FunnelStep[][]).map((funnelSteps) => [only(funnelSteps[0]!.breakdown_value), ...counts(funnelSteps)]);

  it("first_touch (default): the first step event with a value; missing becomes ''", () => {
    expect(table(funnel(browsers, two))).toEqual([["Chrome", 2, 1], ["", 1, 1], ["Firefox", 1, 1], ["Safari", 1, 0]]);
  });

  // Equal entrants: the value with more actors at the later steps first (PostHog test_funnel_strict.py::test_strict_breakdown_events_with_multiple_properties).
  it("last_touch", () => {
    expect(table(funnel(browsers, { ...two, breakdown_attribution_type: "last_touch" }))).toEqual([["Safari", 2, 1], ["", 1, 1], ["Firefox", 1, 1], ["Chrome", 1, 0]]);
  });

  // Funnels are ordered by the last step's actors first (PostHog funnel_udf.py: ORDER BY step_2 DESC, step_1 DESC).
  it("all_events: an actor counts under each value of its events", () => {
    expect(table(funnel(browsers, { ...two, breakdown_attribution_type: "all_events" }))).toEqual([["", 1, 1], ["Chrome", 2, 0], ["Firefox", 1, 0], ["Safari", 1, 0]]);
  });

  it("step: the value on the given step's event", () => {
    // Only s's signup carries a value; u's and w's signups have none; t and v never sign up, so they are left out
    // (PostHog test_funnel.py::test_breakdown_step_attributions).
    expect(table(funnel(browsers, { ...two, breakdown_attribution_type: "step", breakdown_attribution_value: 1 }))).toEqual([["", 2, 2], ["Safari", 1, 1]]);
  });

  it("values beyond breakdown_limit merge into the literal 'Other' (§11 item 11)", () => {
    const result = funnel(browsers, { ...two, breakdown_limit: 2 }) as FunnelStep[][];
    expect(table(result)).toEqual([["Chrome", 2, 1], ["", 1, 1], ["Other", 2, 1]]);
    expect(result[2]![0]).toMatchObject({ breakdown: ["Other"], breakdown_value: ["Other"] });
    expect(result[2]![1]!.converted_people_url).toMatch(/&funnel_step=2&funnel_step_breakdown=%5B%22Other%22%5D$/);
  });

  it("a list breakdown gives list values", () => {
    const result = funnel(browsers, { ...two, breakdown: ["b"] }) as FunnelStep[][];
    expect(result[0]![0]).toMatchObject({ breakdown: ["Chrome"], breakdown_value: ["Chrome"] });
  });

  it("cohorts: breakdown is the cohort name, breakdown_value its id", () => {
    const cohorts = [{ project_id: "1", id: 4, name: "Testers", person_ids: [1, 3] }];
    const result = funnel(browsers, { ...two, breakdown: [4], breakdown_type: "cohort" }, { cohorts }) as FunnelStep[][];
    expect(result.map((f) => [f[0]!.breakdown, f[0]!.breakdown_value, ...counts(f)])).toEqual([["Testers", 4, 2, 2]]);
  });
});

describe("optional steps (funnel-udf/src/steps.rs optional_steps)", () => {
  const optionalSecond = (order = "ordered") => ({ ...january, funnel_order_type: order, events: [{ id: "a", type: "events", order: 0 }, { id: "b", type: "events", order: 1, optionalInFunnel: true }, { id: "c", type: "events", order: 2 }] });
  // Worked by hand: each step counts who went through it; the times are the gaps between required steps.
  const cases: [string, World, string, number[]][] = [
    ["a → c skips the optional step", journeys({ p: [ev("a", "2024-01-01T00:00"), ev("c", "2024-01-01T00:10")] }), "ordered", [1, 0, 1]],
    ["a → b → c goes through it", journeys({ p: [ev("a", "2024-01-01T00:00"), ev("b", "2024-01-01T00:05"), ev("c", "2024-01-01T00:10")] }), "ordered", [1, 1, 1]],
    // c before b: the attempt a → c is entered first and stays the furthest; b after it goes through no later step.
    ["a → c → b keeps a → c", journeys({ p: [ev("a", "2024-01-01T00:00"), ev("c", "2024-01-01T00:10"), ev("b", "2024-01-01T00:20")] }), "ordered", [1, 0, 1]],
    ["a → b, no c", journeys({ p: [ev("a", "2024-01-01T00:00"), ev("b", "2024-01-01T00:05")] }), "ordered", [1, 1, 0]],
    // Strict: any event that is no next step starts over; x between a and c breaks the attempt.
    ["strict: a → x → c breaks", journeys({ p: [ev("a", "2024-01-01T00:00"), ev("x", "2024-01-01T00:05"), ev("c", "2024-01-01T00:10")] }), "strict", [1, 0, 0]],
    ["strict: a → c skips the optional step", journeys({ p: [ev("a", "2024-01-01T00:00"), ev("c", "2024-01-01T00:10")] }), "strict", [1, 0, 1]],
    // One instant, different steps: each is tried alone, lowest step first (b then c both from a).
    ["b and c at one instant after a", journeys({ p: [ev("a", "2024-01-01T00:00"), ev("b", "2024-01-01T00:05"), ev("c", "2024-01-01T00:05")] }), "ordered", [1, 1, 1]],
    ["c outside the window", journeys({ p: [ev("a", "2024-01-01T00:00"), ev("c", "2024-01-20T00:00")] }), "ordered", [1, 0, 0]],
  ];
  it.each(cases)("%s", (_name, world, order, want) => expect(counts(funnel(world, optionalSecond(order)))).toEqual(want));

  it("the conversion times are the gaps between required steps, the first against step 2", () => {
    const w = journeys({ p: [ev("a", "2024-01-01T00:00"), ev("b", "2024-01-01T00:05"), ev("c", "2024-01-01T00:10")] });
    expect(times(funnel(w, optionalSecond()))).toEqual([[null, null], [600, 600], [null, null]]);
  });
});

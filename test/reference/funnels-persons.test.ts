/**
 * PostHog's funnel actor-list tests (posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py,
 * test_funnel_strict_persons.py, test_funnel_unordered_persons.py, test_funnel_trends_actors.py,
 * test_funnel_trends_persons.py), ported: each test's data, its filter turned into a FunnelsQuery (filter_to_query,
 * as the PostHog test) and sent as ActorsQuery(source=FunnelsActorsQuery, select=["id", "person"]) as its get_actors
 * does, and where the legacy endpoint can say the same (funnel_step, funnel_step_breakdown, entrance_period_start,
 * drop_off), through GET /persons/funnel/ as well: both doors must list the same actors. PostHog asserts person
 * uuids; a person here is named by its distinct ids (the row's `person`), and its row's id is checked to be that
 * person's. Recordings are not modelled (SKIPPED.md).
 */
import { describe, expect, it } from "vitest";
import { actorsQuery, getActors, who, whoever, type Filter } from "./funnel-actors.ts";
import { journeysFor, withReference, type RefData, type RefEvent, type RefPerson } from "./support.ts";

const threeSteps = (extra: Filter = {}): Filter => ({
  interval: "day",
  date_from: "2021-05-01 00:00:00",
  date_to: "2021-05-07 00:00:00",
  funnel_window_days: 7,
  events: [{ id: "step one", order: 0 }, { id: "step two", order: 1 }, { id: "step three", order: 2 }],
  ...extra,
});

const at = (distinct_id: string, event: string, timestamp: string, properties?: Record<string, unknown>): RefEvent => ({ event, distinct_id, timestamp, ...(properties ? { properties } : {}) });
const users = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `user_${from + i}`);

/** test_funnel_persons.py::_create_sample_data_multiple_dropoffs: 5 persons through all three steps, 10 through two, 20 through one. */
function multipleDropoffs(): RefData {
  const persons: RefPerson[] = users(0, 35).map((id) => ({ distinct_ids: [id] }));
  const events = [
    ...users(0, 5).flatMap((id) => [at(id, "step one", "2021-05-01 00:00:00"), at(id, "step two", "2021-05-03 00:00:00"), at(id, "step three", "2021-05-05 00:00:00")]),
    ...users(5, 15).flatMap((id) => [at(id, "step one", "2021-05-01 00:00:00"), at(id, "step two", "2021-05-03 00:00:00")]),
    ...users(15, 35).map((id) => at(id, "step one", "2021-05-01 00:00:00")),
  ];
  return { now: "2021-05-20T00:00:00", persons, events };
}

/** test_funnel_persons.py::_create_browser_breakdown_events: person1 (PL, Chrome 95) through three steps, person2 (EE, Safari 14) through two. */
function browserBreakdownEvents(): RefData {
  const chrome = { $browser: "Chrome", $browser_version: "95" };
  const safari = { $browser: "Safari", $browser_version: "14" };
  return {
    now: "2020-01-20T00:00:00",
    persons: [{ distinct_ids: ["person1"], properties: { $country: "PL" } }, { distinct_ids: ["person2"], properties: { $country: "EE" } }],
    events: [
      at("person1", "sign up", "2020-01-01 12:00:00", chrome),
      at("person1", "play movie", "2020-01-01 13:00:00", chrome),
      at("person1", "buy", "2020-01-01 15:00:00", chrome),
      at("person2", "sign up", "2020-01-02 14:00:00", safari),
      at("person2", "play movie", "2020-01-02 16:00:00", safari),
    ],
  };
}

const movieFunnel = (extra: Filter): Filter => ({
  date_from: "2020-01-01",
  date_to: "2020-01-08",
  interval: "day",
  funnel_window_days: 7,
  events: [{ id: "sign up", order: 0 }, { id: "play movie", order: 1 }, { id: "buy", order: 2 }],
  ...extra,
});

/** The cohort test's filter has no interval. */
function movieFunnelWithoutInterval(): Filter {
  const { interval: _, ...rest } = movieFunnel({});
  return rest;
}

describe("funnel persons (test_funnel_persons.py)", () => {
  const cite = (name: string) => `posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::${name}`;

  it("test_first_step, test_last_step, test_second_step_dropoff, test_last_step_dropoff", async () => {
    // cite("test_first_step"), cite("test_last_step"), cite("test_second_step_dropoff"), cite("test_last_step_dropoff")
    await withReference(multipleDropoffs(), async (ref) => {
      expect((await getActors(ref, threeSteps(), { funnelStep: 1 })).length, cite("test_first_step")).toBe(35);
      expect((await getActors(ref, threeSteps(), { funnelStep: 3 })).length, cite("test_last_step")).toBe(5);
      expect((await getActors(ref, threeSteps(), { funnelStep: -2 })).length, cite("test_second_step_dropoff")).toBe(20);
      expect((await getActors(ref, threeSteps(), { funnelStep: -3 })).length, cite("test_last_step_dropoff")).toBe(10);
    });
  });

  it("test_basic_offset", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_basic_offset
    const ids = users(0, 110);
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: ids.map((id) => ({ distinct_ids: [id] })),
      events: ids.flatMap((id) => [at(id, "step one", "2021-05-01 00:00:00"), at(id, "step two", "2021-05-03 00:00:00"), at(id, "step three", "2021-05-05 00:00:00")]),
    };
    await withReference(data, async (ref) => {
      expect((await getActors(ref, threeSteps(), { funnelStep: 1 })).length).toBe(100);
      expect((await getActors(ref, threeSteps(), { funnelStep: 1, offset: 100 })).length).toBe(10);
    });
  });

  it("test_steps_with_custom_steps_parameter_are_equivalent_to_funnel_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_steps_with_custom_steps_parameter_are_equivalent_to_funnel_step
    const parameters: [number, number[], number][] = [
      [1, [1, 2, 3], 35],
      [2, [2, 3], 15],
      [3, [3], 5],
      [-2, [1], 20],
      [-3, [2], 10],
    ];
    await withReference(multipleDropoffs(), async (ref) => {
      for (const [funnelStep, funnelCustomSteps, expected] of parameters) {
        const results = await getActors(ref, threeSteps(), { funnelStep });
        const newResults = await getActors(ref, threeSteps(), { funnelStep, funnelCustomSteps });
        expect(newResults, String(funnelStep)).toEqual(results);
        expect(results.length, String(funnelStep)).toBe(expected);
      }
    });
  });

  it("test_steps_with_custom_steps_parameter_where_funnel_step_equivalence_isnt_possible", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_steps_with_custom_steps_parameter_where_funnel_step_equivalence_isnt_possible
    const parameters: [number[], number][] = [
      [[1, 2], 30],
      [[1, 3], 25],
      [[3, 1], 25],
      [[1, 3, 3, 1], 25],
    ];
    await withReference(multipleDropoffs(), async (ref) => {
      for (const [funnelCustomSteps, expected] of parameters) {
        expect((await getActors(ref, threeSteps(), { funnelCustomSteps })).length, JSON.stringify(funnelCustomSteps)).toBe(expected);
      }
    });
  });

  it("test_steps_with_custom_steps_parameter_overrides_funnel_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_steps_with_custom_steps_parameter_overrides_funnel_step
    await withReference(multipleDropoffs(), async (ref) => {
      expect((await getActors(ref, threeSteps(), { funnelStep: 1, funnelCustomSteps: [3] })).length).toBe(5);
    });
  });

  it("test_first_step_breakdowns", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_first_step_breakdowns
    await withReference(browserBreakdownEvents(), async (ref) => {
      const filters = movieFunnel({ breakdown_type: "event", breakdown: "$browser" });
      expect(whoever(await getActors(ref, filters, { funnelStep: 1 }))).toEqual([["person1"], ["person2"]]);
      expect(who(await getActors(ref, filters, { funnelStep: 1, funnelStepBreakdown: ["Chrome"] }))).toEqual([["person1"]]);
      expect(who(await getActors(ref, filters, { funnelStep: 1, funnelStepBreakdown: ["Safari"] }))).toEqual([["person2"]]);
    });
  });

  it("test_first_step_breakdowns_with_multi_property_breakdown", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_first_step_breakdowns_with_multi_property_breakdown
    await withReference(browserBreakdownEvents(), async (ref) => {
      const filters = movieFunnel({ breakdown_type: "event", breakdown: ["$browser", "$browser_version"] });
      expect(whoever(await getActors(ref, filters, { funnelStep: 1 }))).toEqual([["person1"], ["person2"]]);
      expect(who(await getActors(ref, filters, { funnelStep: 1, funnelStepBreakdown: ["Chrome", "95"] }))).toEqual([["person1"]]);
      expect(who(await getActors(ref, filters, { funnelStep: 1, funnelStepBreakdown: ["Safari", "14"] }))).toEqual([["person2"]]);
    });
  });

  it("test_first_step_breakdown_person", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_first_step_breakdown_person
    await withReference(browserBreakdownEvents(), async (ref) => {
      const filters = movieFunnel({ breakdown_type: "person", breakdown: "$country" });
      expect(whoever(await getActors(ref, filters, { funnelStep: 1 }))).toEqual([["person1"], ["person2"]]);
      const ee = await getActors(ref, filters, { funnelStep: 1, funnelStepBreakdown: ["EE"] });
      expect(who(ee)).toEqual([["person2"]]);
      expect(await getActors(ref, filters, { funnelStep: 1, funnelCustomSteps: [1, 2, 3], funnelStepBreakdown: ["EE"] })).toEqual(ee);
      const pl = await getActors(ref, filters, { funnelStep: 1, funnelStepBreakdown: ["PL"] });
      expect(who(pl)).toEqual([["person1"]]);
      expect(await getActors(ref, filters, { funnelStep: 1, funnelCustomSteps: [1, 2, 3], funnelStepBreakdown: ["PL"] })).toEqual(pl);
    });
  });

  it("test_funnel_cohort_breakdown_persons", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_funnel_cohort_breakdown_persons
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      persons: [{ distinct_ids: ["person1"], properties: { key: "value" } }],
      events: [at("person1", "sign up", "2020-01-02T12:00:00Z")],
      // Cohort.groups [{properties: [key = value]}], as the fixture document writes a cohort's filters.
      extra: { cohorts: [{ project_id: "1", id: 1, name: "test_cohort", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "key", value: "value", type: "person" }] }] } } }] } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      const rows = await getActors(ref, { ...movieFunnelWithoutInterval(), breakdown_type: "cohort", breakdown: [1] }, { funnelStep: 1 });
      expect(who(rows)[0]).toEqual(["person1"]);
    });
  });

  it("test_parses_step_breakdown_correctly", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_parses_step_breakdown_correctly
    // The test writes the browser as "test''123" and finds the person by "test'123": its event helper inserts the
    // properties into ClickHouse inside a SQL literal, where '' is one quote, so the stored value is "test'123" (as in
    // funnels.test.ts's port of test_funnel_trends.py::test_parses_breakdown_correctly). The stored value is given here.
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      persons: [{ distinct_ids: ["person1"], properties: { $country: "PL" } }],
      events: [at("person1", "sign up", "2020-01-01 12:00:00", { $browser: "test'123" }), at("person1", "play movie", "2020-01-01 13:00:00", { $browser: "test'123" })],
    };
    await withReference(data, async (ref) => {
      const filters = movieFunnel({ events: [{ id: "sign up", order: 0 }, { id: "play movie", order: 1 }], breakdown_type: "event", breakdown: "$browser" });
      expect(who(await getActors(ref, filters, { funnelStep: 1, funnelStepBreakdown: ["test'123"] }))).toEqual([["person1"]]);
    });
  });

  it("test_first_time_math_basic", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_first_time_math_basic
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      ...journeysFor({
        person1: [["sign up", "2020-01-01 12:00:00"], ["sign up", "2020-01-02 12:00:00"], ["play movie", "2020-01-01 13:00:00"], ["play movie", "2020-01-02 13:00:00"]],
      }),
    };
    const firstTime = [{ id: "sign up", order: 0, math: "first_time_for_user" }, { id: "play movie", order: 1 }];
    await withReference(data, async (ref) => {
      expect(who(await getActors(ref, movieFunnel({ events: firstTime, breakdown_type: "event", breakdown: "$browser" }), { funnelStep: 1 }))).toEqual([["person1"]]);
      expect(await getActors(ref, movieFunnel({ date_from: "2020-01-02", events: firstTime }), { funnelStep: 1 })).toEqual([]);
    });
  });

  it("test_first_time_math_multiple_ids", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons.py::TestFunnelPersons::test_first_time_math_multiple_ids
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      persons: [{ distinct_ids: ["anon1", "person1"] }, { distinct_ids: ["anon2", "person2"] }],
      events: [
        at("anon1", "sign up", "2020-01-01 12:00:00"),
        at("person1", "play movie", "2020-01-01 13:00:00"),
        at("anon2", "sign up", "2019-01-01 12:00:00"),
        at("anon2", "sign up", "2020-01-01 12:00:00"),
        at("person2", "play movie", "2020-01-01 13:00:00"),
      ],
    };
    const firstTime = [{ id: "sign up", order: 0, math: "first_time_for_user" }, { id: "play movie", order: 1 }];
    await withReference(data, async (ref) => {
      const rows = await getActors(ref, movieFunnel({ events: firstTime }), { funnelStep: 1 });
      expect(rows.length).toBe(1);
      expect([...rows[0]![1].distinct_ids].sort()).toEqual(["anon1", "person1"]);
      const all = await getActors(ref, movieFunnel({ date_from: "2019-01-01", events: firstTime, breakdown_type: "event", breakdown: "$browser" }), { funnelStep: 1 });
      expect(all.length).toBe(2);
      // PostHog orders by the first column (the person's id, a time-ordered uuid there): person1 was created first.
      expect([...all[0]![1].distinct_ids].sort()).toEqual(["anon1", "person1"]);
      expect([...all[1]![1].distinct_ids].sort()).toEqual(["anon2", "person2"]);
    });
  });
});

describe("strict funnel persons (test_funnel_strict_persons.py)", () => {
  /** test_funnel_strict_persons.py::_create_sample_data_multiple_dropoffs: a "step fake" between steps one and two breaks the strict run of the first five. */
  function strictDropoffs(): RefData {
    const byPerson: Record<string, [string, string][]> = {};
    for (const id of users(0, 5)) byPerson[id] = [["step one", "2021-05-01"], ["step fake", "2021-05-02"], ["step two", "2021-05-03"], ["step three", "2021-05-05"]];
    for (const id of users(5, 15)) byPerson[id] = [["step one", "2021-05-01"], ["step two", "2021-05-03"]];
    for (const id of users(15, 35)) byPerson[id] = [["step one", "2021-05-01"]];
    return { now: "2021-05-20T00:00:00", ...journeysFor(byPerson) };
  }
  const strict = (extra: Filter = {}) => threeSteps({ funnel_order_type: "strict", ...extra });

  it("test_first_step, test_second_step, test_second_step_dropoff, test_third_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_strict_persons.py::TestFunnelStrictStepsPersons::test_first_step, ::test_second_step, ::test_second_step_dropoff, ::test_third_step
    await withReference(strictDropoffs(), async (ref) => {
      expect((await getActors(ref, strict(), { funnelStep: 1 })).length, "test_first_step").toBe(35);
      expect((await getActors(ref, strict(), { funnelStep: 2 })).length, "test_second_step").toBe(10);
      expect((await getActors(ref, strict(), { funnelStep: -2 })).length, "test_second_step_dropoff").toBe(25);
      expect((await getActors(ref, strict({ funnel_step: 3 }), { funnelStep: 3 })).length, "test_third_step").toBe(0);
    });
  });
});

describe("unordered funnel persons (test_funnel_unordered_persons.py)", () => {
  const cite = "posthog/hogql_queries/insights/funnels/test/test_funnel_unordered_persons.py::TestFunnelUnorderedStepsPersons";
  /** _create_sample_data_multiple_dropoffs: steps in any order; 5 do all three, 10 two, 20 one. */
  function unorderedDropoffs(): RefData {
    const byPerson: Record<string, [string, string][]> = {};
    for (const id of users(0, 5)) byPerson[id] = [["step one", "2021-05-01"], ["step three", "2021-05-03"], ["step two", "2021-05-05"]];
    for (const id of users(5, 15)) byPerson[id] = [["step two", "2021-05-01"], ["step one", "2021-05-03"]];
    for (const id of users(15, 35)) byPerson[id] = [["step one", "2021-05-01"]];
    return { now: "2021-05-20T00:00:00", ...journeysFor(byPerson) };
  }
  const unordered = () => threeSteps({ funnel_order_type: "unordered" });

  it("test_invalid_steps", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered_persons.py::TestFunnelUnorderedStepsPersons::test_invalid_steps
    await withReference({ now: "2021-05-20T00:00:00", events: [] }, async (ref) => {
      const refused = async (funnelStep: number | string, message: string) => {
        const res = await ref.queryResponse(actorsQuery(unordered(), { funnelStep }));
        expect(res.status, res.text).toBe(400);
        expect(res.body.detail).toContain(message);
      };
      await refused("blah", "Input should be a valid integer");
      await refused(0, "Funnel steps are 1-indexed, so step 0 doesn't exist");
      await refused(-1, "The first valid drop-off argument for funnelStep is -2");
    });
  });

  it("test_first_step, test_last_step, test_second_step_dropoff, test_last_step_dropoff", async () => {
    // `${cite}::test_first_step`, ::test_last_step, ::test_second_step_dropoff, ::test_last_step_dropoff
    await withReference(unorderedDropoffs(), async (ref) => {
      expect((await getActors(ref, unordered(), { funnelStep: 1 })).length, `${cite}::test_first_step`).toBe(35);
      expect((await getActors(ref, unordered(), { funnelStep: 3 })).length, `${cite}::test_last_step`).toBe(5);
      expect((await getActors(ref, unordered(), { funnelStep: -2 })).length, `${cite}::test_second_step_dropoff`).toBe(20);
      expect((await getActors(ref, unordered(), { funnelStep: -3 })).length, `${cite}::test_last_step_dropoff`).toBe(10);
    });
  });

  it("test_unordered_funnel_does_not_return_recordings", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered_persons.py::TestFunnelUnorderedStepsPersons::test_unordered_funnel_does_not_return_recordings
    // (the replay summary it produces is not modelled; an unordered funnel matches no recordings either way)
    const data: RefData = {
      now: "2021-01-02T00:00:00Z",
      persons: [{ distinct_ids: ["user_1"] }],
      events: [
        at("user_1", "step two", "2021-01-02 00:00:00", { $session_id: "s1", $window_id: "w1" }),
        at("user_1", "step one", "2021-01-03 00:00:00", { $session_id: "s1", $window_id: "w1" }),
      ],
    };
    await withReference(data, async (ref) => {
      const filters = { funnel_order_type: "unordered", date_from: "2021-01-01", date_to: "2021-01-08", interval: "day", funnel_window_days: 7, funnel_step: 1, events: threeSteps().events };
      const rows = await getActors(ref, filters, { funnelStep: 1, includeRecordings: true });
      expect(who(rows)[0]).toEqual(["user_1"]);
      expect(rows[0]![2]).toEqual([]);
    });
  });
});

describe("unordered funnel actors (test_funnel_unordered.py)", () => {
  it("test_advanced_funnel_multiple_exclusions_between_steps (actor lists)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_advanced_funnel_multiple_exclusions_between_steps
    // (its counts are ported in funnels.test.ts; here the persons at each step, _get_actor_ids_at_step)
    const day = (id: string, list: [string, string][]) => list.map(([event, time]) => at(id, event, `2021-05-01 ${time}`));
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: ["person1", "person2", "person3", "person4", "person5"].map((id) => ({ distinct_ids: [id] })),
      events: [
        ...day("person1", [["user signed up", "01:00:00"], ["x", "02:00:00"], ["$pageview", "03:00:00"], ["insight viewed", "04:00:00"], ["y", "04:30:00"], ["invite teammate", "05:00:00"], ["pageview2", "06:00:00"]]),
        ...day("person2", [["user signed up", "01:00:00"], ["y", "01:30:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["y", "04:30:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
        ...day("person3", [["user signed up", "01:00:00"], ["x", "01:30:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
        ...day("person4", [["user signed up", "01:00:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["invite teammate", "05:00:00"], ["pageview2", "06:00:00"]]),
        ...day("person5", [["user signed up", "01:00:00"], ["x", "01:30:00"], ["$pageview", "02:00:00"], ["x", "02:30:00"], ["insight viewed", "04:00:00"], ["y", "04:30:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
      ],
    };
    const exclusion = (id: string) => ({ id, type: "events", funnel_from_step: 0, funnel_to_step: 4 });
    const filters = {
      funnel_order_type: "unordered",
      events: ["user signed up", "$pageview", "insight viewed", "invite teammate", "pageview2"].map((id, order) => ({ id, type: "events", order })),
      date_from: "2021-05-01 00:00:00",
      date_to: "2021-05-14 00:00:00",
      exclusions: [exclusion("x"), exclusion("y")],
    };
    await withReference(data, async (ref) => {
      expect(whoever(await getActors(ref, filters, { funnelStep: 1 }))).toEqual([["person1"], ["person2"], ["person3"], ["person4"], ["person5"]]);
      expect(whoever(await getActors(ref, filters, { funnelStep: 2 }))).toEqual([["person1"], ["person4"]]);
      for (const step of [3, 4, 5]) expect(whoever(await getActors(ref, filters, { funnelStep: step })), String(step)).toEqual([["person4"]]);
    });
  });
});

describe("funnel trends actors (test_funnel_trends_actors.py, test_funnel_trends_persons.py)", () => {
  // Both files hold the same three tests (the second is the older copy); each asserts the person of an entrance period
  // and the session of its matched recording. The person is compared; recordings are not modelled (SKIPPED.md).
  const trendsFilters: Filter = {
    funnel_viz_type: "trends",
    interval: "day",
    date_from: "2021-05-01 00:00:00",
    date_to: "2021-05-07 23:59:59",
    funnel_window_days: 14,
    funnel_from_step: 0,
    events: [{ id: "step one", order: 0 }, { id: "step two", order: 1 }, { id: "step three", order: 2 }],
  };
  const userOne = (list: [string, string, string][]): RefData => ({
    now: "2021-05-01T00:00:00",
    ...journeysFor({ user_one: list.map(([event, timestamp, session]) => [event, timestamp, { $session_id: session }] as const) }),
  });
  const allThree = (): RefData => userOne([["step one", "2021-05-01", "s1a"], ["step two", "2021-05-02", "s1b"], ["step three", "2021-05-03", "s1c"]]);

  it("test_funnel_trend_persons_returns_recordings (the person)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends_actors.py::TestFunnelTrendsActors::test_funnel_trend_persons_returns_recordings
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends_persons.py::TestFunnelTrendsPersons::test_funnel_trend_persons_returns_recordings
    await withReference(allThree(), async (ref) => {
      const rows = await getActors(ref, { funnel_to_step: 1, ...trendsFilters }, { funnelTrendsDropOff: false, funnelTrendsEntrancePeriodStart: "2021-05-01 00:00:00", includeRecordings: true });
      expect(who(rows)).toEqual([["user_one"]]);
    });
  });

  it("test_funnel_trend_persons_with_no_to_step (the person)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends_actors.py::TestFunnelTrendsActors::test_funnel_trend_persons_with_no_to_step
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends_persons.py::TestFunnelTrendsPersons::test_funnel_trend_persons_with_no_to_step
    await withReference(allThree(), async (ref) => {
      const rows = await getActors(ref, trendsFilters, { funnelTrendsDropOff: false, funnelTrendsEntrancePeriodStart: "2021-05-01 00:00:00", includeRecordings: true });
      expect(who(rows)).toEqual([["user_one"]]);
    });
  });

  it("test_funnel_trend_persons_with_drop_off (the person)", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends_actors.py::TestFunnelTrendsActors::test_funnel_trend_persons_with_drop_off
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends_persons.py::TestFunnelTrendsPersons::test_funnel_trend_persons_with_drop_off
    await withReference(userOne([["step one", "2021-05-01", "s1a"]]), async (ref) => {
      const rows = await getActors(ref, trendsFilters, { funnelTrendsDropOff: true, funnelTrendsEntrancePeriodStart: "2021-05-01 00:00:00", includeRecordings: true });
      expect(who(rows)).toEqual([["user_one"]]);
    });
  });
});

describe("TestFunnelPersonsUDF's own tests, optional steps (test_funnel_persons_udf.py)", () => {
  // Both build the FunnelsQuery node themselves: step two optional, a 7-day window.
  const optionalFunnel: Filter = {
    kind: "FunnelsQuery",
    series: [{ kind: "EventsNode", event: "step one" }, { kind: "EventsNode", event: "step two", optionalInFunnel: true }, { kind: "EventsNode", event: "step three" }],
    dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00" },
    funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: "day" },
  };
  const minute = (m: number) => `2021-05-01 00:0${m}:00`;

  it("test_optional_funnel_step_actors_query", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons_udf.py::TestFunnelPersonsUDF::test_optional_funnel_step_actors_query
    const data: RefData = { now: "2021-05-20T00:00:00", ...journeysFor({ user_skips_optional_step: [["step one", minute(0)], ["step three", minute(2)]] }) };
    await withReference(data, async (ref) => {
      // Step three is reached without the optional step two.
      expect(who(await getActors(ref, optionalFunnel, { funnelStep: 3 }))).toEqual([["user_skips_optional_step"]]);
    });
  });

  it("test_optional_funnel_step_dropoff_actors_query", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_persons_udf.py::TestFunnelPersonsUDF::test_optional_funnel_step_dropoff_actors_query
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_does_step1_only: [["step one", minute(0)]],
        user_does_step1_and_2_only: [["step one", minute(0)], ["step two", minute(1)]],
        user_does_all_steps: [["step one", minute(0)], ["step two", minute(1)], ["step three", minute(2)]],
      }),
    };
    await withReference(data, async (ref) => {
      // Dropped off before step three: did the last required step (one), with or without the optional two, not three.
      expect(whoever(await getActors(ref, optionalFunnel, { funnelStep: -3 }))).toEqual([["user_does_step1_and_2_only"], ["user_does_step1_only"]]);
    });
  });
});

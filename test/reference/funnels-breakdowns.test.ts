/**
 * PostHog's funnel breakdown factories (posthog/hogql_queries/insights/funnels/test/breakdown_cases.py:
 * funnel_breakdown_test_factory and funnel_breakdown_group_test_factory), ported once per order type they are
 * instantiated with (test_funnel.py ordered, test_funnel_strict.py strict, test_funnel_unordered.py unordered), and
 * test_funnel_breakdowns_by_current_url.py. Each test's data, its filter sent as a FunnelsQuery (filter_to_query, as
 * the PostHog test) and to the legacy funnel endpoint, and the numbers it asserts. The tests a class overrides are
 * ported with the override (in funnels.test.ts where they were already); those not ported are listed in SKIPPED.md.
 */
import { describe, expect, it } from "vitest";
import { funnel as funnelOfFilter, type Filter } from "./funnel-support.ts";
import { journeysFor, withReference, type RefData, type Reference } from "./support.ts";

type Step = Record<string, unknown> & { name: string | null; count: number; breakdown?: unknown; breakdown_value?: unknown };
const funnel = (ref: Reference, filter: Filter): Promise<Step[][]> => funnelOfFilter(ref, filter);
type Order = "ordered" | "strict" | "unordered";
type Journey = (readonly [string, string, Record<string, unknown>?])[];

/** The class each order type's instantiation of the factories is, as PostHog names it. */
const CLASSES: Record<Order, { steps: string; groups: string }> = {
  ordered: { steps: "test_funnel.py::TestFunnelBreakdown", groups: "test_funnel.py::TestFunnelGroupBreakdown" },
  strict: { steps: "test_funnel_strict.py::TestFunnelStrictStepsBreakdown", groups: "test_funnel_strict.py::TestStrictFunnelGroupBreakdown" },
  unordered: { steps: "test_funnel_unordered.py::TestFunnelUnorderedStepsBreakdown", groups: "test_funnel_unordered.py::TestFunnelUnorderedGroupBreakdown" },
};
const ORDERS: Order[] = ["ordered", "strict", "unordered"];

/** `2020-01-DD HH:MM` as the factories' datetime(2020, 1, DD, HH, MM). */
const at = (day: number, hour: number, minute = 0) => `2020-01-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00`;

/** One expected step, as FunnelStepResult gives it. */
interface Want {
  name: string;
  count: number;
  breakdown: unknown;
  time?: number;
  type?: "events" | "actions";
  action_id?: unknown;
}

/** _assert_funnel_breakdown_result_is_correct: the step dicts it builds (unordered steps are "Completed N steps", without action). */
function expectSteps(order: Order, result: Step[] | undefined, wants: Want[]): void {
  const want = wants.map((w, i) => ({
    action_id: order === "unordered" ? null : w.type === "actions" ? w.action_id : w.name,
    name: order === "unordered" ? `Completed ${i + 1} step${i > 0 ? "s" : ""}` : w.name,
    custom_name: null,
    order: i,
    count: w.count,
    type: w.type ?? "events",
    average_conversion_time: w.time ?? null,
    median_conversion_time: w.time ?? null,
    breakdown: w.breakdown,
    breakdown_value: w.breakdown,
  }));
  const shown = (result ?? []).map((s) => Object.fromEntries(Object.keys(want[0]!).map((k) => [k, s[k]])));
  expect(shown).toEqual(want);
}

/** The funnel of one breakdown value. */
const rowOf = (results: Step[][], breakdown: unknown): Step[] | undefined => results.find((r) => JSON.stringify(r[0]!.breakdown) === JSON.stringify(breakdown));

/** PostHog's `sorted(results, key=lambda res: res[0]["breakdown"])`: lists compared item by item, by code point. */
function byBreakdown(results: Step[][]): Step[][] {
  const key = (r: Step[]) => [r[0]!.breakdown].flat().map(String);
  const compare = (a: string[], b: string[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length - b.length;
  };
  return [...results].sort((a, b) => compare(key(a), key(b)));
}

const three = { events: [{ id: "sign up", order: 0 }, { id: "play movie", order: 1 }, { id: "buy", order: 2 }], date_from: "2020-01-01", date_to: "2020-01-08", funnel_window_days: 7 };
const two = { events: [{ id: "sign up", order: 0 }, { id: "buy", order: 1 }], date_from: "2020-01-01", date_to: "2020-01-08", funnel_window_days: 7 };
const NOW = "2020-01-20T00:00:00";
const data = (journeys: Record<string, Journey>, personProperties: Record<string, Record<string, unknown>> = {}): RefData => ({ now: NOW, ...journeysFor(journeys, personProperties) });

/** person1 converts on Chrome, person2 reaches step 2 on Safari, person3 signs up on Safari (test_funnel_step_breakdown_event and kin). */
function browsers(extra: Record<string, unknown> = {}): RefData {
  const p = (browser: string) => ({ key: "val", $browser: browser, ...extra });
  return data({
    person1: [["sign up", at(1, 12), p("Chrome")], ["play movie", at(1, 13), p("Chrome")], ["buy", at(1, 15), p("Chrome")]],
    person2: [["sign up", at(2, 14), p("Safari")], ["play movie", at(2, 16), p("Safari")]],
    person3: [["sign up", at(2, 14), p("Safari")]],
  });
}
const chromeSafari = (order: Order, results: Step[][]) => {
  expectSteps(order, results[0], [{ name: "sign up", breakdown: ["Chrome"], count: 1 }, { name: "play movie", breakdown: ["Chrome"], count: 1, time: 3600 }, { name: "buy", breakdown: ["Chrome"], count: 1, time: 7200 }]);
  expectSteps(order, results[1], [{ name: "sign up", breakdown: ["Safari"], count: 2 }, { name: "play movie", breakdown: ["Safari"], count: 1, time: 7200 }, { name: "buy", breakdown: ["Safari"], count: 0 }]);
};

/** The five persons of the touch-attribution tests; `lastBuy` is person4's browser on buy. */
function touches(lastBuy: string, withPerson5 = true): RefData {
  return data({
    person1: [["sign up", at(1, 12), { $browser: "Chrome" }], ["buy", at(1, 13)]],
    person2: [["sign up", at(1, 13)], ["buy", at(2, 13), { $browser: "Safari" }]],
    person3: [["sign up", at(2, 14), { $browser: "Mac" }], ["buy", at(2, 15)]],
    person4: [["sign up", at(2, 15), { $browser: 0 }], ["buy", at(2, 16), { $browser: lastBuy }]],
    ...(withPerson5 ? { person5: [["sign up", at(2, 15)], ["buy", at(2, 16)]] as Journey } : {}),
  });
}
const twoSteps = (value: unknown, count: number, converted: number, time?: number): Want[] => [
  { name: "sign up", breakdown: value, count },
  { name: "buy", breakdown: value, count: converted, ...(time !== undefined ? { time } : {}) },
];

/** The factory tests, each run per order type; `orders` where an instantiation overrides it or another file has it. */
interface FactoryCase {
  name: string;
  orders?: Order[];
  run(ref: Reference, order: Order): Promise<void>;
  data(): RefData;
}

const CASES: FactoryCase[] = [
  {
    name: "test_funnel_step_multi_property_breakdown_event",
    data: () => {
      const p = (browser: string, version: number) => ({ key: "val", $browser: browser, $browser_version: version });
      return data({
        person1: [["sign up", at(1, 12), p("Chrome", 95)], ["play movie", at(1, 13), p("Chrome", 95)], ["buy", at(1, 15), p("Chrome", 95)]],
        person2: [["sign up", at(2, 14), p("Safari", 15)], ["play movie", at(2, 16), p("Safari", 15)]],
        person3: [["sign up", at(2, 14), p("Safari", 14)]],
      });
    },
    async run(ref, order) {
      const results = await funnel(ref, { ...three, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser", "$browser_version"] });
      // The test reads these as results[1], [2] and [0]; funnel_udf.py's `ORDER BY step_3 DESC, step_2 DESC, step_1 DESC`
      // puts [Safari, 15] (1/1/0) before [Safari, 14] (1/0/0), so each funnel is found by its value.
      expect(results.length).toBe(3);
      expect(results[0]![0]!.breakdown).toEqual(["Chrome", "95"]);
      expectSteps(order, rowOf(results, ["Safari", "14"]), [{ name: "sign up", breakdown: ["Safari", "14"], count: 1 }, { name: "play movie", breakdown: ["Safari", "14"], count: 0 }, { name: "buy", breakdown: ["Safari", "14"], count: 0 }]);
      expectSteps(order, rowOf(results, ["Safari", "15"]), [{ name: "sign up", breakdown: ["Safari", "15"], count: 1 }, { name: "play movie", breakdown: ["Safari", "15"], count: 1, time: 7200 }, { name: "buy", breakdown: ["Safari", "15"], count: 0 }]);
      expectSteps(order, rowOf(results, ["Chrome", "95"]), [{ name: "sign up", breakdown: ["Chrome", "95"], count: 1 }, { name: "play movie", breakdown: ["Chrome", "95"], count: 1, time: 3600 }, { name: "buy", breakdown: ["Chrome", "95"], count: 1, time: 7200 }]);
    },
  },
  {
    name: "test_funnel_step_breakdown_event_with_string_only_breakdown",
    data: () => browsers(),
    run: async (ref, order) => chromeSafari(order, await funnel(ref, { ...three, funnel_order_type: order, breakdown_type: "event", breakdown: "$browser" })),
  },
  {
    name: "test_funnel_step_breakdown_event",
    data: () => browsers(),
    run: async (ref, order) => chromeSafari(order, await funnel(ref, { ...three, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"] })),
  },
  {
    name: "test_funnel_step_breakdown_event_no_type",
    data: () => browsers(),
    run: async (ref, order) => chromeSafari(order, await funnel(ref, { ...three, funnel_order_type: order, breakdown: ["$browser"] })),
  },
  {
    name: "test_funnel_step_breakdown_person",
    data: () =>
      data(
        {
          person1: [["sign up", at(1, 12)], ["play movie", at(1, 13)], ["buy", at(1, 15)]],
          person2: [["sign up", at(2, 14)], ["play movie", at(2, 16)]],
        },
        { person1: { $browser: "Chrome" }, person2: { $browser: "Safari" } },
      ),
    async run(ref, order) {
      const results = await funnel(ref, { ...three, funnel_order_type: order, breakdown_type: "person", breakdown: ["$browser"] });
      expectSteps(order, results[0], [{ name: "sign up", breakdown: ["Chrome"], count: 1 }, { name: "play movie", breakdown: ["Chrome"], count: 1, time: 3600 }, { name: "buy", breakdown: ["Chrome"], count: 1, time: 7200 }]);
      expectSteps(order, results[1], [{ name: "sign up", breakdown: ["Safari"], count: 1 }, { name: "play movie", breakdown: ["Safari"], count: 1, time: 7200 }, { name: "buy", breakdown: ["Safari"], count: 0 }]);
    },
  },
  {
    name: "test_funnel_step_breakdown_limit",
    data: () => data(numberedPersons(10)),
    async run(ref, order) {
      const results = await funnel(ref, { ...three, funnel_order_type: order, breakdown_type: "event", breakdown: ["some_breakdown_val"], breakdown_limit: 5 });
      expect(byBreakdown(results).map((r) => r[0]!.breakdown)).toEqual([["5"], ["6"], ["7"], ["8"], ["9"], ["Other"]]);
    },
  },
  {
    name: "test_funnel_step_custom_breakdown_limit_with_nulls_included",
    data: () => data({ ...numberedPersons(5), person_null: [["sign up", at(1, 12)], ["play movie", at(1, 13)], ["buy", at(1, 15)]] }),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...three, funnel_order_type: order, breakdown_type: "event", breakdown_limit: 6, breakdown: ["some_breakdown_val"] }));
      expect(results.map((r) => r[0]!.breakdown)).toEqual([[""], ["1"], ["2"], ["3"], ["4"]]);
      // The actors it lists at step 3 per value (i of value i), and person_null alone at steps 1 and 3 of "".
      expect(results.map((r) => r[2]!.count)).toEqual([1, 1, 2, 3, 4]);
      expect(results[0]![0]!.count).toBe(1);
    },
  },
  {
    name: "test_funnel_step_breakdown_event_single_person_multiple_breakdowns",
    data: () => data({ person1: [["sign up", at(1, 12), { $browser: "Chrome" }], ["sign up", at(1, 13), { $browser: "Safari" }], ["sign up", at(2, 14), { $browser: "Mac" }], ["sign up", at(2, 15), { $browser: 0 }]] }),
    async run(ref, order) {
      const filter = { ...two, events: [{ id: "sign up", order: 0 }, { id: "other event", order: 0 }], funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"], breakdown_attribution_type: "step", breakdown_attribution_value: "0" };
      const results = byBreakdown(await funnel(ref, filter));
      ["0", "Chrome", "Mac", "Safari"].forEach((value, i) => expectSteps(order, results[i], [{ name: "sign up", breakdown: [value], count: 1 }, { name: "other event", breakdown: [value], count: 0 }]));
    },
  },
  {
    name: "test_funnel_step_breakdown_event_single_person_events_with_multiple_properties",
    // test_funnel_unordered.py overrides it (ported in funnels.test.ts).
    orders: ["ordered", "strict"],
    data: () => data({ person1: [["sign up", at(1, 12), { $browser: "Chrome" }], ["play movie", at(2, 12, 30), { $browser: "Safari" }], ["sign up", at(2, 13), { $browser: "Safari" }], ["play movie", at(2, 14), { $browser: "Safari" }]] }),
    async run(ref, order) {
      const results = await funnel(ref, { ...two, events: [{ id: "sign up", order: 0 }, { id: "play movie", order: 1 }], funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"], breakdown_attribution_type: "all_events" });
      // The test reads [Chrome] as results[0]; funnel_udf.py's `ORDER BY step_2 DESC, step_1 DESC` puts [Safari]
      // (1/1) before [Chrome] (1/0), as test_funnel_strict.py::test_strict_breakdown_events_with_multiple_properties
      // asserts for the same counts; each funnel is found by its value.
      expect(results.length).toBe(2);
      expectSteps(order, rowOf(results, ["Chrome"]), [{ name: "sign up", breakdown: ["Chrome"], count: 1 }, { name: "play movie", breakdown: ["Chrome"], count: 0 }]);
      expectSteps(order, rowOf(results, ["Safari"]), [{ name: "sign up", breakdown: ["Safari"], count: 1 }, { name: "play movie", breakdown: ["Safari"], count: 1, time: 3600 }]);
    },
  },
  {
    name: "test_funnel_cohort_breakdown",
    data: () => ({
      ...data({ person1: [["sign up", at(2, 12)]] }, { person1: { key: "value" } }),
      extra: { cohorts: [{ project_id: "1", id: 1, name: "test_cohort", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "key", value: "value", type: "person" }] }] } } }] } as unknown as RefData["extra"],
    }),
    async run(ref, order) {
      const results = await funnel(ref, { ...three, funnel_order_type: order, breakdown_type: "cohort", breakdown: ["all", 1], breakdown_attribution_type: "step", breakdown_attribution_value: 0 });
      // The test reads "all users" as results[0] and "test_cohort" as results[1]: the two funnels count the same (1/0/0),
      // a tie funnel_udf.py's ORDER BY leaves to ClickHouse, so each is found by its name.
      expect(results.length).toBe(2);
      expect(rowOf(results, "all users")!.length).toBe(3);
      expect(rowOf(results, "test_cohort")!.length).toBe(3);
      // The actors it lists: person1 at step 1 of both, nobody at step 2.
      expect(results.map((r) => [r[0]!.count, r[1]!.count])).toEqual([[1, 0], [1, 0]]);
      // Its second filter has no funnel_order_type: an ordered funnel whatever the instantiation.
      const single = await funnel(ref, { ...three, breakdown_type: "cohort", breakdown: 1 });
      expect(single[0]!.length).toBe(3);
      expect(single[0]![0]!.breakdown).toBe("test_cohort");
      expect(single[0]![0]!.breakdown_value).toBe(1);
      expect([single[0]![0]!.count, single[0]![1]!.count]).toEqual([1, 0]);
    },
  },
  {
    name: "test_basic_funnel_default_funnel_days_breakdown_event",
    // test_funnel_strict.py overrides it with `pass` (it fails there, says its TODO).
    orders: ["ordered", "unordered"],
    data: () => data({ user_1: docsThenBlog() }),
    async run(ref, order) {
      const filter = {
        funnel_order_type: order,
        events: [{ id: "user signed up", type: "events", order: 0, properties: [{ key: "$current_url", operator: "icontains", type: "event", value: "https://posthog.com/docs" }] }, { id: "paid", type: "events", order: 1 }],
        date_from: "2020-01-01",
        date_to: "2020-01-14",
        breakdown: ["$current_url"],
        breakdown_type: "event",
      };
      const results = await funnel(ref, filter);
      expectSteps(order, results[0], [{ name: "user signed up", count: 1, breakdown: ["https://posthog.com/docs/x"] }, { name: "paid", count: 1, time: 691200, breakdown: ["https://posthog.com/docs/x"] }]);
    },
  },
  {
    name: "test_basic_funnel_default_funnel_days_breakdown_action",
    orders: ["ordered", "unordered"],
    data: () => ({ ...data({ user_1: docsThenBlog() }), extra: { actions: [{ project_id: "1", id: 1, name: "user signed up", steps: [{ event: "user signed up", properties: [] }] }] } as unknown as RefData["extra"] }),
    async run(ref, order) {
      const filter = {
        funnel_order_type: order,
        actions: [{ id: 1, order: 0, properties: [{ key: "$current_url", operator: "icontains", type: "event", value: "https://posthog.com/docs" }] }],
        events: [{ id: "paid", type: "events", order: 1 }],
        date_from: "2020-01-01",
        date_to: "2020-01-14",
        breakdown: ["$current_url"],
        breakdown_type: "event",
      };
      const results = await funnel(ref, filter);
      expectSteps(order, results[0], [{ name: "user signed up", count: 1, breakdown: ["https://posthog.com/docs/x"], type: "actions", action_id: 1 }, { name: "paid", count: 1, time: 691200, breakdown: ["https://posthog.com/docs/x"] }]);
    },
  },
  {
    name: "test_funnel_step_breakdown_with_first_touch_attribution",
    data: () => touches("alakazam"),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"], breakdown_attribution_type: "first_touch" }));
      expect(results.length).toBe(5);
      [[""], ["0"], ["Chrome"], ["Mac"]].forEach((value, i) => expectSteps(order, results[i], twoSteps(value, 1, 1, 3600)));
      expectSteps(order, results[4], twoSteps(["Safari"], 1, 1, 86400));
    },
  },
  {
    name: "test_funnel_step_breakdown_with_last_touch_attribution",
    data: () => touches("Alakazam"),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"], breakdown_attribution_type: "last_touch" }));
      expect(results.length).toBe(5);
      [[""], ["Alakazam"], ["Chrome"], ["Mac"]].forEach((value, i) => expectSteps(order, results[i], twoSteps(value, 1, 1, 3600)));
      expectSteps(order, results[4], twoSteps(["Safari"], 1, 1, 86400));
    },
  },
  {
    name: "test_funnel_step_breakdown_with_step_attribution",
    // test_funnel_unordered.py overrides it (listed in SKIPPED.md).
    orders: ["ordered", "strict"],
    data: () => touches("alakazam", false),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"], breakdown_attribution_type: "step", breakdown_attribution_value: "0" }));
      expect(results.length).toBe(4);
      expectSteps(order, results[0], twoSteps([""], 1, 1, 86400));
      [["0"], ["Chrome"], ["Mac"]].forEach((value, i) => expectSteps(order, results[i + 1], twoSteps(value, 1, 1, 3600)));
    },
  },
  {
    name: "test_funnel_step_breakdown_with_step_one_attribution",
    // Ordered: funnels.test.ts; unordered: overridden there.
    orders: ["strict"],
    data: () => touches("alakazam", false),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"], breakdown_attribution_type: "step", breakdown_attribution_value: "1" }));
      expect(results.length).toBe(3);
      expectSteps(order, results[0], twoSteps([""], 2, 2, 3600));
      expectSteps(order, results[1], twoSteps(["Safari"], 1, 1, 86400));
      expectSteps(order, results[2], twoSteps(["alakazam"], 1, 1, 3600));
    },
  },
  {
    name: "test_funnel_step_multiple_breakdown_with_first_touch_attribution",
    orders: ["strict", "unordered"],
    data: () => multipleTouches(true),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser", "$version"], breakdown_attribution_type: "first_touch" }));
      expect(results.length).toBe(5);
      [["", ""], ["0", "0"], ["Chrome", "xyz"], ["Mac", ""]].forEach((value, i) => expectSteps(order, results[i], twoSteps(value, 1, 1, 3600)));
      expectSteps(order, results[4], twoSteps(["Safari", "xyz"], 1, 1, 86400));
    },
  },
  {
    name: "test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel",
    orders: ["strict", "unordered"],
    data: () => multipleTouches(false),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser", "$version"], breakdown_attribution_type: "first_touch" }));
      expect(results.length).toBe(5);
      expectSteps(order, results[0], twoSteps(["", ""], 1, 1, 3600));
      expectSteps(order, results[1], twoSteps(["0", "0"], 1, 0));
      expectSteps(order, results[2], twoSteps(["Chrome", "xyz"], 1, 1, 3600));
      expectSteps(order, results[3], twoSteps(["Mac", ""], 1, 0));
      expectSteps(order, results[4], twoSteps(["Safari", "xyz"], 1, 1, 86400));
    },
  },
  {
    name: "test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel",
    orders: ["strict"],
    data: () => stepOneIncomplete(),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"], breakdown_attribution_type: "step", breakdown_attribution_value: "1" }));
      expect(results.length).toBe(2);
      expectSteps(order, results[0], twoSteps([""], 1, 1, 3600));
      expectSteps(order, results[1], twoSteps(["alakazam"], 1, 1, 3600));
    },
  },
  {
    name: "test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel",
    orders: ["strict"],
    data: () => stepOneIncomplete(),
    async run(ref, order) {
      const results = byBreakdown(await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: "$browser", breakdown_attribution_type: "step", breakdown_attribution_value: "1" }));
      expect(results.length).toBe(2);
      expectSteps(order, results[0], twoSteps([""], 1, 1, 3600));
      expectSteps(order, results[1], twoSteps(["alakazam"], 1, 1, 3600));
    },
  },
  {
    name: "test_funnel_step_multiple_breakdown_snapshot",
    orders: ["strict", "unordered"],
    data: () => multipleTouches(true),
    async run(ref, order) {
      expect((await funnel(ref, { ...two, funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser", "$version"], breakdown_attribution_type: "first_touch" })).length).toBe(5);
    },
  },
  {
    name: "test_funnel_breakdown_correct_breakdown_props_are_chosen",
    orders: ["strict", "unordered"],
    data: () => propsChosen(),
    async run(ref, order) {
      const results = await funnel(ref, { ...two, events: versionedBuy, funnel_order_type: order, breakdown_type: "event", breakdown: "$browser", breakdown_attribution_type: "first_touch" });
      expect(results.length).toBe(4);
      expect(results.map((r) => r[0]!.breakdown).sort()).toEqual([[""], ["Chrome"], ["Mac"], ["Safari"]]);
    },
  },
  {
    name: "test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step",
    // test_funnel_unordered.py overrides it (ported in funnels.test.ts).
    orders: ["ordered", "strict"],
    data: () => propsChosen(),
    async run(ref, order) {
      const results = await funnel(ref, { ...two, events: versionedBuy, funnel_order_type: order, breakdown_type: "event", breakdown: "$browser", breakdown_attribution_type: "step", breakdown_attribution_value: "1" });
      expect(results.length).toBe(2);
      expect(results.map((r) => r[0]!.breakdown).sort()).toEqual([["Mac"], ["Safari"]]);
    },
  },
  {
    name: "test_funnel_step_breakdown_with_first_time_for_user_math",
    data: () => data({ person1: [["sign up", at(1, 12), { $browser: "Safari" }], ["play movie", at(2, 12, 30), { $browser: "Safari" }], ["sign up", at(2, 13), { $browser: "Chrome" }], ["play movie", at(2, 14), { $browser: "Safari" }]] }),
    async run(ref, order) {
      const filter = { ...two, events: [{ id: "sign up", order: 0, math: "first_time_for_user" }, { id: "play movie", order: 1 }], funnel_order_type: order, breakdown_type: "event", breakdown: ["$browser"], breakdown_attribution_type: "all_events" };
      const results = await funnel(ref, filter);
      expect(results.length).toBe(1);
      expectSteps(order, results[0], [{ name: "sign up", count: 1, breakdown: ["Safari"] }, { name: "play movie", count: 1, breakdown: ["Safari"], time: 88200 }]);
    },
  },
];

/** person_{num}_{i} for i < num: num persons converting under some_breakdown_val = num. */
function numberedPersons(upTo: number): Record<string, Journey> {
  const journeys: Record<string, Journey> = {};
  for (let num = 0; num < upTo; num++) {
    const p = { some_breakdown_val: String(num) };
    for (let i = 0; i < num; i++) journeys[`person_${num}_${i}`] = [["sign up", at(1, 12), p], ["play movie", at(1, 13), p], ["buy", at(1, 15), p]];
  }
  return journeys;
}

/** One sign-up on a docs page converting 8 days later, and forty sign-ups on blog pages (PostHog PR 5496). */
function docsThenBlog(): Journey {
  const docs = { $current_url: "https://posthog.com/docs/x" };
  const blog = [..."abcdefghijklmnopqrst"].flatMap((letter) => [0, 1].map(() => ["user signed up", at(2, 14), { $current_url: `https://posthog.com/blog/${letter}` }] as const));
  return [["user signed up", at(2, 14), docs], ["paid", at(10, 14), docs], ...blog];
}

function multipleTouches(complete: boolean): RefData {
  return data({
    person1: [["sign up", at(1, 12), { $browser: "Chrome", $version: "xyz" }], ["buy", at(1, 13)]],
    person2: [["sign up", at(1, 13)], ["buy", at(2, 13), { $browser: "Safari", $version: "xyz" }]],
    person3: [["sign up", at(2, 14), { $browser: "Mac" }], ...(complete ? [["buy", at(2, 15), { $version: "no-mac" }] as const] : [])],
    person4: [["sign up", at(2, 15), { $browser: 0, $version: 0 }], ...(complete ? [["buy", at(2, 16), { $browser: "alakazam" }] as const] : [])],
    person5: [["sign up", at(2, 15)], ["buy", at(2, 16)]],
  });
}

function stepOneIncomplete(): RefData {
  return data({
    person1: [["sign up", at(1, 12), { $browser: "Chrome" }], ["buy", at(1, 13)]],
    person2: [["sign up", at(1, 13)]],
    person3: [["sign up", at(2, 14), { $browser: "Mac" }]],
    person4: [["sign up", at(2, 15), { $browser: 0 }], ["buy", at(2, 16), { $browser: "alakazam" }]],
  });
}

const versionedBuy = [{ id: "sign up", order: 0 }, { id: "buy", properties: [{ type: "event", key: "$version", value: "xyz" }], order: 1 }];
function propsChosen(): RefData {
  return data({
    person1: [["sign up", at(1, 12), { $browser: "Chrome", $version: "xyz" }], ["buy", at(1, 13), { $browser: "Chrome" }]],
    person2: [["sign up", at(1, 13)], ["buy", at(2, 13), { $browser: "Safari", $version: "xyz" }]],
    person3: [["sign up", at(2, 14), { $browser: "Mac" }], ["buy", at(2, 15), { $version: "xyz", $browser: "Mac" }]],
    person5: [["sign up", at(2, 15)], ["buy", at(2, 16)]],
  });
}

for (const order of ORDERS) {
  describe(`breakdown cases, ${order} (${CLASSES[order].steps})`, () => {
    for (const c of CASES.filter((c) => !c.orders || c.orders.includes(order))) {
      it(c.name, async () => {
        // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::funnel_breakdown_test_factory, the test named c.name, as CLASSES[order].steps
        await withReference(c.data(), (ref) => c.run(ref, order));
      });
    }
  });
}

/** The groups of funnel_breakdown_group_test_factory._create_groups. */
const GROUPS: Pick<RefData, "groupTypes" | "extra"> = {
  groupTypes: [{ group_type_index: 0, group_type: "organization" }, { group_type_index: 1, group_type: "company" }],
  extra: {
    groups: [
      { project_id: "1", group_type_index: 0, group_key: "org:5", properties: { industry: "finance" } },
      { project_id: "1", group_type_index: 0, group_key: "org:6", properties: { industry: "technology" } },
      { project_id: "1", group_type_index: 1, group_key: "org:5", properties: { industry: "random" } },
    ],
  } as unknown as RefData["extra"],
};
function orgJourneys(person3: Journey): RefData {
  const org = (key: string, browser: string) => ({ $group_0: key, $browser: browser });
  return {
    ...data({
      person1: [["sign up", at(1, 12), org("org:5", "Chrome")], ["play movie", at(1, 13), org("org:5", "Chrome")], ["buy", at(1, 15), org("org:5", "Chrome")]],
      person2: [["sign up", at(2, 14), org("org:6", "Safari")], ["play movie", at(2, 16), org("org:6", "Safari")]],
      person3,
    }),
    ...GROUPS,
  };
}
const industry = { ...three, breakdown: "industry", breakdown_type: "group", breakdown_group_type_index: 0 };
const finance = (order: Order, result: Step[] | undefined) =>
  expectSteps(order, result, [{ name: "sign up", breakdown: "finance", count: 1 }, { name: "play movie", breakdown: "finance", count: 1, time: 3600 }, { name: "buy", breakdown: "finance", count: 1, time: 7200 }]);

for (const order of ORDERS) {
  describe(`group breakdown cases, ${order} (${CLASSES[order].groups})`, () => {
    it("test_funnel_breakdown_group", async () => {
      // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::funnel_breakdown_group_test_factory::test_funnel_breakdown_group
      await withReference(orgJourneys([["sign up", at(2, 14), { $group_0: "org:6", $browser: "Safari" }]]), async (ref) => {
        const results = await funnel(ref, { ...industry, funnel_order_type: order });
        finance(order, results[0]);
        expectSteps(order, results[1], [{ name: "sign up", breakdown: "technology", count: 2 }, { name: "play movie", breakdown: "technology", count: 1, time: 7200 }, { name: "buy", breakdown: "technology", count: 0 }]);
      });
    });

    it("test_funnel_aggregate_by_groups_breakdown_group", async () => {
      // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::funnel_breakdown_group_test_factory::test_funnel_aggregate_by_groups_breakdown_group
      await withReference(orgJourneys([["buy", at(2, 18), { $group_0: "org:6", $browser: "Safari" }]]), async (ref) => {
        const results = await funnel(ref, { ...industry, aggregation_group_type_index: 0, funnel_order_type: order });
        finance(order, results[0]);
        expectSteps(order, results[1], [{ name: "sign up", breakdown: "technology", count: 1 }, { name: "play movie", breakdown: "technology", count: 1, time: 7200 }, { name: "buy", breakdown: "technology", count: 1, time: 7200 }]);
      });
    });
  });
}

describe("breakdowns by current url (test_funnel_breakdowns_by_current_url.py::TestFunnelBreakdownsByCurrentURL)", () => {
  const url = (u: string, path: string) => ({ $current_url: u, $pathname: path });
  const urls: RefData = {
    now: "2020-01-15T00:00:00",
    ...journeysFor({
      person1: [["watched movie", "2020-01-02T12:01:00", url("https://example.com", "")], ["watched movie", "2020-01-02T12:02:00", url("https://example.com?", "?")], ["terminate funnel", "2020-01-02T12:03:00"]],
      person2: [["watched movie", "2020-01-02T12:01:00", url("https://example.com/", "/")], ["watched movie", "2020-01-02T12:02:00", url("https://example.com#", "#")], ["terminate funnel", "2020-01-02T12:03:00"]],
      person3: [["watched movie", "2020-01-02T12:01:00", url("https://example.com/home", "/home")], ["terminate funnel", "2020-01-02T12:02:00"]],
      person4: [
        ["watched movie", "2020-01-02T12:01:00", url("https://example.com/home/", "/home/")],
        ["watched movie", "2020-01-02T12:02:00", url("https://example.com/home#", "/home#")],
        ["watched movie", "2020-01-02T12:03:00", url("https://example.com/home/?#", "/home/?#")],
        ["terminate funnel", "2020-01-02T12:04:00"],
      ],
    }),
  };
  const run = (ref: Reference, extra: Filter) =>
    funnel(ref, {
      events: [{ id: "watched movie", name: "watched movie", type: "events", order: 0 }, { id: "terminate funnel", name: "terminate funnel", type: "events", order: 1 }],
      funnel_viz_type: "steps",
      date_from: "2020-01-02T00:00:00Z",
      date_to: "2020-01-12T00:00:00Z",
      breakdown_limit: 100,
      ...extra,
    });
  /** The test's (name, count, breakdown) of every step, sorted by count, first breakdown item, name. */
  const triples = (results: Step[][]) =>
    results
      .flat()
      .map((s) => [s.name, s.count, s.breakdown] as [string, number, string[]])
      .sort((a, b) => a[1] - b[1] || (a[2][0]! < b[2][0]! ? -1 : a[2][0]! > b[2][0]! ? 1 : 0) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

  it("test_breakdown_by_pathname", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_breakdowns_by_current_url.py::TestFunnelBreakdownsByCurrentURL::test_breakdown_by_pathname
    await withReference(urls, async (ref) => {
      const results = await run(ref, { breakdown: "$pathname", breakdown_type: "event", breakdown_normalize_url: true });
      expect(triples(results)).toEqual([
        ["terminate funnel", 2, ["/"]],
        ["watched movie", 2, ["/"]],
        ["terminate funnel", 2, ["/home"]],
        ["watched movie", 2, ["/home"]],
      ]);
    });
  });

  it("test_breakdown_by_current_url", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_breakdowns_by_current_url.py::TestFunnelBreakdownsByCurrentURL::test_breakdown_by_current_url
    await withReference(urls, async (ref) => {
      const results = await run(ref, { breakdown: "$current_url", breakdown_type: "event", breakdown_normalize_url: true });
      expect(triples(results)).toEqual([
        ["terminate funnel", 2, ["https://example.com"]],
        ["watched movie", 2, ["https://example.com"]],
        ["terminate funnel", 2, ["https://example.com/home"]],
        ["watched movie", 2, ["https://example.com/home"]],
      ]);
    });
  });
});

/**
 * PostHog's funnel query-runner tests (posthog/hogql_queries/insights/funnels/test/), ported: each test's data, its
 * filter sent as a FunnelsQuery (the filter through filter_to_query, as the PostHog test does) and as the legacy
 * funnel endpoint, and the numbers it asserts. Tests not ported are listed in SKIPPED.md.
 */
import { describe, expect, it } from "vitest";
import { filtersToQuery } from "../../src/analyses/filter-to-query.ts";
import { funnel, type Filter } from "./funnel-support.ts";
import { journeysFor, withReference, type RefData, type RefEvent, type RefPerson, type Reference } from "./support.ts";

type Step = { name: string | null; count: number; average_conversion_time: number | null; median_conversion_time: number | null; breakdown_value?: unknown };

/** A FunnelsQuery node as the PostHog test builds it. */
async function funnelQuery(ref: Reference, node: Filter): Promise<any> {
  return (await ref.query({ kind: "FunnelsQuery", ...node })).results;
}

const steps = (...ids: (string | null)[]) => ids.map((id, order) => ({ id, type: "events", order }));
const counts = (result: Step[]) => result.map((s) => s.count);

/** Events created one after another without a timestamp (`_create_event` at the frozen now): one second apart. */
function sequence(start: string) {
  let at = Date.parse(`${start}Z`);
  return (event: string, distinct_id: string, extra: Partial<RefEvent> = {}): RefEvent => {
    const timestamp = new Date(at).toISOString();
    at += 1000;
    return { event, distinct_id, timestamp, ...extra };
  };
}

const persons = (...ids: (string | string[])[]): RefPerson[] => ids.map((id) => ({ distinct_ids: Array.isArray(id) ? id : [id] }));

// _pay_event / _movie_event: $autocapture with the elements the "paid" and "watched movie" actions look for.
const PAY = 'button:nth-child="0"nth-of-type="1"text="Pay $10"';
const MOVIE = 'a:href="/movie"nth-child="0"nth-of-type="1"';
const PAID_ACTION = { project_id: "1", id: 1, name: "paid", steps: [{ event: "$autocapture", tag_name: "button", text: "Pay $10" }] };
const MOVIE_ACTION = { project_id: "1", id: 2, name: "watched movie", steps: [{ event: "$autocapture", tag_name: "a", href: "/movie" }] };
/** The "paid" and "watched movie" actions, created through the actions API (fixtures take no element steps): ids 1 and 2. */
async function basicActions(ref: Reference): Promise<void> {
  for (const [want, { name, steps }] of [[1, PAID_ACTION], [2, MOVIE_ACTION]] as const) {
    const res = await ref.server.post("/api/projects/1/actions/", { name, steps });
    expect(res.status, res.text).toBe(201);
    expect(res.body.id).toBe(want);
  }
}
const NOW = "2021-05-10T12:00:00";

describe("ordered funnel steps (test_funnel.py)", () => {
  function basicJourneys(): RefData {
    const e = sequence("2021-05-10T10:00:00");
    const pay = (id: string) => e("$autocapture", id, { elements_chain: PAY });
    const movie = (id: string) => e("$autocapture", id, { elements_chain: MOVIE });
    return {
      now: NOW,
      persons: persons("stopped_after_signup", "stopped_after_pay", ["had_anonymous_id", "completed_movie"], "just_did_movie", "wrong_order"),
      events: [
        e("user signed up", "stopped_after_signup"),
        e("user signed up", "stopped_after_pay"),
        pay("stopped_after_pay"),
        e("user signed up", "had_anonymous_id"),
        pay("completed_movie"),
        movie("completed_movie"),
        movie("just_did_movie"),
        pay("wrong_order"),
        e("user signed up", "wrong_order"),
        movie("wrong_order"),
      ],
    };
  }
  const basicFilter = { events: [{ id: "user signed up", type: "events", order: 0 }], actions: [{ id: 1, type: "actions", order: 1 }, { id: 2, type: "actions", order: 2 }], funnel_window_days: 14 };

  it("test_funnel_events", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_events
    await withReference(basicJourneys(), async (ref) => {
      await basicActions(ref);
      const result: Step[] = await funnel(ref, basicFilter);
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 4], ["paid", 2], ["watched movie", 1]]);
    });
  });

  it("test_funnel_with_messed_up_order", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_messed_up_order
    const e = sequence("2021-05-10T10:00:00");
    const movie = (id: string) => e("$autocapture", id, { elements_chain: MOVIE });
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup", "stopped_after_pay", ["had_anonymous_id", "completed_movie"], "just_did_movie", "wrong_order"),
      events: [
        e("user signed up", "stopped_after_signup"),
        e("user signed up", "stopped_after_pay"),
        movie("completed_movie"),
        e("user signed up", "had_anonymous_id"),
        movie("completed_movie"),
        movie("just_did_movie"),
        movie("wrong_order"),
        e("user signed up", "wrong_order"),
      ],
    };
    await withReference(data, async (ref) => {
      await basicActions(ref);
      const result: Step[] = await funnel(ref, { events: [{ id: "user signed up", type: "events", order: 0 }], actions: [{ id: 2, type: "actions", order: 2 }], funnel_window_days: 14 });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 4], ["watched movie", 1]]);
    });
  });

  it("test_funnel_with_any_event", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_any_event
    const e = sequence("2021-05-10T10:00:00");
    const movie = (id: string) => e("$autocapture", id, { elements_chain: MOVIE });
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup", "stopped_after_pay", "completed_movie", "just_did_movie", "wrong_order"),
      events: [
        e("user signed up", "stopped_after_signup"),
        e("user signed up", "stopped_after_pay"),
        movie("stopped_after_pay"),
        e("user signed up", "completed_movie"),
        movie("completed_movie"),
        movie("just_did_movie"),
        movie("wrong_order"),
        e("user signed up", "wrong_order"),
        movie("wrong_order"),
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { events: steps(null, null, null), funnel_window_days: 14 });
      expect(result.map((s) => [s.name, s.count])).toEqual([[null, 5], [null, 3], [null, 1]]);
    });
  });

  it("test_funnel_skipped_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_skipped_step
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = { now: NOW, persons: persons("wrong_order"), events: [e("user signed up", "wrong_order"), e("$autocapture", "wrong_order", { elements_chain: MOVIE })] };
    await withReference(data, async (ref) => {
      await basicActions(ref);
      const result: Step[] = await funnel(ref, basicFilter);
      expect(result[1]!.count).toBe(0);
      expect(result[2]!.count).toBe(0);
    });
  });

  it("test_funnel_prop_filters", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_prop_filters
    const e = sequence("2021-05-10T10:00:00");
    const safari = { properties: { $browser: "Safari" } };
    const data: RefData = {
      now: NOW,
      persons: persons("with_property", "without_property", "half_property"),
      events: [
        e("user signed up", "with_property", safari),
        e("$autocapture", "with_property", { ...safari, elements_chain: PAY }),
        e("user signed up", "without_property"),
        e("$autocapture", "without_property", { elements_chain: PAY }),
        e("user signed up", "half_property", safari),
        e("$autocapture", "half_property", { elements_chain: PAY }),
      ],
    };
    await withReference(data, async (ref) => {
      await basicActions(ref);
      const result: Step[] = await funnel(ref, { ...basicFilter, properties: { $browser: "Safari" } }, { legacy: false });
      expect(result[0]!.count).toBe(2);
      expect(result[1]!.count).toBe(1);
    });
  });

  it("test_funnel_prop_filters_per_entity", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_prop_filters_per_entity
    const e = sequence("2021-05-10T10:00:00");
    const safari = { properties: { $browser: "Safari" } };
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["with_property"], properties: { $browser: "Safari" } }, ...persons("without_property", "half_property")],
      events: [
        e("user signed up", "with_property", safari),
        e("$autocapture", "with_property", { ...safari, elements_chain: PAY }),
        e("$autocapture", "with_property", { elements_chain: MOVIE }),
        e("user signed up", "without_property"),
        e("$autocapture", "without_property", { ...safari, elements_chain: PAY }),
        e("user signed up", "half_property"),
        e("$autocapture", "half_property", { elements_chain: PAY }),
        e("$autocapture", "half_property", { elements_chain: MOVIE }),
      ],
    };
    const filter = {
      events: [{ id: "user signed up", type: "events", order: 0, properties: [{ key: "$browser", value: "Safari" }, { key: "$browser", operator: "is_not", value: "Chrome" }] }],
      actions: [
        { id: 1, type: "actions", order: 1, properties: [{ key: "$browser", value: "Safari" }] },
        { id: 2, type: "actions", order: 2, properties: [{ key: "$browser", value: "Firefox" }] },
      ],
      funnel_window_days: 14,
    };
    await withReference(data, async (ref) => {
      await basicActions(ref);
      expect(counts(await funnel(ref, filter))).toEqual([1, 1, 0]);
    });
  });

  it("test_funnel_person_prop", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_person_prop
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["with_property"], properties: { email: "hello@posthog.com" } }],
      events: [e("user signed up", "with_property"), e("$autocapture", "with_property", { elements_chain: PAY }), e("$autocapture", "with_property", { elements_chain: MOVIE })],
    };
    const filter = { ...basicFilter, events: [{ id: "user signed up", type: "events", order: 0, properties: [{ key: "email", value: "hello@posthog.com", type: "person" }] }] };
    await withReference(data, async (ref) => {
      await basicActions(ref);
      expect(counts(await funnel(ref, filter))).toEqual([1, 1, 1]);
    });
  });

  it("test_funnel_multiple_actions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_multiple_actions
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = {
      now: NOW,
      persons: persons("person1"),
      events: [e("event1", "person1"), e("event2", "person1", { properties: { test_propX: "a" } })],
      extra: {
        actions: [
          { project_id: "1", id: 1, name: "event2", steps: [{ event: "event2", properties: [{ key: "test_propX", value: "a" }] }] },
          { project_id: "1", id: 2, name: "event2", steps: [{ event: "event2", properties: [{ key: "test_propX", value: "c" }] }] },
        ],
      } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      expect(counts(await funnel(ref, { events: [{ id: "event1", order: 0 }], actions: [{ id: 1, order: 1 }, { id: 2, order: 2 }], funnel_window_days: 14 }))).toEqual([1, 1, 0]);
    });
  });

  it("test_funnel_with_entity_person_property_filters", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_entity_person_property_filters
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["person1"], properties: { email: "test@posthog.com" } }, { distinct_ids: ["person2"], properties: { email: "another@example.com" } }, { distinct_ids: ["person3"] }],
      events: [e("event1", "person1"), e("event1", "person2"), e("event1", "person3")],
    };
    const filter = { events: [{ id: "event1", order: 0, properties: [{ key: "email", value: "is_set", operator: "is_set", type: "person" }] }, { id: null, order: 1 }], funnel_window_days: 14 };
    await withReference(data, async (ref) => {
      expect((await funnel(ref, filter))[0].count).toBe(2);
    });
  });

  it("test_funnel_filter_by_action_with_person_properties", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_filter_by_action_with_person_properties
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["person1"], properties: { email: "test@posthog.com" } }, { distinct_ids: ["person2"], properties: { email: "another@example.com" } }, { distinct_ids: ["person3"] }],
      events: [e("event1", "person1"), e("event1", "person2"), e("event1", "person3")],
      extra: { actions: [{ project_id: "1", id: 1, name: "event1", steps: [{ event: "event1", properties: [{ key: "email", value: "is_set", operator: "is_set", type: "person" }] }] }] } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      expect((await funnel(ref, { actions: [{ id: 1, type: "actions", order: 0 }, { id: 1, type: "actions", order: 1 }], funnel_window_days: 14 }))[0].count).toBe(2);
    });
  });

  it("test_basic_funnel_default_funnel_days", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_basic_funnel_default_funnel_days
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      persons: persons("user_1"),
      events: [
        { event: "user signed up", distinct_id: "user_1", timestamp: "2020-01-02T14:00:00Z" },
        { event: "paid", distinct_id: "user_1", timestamp: "2020-01-10T14:00:00Z" },
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { events: steps("user signed up", "paid"), date_from: "2020-01-01", date_to: "2020-01-14" });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 1], ["paid", 1]]);
    });
  });

  const repeatSignups = (): RefData => {
    const e = sequence("2021-05-10T10:00:00");
    return { now: NOW, persons: persons("stopped_after_signup1", "stopped_after_signup2"), events: [e("user signed up", "stopped_after_signup1"), e("user signed up", "stopped_after_signup1"), e("user signed up", "stopped_after_signup2")] };
  };

  it("test_basic_funnel_with_repeat_steps", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_basic_funnel_with_repeat_steps (counts; the actors at each step are not compared)
    await withReference(repeatSignups(), async (ref) => {
      const result: Step[] = await funnel(ref, { events: steps("user signed up", "user signed up"), funnel_window_days: 14 });
      expect(result[0]!.name).toBe("user signed up");
      expect(counts(result)).toEqual([2, 1]);
    });
  });

  it("test_basic_funnel_with_derivative_steps", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_basic_funnel_with_derivative_steps (counts)
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup1", "stopped_after_signup2"),
      events: [e("user signed up", "stopped_after_signup1", { properties: { key: "val" } }), e("user signed up", "stopped_after_signup1"), e("user signed up", "stopped_after_signup2", { properties: { key: "val" } })],
    };
    await withReference(data, async (ref) => {
      const filter = { events: [{ id: "user signed up", type: "events", order: 0, properties: { key: "val" } }, { id: "user signed up", type: "events", order: 1 }], funnel_window_days: 14 };
      expect(counts(await funnel(ref, filter, { legacy: false }))).toEqual([2, 1]);
    });
  });

  it("test_basic_funnel_with_repeat_step_updated_param", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_basic_funnel_with_repeat_step_updated_param (counts)
    await withReference(repeatSignups(), async (ref) => {
      const base = { events: steps("user signed up", "user signed up") };
      const first: Step[] = await funnel(ref, { ...base, funnel_window_interval: 14, funnel_window_interval_unit: "day" });
      expect(counts(first)).toEqual([2, 1]);
      expect(counts(await funnel(ref, { ...base, funnel_window_days: 14, funnel_window_interval: 2, funnel_window_interval_unit: "week" }))).toEqual([2, 1]);
      expect(counts(await funnel(ref, { ...base, funnel_window_days: 14, funnel_window_interval: 1, funnel_window_interval_unit: "hour" }))).toEqual([2, 1]);
    });
  });

  const fivePageviews = steps("user signed up", "$pageview", "$pageview", "$pageview", "$pageview");

  it("test_advanced_funnel_with_repeat_steps", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_advanced_funnel_with_repeat_steps (counts)
    const e = sequence("2021-05-10T10:00:00");
    const journey = (id: string, names: string[]) => names.map((n) => e(n, id));
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup1", "stopped_after_pageview1", "stopped_after_pageview2", "stopped_after_pageview3", "stopped_after_pageview4"),
      events: [
        ...journey("stopped_after_signup1", ["user signed up"]),
        ...journey("stopped_after_pageview1", ["user signed up", "$pageview"]),
        ...journey("stopped_after_pageview2", ["user signed up", "$pageview", "blaah blaa", "$pageview"]),
        ...journey("stopped_after_pageview3", ["user signed up", "$pageview", "blaah blaa", "$pageview", "$pageview", "blaah blaa"]),
        ...journey("stopped_after_pageview4", ["user signed up", "$pageview", "$pageview", "$pageview", "$pageview"]),
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { events: fivePageviews });
      expect([result[0]!.name, result[1]!.name, result[4]!.name]).toEqual(["user signed up", "$pageview", "$pageview"]);
      expect(counts(result)).toEqual([5, 4, 3, 2, 1]);
    });
  });

  it("test_advanced_funnel_with_repeat_steps_out_of_order_events", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_advanced_funnel_with_repeat_steps_out_of_order_events (counts)
    const e = sequence("2021-05-10T10:00:00");
    const journey = (id: string, names: string[]) => names.map((n) => e(n, id));
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["random", "stopped_after_signup1"] }, ...persons("stopped_after_pageview1", "stopped_after_pageview2", "stopped_after_pageview3", "stopped_after_pageview4", "stopped_after_pageview5")],
      events: [
        e("$pageview", "random"),
        e("user signed up", "stopped_after_signup1"),
        ...journey("stopped_after_pageview1", ["user signed up", "$pageview"]),
        ...journey("stopped_after_pageview2", ["$pageview", "user signed up", "blaah blaa", "$pageview"]),
        ...journey("stopped_after_pageview3", ["blaah blaa", "$pageview", "blaah blaa", "$pageview", "user signed up", "$pageview"]),
        ...journey("stopped_after_pageview4", ["user signed up", "$pageview", "blaah blaa", "$pageview", "$pageview", "$pageview"]),
        ...journey("stopped_after_pageview5", ["$pageview", "blaah blaa", "$pageview", "$pageview", "$pageview"]),
      ],
    };
    await withReference(data, async (ref) => {
      expect(counts(await funnel(ref, { events: fivePageviews, funnel_window_days: 14 }))).toEqual([5, 4, 1, 1, 1]);
    });
  });

  const signUpAction = (properties: unknown[]) => ({ actions: [{ project_id: "1", id: 1, name: "sign up", steps: [{ event: "sign up", properties }] }] }) as unknown as RefData["extra"];

  it("test_funnel_with_actions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_actions (counts)
    const e = sequence("2021-05-10T10:00:00");
    const val = { properties: { key: "val" } };
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup1", "stopped_after_signup2"),
      events: [e("sign up", "stopped_after_signup1", val), e("sign up", "stopped_after_signup1", val), e("sign up", "stopped_after_signup2", val)],
      extra: signUpAction([{ key: "key", type: "event", value: ["val"], operator: "exact" }]),
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { actions: [{ id: 1, math: "dau", order: 0 }, { id: 1, math: "weekly_active", order: 1 }] });
      expect(result[0]!.name).toBe("sign up");
      expect(counts(result)).toEqual([2, 1]);
    });
  });

  it("test_funnel_with_different_actions_at_same_time_count_as_converted", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_different_actions_at_same_time_count_as_converted (counts)
    const at = "2020-01-03T00:00:00";
    const val = { key: "val" };
    const data: RefData = {
      now: at,
      persons: persons("stopped_after_signup1", "stopped_after_signup2"),
      events: [
        { event: "sign up", distinct_id: "stopped_after_signup1", timestamp: at, properties: val },
        { event: "$pageview", distinct_id: "stopped_after_signup1", timestamp: at, properties: val },
        { event: "sign up", distinct_id: "stopped_after_signup2", timestamp: at, properties: val },
      ],
      extra: signUpAction([{ key: "key", type: "event", value: ["val"], operator: "exact" }]),
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { actions: [{ id: 1, order: 0 }], events: [{ id: "$pageview", order: 1 }], date_from: "2020-01-01", date_to: "2020-01-07" });
      expect(result[0]!.name).toBe("sign up");
      expect(counts(result)).toEqual([2, 1]);
    });
  });

  it("test_funnel_with_actions_and_props", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_actions_and_props (counts)
    const e = sequence("2021-05-10T10:00:00");
    const val = { properties: { key: "val" } };
    const data: RefData = {
      now: NOW,
      persons: [{ distinct_ids: ["stopped_after_signup1"], properties: { email: "fake@test.com" } }, { distinct_ids: ["stopped_after_signup2"], properties: { email: "fake@test.com" } }],
      events: [e("sign up", "stopped_after_signup1", val), e("sign up", "stopped_after_signup1", val), e("sign up", "stopped_after_signup2", val)],
      extra: signUpAction([{ key: "email", operator: "icontains", value: ".com", type: "person" }]),
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { actions: [{ id: 1, math: "dau", order: 0 }, { id: 1, math: "weekly_active", order: 1 }] });
      expect(result[0]!.name).toBe("sign up");
      expect(counts(result)).toEqual([2, 1]);
    });
  });

  it("test_funnel_with_matching_properties", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_matching_properties (counts)
    const e = sequence("2021-05-10T10:00:00");
    const pv = (id: string, url: string) => e("$pageview", id, { properties: { $current_url: url } });
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup1", "stopped_after_pageview1", "stopped_after_pageview2", "stopped_after_pageview3", "stopped_after_pageview4"),
      events: [
        e("user signed up", "stopped_after_signup1"),
        e("user signed up", "stopped_after_pageview1"),
        pv("stopped_after_pageview1", "aloha.com"),
        e("user signed up", "stopped_after_pageview2"),
        pv("stopped_after_pageview2", "aloha.com"),
        e("blaah blaa", "stopped_after_pageview2", { properties: { $current_url: "aloha.com" } }),
        pv("stopped_after_pageview2", "aloha2.com"),
        e("user signed up", "stopped_after_pageview3"),
        pv("stopped_after_pageview3", "aloha.com"),
        pv("stopped_after_pageview3", "aloha2.com"),
        pv("stopped_after_pageview3", "aloha2.com"),
        e("blaah blaa", "stopped_after_pageview3"),
        e("user signed up", "stopped_after_pageview4"),
        pv("stopped_after_pageview4", "aloha.com"),
        e("blaah blaa", "stopped_after_pageview4"),
        pv("stopped_after_pageview4", "aloha2.com"),
        pv("stopped_after_pageview4", "aloha.com"),
        pv("stopped_after_pageview4", "aloha2.com"),
      ],
    };
    const filter = {
      events: [
        { id: "user signed up", order: 0 },
        { id: "$pageview", order: 1, properties: { $current_url: "aloha.com" } },
        { id: "$pageview", order: 2, properties: { $current_url: "aloha2.com" } },
        { id: "$pageview", order: 3, properties: { $current_url: "aloha2.com" } },
        { id: "$pageview", order: 4 },
      ],
      funnel_window_days: 14,
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, filter, { legacy: false });
      expect([result[0]!.name, result[1]!.name, result[4]!.name]).toEqual(["user signed up", "$pageview", "$pageview"]);
      expect(counts(result)).toEqual([5, 4, 3, 2, 0]);
    });
  });

  function conversionWindowData(secondStep: (i: number) => string, late: string): RefData {
    const events: RefEvent[] = [];
    for (let i = 0; i < 25; i++) {
      events.push({ event: "step one", distinct_id: `user_${i}`, timestamp: "2021-05-01 00:00:00" });
      events.push({ event: "step two", distinct_id: `user_${i}`, timestamp: i < 10 ? secondStep(i) : late });
    }
    return { now: "2021-05-20T00:00:00", persons: Array.from({ length: 25 }, (_, i) => ({ distinct_ids: [`user_${i}`] })), events };
  }
  const threeSteps = { events: [{ id: "step one", order: 0 }, { id: "step two", order: 1 }, { id: "step three", order: 2 }], date_from: "2021-05-01 00:00:00", date_to: "2021-05-14 00:00:00" };

  it("test_funnel_conversion_window", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_conversion_window (counts)
    await withReference(conversionWindowData(() => "2021-05-02 00:00:00", "2021-05-10 00:00:00"), async (ref) => {
      expect(counts(await funnel(ref, { ...threeSteps, interval: "day", funnel_window_interval: 7 }))).toEqual([25, 10, 0]);
    });
  });

  it("test_funnel_conversion_window_seconds", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_conversion_window_seconds (counts)
    await withReference(conversionWindowData(() => "2021-05-01 00:00:10", "2021-05-01 00:00:20"), async (ref) => {
      expect(counts(await funnel(ref, { ...threeSteps, funnel_window_interval: 15, funnel_window_interval_unit: "second" }))).toEqual([25, 10, 0]);
    });
  });
});

describe("exclusions (test_funnel.py)", () => {
  const signupPaid = { events: steps("user signed up", "paid"), date_from: "2021-05-01 00:00:00", date_to: "2021-05-14 00:00:00" };
  const exclusion = (id: string | number, from: number, to: number, type = "events") => ({ id, type, funnel_from_step: from, funnel_to_step: to });

  it("test_funnel_exclusions_invalid_params", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_exclusions_invalid_params
    await withReference({ now: NOW, events: [] }, async (ref) => {
      for (const [from, to] of [[1, 1], [1, 2], [2, 1], [0, 2]] as const) {
        const filter = { insight: "FUNNELS", ...signupPaid, funnel_window_days: 14, exclusions: [exclusion("x", from, to)] };
        const res = await ref.queryResponse((filtersToQuery(filter) as { source: Filter }).source);
        expect(res.status, `${from}→${to}`).toBe(400);
      }
    });
  });

  it("test_funnel_exclusion_no_end_event", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_exclusion_no_end_event (counts)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1", "person2", "person3", "person4"),
      events: [
        { event: "user signed up", distinct_id: "person1", timestamp: "2021-05-01 01:00:00" },
        { event: "paid", distinct_id: "person1", timestamp: "2021-05-01 02:00:00" },
        { event: "user signed up", distinct_id: "person2", timestamp: "2021-05-01 03:00:00" },
        { event: "x", distinct_id: "person2", timestamp: "2021-05-01 03:30:00" },
        { event: "paid", distinct_id: "person2", timestamp: "2021-05-01 04:00:00" },
        { event: "user signed up", distinct_id: "person3", timestamp: "2021-05-01 05:00:00" },
        { event: "x", distinct_id: "person3", timestamp: "2021-05-01 06:00:00" },
        { event: "user signed up", distinct_id: "person4", timestamp: "2021-05-01 07:00:00" },
        { event: "x", distinct_id: "person4", timestamp: "2021-05-02 08:00:00" },
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { ...signupPaid, funnel_window_interval: 1, exclusions: [exclusion("x", 0, 1)] });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 2], ["paid", 1]]);
    });
  });

  const noEndEvent = (events: [string, string][]): RefData => ({
    now: "2021-05-20T00:00:00",
    persons: persons("user_one"),
    events: events.map(([event, timestamp]) => ({ event, distinct_id: "user_one", timestamp })),
  });
  const tenSeconds = {
    funnel_viz_type: "steps",
    interval: "day",
    date_from: "2021-05-01 00:00:00",
    date_to: "2021-05-13 23:59:59",
    funnel_window_interval: 10,
    funnel_window_interval_unit: "second",
    events: [{ id: "step one", order: 0 }, { id: "step two", order: 1 }],
    exclusions: [exclusion("exclusion", 0, 1)],
  };

  it("test_funnel_exclusion_multiple_possible_no_end_event1", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_exclusion_multiple_possible_no_end_event1
    await withReference(noEndEvent([["step one", "2021-05-01 00:00:00"], ["exclusion", "2021-05-01 00:00:01"], ["step one", "2021-05-01 00:00:31"]]), async (ref) => {
      expect(counts(await funnel(ref, tenSeconds))).toEqual([1, 0]);
    });
  });

  it("test_funnel_exclusion_multiple_possible_no_end_event2", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_exclusion_multiple_possible_no_end_event2
    await withReference(noEndEvent([["step one", "2021-05-01 00:00:00"], ["step one", "2021-05-01 00:00:31"], ["exclusion", "2021-05-01 00:00:32"]]), async (ref) => {
      expect(counts(await funnel(ref, tenSeconds))).toEqual([1, 0]);
    });
  });

  it("test_funnel_exclusion_multiple_possible_no_end_event3", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_exclusion_multiple_possible_no_end_event3 (the UDF funnel's [])
    await withReference(noEndEvent([["step one", "2021-05-01 00:00:00"], ["step one", "2021-05-01 00:00:01"], ["exclusion", "2021-05-01 00:00:02"]]), async (ref) => {
      expect(await funnel(ref, tenSeconds)).toEqual([]);
    });
  });

  it("test_funnel_exclusions_with_actions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_exclusions_with_actions (counts)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1", "person2", "person3"),
      events: [
        { event: "user signed up", distinct_id: "person1", timestamp: "2021-05-01 01:00:00" },
        { event: "paid", distinct_id: "person1", timestamp: "2021-05-01 02:00:00" },
        { event: "user signed up", distinct_id: "person2", timestamp: "2021-05-01 03:00:00" },
        { event: "sign up", distinct_id: "person2", timestamp: "2021-05-01 03:30:00", properties: { key: "val" } },
        { event: "paid", distinct_id: "person2", timestamp: "2021-05-01 04:00:00" },
        { event: "user signed up", distinct_id: "person3", timestamp: "2021-05-01 05:00:00" },
        { event: "paid", distinct_id: "person3", timestamp: "2021-05-01 06:00:00" },
      ],
      extra: { actions: [{ project_id: "1", id: 1, name: "sign up", steps: [{ event: "sign up", properties: [{ key: "key", type: "event", value: ["val"], operator: "exact" }] }] }] } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { ...signupPaid, funnel_window_days: 14, exclusions: [exclusion(1, 0, 1, "actions")] });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 2], ["paid", 2]]);
    });
  });

  it("test_funnel_exclusions_full_window", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_exclusions_full_window (counts)
    const x = "x 1 name with numbers 2";
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1", "person2", "person3"),
      events: [
        { event: "user signed up", distinct_id: "person1", timestamp: "2021-05-01 01:00:00" },
        { event: "paid", distinct_id: "person1", timestamp: "2021-05-01 02:00:00" },
        { event: "user signed up", distinct_id: "person2", timestamp: "2021-05-01 03:00:00" },
        { event: x, distinct_id: "person2", timestamp: "2021-05-01 03:30:00" },
        { event: "paid", distinct_id: "person2", timestamp: "2021-05-01 04:00:00" },
        { event: "user signed up", distinct_id: "person3", timestamp: "2021-05-01 05:00:00" },
        { event: "paid", distinct_id: "person3", timestamp: "2021-05-01 06:00:00" },
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { ...signupPaid, funnel_window_days: 14, exclusions: [exclusion(x, 0, 1)] });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 2], ["paid", 2]]);
    });
  });

  const fiveSteps = { events: steps("user signed up", "$pageview", "insight viewed", "invite teammate", "pageview2"), date_from: "2021-05-01 00:00:00", date_to: "2021-05-14 00:00:00" };
  const day = (id: string, list: [string, string][]) => list.map(([event, time]) => ({ event, distinct_id: id, timestamp: `2021-05-01 ${time}` }));

  it("test_advanced_funnel_exclusions_between_steps", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_advanced_funnel_exclusions_between_steps (counts)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1", "person2", "person3"),
      events: [
        ...day("person1", [["user signed up", "01:00:00"], ["$pageview", "02:00:00"], ["x", "03:00:00"], ["insight viewed", "04:00:00"], ["x", "04:30:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
        ...day("person2", [["user signed up", "01:00:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["x", "04:30:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
        ...day("person3", [["user signed up", "01:00:00"], ["x", "01:30:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
      ],
    };
    await withReference(data, async (ref) => {
      const firstAndLast = async (from: number, to: number) => {
        const result: Step[] = await funnel(ref, { ...fiveSteps, exclusions: [exclusion("x", from, to)] });
        return result.length === 0 ? [] : [result[0]!.name, result[0]!.count, result[4]!.count];
      };
      expect(await firstAndLast(0, 1)).toEqual(["user signed up", 2, 2]);
      expect(await firstAndLast(1, 2)).toEqual(["user signed up", 2, 2]);
      expect(await firstAndLast(2, 3)).toEqual(["user signed up", 1, 1]);
      // The UDF funnel answers [] when nobody is left.
      expect(await firstAndLast(3, 4)).toEqual([]);
      expect(await firstAndLast(1, 3)).toEqual(["user signed up", 1, 1]);
    });
  });

  it("test_advanced_funnel_multiple_exclusions_between_steps", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_advanced_funnel_multiple_exclusions_between_steps (counts)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1", "person2", "person3", "person4"),
      events: [
        ...day("person1", [["user signed up", "01:00:00"], ["x", "02:00:00"], ["$pageview", "03:00:00"], ["insight viewed", "04:00:00"], ["y", "04:30:00"], ["invite teammate", "05:00:00"], ["pageview2", "06:00:00"]]),
        ...day("person2", [["user signed up", "01:00:00"], ["y", "01:30:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["y", "04:30:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
        ...day("person3", [["user signed up", "01:00:00"], ["x", "01:30:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
        ...day("person4", [["user signed up", "01:00:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["invite teammate", "05:00:00"], ["pageview2", "06:00:00"]]),
      ],
    };
    await withReference(data, async (ref) => {
      for (const exclusions of [
        [exclusion("x", 0, 1), exclusion("y", 2, 3)],
        [exclusion("x", 0, 1), exclusion("y", 0, 1)],
        [exclusion("x", 0, 4), exclusion("y", 0, 4)],
      ]) {
        const result: Step[] = await funnel(ref, { ...fiveSteps, exclusions });
        expect([result[0]!.name, result[0]!.count, result[4]!.count]).toEqual(["user signed up", 1, 1]);
      }
    });
  });

  it("test_multiple_events_same_timestamp_exclusions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_multiple_events_same_timestamp_exclusions
    const at = (event: string, timestamp: string): RefEvent => ({ event, distinct_id: "test", timestamp });
    const data: RefData = {
      now: "2024-01-10T12:02:00",
      persons: persons("test"),
      events: [
        at("step zero", "2024-01-10T12:00:00"),
        ...Array.from({ length: 30 }, () => at("step one", "2024-01-10T12:01:00")),
        at("exclusion", "2024-01-10T12:01:00"),
        at("step two", "2024-01-10T12:01:00"),
        at("step three", "2024-01-10T12:02:00"),
      ],
    };
    const base = { funnel_viz_type: "steps", date_from: "2024-01-10 00:00:00", date_to: "2024-01-12 00:00:00", events: [{ id: "step zero", order: 0 }, { id: "step one", order: 1 }, { id: "step two", order: 2 }, { id: "step three", order: 3 }] };
    await withReference(data, async (ref) => {
      for (const [from, to] of [[0, 1], [1, 2]] as const) {
        const result: Step[] = await funnel(ref, { ...base, exclusions: [exclusion("exclusion", from, to)] });
        expect(result.length, `${from}→${to}`).toBe(4);
        expect(result.at(-1)!.count).toBe(1);
      }
    });
  });

  it("test_short_exclusions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_short_exclusions
    const data = noEndEvent([["step one", "2021-05-01 00:00:00"], ["exclusion", "2021-05-01 00:00:01"], ["step two", "2021-05-01 00:00:31"], ["step one", "2021-05-01 01:00:00"], ["step two", "2021-05-01 01:00:29"]]);
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { ...tenSeconds, funnel_window_interval: 30 });
      expect(result[1]!.count).toBe(1);
      expect(result[1]!.average_conversion_time).toBe(29);
    });
  });

  it("test_excluded_completion", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_excluded_completion (the UDF funnel's [])
    const data = noEndEvent([["step one", "2021-05-01 00:00:00"], ["exclusion", "2021-05-01 00:00:11"], ["step one", "2021-05-01 00:00:12"], ["exclusion", "2021-05-01 00:00:13"], ["step two", "2021-05-01 00:00:14"]]);
    await withReference(data, async (ref) => {
      expect(await funnel(ref, tenSeconds)).toEqual([]);
    });
  });

  it("test_exclusion_with_property_filter", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_exclusion_with_property_filter
    const user = (id: string, exclude?: string): RefEvent[] => [
      { event: "step one", distinct_id: id, timestamp: "2021-05-01 00:00:00" },
      ...(exclude === undefined ? [] : [{ event: "exclusion", distinct_id: id, timestamp: "2021-05-01 00:00:01", properties: { exclude_me: exclude } }, { event: "step two", distinct_id: id, timestamp: "2021-05-01 00:00:02" }]),
    ];
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("user_excluded", "user_excluded_also", "user_first_step", "user_included"),
      events: [...user("user_excluded", "true"), ...user("user_excluded_also", "yes"), ...user("user_first_step"), ...user("user_included", "false")],
    };
    const excl = (value: string) => ({ kind: "EventsNode", event: "exclusion", properties: [{ key: "exclude_me", value, operator: "exact", type: "event" }], funnelFromStep: 0, funnelToStep: 1 });
    await withReference(data, async (ref) => {
      const result: Step[] = await funnelQuery(ref, {
        dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-01 23:59:59" },
        interval: "day",
        series: [{ kind: "EventsNode", event: "step one", name: "step one" }, { kind: "EventsNode", event: "step two", name: "step two" }],
        funnelsFilter: { funnelVizType: "steps", funnelWindowInterval: 10, funnelWindowIntervalUnit: "second", exclusions: [excl("true"), excl("yes")] },
      });
      expect(counts(result)).toEqual([2, 1]);
    });
  });
});

describe("step filters, time zones, all events (test_funnel.py)", () => {
  it("test_funnel_with_denormalised_properties", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_denormalised_properties
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      persons: persons("user_1"),
      events: [
        { event: "user signed up", distinct_id: "user_1", timestamp: "2020-01-02T14:00:00Z", properties: { test_prop: "hi" } },
        { event: "paid", distinct_id: "user_1", timestamp: "2020-01-10T14:00:00Z" },
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        events: [{ id: "user signed up", type: "events", order: 0, properties: [{ key: "test_prop", value: "hi" }] }, { id: "paid", type: "events", order: 1 }],
        date_from: "2020-01-01",
        properties: [{ key: "test_prop", value: "hi" }],
        date_to: "2020-01-14",
      });
      expect([result[0]!.name, result[0]!.count]).toEqual(["user signed up", 1]);
    });
  });

  it("test_same_event_same_timestamp", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_same_event_same_timestamp
    const data: RefData = {
      now: "2024-01-11T12:01:00",
      persons: persons("test"),
      events: [...Array.from({ length: 20 }, () => ({ event: "step one", distinct_id: "test", timestamp: "2024-01-10T12:01:00" })), { event: "step two", distinct_id: "test", timestamp: "2024-01-11T12:01:00" }],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { funnel_viz_type: "steps", date_from: "2024-01-10 00:00:00", date_to: "2024-01-12 00:00:00", events: [{ id: "step one", order: 0 }, { id: "step two", order: 1 }] });
      expect(result.at(-1)!.count).toBe(1);
    });
  });

  it("test_funnel_with_elements_chain", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_elements_chain (counts)
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = {
      now: NOW,
      persons: persons("test", "test2"),
      events: [
        e("user signed up", "test"),
        e("$autocapture", "test", { properties: { $current_url: "http://example.com/something_else" }, elements_chain: 'img:nth-child="0"nth-of-type="0";svg:nth-child="0"nth-of-type="0"' }),
        e("user signed up", "test2"),
      ],
    };
    await withReference(data, async (ref) => {
      for (const tag of ["img", "svg"]) {
        const result: Step[] = await funnel(ref, {
          events: [
            { id: "user signed up", type: "events", order: 0 },
            { id: "$autocapture", name: "$autocapture", order: 1, type: "events", properties: [{ key: "tag_name", value: [tag], operator: "exact", type: "element" }] },
          ],
        });
        expect(result.map((s) => [s.name, s.count]), tag).toEqual([["user signed up", 2], ["$autocapture", 1]]);
      }
    });
  });

  it("test_funnel_with_static_cohort_step_filter", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_static_cohort_step_filter
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      persons: [{ distinct_ids: ["user_1"], properties: { email: "n@test.com" } }, { distinct_ids: ["user_2"] }],
      events: ["user_1", "user_2"].flatMap((id) => [
        { event: "user signed up", distinct_id: id, timestamp: "2020-01-02T14:00:00Z" },
        { event: "paid", distinct_id: id, timestamp: "2020-01-10T14:00:00Z" },
      ]),
      extra: { cohorts: [{ project_id: "1", id: 1, name: "static", person_ids: [2] }] } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        events: [{ id: "user signed up", type: "events", order: 0, properties: [{ type: "static-cohort", key: "id", value: 1 }] }, { id: "paid", type: "events", order: 1 }],
        date_from: "2020-01-01",
        date_to: "2020-01-14",
      }, { legacy: false });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 1], ["paid", 1]]);
    });
  });

  it("test_funnel_with_property_groups", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_property_groups (counts)
    const person = (id: string, email: string, age: string) => ({ distinct_ids: [id], properties: { email, age } });
    const ev = (id: string, event: string, day: number, url?: string): RefEvent => ({ event, distinct_id: id, timestamp: `2020-05-0${day}T00:00:00`, ...(url ? { properties: { $current_url: url } } : {}) });
    const data: RefData = {
      now: "2020-07-02T00:00:00",
      persons: [
        person("stopped_after_signup1", "test@b.com", "18"),
        person("stopped_after_pageview1", "test@b.org", "28"),
        person("stopped_after_pageview2", "test2@b.com", "28"),
        person("stopped_after_pageview3", "test3@b.com", "28"),
        person("stopped_after_pageview4", "test4@b.org", "18"),
      ],
      events: [
        ev("stopped_after_signup1", "user signed up", 1),
        ev("stopped_after_pageview1", "user signed up", 1),
        ev("stopped_after_pageview2", "user signed up", 1),
        ev("stopped_after_pageview2", "$pageview", 2, "aloha.com"),
        ev("stopped_after_pageview3", "user signed up", 1),
        ev("stopped_after_pageview3", "$pageview", 2, "aloha.com"),
        ev("stopped_after_pageview3", "$pageview", 3, "aloha2.com"),
        ev("stopped_after_pageview4", "$pageview", 2, "aloha.com"),
        ev("stopped_after_pageview4", "$pageview", 3, "aloha2.com"),
        ev("stopped_after_pageview4", "$pageview", 4, "aloha2.com"),
      ],
    };
    const personProp = (key: string, operator: string, value: string) => ({ key, operator, value, type: "person" });
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        date_from: "2020-01-01 00:00:00",
        date_to: "2020-07-01 00:00:00",
        events: [
          { id: "user signed up", order: 0 },
          { id: "$pageview", order: 1, properties: { $current_url: "aloha.com" } },
          { id: "$pageview", order: 2, properties: { $current_url: "aloha2.com" } },
        ],
        funnel_window_days: 14,
        properties: {
          type: "OR",
          values: [
            { type: "AND", values: [personProp("email", "icontains", ".com"), personProp("age", "exact", "20")] },
            { type: "OR", values: [personProp("email", "icontains", ".org"), personProp("age", "exact", "28")] },
          ],
        },
      }, { legacy: false });
      expect(result.map((s) => s.name)).toEqual(["user signed up", "$pageview", "$pageview"]);
      expect(counts(result)).toEqual([3, 2, 1]);
    });
  });

  it("test_timezones", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_timezones (the UDF funnel's [])
    const data: RefData = { now: "2020-01-20T00:00:00", timezone: "US/Pacific", persons: persons("user_1"), events: [{ event: "user signed up", distinct_id: "user_1", timestamp: "2020-01-01T01:00:00Z" }] };
    await withReference(data, async (ref) => {
      expect(await funnel(ref, { events: steps("user signed up", "paid"), date_from: "2020-01-01", date_to: "2020-01-14" })).toEqual([]);
    });
  });

  it("test_hogql_aggregation", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_hogql_aggregation
    const e = sequence("2021-05-10T10:00:00");
    const session = (id: string) => ({ properties: { $session_id: id } });
    const data: RefData = {
      now: NOW,
      persons: [
        { distinct_ids: ["user"], properties: { email: "lembitu@posthog.com", common_prop: "yes" } },
        { distinct_ids: ["second"], properties: { email: "toomas@posthog.com", common_prop: "yes" } },
      ],
      events: [
        e("user signed up", "user", session("1")),
        e("added to cart", "user", session("1")),
        e("checked out", "user", session("1")),
        e("user signed up", "user", session("2")),
        e("added to cart", "user", session("2")),
        e("user signed up", "second", session("3")),
      ],
    };
    const basic: Filter = {
      events: [
        { id: "user signed up", type: "events", order: 0 },
        { id: "added to cart", type: "events", order: 0 },
        { id: "checked out", type: "events", order: 0 },
      ],
      funnel_window_days: 14,
    };
    await withReference(data, async (ref) => {
      const without = await funnel(ref, basic);
      expect(without[0].name).toBe("user signed up");
      expect(counts(without)).toEqual([2, 1, 1]);
      expect(counts(await funnel(ref, { ...basic, funnel_aggregate_by_hogql: "properties.$session_id" }))).toEqual([3, 2, 1]);
      expect(counts(await funnel(ref, { ...basic, funnel_aggregate_by_hogql: "distinct_id" }))).toEqual([2, 1, 1]);
      expect(counts(await funnel(ref, { ...basic, funnel_aggregate_by_hogql: "person_id" }))).toEqual([2, 1, 1]);
      expect(counts(await funnel(ref, { ...basic, funnel_aggregate_by_hogql: "person.properties.common_prop" }))).toEqual([1, 1, 1]);
    });
  });

  it("funnel_aggregate_by_hogql: the actor lists are empty (its actors are no persons)", async () => {
    // PostHog's actors query looks the aggregation target up as a person id; a session id is none.
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = { now: NOW, persons: persons("user"), events: [e("user signed up", "user", { properties: { $session_id: "s1" } }), e("added to cart", "user", { properties: { $session_id: "s1" } })] };
    await withReference(data, async (ref) => {
      const filter = { insight: "FUNNELS", events: steps("user signed up", "added to cart"), funnel_aggregate_by_hogql: "properties.$session_id" };
      expect(counts(await funnel(ref, filter))).toEqual([1, 1]);
      const res = await ref.legacy("GET", "persons/funnel", { ...filter, funnel_step: 1 });
      expect(res.status, res.text).toBe(200);
      expect(res.body.results[0].people).toEqual([]);
    });
  });

  it("funnel_aggregate_by_hogql: an expression the evaluator cannot read per event is a 400 naming the field", async () => {
    // An aggregate is no per-event value (the real service's ClickHouse refuses an aggregate in its WHERE and GROUP BY).
    const data: RefData = { now: NOW, persons: persons("user"), events: [sequence("2021-05-10T10:00:00")("user signed up", "user")] };
    await withReference(data, async (ref) => {
      for (const expression of ["count()", "properties.$session_id +", "no_such_field"]) {
        const legacy = await ref.legacy("POST", "insights/funnel", { insight: "FUNNELS", events: steps("user signed up", "added to cart"), funnel_aggregate_by_hogql: expression });
        expect(legacy.status, legacy.text).toBe(400);
        expect(legacy.body.attr).toBe("funnel_aggregate_by_hogql");
        const node = { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "user signed up" }, { kind: "EventsNode", event: "added to cart" }], funnelsFilter: { funnelAggregateByHogQL: expression } };
        const res = await ref.queryResponse(node);
        expect(res.status, res.text).toBe(400);
        expect(res.body.attr).toBe("query__funnelsFilter__funnelAggregateByHogQL");
      }
    });
  });

  it("test_funnel_all_events_with_properties", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_all_events_with_properties
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = { now: NOW, persons: persons("user"), events: [e("user signed up", "user"), e("added to cart", "user", { properties: { is_saved: true } })] };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        events: [
          { type: "events", id: "user signed up", order: 0, name: "user signed up", math: "total" },
          { type: "events", id: null, order: 1, name: "All events", math: "total", properties: [{ key: "is_saved", value: ["true"], operator: "exact", type: "event" }] },
        ],
        funnel_window_days: 14,
      });
      expect(counts(result)).toEqual([1, 1]);
    });
  });

  it("test_funnel_all_events_via_action", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_all_events_via_action
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = {
      now: NOW,
      persons: persons("user"),
      events: [e("user signed up", "user"), e("added to cart", "user", { properties: { is_saved: true } })],
      extra: { actions: [{ project_id: "1", id: 1, name: "user signed up", steps: [{ event: "checked out" }, { event: null }] }] } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      expect(counts(await funnel(ref, { events: [{ id: "user signed up", type: "events", order: 0 }], actions: [{ id: 1, type: "actions", order: 1 }], funnel_window_days: 14 }))).toEqual([1, 1]);
    });
  });

  it("test_funnel_window_ignores_dst_transition", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_window_ignores_dst_transition
    for (const timezone of ["UTC", "US/Pacific"]) {
      const data: RefData = {
        now: "2024-03-20T00:00:00",
        timezone,
        persons: persons("user_1"),
        events: [
          { event: "$pageview", distinct_id: "user_1", timestamp: "2024-03-01T15:10:00" },
          { event: "user signed up", distinct_id: "user_1", timestamp: "2024-03-15T14:27:00" },
        ],
      };
      await withReference(data, async (ref) => {
        const result: Step[] = await funnel(ref, { events: steps("$pageview", "user signed up"), date_from: "2024-02-17", date_to: "2024-03-18" });
        expect([result[1]!.name, result[1]!.count, result[1]!.average_conversion_time, result[1]!.median_conversion_time], timezone).toEqual(["user signed up", 1, 1_207_020, 1_207_020]);
      });
    }
  });

  it("test_funnel_parses_event_names_correctly", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_parses_event_names_correctly
    const data: RefData = {
      now: "2024-03-23T00:00:00",
      persons: persons("user_1"),
      events: [
        { event: "test''1", distinct_id: "user_1", timestamp: "2024-03-22T13:46:00" },
        { event: "test''2", distinct_id: "user_1", timestamp: "2024-03-22T13:47:00" },
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnelQuery(ref, { series: [{ kind: "EventsNode", event: "test'1" }, { kind: "EventsNode" }], dateRange: { date_from: "2024-03-22", date_to: "2024-03-22" } });
      // PostHog's test creates the event "test''1" and asks for "test'1": nobody enters, and the UDF funnel answers [].
      expect(result.length === 0 ? 0 : result[0]!.count).toBe(result.length === 0 ? 0 : 1);
    });
  });
});

describe("breakdowns and attribution (test_funnel.py)", () => {
  it("test_parses_breakdowns_correctly", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_parses_breakdowns_correctly
    const data: RefData = {
      now: "2024-03-23T00:00:00",
      persons: persons("user_1"),
      events: [
        { event: "$pageview", distinct_id: "user_1", timestamp: "2024-03-22T13:46:00", properties: { utm_medium: "test'123" } },
        { event: "$pageview", distinct_id: "user_1", timestamp: "2024-03-22T13:47:00", properties: { utm_medium: "test'123" } },
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[][] = await funnelQuery(ref, {
        series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "$pageview" }],
        dateRange: { date_from: "2024-03-22", date_to: "2024-03-22" },
        breakdownFilter: { breakdown: "utm_medium" },
      });
      expect(result[0]![1]!.breakdown_value).toEqual(["test'123"]);
      expect(result[0]![1]!.count).toBe(1);
    });
  });

  it("test_funnel_query_with_event_metadata_breakdown", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_query_with_event_metadata_breakdown
    const pv = (id: string, minute: number): RefEvent => ({ event: "$pageview", distinct_id: id, timestamp: `2024-03-22T13:${minute}:00`, properties: { utm_medium: "test'123" } });
    const data: RefData = { now: "2024-03-23T00:00:00", persons: persons("user_1", "user_2"), events: [pv("user_1", 46), pv("user_1", 47), pv("user_2", 48), pv("user_2", 49)] };
    await withReference(data, async (ref) => {
      const result: Step[][] = await funnelQuery(ref, {
        series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "$pageview" }],
        dateRange: { date_from: "2024-03-22", date_to: "2024-03-22" },
        breakdownFilter: { breakdown: "distinct_id", breakdown_type: "event_metadata" },
      });
      expect(result.map((r) => [r[1]!.breakdown_value, r[1]!.count])).toEqual([[["user_1"], 1], [["user_2"], 1]]);
    });
  });

  it("test_breakdown_step_attributions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_breakdown_step_attributions
    const ev = (event: string, second: number, browser: string): RefEvent => ({ event, distinct_id: "user_one", timestamp: `2021-05-01T00:00:0${second}`, properties: { $browser: browser } });
    const data: RefData = { now: "2021-05-03T00:00:00", persons: persons("user_one"), events: [ev("step one", 0, "Chrome"), ev("step two", 1, "Safari"), ev("step two", 2, "Chrome"), ev("step three", 3, "Chrome")] };
    const filter: Filter = {
      funnel_viz_type: "steps",
      date_from: "2021-05-01 00:00:00",
      date_to: "2021-05-02 23:59:59",
      funnel_window_interval: 30,
      funnel_window_interval_unit: "second",
      events: [{ id: "step one", order: 0 }, { id: "step two", order: 1 }, { id: "step three", order: 2 }],
      breakdown_type: "event",
      breakdown: "$browser",
    };
    await withReference(data, async (ref) => {
      const first: Step[][] = await funnel(ref, filter);
      expect(first.length).toBe(1);
      expect(first[0]!.length).toBe(3);
      expect(counts(first[0]!)).toEqual([1, 1, 1]);
      const allEvents: Step[][] = await funnel(ref, { ...filter, breakdown_attribution_type: "all_events" });
      expect(allEvents.map(counts)).toEqual([[1, 1, 1]]);
      const step0: Step[][] = await funnel(ref, { ...filter, breakdown_attribution_type: "step", breakdown_attribution_value: 0 });
      expect(step0.map(counts)).toEqual([[1, 1, 1]]);
      const step1: Step[][] = await funnel(ref, { ...filter, breakdown_attribution_type: "step", breakdown_attribution_value: 1 });
      expect(step1.map(counts)).toEqual([[1, 1, 1], [1, 1, 1]]);
      const step2: Step[][] = await funnel(ref, { ...filter, breakdown_attribution_type: "step", breakdown_attribution_value: 2 });
      expect(step2.map(counts)).toEqual([[1, 1, 1]]);
    });
  });

  it("test_time_to_convert_funnel_ignores_breakdown", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_time_to_convert_funnel_ignores_breakdown
    const ev = (id: string, event: string, minute: string): RefEvent => ({ event, distinct_id: id, timestamp: `2024-03-22T13:${minute}:00` });
    const data: RefData = {
      now: "2024-03-23T00:00:00",
      persons: [{ distinct_ids: ["user_1"], properties: { userRole: "admin" } }, { distinct_ids: ["user_2"], properties: { userRole: "user" } }, { distinct_ids: ["user_3"], properties: { userRole: "user" } }],
      events: [ev("user_1", "a", "10"), ev("user_1", "b", "11"), ev("user_2", "a", "01"), ev("user_2", "a", "35"), ev("user_2", "b", "41"), ev("user_3", "a", "01"), ev("user_3", "a", "35"), ev("user_3", "a", "41")],
    };
    await withReference(data, async (ref) => {
      const result = await funnelQuery(ref, {
        series: [{ kind: "EventsNode", event: "a" }, { kind: "EventsNode", event: "b" }],
        dateRange: { date_from: "2024-03-22", date_to: "2024-03-22" },
        breakdownFilter: { breakdown: "userRoles", breakdown_type: "person" },
        funnelsFilter: { funnelVizType: "time_to_convert", funnelWindowInterval: 10, funnelWindowIntervalUnit: "minute" },
      });
      expect(result.average_conversion_time).toBe(210);
      expect(result.bins).toEqual([[60, 1], [210, 0], [360, 1]]);
    });
  });

  it("test_funnel_with_long_interval_no_first_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_with_long_interval_no_first_step
    const data: RefData = { now: "2021-05-10T00:00:00", persons: persons("only_second_step"), events: [{ event: "added to cart", distinct_id: "only_second_step", timestamp: "2021-05-02T00:00:00" }] };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        date_from: "2021-05-01 00:00:00",
        date_to: "2021-05-08 23:59:59",
        events: [{ id: "user signed up", order: 0 }, { id: "added to cart", order: 1 }],
        funnel_window_interval: 3122064000,
        funnel_window_interval_unit: "second",
      });
      expect(result).toEqual([]);
    });
  });
});

describe("first_time_for_user steps (test_funnel.py)", () => {
  const twoPageviews = (): RefData => ({
    now: "2024-03-23T00:00:00",
    persons: persons("user_1"),
    events: [
      { event: "$pageview", distinct_id: "user_1", timestamp: "2024-03-22T13:46:00", properties: { $browser: "Chrome" } },
      { event: "$pageview", distinct_id: "user_1", timestamp: "2024-03-22T13:47:00", properties: { $browser: "Chrome" } },
    ],
  });
  const day = { dateRange: { date_from: "2024-03-22", date_to: "2024-03-22" } };
  const pv = (extra: Filter = {}) => ({ kind: "EventsNode", event: "$pageview", ...extra });
  const countsOrZero = (result: Step[], n: number) => (result.length === 0 ? Array(n).fill(0) : counts(result));

  it("test_first_time_for_user_funnel_basic", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_first_time_for_user_funnel_basic
    await withReference(twoPageviews(), async (ref) => {
      expect(counts(await funnelQuery(ref, { series: [pv({ math: "first_time_for_user" }), pv()], ...day }))).toEqual([1, 1]);
      expect(counts(await funnelQuery(ref, { series: [pv({ math: "first_time_for_user" }), pv({ math: "first_time_for_user" })], ...day }))).toEqual([1, 0]);
    });
  });

  it("test_first_time_for_user_funnel_filters", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_first_time_for_user_funnel_filters
    await withReference(twoPageviews(), async (ref) => {
      expect(counts(await funnelQuery(ref, { series: [pv(), pv({ math: "first_time_for_user" })], ...day }))).toEqual([1, 0]);
      const chrome = [{ key: "$browser", operator: "exact", value: "Chrome", type: "event" }];
      expect(counts(await funnelQuery(ref, { series: [pv({ properties: chrome, math: "first_time_for_user" }), pv()], ...day }))).toEqual([1, 1]);
    });
  });

  it("test_first_time_for_user_funnel_multiple_ids", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_first_time_for_user_funnel_multiple_ids
    const ev = (id: string, timestamp: string): RefEvent => ({ event: "$pageview", distinct_id: id, timestamp });
    const data: RefData = {
      now: "2024-03-23T00:00:00",
      persons: persons(["user_1", "anon_1"], ["anon_2", "user_2"], "anon_3"),
      events: [ev("user_1", "2024-03-22T13:00:00Z"), ev("user_1", "2024-03-22T14:00:00Z"), ev("anon_1", "2023-03-22T13:00:00Z"), ev("anon_2", "2024-03-22T13:00:00Z"), ev("user_2", "2024-03-22T14:00:00Z"), ev("anon_3", "2024-03-22T15:00:00Z")],
    };
    await withReference(data, async (ref) => {
      const series = [pv({ math: "first_time_for_user" }), pv()];
      expect(counts(await funnelQuery(ref, { series, ...day }))).toEqual([2, 1]);
      expect(counts(await funnelQuery(ref, { series, dateRange: { date_from: "2023-03-22", date_to: "2024-03-22" } }))).toEqual([3, 1]);
    });
  });

  it("test_first_time_for_user_funnel_person_properties", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_first_time_for_user_funnel_person_properties
    const base: RefEvent[] = [
      { event: "event1", distinct_id: "user_1", timestamp: "2024-03-20T13:00:00Z" },
      { event: "event1", distinct_id: "user_1", timestamp: "2024-03-21T13:00:00Z", properties: { property: "woah" } },
      { event: "event1", distinct_id: "user_2", timestamp: "2024-03-22T14:00:00Z" },
      { event: "event2", distinct_id: "user_1", timestamp: "2024-03-23T13:00:00Z" },
    ];
    const people = [{ distinct_ids: ["user_1"], properties: { email: "test@test.com" } }, { distinct_ids: ["user_2"], properties: { email: "bonjonjovi@gmail.com" } }];
    const node = (math: string, date_from: string) => ({
      series: [{ kind: "EventsNode", event: "event1", math, properties: [{ key: "property", value: "woah", operator: "exact", type: "event" }] }, { kind: "EventsNode", event: "event2" }],
      dateRange: { date_from, date_to: "2024-03-24" },
    });
    await withReference({ now: "2024-03-25T00:00:00", persons: people, events: base }, async (ref) => {
      expect(counts(await funnelQuery(ref, node("first_matching_event_for_user", "2024-03-20")))).toEqual([1, 1]);
      expect(countsOrZero(await funnelQuery(ref, node("first_time_for_user", "2024-03-20")), 2)[0]).toBe(0);
    });
    const later: RefEvent = { event: "event2", distinct_id: "user_1", timestamp: "2024-03-19T13:00:00Z", properties: { property: "woah" } };
    await withReference({ now: "2024-03-25T00:00:00", persons: people, events: [...base, later] }, async (ref) => {
      expect(counts(await funnelQuery(ref, node("first_matching_event_for_user", "2024-03-19")))).toEqual([1, 1]);
    });
  });

  it("test_first_time_for_user_funnel_with_actions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_first_time_for_user_funnel_with_actions
    const e = sequence("2021-05-10T10:00:00");
    const pay = (id: string) => e("$autocapture", id, { elements_chain: PAY });
    const movie = (id: string) => e("$autocapture", id, { elements_chain: MOVIE });
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup", "stopped_after_pay", ["had_anonymous_id", "completed_movie"], "just_did_movie", "wrong_order"),
      events: [
        e("user signed up", "stopped_after_signup"),
        e("user signed up", "stopped_after_pay"),
        pay("stopped_after_pay"),
        e("user signed up", "had_anonymous_id"),
        pay("completed_movie"),
        movie("completed_movie"),
        movie("just_did_movie"),
        pay("wrong_order"),
        e("user signed up", "wrong_order"),
        movie("wrong_order"),
        { event: "$autocapture", distinct_id: "completed_movie", timestamp: "2020-01-01", elements_chain: MOVIE },
      ],
    };
    await withReference(data, async (ref) => {
      await basicActions(ref);
      const result: Step[] = await funnelQuery(ref, {
        series: [{ kind: "EventsNode", event: "user signed up" }, { kind: "ActionsNode", id: 1 }, { kind: "ActionsNode", id: 2, math: "first_time_for_user" }],
        dateRange: { date_from: "-14d" },
      });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 4], ["paid", 2], ["watched movie", 0]]);
    });
  });
});

describe("aggregation by groups (test_funnel.py)", () => {
  const groups = {
    groupTypes: [{ group_type_index: 0, group_type: "organization" }, { group_type_index: 1, group_type: "company" }],
    extra: {
      groups: [
        { project_id: "1", group_type_index: 0, group_key: "org:5", properties: { industry: "finance" } },
        { project_id: "1", group_type_index: 0, group_key: "org:6", properties: { industry: "technology" } },
        { project_id: "1", group_type_index: 1, group_key: "company:1", properties: {} },
        { project_id: "1", group_type_index: 1, group_key: "company:2", properties: {} },
      ],
    } as unknown as RefData["extra"],
  };
  const ev = (id: string, event: string, day: string, org?: string): RefEvent => ({ event, distinct_id: id, timestamp: `2020-01-${day}T14:00:00`, ...(org ? { properties: { $group_0: org } } : {}) });
  const node = { series: [{ kind: "EventsNode", event: "user signed up" }, { kind: "EventsNode", event: "paid" }], dateRange: { date_from: "2020-01-01", date_to: "2020-01-14" }, aggregation_group_type_index: 0 };

  it("test_funnel_aggregation_with_groups", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_aggregation_with_groups
    const data: RefData = { now: "2020-01-20T00:00:00", ...groups, persons: persons("user_1", "user_2"), events: [ev("user_1", "user signed up", "02", "org:5"), ev("user_1", "user signed up", "10", "org:6"), ev("user_2", "paid", "03", "org:5")] };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnelQuery(ref, node);
      expect(counts(result)).toEqual([2, 1]);
      expect(result[1]!.average_conversion_time).toBe(86400);
    });
  });

  it("test_funnel_aggregation_with_groups_across_persons", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_aggregation_with_groups_across_persons
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      ...groups,
      persons: persons("user_1", "user_2"),
      events: [ev("user_1", "user signed up", "02", "org:5"), ev("user_1", "paid", "03", "org:6"), ev("user_2", "user signed up", "02", "org:6"), ev("user_2", "paid", "03", "org:5")],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnelQuery(ref, { ...node, properties: [{ key: "industry", value: "finance", type: "group", group_type_index: 0, operator: "exact" }] });
      expect(counts(result)).toEqual([1, 1]);
    });
  });

  it("test_funnel_aggregation_with_groups_and_ungrouped_events", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_aggregation_with_groups_and_ungrouped_events
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      ...groups,
      persons: persons("user_1", "user_2", "user_3", "user_4"),
      events: [ev("user_1", "user signed up", "02", "org:5"), ev("user_1", "paid", "03", "org:5"), ev("user_2", "user signed up", "02"), ev("user_3", "paid", "03"), ev("user_4", "user signed up", "02"), ev("user_4", "paid", "03")],
    };
    await withReference(data, async (ref) => {
      expect(counts(await funnelQuery(ref, node))).toEqual([1, 1]);
    });
  });

  it("test_funnel_aggregation_with_groups_with_cohort_filtering", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel.py::TestFOSSFunnel::test_funnel_aggregation_with_groups_with_cohort_filtering
    const data: RefData = {
      now: "2020-01-20T00:00:00",
      ...groups,
      persons: [{ distinct_ids: ["user_1"], properties: { email: "fake@test.com" } }, { distinct_ids: ["user_2"], properties: { email: "fake@test.com" } }, { distinct_ids: ["user_3"], properties: { email: "fake_2@test.com" } }],
      events: [ev("user_1", "$pageview", "02", "org:5"), ev("user_1", "user signed up", "02", "org:5"), ev("user_1", "user signed up", "10", "org:6"), ev("user_2", "paid", "03", "org:5"), ev("user_3", "user signed up", "02", "org:7"), ev("user_3", "paid", "03", "org:7")],
      extra: {
        ...groups.extra,
        cohorts: [{ project_id: "1", id: 1, name: "fake", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "email", operator: "icontains", value: "fake@test.com", type: "person" }] }] } } }],
      } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        events: [{ id: "user signed up", type: "events", order: 0, properties: [{ type: "precalculated-cohort", key: "id", value: 1 }] }, { id: "paid", type: "events", order: 1 }],
        date_from: "2020-01-01",
        date_to: "2020-01-14",
        aggregation_group_type_index: 0,
      }, { legacy: false });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 2], ["paid", 1]]);
    });
  });
});

describe("strict funnels (test_funnel_strict.py)", () => {
  const journey = (e: ReturnType<typeof sequence>, id: string, names: string[]) => names.map((n) => e(n, id));

  it("test_strict_breakdown_events_with_multiple_properties", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_strict.py::TestFunnelStrictStepsBreakdown::test_strict_breakdown_events_with_multiple_properties
    const ev = (id: string, event: string, day: number, hour: number, browser: string): RefEvent => ({ event, distinct_id: id, timestamp: `2020-01-0${day}T${hour}:00:00`, properties: { $browser: browser } });
    const data: RefData = {
      now: "2020-01-10T00:00:00",
      persons: persons("person1", "person2"),
      events: [ev("person1", "sign up", 1, 12, "Chrome"), ev("person1", "blah", 1, 13, "Chrome"), ev("person1", "play movie", 1, 14, "Chrome"), ev("person2", "sign up", 2, 13, "Safari"), ev("person2", "play movie", 2, 14, "Safari")],
    };
    await withReference(data, async (ref) => {
      const result: Step[][] = await funnel(ref, {
        funnel_order_type: "strict",
        events: [{ id: "sign up", order: 0 }, { id: "play movie", order: 1 }],
        date_from: "2020-01-01",
        date_to: "2020-01-08",
        funnel_window_days: 7,
        breakdown_type: "event",
        breakdown: "$browser",
      });
      const shape = (s: Step & { action_id?: unknown; order?: number; breakdown?: unknown }) => [s.action_id, s.name, s.order, s.count, s.average_conversion_time, s.median_conversion_time, s.breakdown, s.breakdown_value];
      expect(result.map((r) => r.map(shape))).toEqual([
        [["sign up", "sign up", 0, 1, null, null, ["Safari"], ["Safari"]], ["play movie", "play movie", 1, 1, 3600, 3600, ["Safari"], ["Safari"]]],
        [["sign up", "sign up", 0, 1, null, null, ["Chrome"], ["Chrome"]], ["play movie", "play movie", 1, 0, null, null, ["Chrome"], ["Chrome"]]],
      ]);
    });
  });

  it("test_basic_strict_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_strict.py::TestFunnelStrictSteps::test_basic_strict_funnel (step counts are the lengths of the actor lists it asserts)
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup1", "stopped_after_pageview1", "stopped_after_insightview", "stopped_after_insightview2", "stopped_after_insightview3", "person6", "person7", "stopped_after_insightview6"),
      events: [
        ...journey(e, "stopped_after_signup1", ["user signed up"]),
        ...journey(e, "stopped_after_pageview1", ["$pageview", "user signed up"]),
        ...journey(e, "stopped_after_insightview", ["user signed up", "$pageview", "blaah blaa", "insight viewed"]),
        ...journey(e, "stopped_after_insightview2", ["insight viewed", "blaah blaa", "$pageview", "user signed up"]),
        ...journey(e, "stopped_after_insightview3", ["$pageview", "user signed up", "blaah blaa", "$pageview", "insight viewed"]),
        ...journey(e, "person6", ["blaah blaa", "user signed up", "blaah blaa", "$pageview"]),
        ...journey(e, "person7", ["blaah blaa", "user signed up", "$pageview", "insight viewed", "blaah blaa"]),
        ...journey(e, "stopped_after_insightview6", ["insight viewed", "$pageview"]),
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { funnel_order_type: "strict", events: [{ id: "user signed up", order: 0 }, { id: "$pageview", order: 1 }, { id: "insight viewed", order: 2 }] });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 7], ["$pageview", 2], ["insight viewed", 1]]);
    });
  });

  it("test_advanced_strict_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_strict.py::TestFunnelStrictSteps::test_advanced_strict_funnel (step counts are the lengths of the actor lists it asserts)
    const e = sequence("2021-05-10T10:00:00");
    const val = (v: string) => ({ properties: { key: v } });
    const data: RefData = {
      now: NOW,
      persons: persons("stopped_after_signup1", "stopped_after_pageview1", "stopped_after_insightview", "person4", "person5", "person6", "person7", "person8"),
      events: [
        e("user signed up", "stopped_after_signup1"),
        e("user signed up", "stopped_after_pageview1"),
        e("$pageview", "stopped_after_pageview1"),
        e("user signed up", "stopped_after_insightview"),
        e("sign up", "stopped_after_insightview", val("val")),
        e("sign up", "stopped_after_insightview", val("val2")),
        e("$pageview", "stopped_after_insightview"),
        e("blaah blaa", "stopped_after_insightview"),
        e("insight viewed", "stopped_after_insightview"),
        e("blaah blaa", "person4"),
        e("user signed up", "person4"),
        e("sign up", "person4", val("val")),
        e("$pageview", "person4", val("val")),
        e("blaah blaa", "person4"),
        e("blaah blaa", "person5"),
        e("user signed up", "person5"),
        e("sign up", "person5", val("val")),
        e("$pageview", "person5"),
        e("blaah blaa", "person5"),
        e("blaah blaa", "person6"),
        e("user signed up", "person6"),
        e("sign up", "person6", val("val")),
        e("$pageview", "person6"),
        e("pageview", "person6", val("val1")),
        e("blaah blaa", "person7"),
        e("user signed up", "person7"),
        e("sign up", "person7", val("val")),
        e("$pageview", "person7"),
        e("user signed up", "person7"),
        e("pageview", "person7", val("val")),
        e("blaah blaa", "person8"),
        e("user signed up", "person8"),
        e("user signed up", "person8"),
        e("sign up", "person8", val("val")),
        e("$pageview", "person8"),
        e("pageview", "person8", val("val")),
      ],
      extra: {
        actions: [
          { project_id: "1", id: 1, name: "sign up", steps: [{ event: "sign up", properties: [{ key: "key", type: "event", value: ["val"], operator: "exact" }] }] },
          { project_id: "1", id: 2, name: "pageview", steps: [{ event: "pageview", properties: [{ key: "key", type: "event", value: ["val"], operator: "exact" }] }] },
        ],
      } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_order_type: "strict",
        events: [{ id: "user signed up", type: "events", order: 0 }, { id: "$pageview", type: "events", order: 2 }],
        actions: [{ id: 1, math: "dau", order: 1 }, { id: 2, math: "weekly_active", order: 3 }],
      });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 8], ["sign up", 6], ["$pageview", 5], ["pageview", 1]]);
    });
  });

  it("test_basic_strict_funnel_conversion_times", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_strict.py::TestFunnelStrictSteps::test_basic_strict_funnel_conversion_times
    const at = (id: string, event: string, time: string): RefEvent => ({ event, distinct_id: id, timestamp: `2021-05-02 ${time}` });
    const data: RefData = {
      now: "2021-05-10T00:00:00",
      persons: persons("stopped_after_signup1", "stopped_after_pageview1", "stopped_after_insightview"),
      events: [
        at("stopped_after_signup1", "user signed up", "00:00:00"),
        at("stopped_after_pageview1", "user signed up", "00:00:00"),
        at("stopped_after_pageview1", "$pageview", "01:00:00"),
        at("stopped_after_insightview", "user signed up", "00:00:00"),
        at("stopped_after_insightview", "$pageview", "02:00:00"),
        at("stopped_after_insightview", "insight viewed", "04:00:00"),
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_order_type: "strict",
        events: [{ id: "user signed up", order: 0 }, { id: "$pageview", order: 1 }, { id: "insight viewed", order: 2 }],
        date_from: "2021-05-01 00:00:00",
        date_to: "2021-05-07 23:59:59",
      });
      expect(result.map((s) => [s.name, s.count])).toEqual([["user signed up", 3], ["$pageview", 2], ["insight viewed", 1]]);
      expect(result[1]!.average_conversion_time).toBe(5400);
      expect(result[2]!.average_conversion_time).toBe(7200);
    });
  });
});

describe("unordered funnels (test_funnel_unordered.py)", () => {
  const journey = (e: ReturnType<typeof sequence>, id: string, names: string[]) => names.map((n) => e(n, id));
  const unorderedSteps = (...ids: string[]) => ({ funnel_order_type: "unordered", events: ids.map((id, order) => ({ id, order })) });
  const names = (result: Step[]) => result.map((s) => s.name);

  /** The four persons of the step-attribution tests: browsers on their sign-up or buy events. */
  function attributionPeople(complete: boolean): RefData {
    const ev = (id: string, event: string, day: number, hour: number, browser?: unknown): RefEvent => ({ event, distinct_id: id, timestamp: `2020-01-0${day}T${hour}:00:00`, ...(browser === undefined ? {} : { properties: { $browser: browser } }) });
    return {
      now: "2020-01-10T00:00:00",
      persons: persons("person1", "person2", "person3", "person4"),
      events: [
        ev("person1", "sign up", 1, 12, "Chrome"),
        ev("person1", "buy", 1, 13),
        ev("person2", "sign up", 1, 13),
        ...(complete ? [ev("person2", "buy", 2, 13, "Safari")] : []),
        ev("person3", "sign up", 2, 14, "Mac"),
        ...(complete ? [ev("person3", "buy", 2, 15)] : []),
        ev("person4", "sign up", 2, 15, 0),
        ev("person4", "buy", 2, 16, "alakazam"),
      ],
    };
  }
  const attributionFilter = (value: string, breakdown: unknown = ["$browser"]) => ({
    funnel_order_type: "unordered",
    events: [{ id: "sign up", order: 0 }, { id: "buy", order: 1 }],
    date_from: "2020-01-01",
    date_to: "2020-01-08",
    funnel_window_days: 7,
    breakdown_type: "event",
    breakdown,
    breakdown_attribution_type: "step",
    breakdown_attribution_value: value,
  });
  const refused = async (ref: Reference, filter: Filter) => (await ref.queryResponse((filtersToQuery({ insight: "FUNNELS", ...filter }) as { source: Filter }).source)).status;

  it("test_funnel_step_breakdown_event_single_person_events_with_multiple_properties", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedStepsBreakdown::test_funnel_step_breakdown_event_single_person_events_with_multiple_properties
    const ev = (event: string, timestamp: string, browser: string): RefEvent => ({ event, distinct_id: "person1", timestamp, properties: { key: "val", $browser: browser } });
    const data: RefData = { now: "2020-01-10T00:00:00", persons: persons("person1"), events: [ev("sign up", "2020-01-01T12:00:00Z", "Chrome"), ev("sign up", "2020-01-02T13:00:00Z", "Safari"), ev("play movie", "2020-01-02T14:00:00Z", "Safari")] };
    await withReference(data, async (ref) => {
      const result: Step[][] = await funnel(ref, {
        funnel_order_type: "unordered",
        events: [{ id: "sign up", order: 0 }, { id: "play movie", order: 1 }],
        date_from: "2020-01-01",
        date_to: "2020-01-08",
        funnel_window_days: 7,
        breakdown_type: "event",
        breakdown: "$browser",
        breakdown_attribution_type: "all_events",
      });
      const shape = (s: Step & { action_id?: unknown; breakdown?: unknown }) => [s.action_id, s.name, s.count, s.average_conversion_time, s.median_conversion_time, s.breakdown, s.breakdown_value];
      expect(result.map((r) => r.map(shape))).toEqual([
        [[null, "Completed 1 step", 1, null, null, ["Safari"], ["Safari"]], [null, "Completed 2 steps", 1, 3600, 3600, ["Safari"], ["Safari"]]],
        [[null, "Completed 1 step", 1, null, null, ["Chrome"], ["Chrome"]], [null, "Completed 2 steps", 0, null, null, ["Chrome"], ["Chrome"]]],
      ]);
    });
  });

  it("test_funnel_step_breakdown_with_step_attribution", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedStepsBreakdown::test_funnel_step_breakdown_with_step_attribution
    // PostHog asserts six funnels and person3 alone at step 1 of "Mac". Their steps, worked by hand from
    // funnel-udf/src/unordered_steps.rs (per value of any of the person's events, an attempt's first event must carry
    // it): person1 Chrome → buy ""; person2 "" → buy Safari; person3 Mac → buy ""; person4 0 → buy alakazam. A value
    // on the first event counts its person through both steps, a value on the second through one.
    await withReference(attributionPeople(true), async (ref) => {
      const results: Step[][] = await funnel(ref, attributionFilter("0"));
      expect(results.length).toBe(6);
      const byValue = Object.fromEntries(results.map((r) => [JSON.stringify(r[0]!.breakdown_value), counts(r)]));
      expect(byValue).toEqual({ '[""]': [3, 1], '["0"]': [1, 1], '["Chrome"]': [1, 1], '["Mac"]': [1, 1], '["Safari"]': [1, 0], '["alakazam"]': [1, 0] });
      const node = (filtersToQuery({ insight: "FUNNELS", ...attributionFilter("0") }) as { source: Filter }).source;
      const actors = await ref.query({ kind: "ActorsQuery", source: { kind: "FunnelsActorsQuery", source: node, funnelStep: 1, funnelStepBreakdown: "Mac" }, select: ["id", "person"] });
      expect(actors.results.map((row: [string, { distinct_ids: string[] }]) => row[1].distinct_ids)).toEqual([["person3"]]);
    });
  });

  it("test_funnel_step_breakdown_with_step_one_attribution", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedStepsBreakdown::test_funnel_step_breakdown_with_step_one_attribution (the UDF funnel's ValidationError)
    await withReference(attributionPeople(true), async (ref) => {
      expect(await refused(ref, attributionFilter("1"))).toBe(400);
    });
  });

  it("test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedStepsBreakdown::test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel (the UDF funnel's ValidationError)
    await withReference(attributionPeople(false), async (ref) => {
      expect(await refused(ref, attributionFilter("1"))).toBe(400);
    });
  });

  it("test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedStepsBreakdown::test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel (the UDF funnel's ValidationError)
    await withReference(attributionPeople(false), async (ref) => {
      expect(await refused(ref, attributionFilter("1", "$browser"))).toBe(400);
    });
  });

  it("test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedStepsBreakdown::test_funnel_breakdown_correct_breakdown_props_are_chosen_for_step (the UDF funnel's ValidationError)
    await withReference(attributionPeople(true), async (ref) => {
      const filter = { ...attributionFilter("1", "$browser"), events: [{ id: "sign up", order: 0 }, { id: "buy", properties: [{ type: "event", key: "$version", value: "xyz" }], order: 1 }] };
      expect(await refused(ref, filter)).toBe(400);
    });
  });

  const eightPeople = (crying: boolean): RefData => {
    const e = sequence("2021-05-10T10:00:00");
    return {
      now: NOW,
      persons: persons("stopped_after_signup1", "stopped_after_pageview1", "stopped_after_insightview", "stopped_after_insightview2", "stopped_after_insightview3", "stopped_after_insightview4", "stopped_after_insightview5", "stopped_after_insightview6"),
      events: [
        ...journey(e, "stopped_after_signup1", ["user signed up"]),
        ...journey(e, "stopped_after_pageview1", crying ? ["$pageview", "crying"] : ["$pageview", "user signed up"]),
        ...journey(e, "stopped_after_insightview", ["user signed up", "$pageview", "blaah blaa", "insight viewed"]),
        ...journey(e, "stopped_after_insightview2", crying ? ["insight viewed", "crying", "user signed up"] : ["insight viewed", "$pageview", "user signed up"]),
        ...journey(e, "stopped_after_insightview3", crying ? ["$pageview", "user signed up", "crying", "insight viewed"] : ["$pageview", "user signed up", "blaah blaa", "insight viewed"]),
        ...journey(e, "stopped_after_insightview4", ["blaah blaa", "insight viewed"]),
        ...journey(e, "stopped_after_insightview5", ["$pageview", "blaah blaa"]),
        ...journey(e, "stopped_after_insightview6", ["insight viewed", "$pageview"]),
      ],
    };
  };

  it("test_basic_unordered_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_basic_unordered_funnel (counts; the actor lists it asserts have the same lengths)
    await withReference(eightPeople(false), async (ref) => {
      const result: Step[] = await funnel(ref, unorderedSteps("user signed up", "$pageview", "insight viewed"));
      expect(names(result)).toEqual(["Completed 1 step", "Completed 2 steps", "Completed 3 steps"]);
      expect(counts(result)).toEqual([8, 5, 3]);
    });
  });

  it("test_big_multi_step_unordered_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_big_multi_step_unordered_funnel (counts)
    await withReference(eightPeople(true), async (ref) => {
      const result: Step[] = await funnel(ref, unorderedSteps("user signed up", "$pageview", "insight viewed", "crying"));
      expect(names(result)).toEqual(["Completed 1 step", "Completed 2 steps", "Completed 3 steps", "Completed 4 steps"]);
      expect(counts(result)).toEqual([8, 5, 3, 1]);
    });
  });

  it("test_basic_unordered_funnel_conversion_times", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_basic_unordered_funnel_conversion_times (the UDF funnel's times)
    const at = (id: string, event: string, timestamp: string): RefEvent => ({ event, distinct_id: id, timestamp });
    const data: RefData = {
      now: "2021-05-10T00:00:00",
      persons: persons("stopped_after_signup1", "stopped_after_pageview1", "stopped_after_insightview"),
      events: [
        at("stopped_after_signup1", "user signed up", "2021-05-02 00:00:00"),
        at("stopped_after_pageview1", "$pageview", "2021-05-02 00:00:00"),
        at("stopped_after_pageview1", "user signed up", "2021-05-02 01:00:00"),
        at("stopped_after_insightview", "insight viewed", "2021-05-02 00:00:00"),
        at("stopped_after_insightview", "user signed up", "2021-05-02 02:00:00"),
        at("stopped_after_insightview", "$pageview", "2021-05-02 04:00:00"),
        at("stopped_after_insightview", "$pageview", "2021-05-03 00:00:00"),
        at("stopped_after_insightview", "insight viewed", "2021-05-03 03:00:00"),
        at("stopped_after_insightview", "user signed up", "2021-05-03 06:00:00"),
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { ...unorderedSteps("user signed up", "$pageview", "insight viewed"), date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 23:59:59", funnel_window_interval: 1 });
      expect(names(result)).toEqual(["Completed 1 step", "Completed 2 steps", "Completed 3 steps"]);
      expect(counts(result)).toEqual([3, 2, 1]);
      expect(result[1]!.average_conversion_time).toBe(5400);
      expect(result[2]!.average_conversion_time).toBe(7200);
    });
  });

  it("test_funnel_exclusions_invalid_params", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_funnel_exclusions_invalid_params
    await withReference({ now: NOW, events: [] }, async (ref) => {
      const base = { funnel_order_type: "unordered", events: steps("user signed up", "paid", "blah"), funnel_window_days: 14 };
      for (const [from, to] of [[1, 1], [0, 1]] as const) {
        expect(await refused(ref, { ...base, exclusions: [{ id: "x", type: "events", funnel_from_step: from, funnel_to_step: to }] }), `${from}→${to}`).toBe(400);
      }
    });
  });

  it("test_funnel_exclusions_full_window", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_funnel_exclusions_full_window (counts)
    const at = (id: string, event: string, time: string): RefEvent => ({ event, distinct_id: id, timestamp: `2021-05-01 ${time}` });
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1", "person2", "person3"),
      events: [
        at("person1", "user signed up", "01:00:00"),
        at("person1", "paid", "02:00:00"),
        at("person2", "user signed up", "03:00:00"),
        at("person2", "x", "03:30:00"),
        at("person2", "paid", "04:00:00"),
        at("person3", "user signed up", "05:00:00"),
        at("person3", "paid", "06:00:00"),
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_order_type: "unordered",
        events: steps("user signed up", "paid"),
        funnel_window_days: 14,
        date_from: "2021-05-01 00:00:00",
        date_to: "2021-05-14 00:00:00",
        exclusions: [{ id: "x", type: "events", funnel_from_step: 0, funnel_to_step: 1 }],
      });
      expect(result.map((s) => [s.name, s.count])).toEqual([["Completed 1 step", 3], ["Completed 2 steps", 2]]);
    });
  });
});

describe("breakdown cases, ordered (breakdown_cases.py through test_funnel.py::TestFunnelBreakdown)", () => {
  type Row = [unknown, number, number, number | null];
  /** PostHog's `sorted(results, key=breakdown)` and per funnel its breakdown, the two counts and step 2's mean time. */
  const sortedRows = (result: Step[][]): Row[] =>
    [...result]
      .sort((a, b) => (JSON.stringify(a[0]!.breakdown_value) < JSON.stringify(b[0]!.breakdown_value) ? -1 : 1))
      .map((r) => [r[0]!.breakdown_value, r[0]!.count, r[1]!.count, r[1]!.average_conversion_time]);
  const ev = (id: string, event: string, day: number, hour: number, properties?: Record<string, unknown>): RefEvent => ({ event, distinct_id: id, timestamp: `2020-01-0${day}T${hour}:00:00`, ...(properties ? { properties } : {}) });
  const base = { events: [{ id: "sign up", order: 0 }, { id: "buy", order: 1 }], date_from: "2020-01-01", date_to: "2020-01-08", funnel_window_days: 7, breakdown_type: "event" };

  const attribution = (complete: boolean): RefData => ({
    now: "2020-01-10T00:00:00",
    persons: persons("person1", "person2", "person3", "person4"),
    events: [
      ev("person1", "sign up", 1, 12, { $browser: "Chrome" }),
      ev("person1", "buy", 1, 13),
      ev("person2", "sign up", 1, 13),
      ...(complete ? [ev("person2", "buy", 2, 13, { $browser: "Safari" })] : []),
      ev("person3", "sign up", 2, 14, { $browser: "Mac" }),
      ...(complete ? [ev("person3", "buy", 2, 15)] : []),
      ev("person4", "sign up", 2, 15, { $browser: 0 }),
      ev("person4", "buy", 2, 16, { $browser: "alakazam" }),
    ],
  });

  it("test_funnel_step_breakdown_with_step_one_attribution", async () => {
    // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::test_funnel_step_breakdown_with_step_one_attribution (as test_funnel.py::TestFunnelBreakdown)
    await withReference(attribution(true), async (ref) => {
      const result: Step[][] = await funnel(ref, { ...base, breakdown: ["$browser"], breakdown_attribution_type: "step", breakdown_attribution_value: "1" });
      expect(sortedRows(result)).toEqual([[[""], 2, 2, 3600], [["Safari"], 1, 1, 86400], [["alakazam"], 1, 1, 3600]]);
    });
  });

  it("test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::test_funnel_step_breakdown_with_step_one_attribution_incomplete_funnel
    await withReference(attribution(false), async (ref) => {
      const result: Step[][] = await funnel(ref, { ...base, breakdown: ["$browser"], breakdown_attribution_type: "step", breakdown_attribution_value: "1" });
      expect(sortedRows(result)).toEqual([[[""], 1, 1, 3600], [["alakazam"], 1, 1, 3600]]);
    });
  });

  it("test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::test_funnel_step_non_array_breakdown_with_step_one_attribution_incomplete_funnel
    await withReference(attribution(false), async (ref) => {
      const result: Step[][] = await funnel(ref, { ...base, breakdown: "$browser", breakdown_attribution_type: "step", breakdown_attribution_value: "1" });
      expect(sortedRows(result)).toEqual([[[""], 1, 1, 3600], [["alakazam"], 1, 1, 3600]]);
    });
  });

  const multiple = (complete: boolean): RefData => ({
    now: "2020-01-10T00:00:00",
    persons: persons("person1", "person2", "person3", "person4", "person5"),
    events: [
      ev("person1", "sign up", 1, 12, { $browser: "Chrome", $version: "xyz" }),
      ev("person1", "buy", 1, 13),
      ev("person2", "sign up", 1, 13),
      ev("person2", "buy", 2, 13, { $browser: "Safari", $version: "xyz" }),
      ev("person3", "sign up", 2, 14, { $browser: "Mac" }),
      ...(complete ? [ev("person3", "buy", 2, 15, { $version: "no-mac" })] : []),
      ev("person4", "sign up", 2, 15, { $browser: 0, $version: 0 }),
      ...(complete ? [ev("person4", "buy", 2, 16, { $browser: "alakazam" })] : []),
      ev("person5", "sign up", 2, 15),
      ev("person5", "buy", 2, 16),
    ],
  });
  const firstTouch = { ...base, breakdown: ["$browser", "$version"], breakdown_attribution_type: "first_touch" };

  it("test_funnel_step_multiple_breakdown_with_first_touch_attribution", async () => {
    // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::test_funnel_step_multiple_breakdown_with_first_touch_attribution
    await withReference(multiple(true), async (ref) => {
      expect(sortedRows(await funnel(ref, firstTouch))).toEqual([
        [["", ""], 1, 1, 3600],
        [["0", "0"], 1, 1, 3600],
        [["Chrome", "xyz"], 1, 1, 3600],
        [["Mac", ""], 1, 1, 3600],
        [["Safari", "xyz"], 1, 1, 86400],
      ]);
    });
  });

  it("test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::test_funnel_step_multiple_breakdown_with_first_touch_attribution_incomplete_funnel
    await withReference(multiple(false), async (ref) => {
      expect(sortedRows(await funnel(ref, firstTouch))).toEqual([
        [["", ""], 1, 1, 3600],
        [["0", "0"], 1, 0, null],
        [["Chrome", "xyz"], 1, 1, 3600],
        [["Mac", ""], 1, 0, null],
        [["Safari", "xyz"], 1, 1, 86400],
      ]);
    });
  });

  it("test_funnel_step_multiple_breakdown_snapshot", async () => {
    // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::test_funnel_step_multiple_breakdown_snapshot (its count of funnels)
    await withReference(multiple(true), async (ref) => {
      expect((await funnel(ref, firstTouch)).length).toBe(5);
    });
  });

  it("test_funnel_breakdown_correct_breakdown_props_are_chosen", async () => {
    // posthog/hogql_queries/insights/funnels/test/breakdown_cases.py::test_funnel_breakdown_correct_breakdown_props_are_chosen
    const data: RefData = {
      now: "2020-01-10T00:00:00",
      persons: persons("person1", "person2", "person3", "person5"),
      events: [
        ev("person1", "sign up", 1, 12, { $browser: "Chrome", $version: "xyz" }),
        ev("person1", "buy", 1, 13, { $browser: "Chrome" }),
        ev("person2", "sign up", 1, 13),
        ev("person2", "buy", 2, 13, { $browser: "Safari", $version: "xyz" }),
        ev("person3", "sign up", 2, 14, { $browser: "Mac" }),
        ev("person3", "buy", 2, 15, { $version: "xyz", $browser: "Mac" }),
        ev("person5", "sign up", 2, 15),
        ev("person5", "buy", 2, 16),
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[][] = await funnel(ref, {
        ...base,
        events: [{ id: "sign up", order: 0 }, { id: "buy", properties: [{ type: "event", key: "$version", value: "xyz" }], order: 1 }],
        breakdown: "$browser",
        breakdown_attribution_type: "first_touch",
      });
      expect(result.map((r) => r[0]!.breakdown_value).sort()).toEqual([[""], ["Chrome"], ["Mac"], ["Safari"]]);
    });
  });
});

describe("funnel trends (test_funnel_trends.py)", () => {
  // PostHog's tests read the summarized rows (reached_from_step_count, reached_to_step_count, conversion_rate,
  // timestamp); the API gives per period the conversion rate (`data`) and the period (`days`): those are compared.
  type TrendItem = { data: number[]; days: string[] };
  const three = [{ id: "step one", order: 0 }, { id: "step two", order: 1 }, { id: "step three", order: 2 }];
  const trends = { funnel_viz_type: "trends", display: "ActionsLineGraph", events: three };
  const at = (id: string, event: string, timestamp: string): RefEvent => ({ event, distinct_id: id, timestamp });
  const oneRun = (day: string): RefEvent[] => [at("user_one", "step one", `${day}T00:00:00`), at("user_one", "step two", `${day}T01:00:00`), at("user_one", "step three", `${day}T02:00:00`)];
  const trendOf = async (ref: Reference, filter: Filter): Promise<TrendItem> => {
    const result: TrendItem[] = await funnel(ref, { ...trends, ...filter });
    expect(result.length).toBe(1);
    return result[0]!;
  };

  function sampleData(): RefData {
    const j = journeysFor({
      user_one: [["step one", "2021-05-01"], ["step two", "2021-05-03"], ["step three", "2021-05-05"]],
      user_two: [["step one", "2021-05-02"], ["step two", "2021-05-04"]],
      user_three: [["step one", "2021-05-06"]],
      user_four: [["step none", "2021-05-06"]],
      user_five: [["step one", "2021-05-01 01:00:00"], ["step two", "2021-05-01 02:00:00"], ["step three", "2021-05-01 03:00:00"]],
      user_six: [["step one", "2021-05-01"], ["step two", "2021-05-03"], ["step three", "2021-05-05"]],
      user_seven: [["step one", "2021-05-02"], ["step two", "2021-05-04"]],
      user_eight: [],
    });
    return { now: "2021-05-20T00:00:00", ...j };
  }

  it("test_no_event_in_period", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_no_event_in_period
    const data: RefData = { now: "2021-06-20T00:00:00", ...journeysFor({ "user a": [["Step one", "2021-06-06 21:00:00"]] }) };
    await withReference(data, async (ref) => {
      const item = await trendOf(ref, { interval: "day", date_from: "2021-06-07 00:00:00", date_to: "2021-06-13 23:59:59", funnel_window_days: 7 });
      expect(item.days.length).toBe(7);
      expect(item.days[0]).toBe("2021-06-07");
    });
  });

  for (const timezone of ["US/Pacific", "UTC"]) {
    it(`test_only_one_user_reached_one_step (${timezone})`, async () => {
      // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_only_one_user_reached_one_step (conversion rates and periods)
      const data: RefData = { now: "2021-06-20T00:00:00", timezone, ...journeysFor({ "user a": [["step one", "2021-06-07 19:00:00"]] }) };
      await withReference(data, async (ref) => {
        const item = await trendOf(ref, { interval: "day", date_from: "2021-06-07 00:00:00", date_to: "2021-06-13 23:59:59", funnel_window_days: 7 });
        expect(item.days).toEqual(["2021-06-07", "2021-06-08", "2021-06-09", "2021-06-10", "2021-06-11", "2021-06-12", "2021-06-13"]);
        expect(item.data).toEqual([0, 0, 0, 0, 0, 0, 0]);
      });
    });
  }

  it("test_hour_interval", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_hour_interval
    await withReference({ now: "2021-05-06T23:40:59Z", events: [] }, async (ref) => {
      expect((await trendOf(ref, { interval: "hour", date_from: "2021-05-01 00:00:00", funnel_window_interval: 7 })).days.length).toBe(144);
    });
  });

  it("test_day_interval", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_day_interval (periods; the actors are not compared)
    await withReference({ now: "2021-05-20T00:00:00", persons: persons("user_one"), events: oneRun("2021-05-01") }, async (ref) => {
      expect((await trendOf(ref, { interval: "day", date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00", funnel_window_days: 7 })).days.length).toBe(7);
    });
  });

  it("test_week_interval", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_week_interval (periods)
    await withReference({ now: "2021-05-20T00:00:00", persons: persons("user_one"), events: oneRun("2021-05-01") }, async (ref) => {
      expect((await trendOf(ref, { interval: "week", date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00", funnel_window_days: 7 })).days.length).toBe(2);
    });
  });

  for (const timezone of ["US/Pacific", "UTC"]) {
    it(`test_month_interval (${timezone})`, async () => {
      // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_month_interval (conversion rates and periods)
      await withReference({ now: "2020-08-01T00:00:00", timezone, persons: persons("user_one"), events: oneRun("2020-05-01") }, async (ref) => {
        const item = await trendOf(ref, { interval: "month", date_from: "2020-01-01 00:00:00", date_to: "2020-07-01 00:00:00", funnel_window_days: 7 });
        expect(item.days).toEqual(["2020-01-01", "2020-02-01", "2020-03-01", "2020-04-01", "2020-05-01", "2020-06-01", "2020-07-01"]);
        expect(item.data).toEqual(timezone === "UTC" ? [0, 0, 0, 0, 100, 0, 0] : [0, 0, 0, 100, 0, 0, 0]);
      });
    });
  }

  it("test_all_date_range", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_all_date_range (periods)
    await withReference({ now: "2021-05-20T13:01:01Z", persons: persons("user_one"), events: oneRun("2021-05-01") }, async (ref) => {
      expect((await trendOf(ref, { interval: "day", date_from: "all", funnel_window_days: 7 })).days.length).toBe(20);
    });
  });

  it("test_all_results_for_day_interval", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_all_results_for_day_interval (conversion rates)
    await withReference(sampleData(), async (ref) => {
      const item = await trendOf(ref, { interval: "day", date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00", funnel_window_days: 7 });
      expect(item.data).toEqual([100, 0, 0, 0, 0, 0, 0]);
    });
  });

  it("test_window_size_one_day", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_window_size_one_day (conversion rates)
    await withReference(sampleData(), async (ref) => {
      const item = await trendOf(ref, { interval: "day", date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00", funnel_window_interval: 1 });
      expect(item.data).toEqual([33.33, 0, 0, 0, 0, 0, 0]);
    });
  });

  it("test_two_runs_by_single_user_in_one_period", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_two_runs_by_single_user_in_one_period
    const data: RefData = { now: "2021-05-20T00:00:00", persons: persons("user_one"), events: [...oneRun("2021-05-01"), at("user_one", "step one", "2021-05-01T13:00:00"), at("user_one", "step two", "2021-05-01T14:00:00"), at("user_one", "step three", "2021-05-01T15:00:00")] };
    await withReference(data, async (ref) => {
      expect((await trendOf(ref, { interval: "day", date_from: "2021-05-01 00:00:00", date_to: "2021-05-01 23:59:59", funnel_window_days: 1 })).data).toEqual([100]);
    });
  });

  it("test_steps_performed_in_period_but_in_reverse", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_steps_performed_in_period_but_in_reverse
    const data: RefData = { now: "2021-05-20T00:00:00", persons: persons("user_one"), events: [at("user_one", "step three", "2021-05-01T01:00:00"), at("user_one", "step two", "2021-05-01T02:00:00"), at("user_one", "step one", "2021-05-01T03:00:00")] };
    await withReference(data, async (ref) => {
      expect((await trendOf(ref, { interval: "day", date_from: "2021-05-01 00:00:00", date_to: "2021-05-01 23:59:59", funnel_window_days: 1 })).data).toEqual([0]);
    });
  });

  it("test_one_person_in_multiple_periods_and_windows", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_one_person_in_multiple_periods_and_windows (conversion rates)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("user_one", "user_two"),
      events: [
        at("user_one", "step one", "2021-05-01T01:00:00"),
        at("user_one", "step two", "2021-05-01T02:00:00"),
        at("user_one", "step three", "2021-05-01T03:00:00"),
        at("user_one", "step one", "2021-05-03T01:00:00"),
        at("user_one", "step two", "2021-05-03T02:00:00"),
        at("user_one", "step one", "2021-05-04T11:00:00"),
        at("user_one", "step two", "2021-05-04T12:00:00"),
        at("user_one", "step three", "2021-05-04T13:00:00"),
        at("user_two", "step one", "2021-05-04T18:00:00"),
      ],
    };
    await withReference(data, async (ref) => {
      expect((await trendOf(ref, { interval: "day", date_from: "2021-05-01 00:00:00", date_to: "2021-05-04 23:59:59", funnel_window_interval: 1 })).data).toEqual([100, 0, 0, 50]);
    });
  });
});

describe("funnel trends: steps, orders, breakdowns (test_funnel_trends.py)", () => {
  type TrendItem = { data: number[]; days: string[]; breakdown_value?: unknown };
  const three = [{ id: "step one", order: 0 }, { id: "step two", order: 1 }, { id: "step three", order: 2 }];
  const trends = { funnel_viz_type: "trends", display: "ActionsLineGraph", interval: "day", events: three };
  const run = (list: [string, string][]) => list.map(([event, timestamp]) => [event, timestamp] as const);
  const thirteen = (...head: number[]) => [...head, ...Array(13 - head.length).fill(0)];
  const browsers = (): RefData => ({
    now: "2021-05-20T00:00:00",
    ...journeysFor({
      user_one: [["step one", "2021-05-01", { $browser: "Chrome" }], ["step two", "2021-05-03", { $browser: "Chrome" }], ["step three", "2021-05-05", { $browser: "Chrome" }]],
      user_two: [["step one", "2021-05-02", { $browser: "Chrome" }], ["step two", "2021-05-03", { $browser: "Chrome" }], ["step three", "2021-05-05", { $browser: "Chrome" }]],
      user_three: [["step one", "2021-05-03", { $browser: "Safari" }], ["step two", "2021-05-04", { $browser: "Safari" }], ["step three", "2021-05-05", { $browser: "Safari" }]],
    }),
  });
  const thirteenDays = { date_from: "2021-05-01 00:00:00", date_to: "2021-05-13 23:59:59", funnel_window_days: 7 };
  const byValue = (result: TrendItem[]) => Object.fromEntries(result.map((r) => [JSON.stringify(r.breakdown_value), r.data]));

  const secondStepPeople = (): RefData => ({
    now: "2021-05-20T00:00:00",
    ...journeysFor({
      user_one: run([["step one", "2021-05-01 01:00:00"], ["step two", "2021-05-02 02:00:00"], ["step three", "2021-05-02 03:00:00"]]),
      user_two: run([["step one", "2021-05-01 01:00:00"]]),
      user_three: run([["step two", "2021-05-02 02:00:00"], ["step three", "2021-05-02 03:00:00"]]),
      user_four: run([["step one", "2021-05-02 01:00:00"], ["step two", "2021-05-02 02:00:00"]]),
    }),
  });

  it("test_from_second_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_from_second_step (conversion rates)
    await withReference(secondStepPeople(), async (ref) => {
      const [item]: TrendItem[] = await funnel(ref, { ...trends, date_from: "2021-05-01 00:00:00", date_to: "2021-05-02 23:59:59", funnel_window_days: 3, funnel_from_step: 1 });
      expect(item!.data).toEqual([100, 0]);
    });
  });

  it("test_to_second_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_to_second_step (conversion rates)
    await withReference(secondStepPeople(), async (ref) => {
      const [item]: TrendItem[] = await funnel(ref, { ...trends, date_from: "2021-05-01 00:00:00", date_to: "2021-05-02 23:59:59", funnel_window_days: 3, funnel_to_step: 1 });
      expect(item!.data).toEqual([50, 100]);
    });
  });

  it("test_one_person_in_multiple_periods_and_windows_in_unordered_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_one_person_in_multiple_periods_and_windows_in_unordered_funnel (conversion rates)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_one: run([
          ["step one", "2021-05-01 01:00:00"], ["step three", "2021-05-01 02:00:00"], ["step two", "2021-05-01 03:00:00"],
          ["step two", "2021-05-03 01:00:00"], ["step one", "2021-05-03 02:00:00"],
          ["step three", "2021-05-04 11:00:00"], ["step one", "2021-05-04 12:00:00"], ["step two", "2021-05-04 13:00:00"],
        ]),
        user_two: run([["step one", "2021-05-04 18:00:00"]]),
      }),
    };
    await withReference(data, async (ref) => {
      const [item]: TrendItem[] = await funnel(ref, { ...trends, date_from: "2021-05-01 00:00:00", date_to: "2021-05-04 23:59:59", funnel_window_interval: 1, funnel_order_type: "unordered" });
      expect(item!.data).toEqual([100, 0, 0, 50]);
    });
  });

  it("test_one_person_in_multiple_periods_and_windows_in_strict_funnel", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_one_person_in_multiple_periods_and_windows_in_strict_funnel (conversion rates)
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor({
        user_one: run([
          ["step one", "2021-05-01 01:00:00"], ["step two", "2021-05-01 02:00:00"], ["step three", "2021-05-01 03:00:00"],
          ["step one", "2021-05-03 01:00:00"], ["step two", "2021-05-03 02:00:00"], ["blah", "2021-05-03 02:30:00"], ["step three", "2021-05-03 03:00:00"],
          ["step one", "2021-05-04 11:00:00"], ["step two", "2021-05-04 12:00:00"], ["step three", "2021-05-04 13:00:00"],
        ]),
        user_two: run([["step one", "2021-05-04 18:00:00"], ["blah", "2021-05-04 18:20:00"], ["step two", "2021-05-04 19:00:00"]]),
      }),
    };
    await withReference(data, async (ref) => {
      const [item]: TrendItem[] = await funnel(ref, { ...trends, date_from: "2021-05-01 00:00:00", date_to: "2021-05-04 23:59:59", funnel_order_type: "strict", funnel_window_days: 1 });
      expect(item!.data).toEqual([100, 0, 0, 50]);
    });
  });

  it("test_funnel_step_breakdown_event", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_step_breakdown_event
    await withReference(browsers(), async (ref) => {
      const result: TrendItem[] = await funnel(ref, { ...trends, ...thirteenDays, breakdown_type: "event", breakdown: "$browser" });
      expect(result.length).toBe(2);
      expect(byValue(result)).toEqual({ '["Chrome"]': thirteen(100, 100), '["Safari"]': thirteen(0, 0, 100) });
    });
  });

  it("test_funnel_step_breakdown_event_with_breakdown_limit", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_step_breakdown_event_with_breakdown_limit
    await withReference(browsers(), async (ref) => {
      const result: TrendItem[] = await funnel(ref, { ...trends, ...thirteenDays, breakdown_limit: 1, breakdown_type: "event", breakdown: "$browser" });
      expect(result.map((r) => [r.breakdown_value, r.data])).toEqual([[["Chrome"], thirteen(100, 100)]]);
    });
  });

  it("test_funnel_step_breakdown_empty", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_step_breakdown_empty
    // Its loop calls journeys_for once per attribution type in one team: the k-th run sees every event k times (the
    // same persons, by distinct id). The HogQL breakdown is null (shown "") for user_two alone.
    const attributions = ["all_events", "first_touch", "last_touch", "step"];
    for (const [k, attribution] of attributions.entries()) {
      const once = browsers();
      const data: RefData = { ...once, events: Array.from({ length: k + 1 }, () => once.events).flat() };
      await withReference(data, async (ref) => {
        const result: TrendItem[] = await funnel(ref, {
          ...trends,
          ...thirteenDays,
          breakdown_type: "hogql",
          breakdown: "IF(distinct_id = 'user_two', NULL, 'foo')",
          breakdown_attribution_type: attribution,
          ...(attribution === "step" ? { breakdown_attribution_value: 1 } : {}),
        });
        expect(result.map((r) => [r.breakdown_value, r.data]), attribution).toEqual([
          [[""], thirteen(0, 100)],
          [["foo"], thirteen(100, 0, 100)],
        ]);
      });
    }
  });

  it("test_funnel_step_breakdown_person", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_step_breakdown_person
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor(
        {
          user_one: run([["step one", "2021-05-01"], ["step two", "2021-05-03"], ["step three", "2021-05-05"]]),
          user_two: run([["step one", "2021-05-02"], ["step two", "2021-05-03"], ["step three", "2021-05-05"]]),
          user_three: run([["step one", "2021-05-03"], ["step two", "2021-05-04"], ["step three", "2021-05-05"]]),
        },
        { user_one: { $browser: "Chrome" }, user_two: { $browser: "Chrome" }, user_three: { $browser: "Safari" } },
      ),
    };
    await withReference(data, async (ref) => {
      const result: TrendItem[] = await funnel(ref, { ...trends, ...thirteenDays, breakdown_type: "person", breakdown: "$browser" });
      expect(result.length).toBe(2);
      expect(byValue(result)).toEqual({ '["Chrome"]': thirteen(100, 100), '["Safari"]': thirteen(0, 0, 100) });
    });
  });

  it("test_funnel_trend_cohort_breakdown", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_trend_cohort_breakdown
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      ...journeysFor(
        {
          user_one: run([["step one", "2021-05-01"], ["step two", "2021-05-03"], ["step three", "2021-05-05"]]),
          user_two: run([["step one", "2021-05-02"], ["step two", "2021-05-03"], ["step three", "2021-05-05"]]),
          user_three: run([["step one", "2021-05-03"], ["step two", "2021-05-04"], ["step three", "2021-05-05"]]),
        },
        { user_one: { key: "value" }, user_two: { key: "value" }, user_three: { $browser: "Safari" } },
      ),
      extra: { cohorts: [{ project_id: "1", id: 1, name: "test_cohort", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "key", value: "value", type: "person" }] }] } } }] } as unknown as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      const result: TrendItem[] = await funnel(ref, { ...trends, ...thirteenDays, breakdown_type: "cohort", breakdown: [1] });
      expect(result.map((r) => r.data)).toEqual([thirteen(100, 100)]);
    });
  });

  it("test_timezones_trends", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_timezones_trends (conversion rates of the periods it reads)
    const people = journeysFor({
      user_one: run([["step one", "2021-05-01 10:00:00"], ["step two", "2021-05-01 11:00:00"], ["step three", "2021-05-01 12:00:00"]]),
      user_two: run([["step one", "2021-05-01 01:00:00"], ["step two", "2021-05-01 02:00:00"], ["step three", "2021-05-01 03:00:00"]]),
      user_three: run([["step one", "2021-05-01 01:00:00"], ["step two", "2021-05-01 10:00:00"], ["step three", "2021-05-01 11:00:00"]]),
      user_eight: [],
    });
    const filter = { ...trends, date_from: "2021-04-30 00:00:00", date_to: "2021-05-07 00:00:00", funnel_window_days: 7 };
    await withReference({ now: "2021-05-20T00:00:00", ...people }, async (ref) => {
      const [item]: TrendItem[] = await funnel(ref, filter);
      expect(item!.data[1]).toBe(100);
    });
    await withReference({ now: "2021-05-20T00:00:00", timezone: "US/Pacific", ...people }, async (ref) => {
      const [item]: TrendItem[] = await funnel(ref, filter);
      expect(item!.data.slice(0, 2)).toEqual([100, 100]);
    });
  });
});

describe("time to convert (test_funnel_time_to_convert.py)", () => {
  const at = (id: string, event: string, timestamp: string): RefEvent => ({ event, distinct_id: id, timestamp });
  const week = { funnel_viz_type: "time_to_convert", interval: "day", date_from: "2021-06-07 00:00:00", date_to: "2021-06-13 23:59:59", funnel_from_step: 0, funnel_to_step: 1 };
  const threeSteps = (a = "step one", b = "step two", c = "step three") => [{ id: a, order: 0 }, { id: b, order: 1 }, { id: c, order: 2 }];
  const autoBins = { bins: [[2220, 2], [42510, 0], [82800, 1]], average_conversion_time: 29_540 };
  const abc = (events: RefEvent[], ids = ["user a", "user b", "user c"]): RefData => ({ now: "2021-06-20T00:00:00", persons: persons(...ids), events });
  const sample = () =>
    abc([
      at("user a", "step one", "2021-06-08 18:00:00"),
      at("user a", "step two", "2021-06-08 19:00:00"),
      at("user a", "step three", "2021-06-08 21:00:00"),
      at("user b", "step one", "2021-06-09 13:00:00"),
      at("user b", "step two", "2021-06-09 13:37:00"),
      at("user c", "step one", "2021-06-11 07:00:00"),
      at("user c", "step two", "2021-06-12 06:00:00"),
    ]);

  it("test_auto_bin_count_single_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_time_to_convert.py::TestFunnelTimeToConvert::test_auto_bin_count_single_step
    await withReference(sample(), async (ref) => {
      expect(await funnel(ref, { ...week, funnel_window_interval: 7, funnel_window_interval_unit: "day", events: threeSteps() })).toEqual(autoBins);
    });
  });

  it("test_auto_bin_count_single_step_duplicate_events", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_time_to_convert.py::TestFunnelTimeToConvert::test_auto_bin_count_single_step_duplicate_events
    const data = abc([
      at("user a", "step one", "2021-06-08 18:00:00"),
      at("user a", "step one", "2021-06-08 19:00:00"),
      at("user a", "step one", "2021-06-08 21:00:00"),
      at("user b", "step one", "2021-06-09 13:00:00"),
      at("user b", "step one", "2021-06-09 13:37:00"),
      at("user c", "step one", "2021-06-11 07:00:00"),
      at("user c", "step one", "2021-06-12 06:00:00"),
    ]);
    await withReference(data, async (ref) => {
      expect(await funnel(ref, { ...week, funnel_window_days: 7, events: threeSteps("step one", "step one", "step one") })).toEqual(autoBins);
    });
  });

  it("test_custom_bin_count_single_step", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_time_to_convert.py::TestFunnelTimeToConvert::test_custom_bin_count_single_step
    await withReference(sample(), async (ref) => {
      expect(await funnel(ref, { ...week, funnel_window_days: 7, bin_count: 7, events: threeSteps() })).toEqual({
        bins: [[2220, 2], [13732, 0], [25244, 0], [36756, 0], [48268, 0], [59780, 0], [71292, 1], [82804, 0]],
        average_conversion_time: 29_540,
      });
    });
  });

  it("test_basic_unordered", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_time_to_convert.py::TestFunnelTimeToConvert::test_basic_unordered
    const data = abc([
      at("user a", "step three", "2021-06-08 18:00:00"),
      at("user a", "step one", "2021-06-08 19:00:00"),
      at("user a", "step two", "2021-06-08 21:00:00"),
      at("user b", "step one", "2021-06-09 13:00:00"),
      at("user b", "step two", "2021-06-09 13:37:00"),
      at("user c", "step two", "2021-06-11 07:00:00"),
      at("user c", "step one", "2021-06-12 06:00:00"),
    ]);
    await withReference(data, async (ref) => {
      expect(await funnel(ref, { ...week, display: "ActionsLineGraph", funnel_window_days: 7, funnel_order_type: "unordered", events: threeSteps() })).toEqual(autoBins);
    });
  });

  it("test_basic_strict", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_time_to_convert.py::TestFunnelTimeToConvert::test_basic_strict
    const data = abc(
      [
        at("user a", "step one", "2021-06-08 18:00:00"),
        at("user a", "step two", "2021-06-08 19:00:00"),
        at("user a", "step three", "2021-06-08 21:00:00"),
        at("user b", "step one", "2021-06-09 13:00:00"),
        at("user b", "step two", "2021-06-09 13:37:00"),
        at("user b", "blah", "2021-06-09 13:38:00"),
        at("user b", "step three", "2021-06-09 13:39:00"),
        at("user c", "step one", "2021-06-11 07:00:00"),
        at("user c", "step two", "2021-06-12 06:00:00"),
        at("user d", "step one", "2021-06-11 07:00:00"),
        at("user d", "blah", "2021-06-12 07:00:00"),
        at("user d", "step two", "2021-06-12 09:00:00"),
      ],
      ["user a", "user b", "user c", "user d"],
    );
    await withReference(data, async (ref) => {
      expect(await funnel(ref, { ...week, display: "ActionsLineGraph", funnel_window_days: 7, funnel_order_type: "strict", events: threeSteps() })).toEqual(autoBins);
    });
  });
});

describe("funnel trends: windows and exclusions (test_funnel_trends.py)", () => {
  type TrendItem = { data: number[]; days: string[]; breakdown_value?: unknown };
  const two = [{ id: "step one", order: 0 }, { id: "step two", order: 1 }];
  const three = [...two, { id: "step three", order: 2 }];
  const trends = { funnel_viz_type: "trends", interval: "day" };
  const exclusion = (from: number, to: number, id = "exclusion") => ({ id, type: "events", funnel_from_step: from, funnel_to_step: to });
  const userOne = (list: [string, string][]): RefData => ({ now: "2021-05-20T00:00:00", ...journeysFor({ user_one: list.map(([e, t]) => [e, t] as const) }) });
  const thirteenDays = { date_from: "2021-05-01 00:00:00", date_to: "2021-05-13 23:59:59" };
  const zeros = (n: number) => Array(n).fill(0);

  it("test_trend_for_hour_based_conversion_window", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_trend_for_hour_based_conversion_window
    const data: RefData = {
      now: "2021-05-06T23:40:59Z",
      ...journeysFor({
        user_one: [["step one", "2021-05-01 10:00:00"], ["step two", "2021-05-01 11:00:00"], ["step three", "2021-05-01 12:00:00"]],
        user_two: [["step one", "2021-05-01 10:00:00"], ["step two", "2021-05-01 11:00:00"], ["step three", "2021-05-01 14:00:00"]],
      }),
    };
    await withReference(data, async (ref) => {
      const [item]: TrendItem[] = await funnel(ref, { ...trends, display: "ActionsLineGraph", funnel_window_interval: 3, funnel_window_interval_unit: "hour", date_from: "2021-05-01 00:00:00", events: three });
      expect(item!.data).toEqual([50, 0, 0, 0, 0, 0]);
    });
  });

  it("test_parses_breakdown_correctly", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_parses_breakdown_correctly
    const data: RefData = { now: "2021-05-20T00:00:00", ...journeysFor({ user_one: [["step one", "2021-05-01", { $browser: "test'123" }], ["step two", "2021-05-03", { $browser: "test'123" }]] }) };
    await withReference(data, async (ref) => {
      const result: TrendItem[] = await funnel(ref, { ...trends, display: "ActionsLineGraph", ...thirteenDays, funnel_window_days: 7, events: two, breakdown_type: "event", breakdown: "$browser" });
      expect(result.length).toBe(1);
    });
  });

  it("test_short_exclusions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_short_exclusions
    const data = userOne([["step one", "2021-05-01 00:00:00"], ["exclusion", "2021-05-01 00:00:01"], ["step two", "2021-05-01 00:00:31"], ["step one", "2021-05-01 01:00:00"], ["step two", "2021-05-01 01:00:29"]]);
    await withReference(data, async (ref) => {
      const result: TrendItem[] = await funnel(ref, {
        ...trends,
        display: "ActionsLineGraph",
        ...thirteenDays,
        funnel_window_interval: 30,
        funnel_window_interval_unit: "second",
        events: two,
        exclusions: [exclusion(0, 1)],
        breakdown_type: "event",
        breakdown: "$browser",
      });
      expect(result.map((r) => r.data)).toEqual([[100, ...zeros(12)]]);
    });
  });

  it("test_funnel_exclusion_no_end_event", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_funnel_exclusion_no_end_event
    const at = (id: string, event: string, timestamp: string): RefEvent => ({ event, distinct_id: id, timestamp });
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1", "person2", "person3", "person4"),
      events: [
        at("person1", "user signed up", "2021-05-01 01:00:00"),
        at("person1", "paid", "2021-05-01 02:00:00"),
        at("person2", "user signed up", "2021-05-01 03:00:00"),
        at("person2", "x", "2021-05-01 03:30:00"),
        at("person2", "paid", "2021-05-01 04:00:00"),
        at("person3", "user signed up", "2021-05-01 05:00:00"),
        at("person3", "x", "2021-05-01 06:00:00"),
        at("person4", "user signed up", "2021-05-01 07:00:00"),
        at("person4", "x", "2021-05-02 08:00:00"),
      ],
    };
    await withReference(data, async (ref) => {
      const result: TrendItem[] = await funnel(ref, {
        funnel_viz_type: "trends",
        display: "ActionsLineGraph",
        events: steps("user signed up", "paid"),
        funnel_window_interval: 1,
        date_from: "2021-05-01 00:00:00",
        date_to: "2021-05-14 00:00:00",
        exclusions: [exclusion(0, 1, "x")],
      });
      expect(result.map((r) => r.data)).toEqual([[50, ...zeros(13)]]);
    });
  });

  it("test_exclusion_after_goal", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_trends.py::TestFunnelTrends::test_exclusion_after_goal (conversion rate: 1 of 1)
    const data = userOne([
      ["step one", "2021-05-01 00:00:00"],
      ["step two", "2021-05-01 00:00:01"],
      ["step three", "2021-05-01 00:00:03"],
      ["step one", "2021-05-01 00:00:04"],
      ["step two", "2021-05-01 00:00:05"],
      ["exclusion", "2021-05-01 00:00:06"],
      ["step three", "2021-05-01 00:00:07"],
    ]);
    await withReference(data, async (ref) => {
      const [item]: TrendItem[] = await funnel(ref, { ...trends, ...thirteenDays, funnel_window_interval: 10, funnel_window_interval_unit: "second", events: three, exclusions: [exclusion(1, 2)] });
      expect(item!.data[0]).toBe(100);
    });
  });
});

describe("unordered funnels: exclusions and step filters (test_funnel_unordered.py)", () => {
  const at = (id: string, event: string, time: string): RefEvent => ({ event, distinct_id: id, timestamp: `2021-05-01 ${time}` });
  const exclusion = (id: string, from: number, to: number) => ({ id, type: "events", funnel_from_step: from, funnel_to_step: to });

  it("test_unordered_exclusion_after_completion", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_unordered_exclusion_after_completion
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1"),
      events: [at("person1", "user signed up", "01:00:00"), at("person1", "paid", "02:00:00"), at("person1", "left", "03:00:00"), at("person1", "x", "04:00:00"), at("person1", "left", "05:00:00")],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_order_type: "unordered",
        events: [{ id: "user signed up", type: "events", order: 0 }, { id: "paid", type: "events", order: 1 }, { id: "left", type: "events", order: 3 }],
        funnel_window_days: 14,
        date_from: "2021-05-01 00:00:00",
        date_to: "2021-05-14 00:00:00",
        exclusions: [exclusion("x", 0, 2)],
      });
      expect(counts(result)).toEqual([1, 1, 1]);
    });
  });

  it("test_advanced_funnel_multiple_exclusions_between_steps", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_advanced_funnel_multiple_exclusions_between_steps (counts; the actor lists it asserts have the same lengths)
    const person = (id: string, list: [string, string][]) => list.map(([event, time]) => at(id, event, time));
    const data: RefData = {
      now: "2021-05-20T00:00:00",
      persons: persons("person1", "person2", "person3", "person4", "person5"),
      events: [
        ...person("person1", [["user signed up", "01:00:00"], ["x", "02:00:00"], ["$pageview", "03:00:00"], ["insight viewed", "04:00:00"], ["y", "04:30:00"], ["invite teammate", "05:00:00"], ["pageview2", "06:00:00"]]),
        ...person("person2", [["user signed up", "01:00:00"], ["y", "01:30:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["y", "04:30:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
        ...person("person3", [["user signed up", "01:00:00"], ["x", "01:30:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
        ...person("person4", [["user signed up", "01:00:00"], ["$pageview", "02:00:00"], ["insight viewed", "04:00:00"], ["invite teammate", "05:00:00"], ["pageview2", "06:00:00"]]),
        ...person("person5", [["user signed up", "01:00:00"], ["x", "01:30:00"], ["$pageview", "02:00:00"], ["x", "02:30:00"], ["insight viewed", "04:00:00"], ["y", "04:30:00"], ["invite teammate", "05:00:00"], ["x", "05:30:00"], ["pageview2", "06:00:00"]]),
      ],
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_order_type: "unordered",
        events: steps("user signed up", "$pageview", "insight viewed", "invite teammate", "pageview2"),
        date_from: "2021-05-01 00:00:00",
        date_to: "2021-05-14 00:00:00",
        exclusions: [exclusion("x", 0, 4), exclusion("y", 0, 4)],
      });
      expect(result[0]!.name).toBe("Completed 1 step");
      expect(counts(result)).toEqual([5, 2, 1, 1, 1]);
    });
  });

  it("test_funnel_unordered_all_events_with_properties", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_funnel_unordered_all_events_with_properties
    const e = sequence("2021-05-10T10:00:00");
    await withReference({ now: NOW, persons: persons("user"), events: [e("user signed up", "user"), e("added to card", "user", { properties: { is_saved: true } })] }, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_order_type: "unordered",
        events: [
          { type: "events", id: "user signed up", order: 0, name: "user signed up", math: "total" },
          { type: "events", id: null, order: 1, name: "All events", math: "total", properties: [{ key: "is_saved", value: ["true"], operator: "exact", type: "event" }] },
        ],
        funnel_window_days: 14,
      });
      expect(counts(result)).toEqual([1, 1]);
    });
  });

  it("test_funnel_unordered_entity_filters", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_funnel_unordered_entity_filters
    const e = sequence("2021-05-10T10:00:00");
    const data: RefData = { now: NOW, persons: persons("user"), events: [e("user signed up", "user", { properties: { prop_a: "some value" } }), e("user signed up", "user", { properties: { prop_b: "another value" } })] };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_order_type: "unordered",
        events: [
          { type: "events", id: "user signed up", order: 0, name: "user signed up", math: "total", properties: [{ key: "prop_a", value: ["some value"], operator: "exact", type: "event" }] },
          { type: "events", id: "user signed up", order: 1, name: "user signed up", math: "total", properties: [{ key: "prop_b", value: "another", operator: "icontains", type: "event" }] },
        ],
      });
      expect(counts(result)).toEqual([1, 1]);
    });
  });

  it("test_funnel_window_ignores_dst_transition", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_unordered.py::TestFunnelUnorderedSteps::test_funnel_window_ignores_dst_transition
    for (const timezone of ["UTC", "US/Pacific"]) {
      const data: RefData = {
        now: "2024-03-20T00:00:00",
        timezone,
        persons: persons("user_1"),
        events: [
          { event: "$pageview", distinct_id: "user_1", timestamp: "2024-03-01T15:10:00" },
          { event: "user signed up", distinct_id: "user_1", timestamp: "2024-03-15T14:27:00" },
        ],
      };
      await withReference(data, async (ref) => {
        const result: Step[] = await funnel(ref, { funnel_order_type: "unordered", events: steps("$pageview", "user signed up"), date_from: "2024-02-17", date_to: "2024-03-18" });
        expect([result[1]!.name, result[1]!.count, result[1]!.average_conversion_time, result[1]!.median_conversion_time], timezone).toEqual(["Completed 2 steps", 1, 1_207_020, 1_207_020]);
      });
    }
  });
});

describe("TestFOSSFunnelUDF's own tests, optional steps (test_funnel_udf.py)", () => {
  const at = (minute: number) => `2012-01-15T00:0${minute}:00Z`;
  const range = { date_from: "2012-01-01 00:00:00", date_to: "2012-02-01 23:59:59" };
  const step = (id: string, order: number, extra: Filter = {}) => ({ id, type: "events", order, ...extra });

  it("test_events_same_timestamp_no_exclusions", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_udf.py::TestFOSSFunnelUDF::test_events_same_timestamp_no_exclusions
    const names = ["step one, ten", "step two, three, seven", "step two, three, seven", "step four, five, eight", "step four, five, eight", "step six, nine", "step two, three, seven", "step four, five, eight", "step six, nine", "step one, ten"];
    const data: RefData = {
      now: "2024-01-10T12:01:00",
      persons: persons("test"),
      events: names.map((event) => ({ event, distinct_id: "test", timestamp: "2024-01-10T12:01:00Z" })),
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { funnel_viz_type: "steps", date_from: "2024-01-10 00:00:00", date_to: "2024-01-12 00:00:00", events: names.map((id, order) => step(id, order)) });
      expect(result.at(-1)!.count).toBe(1);
    });
  });

  it("test_excluded_after_time_expires", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_udf.py::TestFOSSFunnelUDF::test_excluded_after_time_expires
    const data: RefData = {
      now: "2021-05-14T00:00:00",
      ...journeysFor({ user_one: [["step one", "2021-05-01T00:00:00Z"], ["exclusion", "2021-05-01T00:00:11Z"], ["step two", "2021-05-01T00:00:12Z"]] }),
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_viz_type: "steps",
        interval: "day",
        date_from: "2021-05-01 00:00:00",
        date_to: "2021-05-13 23:59:59",
        funnel_window_interval: 10,
        funnel_window_interval_unit: "second",
        events: [step("step one", 0), step("step two", 1)],
        exclusions: [{ id: "exclusion", type: "events", funnel_from_step: 0, funnel_to_step: 1 }],
      });
      expect(counts(result)).toEqual([1, 0]);
    });
  });

  it("test_funnel_with_optional_steps", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_udf.py::TestFOSSFunnelUDF::test_funnel_with_optional_steps
    const names = ["step one", "step two", "step three", "step four", "step five"];
    // Each person by the steps they do, step n at minute n − 1.
    const did = (...numbers: number[]) => numbers.map((n) => [names[n - 1]!, at(n - 1)] as const);
    const data: RefData = {
      now: "2012-03-01T00:00:00",
      ...journeysFor({
        no_events: [],
        step1_only: did(1),
        step123: did(1, 2, 3),
        step13: did(1, 3),
        step12345: did(1, 2, 3, 4, 5),
        step1235: did(1, 2, 3, 5),
        step134: did(1, 3, 4),
        step1345: did(1, 3, 4, 5),
        step135: did(1, 3, 5),
      }),
    };
    const optional = { optionalInFunnel: true };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        ...range,
        events: [step("step one", 0), step("step two", 1, optional), step("step three", 2), step("step four", 3, optional), step("step five", 4)],
      });
      expect(result.map((s) => s.name)).toEqual(names);
      // Everyone who did step one; the three through step two; all but step1_only through step three; the three
      // through step four; the four who finished.
      expect(counts(result)).toEqual([8, 3, 7, 3, 4]);
    });
  });

  it("test_funnel_with_optional_steps_same_event", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_udf.py::TestFOSSFunnelUDF::test_funnel_with_optional_steps_same_event
    const data: RefData = {
      now: "2012-03-01T00:00:00",
      ...journeysFor({
        zero_events: [],
        one_event: [["same_event", at(0)]],
        two_events: [["same_event", at(0)], ["same_event", at(1)]],
        three_events: [["same_event", at(0)], ["same_event", at(1)], ["same_event", at(2)]],
        three_events_with_match: [["same_event", at(0)], ["same_event", at(1), { $current_url: "url" }], ["same_event", at(2)]],
      }),
    };
    const url = [{ key: "$current_url", operator: "exact", value: "url", type: "event" }];
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        ...range,
        events: [step("same_event", 0), step("same_event", 1, { optionalInFunnel: true }), step("same_event", 2, { properties: url }), step("same_event", 3)],
      });
      expect(result.map((s) => s.name)).toEqual(["same_event", "same_event", "same_event", "same_event"]);
      // Everyone with an event; the two whose second event took the optional step (no url); the one whose url event
      // took step three straight from step one, and whose third event then took step four.
      expect(counts(result)).toEqual([4, 2, 1, 1]);
    });
  });

  it("conversion times: the gaps between required steps, the k-th against step k (funnel_udf.py timings)", async () => {
    // Worked by hand from funnel_udf.py (`groupArrayIf(timings[i], timings[i] > 0) AS step_i_conversion_times`) and
    // funnel-udf/src/steps.rs (an optional step adds no timing): a goes 1 → 2 → 3 (60 s, 120 s), b goes 1 → 3 (240 s).
    // The required gaps are a: [180], b: [240]; step two shows their mean, 210 s; step three has no second gap.
    const data: RefData = {
      now: "2012-03-01T00:00:00",
      ...journeysFor({ a: [["one", at(0)], ["two", at(1)], ["three", at(3)]], b: [["one", at(0)], ["three", at(4)]] }),
    };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, { ...range, events: [step("one", 0), step("two", 1, { optionalInFunnel: true }), step("three", 2)] });
      expect(counts(result)).toEqual([2, 1, 2]);
      expect(result.map((s) => s.average_conversion_time)).toEqual([null, 210, null]);
      expect(result.map((s) => s.median_conversion_time)).toEqual([null, 210, null]);
    });
  });

  it("the actors of an optional funnel's steps and drop-offs (funnel_udf.py _get_funnel_person_step_condition)", async () => {
    // Drop-off at step three: went through the last required step before it (step one), not through step three.
    const data: RefData = {
      now: "2012-03-01T00:00:00",
      ...journeysFor({ a: [["one", at(0)], ["two", at(1)]], b: [["one", at(0)], ["three", at(4)]], c: [["one", at(0)]] }),
    };
    const filter = { insight: "FUNNELS", ...range, events: [step("one", 0), step("two", 1, { optionalInFunnel: true }), step("three", 2)] };
    await withReference(data, async (ref) => {
      const actors = async (funnel_step: number) => {
        const res = await ref.legacy("GET", "persons/funnel", { ...filter, funnel_step });
        expect(res.status, res.text).toBe(200);
        return res.body.results[0].people.map((p: { distinct_ids: string[] }) => p.distinct_ids[0]).sort();
      };
      expect(await actors(2)).toEqual(["a"]);
      expect(await actors(3)).toEqual(["b"]);
      expect(await actors(-3)).toEqual(["a", "c"]);
      expect(await actors(-2)).toEqual(["b", "c"]);
    });
  });
});

describe("TestFunnelStrictStepsUDF's own tests (test_funnel_strict_udf.py)", () => {
  const bd = (value: string) => ({ properties: { bd: value } });

  it("test_different_prop_val_in_strict_filter", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_strict_udf.py::TestFunnelStrictStepsUDF::test_different_prop_val_in_strict_filter
    // Created without timestamps (not frozen): one after another at "now", inside the default last 7 days.
    const e = sequence("2024-01-10T12:00:00");
    const data: RefData = {
      now: "2024-01-10T12:01:00",
      persons: [{ distinct_ids: ["many_other_events"], properties: { test: "okay" } }],
      events: ["first", "first", "unmatched", "unmatched", "second", "second"].map((event, i) => e(event, "many_other_events", bd(i % 2 === 0 ? "one" : "two"))),
    };
    const node = (funnelsFilter: Filter) => ({ series: [{ kind: "EventsNode", event: "first" }, { kind: "EventsNode", event: "second" }], breakdownFilter: { breakdown: "bd" }, funnelsFilter: { funnelOrderType: "strict", ...funnelsFilter } });
    await withReference(data, async (ref) => {
      // First touch: the person's first "first" (bd one) is followed by "first", not "second": step two is never reached.
      const firstTouch: (Step & { breakdown: unknown })[][] = await funnelQuery(ref, node({}));
      expect(firstTouch[0]!.length).toBe(2);
      expect(firstTouch[0]!.at(-1)!.count).toBe(0);
      expect(firstTouch[0]!.every((s) => JSON.stringify(s.breakdown) === JSON.stringify(["one"]))).toBe(true);
      // All events: each value's "first" is followed by an event that is not "second".
      const allEvents: (Step & { breakdown: unknown })[][] = await funnelQuery(ref, node({ breakdownAttributionType: "all_events" }));
      expect(allEvents.length).toBe(2);
      const ofValue = (value: string) => allEvents.find((r) => JSON.stringify(r[0]!.breakdown) === JSON.stringify([value]))!;
      expect([ofValue("one").at(-1)!.count, ofValue("two").at(-1)!.count]).toEqual([0, 0]);
    });
  });

  it("test_multiple_events_same_timestamp_doesnt_blow_up", async () => {
    // posthog/hogql_queries/insights/funnels/test/test_funnel_strict_udf.py::TestFunnelStrictStepsUDF::test_multiple_events_same_timestamp_doesnt_blow_up
    // Its filter sets no funnel_order_type: an ordered funnel. 30 "step one", then "step two" and "step three", all at one instant.
    const at = "2024-01-10T12:01:00Z";
    const names = [...Array<string>(30).fill("step one"), "step two", "step three"];
    const data: RefData = { now: "2024-01-10T12:01:00", persons: persons("test"), events: names.map((event) => ({ event, distinct_id: "test", timestamp: at })) };
    await withReference(data, async (ref) => {
      const result: Step[] = await funnel(ref, {
        funnel_viz_type: "steps",
        date_from: "2024-01-10 00:00:00",
        date_to: "2024-01-12 00:00:00",
        events: [{ id: "step one", order: 0 }, { id: "step two", order: 1 }, { id: "step three", order: 2 }],
      });
      expect(result.at(-1)!.count).toBe(1);
    });
  });
});

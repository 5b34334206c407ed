/**
 * Ports of PostHog's trends actors tests (posthog/hogql_queries/insights/trends/test/test_trends_persons.py, the
 * stored version 57cf45815f66): the test's data, its InsightActorsQuery inside an ActorsQuery sent to the query API
 * (select actor, created_at, event_count, matched_recordings; ordered by event_count descending), and the actors it
 * asserts. The tests freeze no clock (their `day` picks the range); here the clock is NOW unless a test says otherwise.
 */
import { describe, expect, it } from "vitest";
import { withReference, type RefData, type RefEvent, type Reference } from "./support.ts";

const NULL = "$$_posthog_breakdown_null_$$";
const OTHER = "$$_posthog_breakdown_other_$$";
/** The tests freeze no clock; their InsightActorsQuery `day` narrows the range to that day. */
const NOW = "2023-05-07T12:00:00Z";

const pageview = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}): RefEvent => ({ event: "$pageview", distinct_id, timestamp, properties });

/** `_create_events` (the other team's person4 and its events are left out: a project here has one team). */
function testEvents(now = NOW): RefData {
  return {
    now,
    persons: [
      { distinct_ids: ["person1"], properties: { $geoip_country_code: "US" } },
      { distinct_ids: ["person2"], properties: { $geoip_country_code: "DE" } },
      { distinct_ids: ["person3"], properties: { $geoip_country_code: "DE" } },
    ],
    events: [
      pageview("person1", "2023-04-29 16:00", { $browser: "Chrome" }),
      { event: "$pageleave", distinct_id: "person1", timestamp: "2023-04-29 17:00", properties: { $browser: "Chrome" } },
      pageview("person2", "2023-04-29 17:00", { $browser: "Safari" }),
      pageview("person2", "2023-04-29 18:00", { $browser: "Safari" }),
      pageview("person1", "2023-05-01 16:00", { $browser: "Chrome", some_property: 20 }),
      pageview("person1", "2023-05-01 17:00", { $browser: "Chrome" }),
      pageview("person1", "2023-05-01 18:00", { $browser: "Chrome" }),
      pageview("person2", "2023-05-01 16:00", { $browser: "Safari", some_property: 22 }),
      pageview("person2", "2023-05-01 17:00", { $browser: "Safari" }),
      pageview("person3", "2023-05-01 16:00", { $browser: "Safari" }),
      pageview("person1", "2023-05-06 16:00", { some_property: 20 }),
    ],
    extra: {
      cohorts: [
        { project_id: "1", id: 1, name: "US users", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "$geoip_country_code", value: "US", type: "person" }] }] } } },
        { project_id: "1", id: 2, name: "DE users", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "$geoip_country_code", value: "DE", type: "person" }] }] } } },
      ],
    } as RefData["extra"],
  };
}
const US = 1;
const DE = 2;

const trends = (more: Record<string, unknown> = {}) => ({ kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-7d" }, ...more });

/** `get_actors`: each actor as [distinct id or group key, event_count]. */
async function actors(ref: Reference, source: Record<string, unknown>, point: Record<string, unknown> = {}): Promise<[string, number][]> {
  const body = await ref.query({
    kind: "ActorsQuery",
    source: { kind: "InsightActorsQuery", source, includeRecordings: true, ...point },
    select: ["actor", "created_at", "event_count", "matched_recordings"],
    orderBy: ["event_count DESC"],
  });
  return body.results.map((row: any[]) => [row[0].distinct_ids?.[0] ?? row[0].id, row[2]]);
}

describe("test_trends_persons.py: series and breakdowns", () => {
  // test_trends_persons.py::test_trends_single_series_persons
  it("one series", async () => {
    await withReference(testEvents(), async (ref) => {
      expect(await actors(ref, trends(), { day: "2023-04-29" })).toEqual([["person2", 2], ["person1", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_multiple_series_persons
  it("two series: the first unless another is named", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "$pageleave" }] });
      expect(await actors(ref, source, { day: "2023-04-29" })).toEqual([["person2", 2], ["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-04-29", series: 1 })).toEqual([["person1", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_event_breakdown_persons
  it("an event breakdown", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdown: "$browser" } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: "Safari" })).toEqual([["person2", 2], ["person3", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: "Firefox" })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_person_breakdown_persons
  it("a person breakdown", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdown: "$geoip_country_code", breakdown_type: "person" } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: "DE" })).toEqual([["person2", 2], ["person3", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: "UK" })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_filter_by_other
  it("other of a breakdowns list holds every value on that day", async () => {
    await withReference(testEvents(), async (ref) => {
      const one = trends({ breakdownFilter: { breakdowns: [{ property: "some_property", type: "event" }], breakdown_limit: 1 } });
      expect(await actors(ref, one, { day: "2023-05-01", breakdown: [OTHER] })).toHaveLength(3);
      const two = trends({ breakdownFilter: { breakdowns: [{ property: "some_property", type: "event" }, { property: "$browser", type: "event" }], breakdown_limit: 1 } });
      expect(await actors(ref, two, { day: "2023-05-01", breakdown: [OTHER, OTHER] })).toHaveLength(3);
    });
  });

  // test_trends_persons.py::test_trends_breakdown_null_persons
  it("the none value of a breakdown", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 } });
      expect(await actors(ref, source, { day: "2023-05-06", breakdown: "Chrome" })).toEqual([]);
      expect(await actors(ref, source, { day: "2023-05-06", breakdown: NULL })).toEqual([["person1", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_breakdown_hogql_persons
  it("a HogQL breakdown asked by a number", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdown: "properties.some_property", breakdown_type: "hogql" } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: 20 })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: 10 })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_cohort_breakdown_persons
  it("a cohort breakdown", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdown: [DE], breakdown_type: "cohort" } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: DE })).toEqual([["person2", 2], ["person3", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_multi_cohort_breakdown_persons
  it("a breakdown by two cohorts", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdown: [US, DE], breakdown_type: "cohort" } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: US })).toEqual([["person1", 3]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: DE })).toEqual([["person2", 2], ["person3", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_all_cohort_breakdown_persons_subquery, …_leftjoin, …_leftjoin_conjoined
  // (the inCohortVia modifier picks PostHog's SQL; the actors are the same)
  it("a breakdown by a cohort and all users", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdown: [US, "all"], breakdown_type: "cohort" } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: US })).toEqual([["person1", 3]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: "all" })).toEqual([["person1", 3], ["person2", 2], ["person3", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_event_multiple_breakdowns_persons
  it("a breakdowns list of an event property", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdowns: [{ property: "$browser" }] } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: ["Safari"] })).toEqual([["person2", 2], ["person3", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: ["Firefox"] })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_person_multiple_breakdown_persons
  it("a breakdowns list of a person property", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdowns: [{ property: "$geoip_country_code", type: "person" }] } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: ["DE"] })).toEqual([["person2", 2], ["person3", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: ["UK"] })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_multiple_breakdown_null_persons
  it("the none value of a breakdowns list", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdowns: [{ property: "$browser" }], breakdown_limit: 1 } });
      expect(await actors(ref, source, { day: "2023-05-06", breakdown: ["Chrome"] })).toEqual([]);
      expect(await actors(ref, source, { day: "2023-05-06", breakdown: [NULL] })).toEqual([["person1", 1]]);
    });
  });
});

describe("test_trends_persons.py: maths, totals and compare", () => {
  // test_trends_persons.py::test_trends_math_weekly_active_persons
  it("weekly actives of a day are the persons of the seven days up to it", async () => {
    const ids = [17, 18, 19, 20, 21, 22, 23].map((d) => `person_2023-04-${d}`);
    const data: RefData = { now: NOW, persons: ids.map((id) => ({ distinct_ids: [id] })), events: ids.map((id) => pageview(id, `${id.slice(7)} 16:00`)) };
    await withReference(data, async (ref) => {
      const result = await actors(ref, trends({ series: [{ kind: "EventsNode", event: "$pageview", math: "weekly_active" }] }), { day: "2023-04-28" });
      expect(result).toHaveLength(2);
      expect(new Set(result.map(([id]) => id))).toEqual(new Set(["person_2023-04-22", "person_2023-04-23"]));
    });
  });

  // test_trends_persons.py::test_trends_math_group_persons
  it("unique groups: the groups and their events", async () => {
    const data: RefData = {
      now: NOW,
      events: [pageview("person1", "2023-05-01 16:00", { $group_0: "Hooli" }), pageview("person1", "2023-05-01 17:00", { $group_0: "Hooli" }), pageview("person1", "2023-05-01 18:00", { $group_0: "Pied Piper" })],
      groupTypes: [{ group_type_index: 0, group_type: "Company" }],
      extra: { groups: [{ project_id: "1", group_type_index: 0, group_key: "Hooli" }, { project_id: "1", group_type_index: 0, group_key: "Pied Piper" }] } as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      const source = trends({ series: [{ kind: "EventsNode", event: "$pageview", math: "unique_group", math_group_type_index: 0 }] });
      expect(await actors(ref, source, { day: "2023-05-01" })).toEqual([["Hooli", 2], ["Pied Piper", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_math_group_persons_filters_empty (its group with the key "" is left out: the
  // fixture document refuses an empty group key, and no event names it)
  it("unique groups leave out events without the group", async () => {
    const data: RefData = {
      now: NOW,
      events: [pageview("person1", "2023-05-01 16:00", { $group_0: "Hooli" }), pageview("person1", "2023-05-01 17:00")],
      groupTypes: [{ group_type_index: 0, group_type: "Company" }],
      extra: { groups: [{ project_id: "1", group_type_index: 0, group_key: "Hooli" }] } as RefData["extra"],
    };
    await withReference(data, async (ref) => {
      const source = trends({ series: [{ kind: "EventsNode", event: "$pageview", math: "unique_group", math_group_type_index: 0 }] });
      expect(await actors(ref, source, { day: "2023-05-01" })).toEqual([["Hooli", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_total_value_persons (run at 2023-05-01T20:00, no day)
  it("a number's actors cover the whole range", async () => {
    await withReference(testEvents("2023-05-01T20:00:00Z"), async (ref) => {
      const result = await actors(ref, trends({ trendsFilter: { display: "BoldNumber" } }));
      expect(result).toHaveLength(3);
      expect(result[0]![1]).toBe(4);
      expect(result[1]![1]).toBe(4);
      expect(result[2]).toEqual(["person3", 1]);
    });
  });

  // test_trends_persons.py::test_trends_compare_persons: "previous" is the same day of the previous period, 05-06
  // moved back by date_from's 7 days (2023-04-29: person2's two pageviews, person1's one).
  it("the current and the previous period of a day", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ trendsFilter: {}, compareFilter: { compare: true } });
      expect(await actors(ref, source, { day: "2023-05-06", compare: "current" })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-05-06", compare: "previous" })).toEqual([["person2", 2], ["person1", 1]]);
    });
  });

  // Not a PostHog test, worked by hand on the same data (now 2023-05-07 12:00 UTC). compare_to "-2d": the previous
  // period starts two days before 04-30, so 05-03 (the 4th day) maps to 05-01: person1 3, person2 2, person3 1.
  it("with compare_to, the day at the same place in the shifted period", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ trendsFilter: {}, compareFilter: { compare: true, compare_to: "-2d" } });
      expect(await actors(ref, source, { day: "2023-05-03", compare: "previous" })).toEqual([["person1", 3], ["person2", 2], ["person3", 1]]);
    });
  });

  // Not a PostHog test: a day that is no date is a 400 naming it, not the whole previous period.
  it("the previous period of a day that is no date is a 400 naming it", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = { kind: "InsightActorsQuery", source: trends({ compareFilter: { compare: true } }), day: "05-06", compare: "previous" };
      const res = await ref.queryResponse({ kind: "ActorsQuery", source, select: ["actor"] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: "validation_error", attr: "query__source__day" });
    });
  });

  // Not a PostHog test, worked by hand: a BoldNumber over -7d is [04-30 12:00, 05-07 12:00] (exact_timerange); its
  // previous period [04-24 12:00, 05-01 12:00] (7 days back, one later for -7d, times kept) holds 04-29's three
  // pageviews and none of 05-01's (16:00 on). The number and its actors agree: 7 and 3.
  it("a number's previous period: its actors are those its value counts", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ trendsFilter: { display: "BoldNumber" }, compareFilter: { compare: true } });
      const numbers = await ref.query(source);
      expect(numbers.results.map((r: { aggregated_value: number }) => r.aggregated_value)).toEqual([7, 3]);
      expect(await actors(ref, source, { compare: "previous" })).toEqual([["person2", 2], ["person1", 1]]);
      expect(await actors(ref, source, { compare: "current" })).toEqual([["person1", 4], ["person2", 2], ["person3", 1]]);
    });
  });
});

/** `_create_numeric_events`: some_property numeric (PostHog declares it so with a PropertyDefinition). */
function numericEvents(): RefData {
  const person = (id: string, country: string) => ({ distinct_ids: [id], properties: { $geoip_country_code: country } });
  return {
    now: NOW,
    persons: [person("person1", "US"), person("person2", "DE"), person("person3", "DE")],
    events: [
      pageview("person1", "2023-04-29 16:00", { some_property: 20 }),
      pageview("person2", "2023-04-29 17:00", { some_property: 60 }),
      pageview("person1", "2023-05-01 16:00", { some_property: 40 }),
      pageview("person1", "2023-05-01 18:00", { some_property: 0 }),
      pageview("person2", "2023-05-01 17:00", { some_property: 80 }),
      pageview("person3", "2023-05-01 16:00", { $browser: "Safari" }),
      pageview("person1", "2023-05-06 16:00", { some_property: 20 }),
    ],
  };
}

/** The distinct ids of the actors, as a set (the tests compare sets where event counts tie). */
const idsOf = (result: [string, number][]) => new Set(result.map(([id]) => id));

describe("test_trends_persons.py: breakdown values as ranges, booleans and HogQL lists", () => {
  // test_trends_persons.py::test_trends_multiple_breakdowns_hogql_persons
  it("a breakdowns list of a HogQL expression, asked by its string", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdowns: [{ property: "properties.some_property", type: "hogql" }], breakdown_limit: 1 } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: ["20"] })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: ["10"] })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_breakdown_filter_by_range
  it("a histogram breakdown value is a range: [0,20) leaves 20 out, [\"\",\"\"] holds all", async () => {
    await withReference(numericEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdown: "some_property", breakdown_histogram_bin_count: 4 } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: "[0,20]" })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: '["",""]' })).toHaveLength(3);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: NULL })).toEqual([["person3", 1]]);
      for (const bad of ['["str","str"]', '["str",10]', "[10,false]", "[{},{}]"]) {
        const res = await ref.queryResponse({ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source, day: "2023-05-01", breakdown: bad }, select: ["actor"] });
        expect(res.status, `${bad}: ${res.text}`).toBe(400);
      }
    });
  });

  // test_trends_persons.py::test_trends_multiple_breakdowns_filter_by_range
  it("a histogram breakdown of a breakdowns list is a range too", async () => {
    await withReference(numericEvents(), async (ref) => {
      const source = trends({ breakdownFilter: { breakdowns: [{ property: "some_property", histogram_bin_count: 4 }] } });
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: ["[0,20]"] })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: ['["",""]'] })).toHaveLength(3);
      expect(await actors(ref, source, { day: "2023-05-01", breakdown: [NULL] })).toEqual([["person3", 1]]);
      for (const bad of ['["str","str"]', '["str",10]', "[10,false]", "[{},{}]"]) {
        const res = await ref.queryResponse({ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source, day: "2023-05-01", breakdown: [bad] }, select: ["actor"] });
        expect(res.status, `${bad}: ${res.text}`).toBe(400);
      }
    });
  });

  // test_trends_persons.py::test_trends_breakdown_by_boolean
  it("a boolean breakdown is asked by \"true\", \"false\" and the none value", async () => {
    const data: RefData = {
      now: NOW,
      persons: ["person1", "person2", "person3"].map((id) => ({ distinct_ids: [id] })),
      events: [pageview("person1", "2023-04-29 16:00", { bool: true }), pageview("person2", "2023-04-29 17:00", { bool: false }), pageview("person3", "2023-04-29 17:00")],
    };
    await withReference(data, async (ref) => {
      const list = trends({ breakdownFilter: { breakdowns: [{ property: "bool" }], breakdown_limit: 1 } });
      const single = trends({ breakdownFilter: { breakdown: "bool", breakdown_limit: 1 } });
      for (const value of ["true", "false", NULL]) {
        expect(await actors(ref, list, { day: "2023-04-29", breakdown: [value] }), value).toHaveLength(1);
        expect(await actors(ref, single, { day: "2023-04-29", breakdown: value }), value).toHaveLength(1);
      }
    });
  });
});

const firstTime = (more: Record<string, unknown> = {}) => trends({ series: [{ kind: "EventsNode", event: "$pageview", math: "first_time_for_user", ...more }] });

describe("test_trends_persons.py: first time for user", () => {
  // test_trends_persons.py::test_trends_math_first_time_for_user_basic
  it("each person on the day of their first event only", async () => {
    await withReference(testEvents(), async (ref) => {
      for (const day of ["2023-04-25", "2023-04-26", "2023-04-27", "2023-04-28", "2023-04-30"]) expect(await actors(ref, firstTime(), { day }), day).toEqual([]);
      const first = await actors(ref, firstTime(), { day: "2023-04-29" });
      expect(idsOf(first)).toEqual(new Set(["person1", "person2"]));
      expect(new Set(first.map(([, n]) => n))).toEqual(new Set([1]));
      expect(await actors(ref, firstTime(), { day: "2023-05-01" })).toEqual([["person3", 1]]);
      for (let d = 2; d < 22; d++) {
        const day = `2023-05-${String(d).padStart(2, "0")}`;
        expect(await actors(ref, firstTime(), { day }), day).toEqual([]);
      }
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_breakdowns_basic
  it("with a breakdown: the value of the first event", async () => {
    await withReference(testEvents(), async (ref) => {
      const single = { ...firstTime(), breakdownFilter: { breakdown: "$browser" } };
      const list = { ...firstTime(), breakdownFilter: { breakdowns: [{ property: "$browser", type: "event" }] } };
      for (const [source, wrap] of [[single, (v: string) => v], [list, (v: string) => [v]]] as const) {
        expect(await actors(ref, source, { day: "2023-04-29", breakdown: wrap("Chrome") })).toEqual([["person1", 1]]);
        expect(await actors(ref, source, { day: "2023-04-29", breakdown: wrap("Safari") })).toEqual([["person2", 1]]);
        expect(await actors(ref, source, { day: "2023-05-01", breakdown: wrap("Chrome") })).toEqual([]);
        expect(await actors(ref, source, { day: "2023-05-01", breakdown: wrap("Safari") })).toEqual([["person3", 1]]);
      }
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_numeric_breakdowns
  it("with a numeric breakdown, binned or not", async () => {
    await withReference(numericEvents(), async (ref) => {
      const binned = { ...firstTime(), breakdownFilter: { breakdown: "some_property", breakdown_histogram_bin_count: 4 } };
      expect(await actors(ref, binned, { day: "2023-04-29", breakdown: "[10,20.01]" })).toEqual([["person1", 1]]);
      expect(await actors(ref, binned, { day: "2023-04-29", breakdown: "[60,80]" })).toEqual([["person2", 1]]);
      expect(await actors(ref, binned, { day: "2023-05-01", breakdown: "[10,20.01]" })).toEqual([]);
      expect(await actors(ref, binned, { day: "2023-05-01", breakdown: NULL })).toEqual([["person3", 1]]);

      const plain = { ...firstTime(), breakdownFilter: { breakdown: "some_property" } };
      expect(await actors(ref, plain, { day: "2023-04-29", breakdown: "20" })).toEqual([["person1", 1]]);
      expect(await actors(ref, plain, { day: "2023-04-29", breakdown: "40" })).toEqual([]);

      const binnedList = { ...firstTime(), breakdownFilter: { breakdowns: [{ property: "some_property", type: "event", histogram_bin_count: 4 }] } };
      expect(await actors(ref, binnedList, { day: "2023-04-29", breakdown: ["[10,20.01]"] })).toEqual([["person1", 1]]);
      expect(await actors(ref, binnedList, { day: "2023-04-29", breakdown: ["[60,80]"] })).toEqual([["person2", 1]]);
      expect(await actors(ref, binnedList, { day: "2023-05-01", breakdown: ["[10,20.01]"] })).toEqual([]);
      // PostHog's test asks this one by the bare none value, not a list of it.
      expect(await actors(ref, binnedList, { day: "2023-05-01", breakdown: NULL })).toEqual([["person3", 1]]);

      const plainList = { ...firstTime(), breakdownFilter: { breakdowns: [{ property: "some_property", type: "event" }] } };
      expect(await actors(ref, plainList, { day: "2023-04-29", breakdown: ["20"] })).toEqual([["person1", 1]]);
      expect(await actors(ref, plainList, { day: "2023-04-29", breakdown: ["40"] })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_with_filters
  it("with series filters: the first event that passes them", async () => {
    await withReference(testEvents(), async (ref) => {
      const chrome = firstTime({ properties: [{ key: "$browser", operator: "exact", value: "Chrome", type: "event" }] });
      expect(idsOf(await actors(ref, chrome, { day: "2023-04-29" }))).toEqual(new Set(["person1"]));
      expect(await actors(ref, chrome, { day: "2023-05-01" })).toEqual([]);
      const de = firstTime({ properties: [{ key: "$geoip_country_code", operator: "exact", value: "DE", type: "person" }] });
      expect(idsOf(await actors(ref, de, { day: "2023-04-29" }))).toEqual(new Set(["person2"]));
      expect(await actors(ref, de, { day: "2023-04-30" })).toEqual([]);
      expect(idsOf(await actors(ref, de, { day: "2023-05-01" }))).toEqual(new Set(["person3"]));
    });
  });

  /** The actors' distinct id lists (the tests that merge persons compare these). */
  async function distinctIdLists(ref: Reference, source: Record<string, unknown>, day: string): Promise<string[][]> {
    const body = await ref.query({ kind: "ActorsQuery", source: { kind: "InsightActorsQuery", source, day, includeRecordings: true }, select: ["actor", "created_at", "event_count", "matched_recordings"], orderBy: ["event_count DESC"] });
    return body.results.map((row: any[]) => row[0].distinct_ids);
  }
  const anonymous = (ids: string[][]): RefData["persons"] => ids.map((distinct_ids) => ({ distinct_ids, created_at: "2020-01-11T12:00:00Z" }));
  const view = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}): RefEvent => ({ event: "$pageview", distinct_id, timestamp, properties });

  // test_trends_persons.py::test_trends_math_first_time_for_user_handles_multiple_ids
  it("a person's first event counts whichever of their distinct ids sent it", async () => {
    const data: RefData = {
      now: NOW,
      persons: anonymous([["anon1", "p1"], ["anon2", "p2"], ["anon3"]]),
      events: [view("anon1", "2020-01-11T12:00:00Z"), view("p1", "2020-01-12T12:00:00Z"), view("anon2", "2020-01-12T12:00:00Z"), view("p2", "2020-01-12T12:01:00Z"), view("anon3", "2020-01-12T12:00:00Z")],
    };
    await withReference(data, async (ref) => {
      const source = { ...firstTime(), trendsFilter: { display: "ActionsLineGraph" } };
      expect(await distinctIdLists(ref, source, "2020-01-09")).toEqual([]);
      expect(await distinctIdLists(ref, source, "2020-01-10")).toEqual([]);
      const eleventh = await distinctIdLists(ref, source, "2020-01-11");
      expect(eleventh.map((ids) => new Set(ids))).toEqual([new Set(["anon1", "p1"])]);
      const twelfth = await distinctIdLists(ref, source, "2020-01-12");
      expect(new Set(twelfth.map((ids) => [...ids].sort().join(",")))).toEqual(new Set(["anon3", "anon2,p2"]));
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_matches_first_event_only
  it("a filter that the person's first event fails matches none of their later events", async () => {
    const data: RefData = { now: NOW, persons: anonymous([["anon1", "p1"]]), events: [view("anon1", "2020-01-11T12:00:00Z", { $browser: "Chrome" }), view("p1", "2020-01-12T12:00:00Z", { $browser: "Safari" })] };
    await withReference(data, async (ref) => {
      const browser = (value: string) => firstTime({ properties: [{ key: "$browser", operator: "exact", value, type: "event" }] });
      expect(await distinctIdLists(ref, browser("Chrome"), "2020-01-11")).toEqual([["anon1", "p1"]]);
      expect(await distinctIdLists(ref, browser("Chrome"), "2020-01-12")).toEqual([]);
      expect(await distinctIdLists(ref, browser("Safari"), "2020-01-11")).toEqual([]);
      expect(await distinctIdLists(ref, browser("Safari"), "2020-01-12")).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_matches_all_first_events
  it("events at the same first instant all count as first", async () => {
    const data: RefData = { now: NOW, persons: anonymous([["anon1", "p1"]]), events: [view("anon1", "2020-01-11T12:00:00Z", { $browser: "Chrome" }), view("p1", "2020-01-11T12:00:00Z", { $browser: "Safari" })] };
    await withReference(data, async (ref) => {
      const browser = (value: string) => firstTime({ properties: [{ key: "$browser", operator: "exact", value, type: "event" }] });
      for (const value of ["Chrome", "Safari"]) {
        expect(await distinctIdLists(ref, browser(value), "2020-01-11"), value).toEqual([["anon1", "p1"]]);
        expect(await distinctIdLists(ref, browser(value), "2020-01-12"), value).toEqual([]);
      }
    });
  });

  /** The assertions the interval tests share: person1 and person2 first on `early`, person3 on `late`, none on `empty`. */
  async function expectFirstTimes(ref: Reference, source: Record<string, unknown>, early: string, late: string, empty: string[]) {
    const first = await actors(ref, source, { day: early });
    expect(idsOf(first)).toEqual(new Set(["person1", "person2"]));
    expect(first.map(([, n]) => n)).toEqual([1, 1]);
    expect(await actors(ref, source, { day: late })).toEqual([["person3", 1]]);
    for (const day of empty) expect(await actors(ref, source, { day }), day).toEqual([]);
  }

  // test_trends_persons.py::test_trends_math_first_time_for_user_month_interval
  it("monthly", async () => {
    await withReference(testEvents(), async (ref) => {
      await expectFirstTimes(ref, { ...firstTime(), interval: "month", dateRange: { date_from: "-180d" } }, "2023-04-01", "2023-05-01", ["2023-03-01"]);
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_day_interval
  it("daily", async () => {
    await withReference(testEvents(), async (ref) => {
      await expectFirstTimes(ref, { ...firstTime(), interval: "day" }, "2023-04-29", "2023-05-01", ["2023-04-30"]);
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_week_interval
  it("weekly", async () => {
    await withReference(testEvents(), async (ref) => {
      await expectFirstTimes(ref, { ...firstTime(), interval: "week", dateRange: { date_from: "-90d" } }, "2023-04-24", "2023-05-01", ["2023-04-17"]);
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_hour_interval
  it("hourly", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = { ...firstTime(), interval: "hour" };
      expect(await actors(ref, source, { day: "2023-04-29T16:00:00Z" })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-04-29T17:00:00Z" })).toEqual([["person2", 1]]);
      expect(await actors(ref, source, { day: "2023-04-29T18:00:00Z" })).toEqual([]);
      expect(await actors(ref, source, { day: "2023-05-01T16:00:00Z" })).toEqual([["person3", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01T17:00:00Z" })).toEqual([]);
      expect(await actors(ref, source, { day: "2023-05-01T18:00:00Z" })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_minute_interval
  it("by the minute", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = { ...firstTime(), interval: "minute", dateRange: { date_from: "-1h" } };
      expect(await actors(ref, source, { day: "2023-04-29T16:00:00Z" })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-04-29T16:01:00Z" })).toEqual([]);
      expect(await actors(ref, source, { day: "2023-04-29T17:00:00Z" })).toEqual([["person2", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01T16:00:00Z" })).toEqual([["person3", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01T17:00:00Z" })).toEqual([]);
      expect(await actors(ref, source, { day: "2023-05-01T18:00:00Z" })).toEqual([]);
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_all_events (the event added mid-test is a second
  // server's data)
  it("of all events: the first event of any name", async () => {
    const source = { ...trends({ series: [{ kind: "EventsNode", math: "first_time_for_user" }] }), interval: "month", dateRange: { date_from: "-180d" } };
    await withReference(testEvents(), async (ref) => {
      await expectFirstTimes(ref, source, "2023-04-01", "2023-05-01", []);
    });
    const withRandom = testEvents();
    withRandom.events.push({ event: "$random", distinct_id: "person1", timestamp: "2023-03-10 16:00", properties: { $browser: "Safari" } });
    await withReference(withRandom, async (ref) => {
      expect(await actors(ref, source, { day: "2023-04-01" })).toEqual([["person2", 1]]);
      expect(await actors(ref, source, { day: "2023-03-01" })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-05-01" })).toEqual([["person3", 1]]);
    });
  });

  // test_trends_persons.py::test_trends_math_first_time_for_user_actions (the $pageleave added mid-test is a second
  // server's data)
  it("of an action: the first event that matches any of its steps", async () => {
    const step = (event: string, browser: string) => ({ event, properties: [{ key: "$browser", type: "event", value: browser, operator: "icontains" }] });
    const chromeOrSafari = { project_id: "1", id: 1, name: "viewed from chrome or safari", steps: [step("$pageview", "Chrome"), step("$pageview", "Safari")] };
    const chromeAndLeft = { project_id: "1", id: 2, name: "viewed from chrome and left", steps: [step("$pageview", "Chrome"), step("$pageleave", "Chrome")] };
    const ofAction = (id: number) => ({ ...trends({ series: [{ kind: "ActionsNode", id, math: "first_time_for_user" }] }), interval: "month", dateRange: { date_from: "-180d" } });
    await withReference({ ...testEvents(), extra: { ...testEvents().extra, actions: [chromeOrSafari] } as RefData["extra"] }, async (ref) => {
      await expectFirstTimes(ref, ofAction(1), "2023-04-01", "2023-05-01", []);
    });
    const withLeave = testEvents();
    withLeave.events.push({ event: "$pageleave", distinct_id: "person3", timestamp: "2023-04-29 17:00", properties: { $browser: "Chrome" } });
    await withReference({ ...withLeave, extra: { ...withLeave.extra, actions: [chromeOrSafari, chromeAndLeft] } as RefData["extra"] }, async (ref) => {
      const first = await actors(ref, ofAction(2), { day: "2023-04-01" });
      expect(idsOf(first)).toEqual(new Set(["person1", "person3"]));
      expect(first.map(([, n]) => n)).toEqual([1, 1]);
      expect(await actors(ref, ofAction(2), { day: "2023-05-01" })).toEqual([]);
    });
  });
});

/**
 * Ports of PostHog's trends actors tests (posthog/hogql_queries/insights/trends/test/test_trends_persons.py, the
 * stored version 57cf45815f66): the test's data, its InsightActorsQuery inside an ActorsQuery sent to the query API
 * (select actor, created_at, event_count, matched_recordings; ordered by event_count descending), and the actors it asserts.
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

  // test_trends_persons.py::test_trends_compare_persons — not yet implemented: InsightActorsQuery `compare` is not
  // applied (the previous period's day is not shifted), so "previous" lists the current day's actors.
  it.skip("the current and the previous period of a day", async () => {
    await withReference(testEvents(), async (ref) => {
      const source = trends({ trendsFilter: {}, compareFilter: { compare: true } });
      expect(await actors(ref, source, { day: "2023-05-06", compare: "current" })).toEqual([["person1", 1]]);
      expect(await actors(ref, source, { day: "2023-05-06", compare: "previous" })).toEqual([["person2", 2], ["person1", 1]]);
    });
  });
});

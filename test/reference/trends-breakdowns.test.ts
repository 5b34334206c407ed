/**
 * Ports of PostHog's trends breakdown tests outside test_trends_query_runner.py
 * (posthog/hogql_queries/insights/trends/test/test_trends_breakdown_empty_null_properties.py, test_breakdown.py,
 * test_utils.py): the test's data, its TrendsQuery and ActorsQuery sent to the query API, and the numbers it
 * asserts. test_breakdown.py and test_utils.py test helpers of the runner (no data): their API-visible part is
 * ported over the data of `countries` below, the numbers worked out by hand.
 */
import { describe, expect, it } from "vitest";
import { withReference, type RefData, type Reference } from "./support.ts";

const NULL = "$$_posthog_breakdown_null_$$";
const AT = "2024-01-10 12:00:00";

/** Persons named by their one distinct id, each with one `test_event` of the given properties at 2024-01-10 12:00. */
function oneEventEach(byPerson: Record<string, Record<string, unknown>>): RefData {
  const names = Object.keys(byPerson);
  return {
    now: "2024-01-15T12:00:00Z",
    persons: names.map((name) => ({ distinct_ids: [name], properties: {} })),
    events: names.map((name) => ({ event: "test_event", distinct_id: name, timestamp: AT, properties: byPerson[name] })),
  };
}

const trendsQuery = (breakdownFilter: Record<string, unknown>) => ({
  kind: "TrendsQuery",
  series: [{ kind: "EventsNode", event: "test_event" }],
  dateRange: { date_from: "2024-01-01", date_to: "2024-01-15" },
  breakdownFilter,
});

/** The ActorsQuery of the test: the actors of one breakdown value on 2024-01-10, as their distinct ids. */
async function actorIds(ref: Reference, source: Record<string, unknown>, breakdown: unknown): Promise<string[][]> {
  const body = await ref.query({
    kind: "ActorsQuery",
    source: { kind: "InsightActorsQuery", source, breakdown, day: "2024-01-10" },
    select: ["actor", "event_count"],
    orderBy: ["event_count DESC"],
  });
  return body.results.map((row: any[]) => row[0].distinct_ids);
}

describe("test_trends_breakdown_empty_null_properties.py", () => {
  // test_trends_breakdown_empty_null_properties.py::test_breakdown_with_null_empty_and_missing_properties
  it("null, empty and missing values are one none value, in the counts and in the actors", async () => {
    const data = oneEventEach({
      user_with_null: { test_property: null },
      user_with_empty_string: { test_property: "" },
      user_with_missing: { some_other_property: "value" },
      user_with_value: { test_property: "actual_value" },
    });
    await withReference(data, async (ref) => {
      const source = trendsQuery({ breakdown: "test_property", breakdown_type: "event" });
      const { results } = await ref.query(source);
      const byValue = Object.fromEntries(results.map((r: any) => [r.breakdown_value, r.count]));
      expect(byValue[NULL]).toBe(3);
      expect(byValue.actual_value).toBe(1);
      const actors = await actorIds(ref, source, NULL);
      expect(actors).toHaveLength(3);
      expect(new Set(actors.flat())).toEqual(new Set(["user_with_null", "user_with_empty_string", "user_with_missing"]));
    });
  });

  // test_trends_breakdown_empty_null_properties.py::test_multiple_breakdown_with_null_empty_and_missing_properties
  it("a breakdowns list gives the none value in each part, in the counts and in the actors", async () => {
    const data = oneEventEach({ user_none_none: {}, user_value_none: { prop1: "value1" }, user_none_value: { prop2: "value2" } });
    await withReference(data, async (ref) => {
      const source = trendsQuery({ breakdowns: [{ property: "prop1", type: "event" }, { property: "prop2", type: "event" }] });
      const { results } = await ref.query(source);
      const noneNone = results.find((r: any) => Array.isArray(r.breakdown_value) && r.breakdown_value.length === 2 && r.breakdown_value.every((v: unknown) => v === NULL));
      expect(noneNone).toBeDefined();
      expect(noneNone.count).toBe(1);
      const actors = await actorIds(ref, source, [NULL, NULL]);
      expect(actors).toHaveLength(1);
      expect(actors[0]).toContain("user_none_none");
    });
  });
});

/** Two persons, one US and one DE, one `test_event` each on 2024-01-10; cohort 42 holds the US person. */
function countries(): RefData {
  return {
    ...oneEventEach({ us: {}, de: {} }),
    persons: [
      { distinct_ids: ["us"], properties: { country: "US" } },
      { distinct_ids: ["de"], properties: { country: "DE" } },
    ],
    extra: { cohorts: [{ project_id: "1", id: 42, name: "US", filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "country", value: "US", type: "person" }] }] } } }] } as RefData["extra"],
    groupTypes: [{ group_type_index: 1, group_type: "company" }],
  };
}

const countsOf = (results: any[]) => results.map((r) => r.count);

describe("test_breakdown.py: a cohort breakdown's values are cohort ids", () => {
  // test_breakdown.py::TestCohortBreakdownValueToInt::test_returns_cohort_id ("all" and "0" are all users, "42" and 42
  // cohort 42)
  it("\"all\", \"0\", \"42\" and 42 name cohorts", async () => {
    await withReference(countries(), async (ref) => {
      for (const all of ["all", "0"]) expect(countsOf((await ref.query(trendsQuery({ breakdown: [all], breakdown_type: "cohort" }))).results), all).toEqual([2]);
      for (const us of ["42", 42]) expect(countsOf((await ref.query(trendsQuery({ breakdown: [us], breakdown_type: "cohort" }))).results), String(us)).toEqual([1]);
    });
  });

  // test_breakdown.py::TestCohortBreakdownValueToInt::test_non_cohort_id_raises_query_error (a handled error, not a 500)
  it("any other value is refused", async () => {
    await withReference(countries(), async (ref) => {
      for (const bad of ["id", "null", "United States", ""]) {
        const res = await ref.queryResponse(trendsQuery({ breakdown: [bad], breakdown_type: "cohort" }));
        expect(res.status, `${bad}: ${res.text}`).toBe(400);
      }
    });
  });
});

describe("test_utils.py: what a breakdown reads", () => {
  // test_utils.py::test_properties_chain_person (a person breakdown reads the person's property, group index or not)
  it("a person breakdown ignores a group type index", async () => {
    await withReference(countries(), async (ref) => {
      // Sorted: the order of equal counts is not what the test is about.
      const rows = (b: Record<string, unknown>) => ref.query(trendsQuery(b)).then(({ results }) => results.map((r: any) => [r.breakdown_value, r.count]).sort());
      const plain = await rows({ breakdown: "country", breakdown_type: "person" });
      expect(plain).toEqual([["DE", 1], ["US", 1]]);
      expect(await rows({ breakdown: "country", breakdown_type: "person", breakdown_group_type_index: 1 })).toEqual(plain);
    });
  });

  // test_utils.py::test_properties_chain_groups (a group breakdown without its group type index is an error)
  it("a group breakdown needs its group type index", async () => {
    await withReference(countries(), async (ref) => {
      const res = await ref.queryResponse(trendsQuery({ breakdown: "name", breakdown_type: "group" }));
      expect(res.status, res.text).toBe(400);
      expect(res.body.attr).toMatch(/breakdown_group_type_index/);
    });
  });
});

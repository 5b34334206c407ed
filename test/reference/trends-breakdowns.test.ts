/**
 * Ports of PostHog's trends breakdown tests outside test_trends_query_runner.py
 * (posthog/hogql_queries/insights/trends/test/test_trends_breakdown_empty_null_properties.py): the test's data, its
 * TrendsQuery and ActorsQuery sent to the query API, and the numbers it asserts.
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

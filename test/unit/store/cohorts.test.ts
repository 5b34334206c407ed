import { describe, expect, it } from "vitest";
import { resolveCohorts, windowStart, type CohortInputs } from "../../../src/store/cohorts.ts";
import type { CohortRecord, PersonRecord } from "../../../src/store/schema.ts";

/**
 * Cohort membership as a pure function of cohorts, persons and per-person event times. Now is 2024-03-10T12:00Z;
 * ann viewed pages on 03-09 (15:00) and 03-02, bob on 03-01 and three times on 03-08 (10:00 to 12:00), cat never.
 */
const NOW = new Date("2024-03-10T12:00:00Z");
const person = (id: number, properties: Record<string, unknown>): PersonRecord =>
  ({ id, project_id: "1", uuid: `u${id}`, distinct_ids: [`d${id}`], properties, created_at: "2024-01-01T00:00:00Z" }) as unknown as PersonRecord;
const PERSONS = new Map([person(1, { plan: "pro" }), person(2, { plan: "free" }), person(3, {})].map((p) => [p.id, p]));
const VIEWS: Record<number, string[]> = {
  1: ["2024-03-09T15:00:00Z", "2024-03-02T10:00:00Z"],
  2: ["2024-03-01T10:00:00Z", "2024-03-08T10:00:00Z", "2024-03-08T11:00:00Z", "2024-03-08T12:00:00Z"],
};
const inputs: CohortInputs = {
  persons: PERSONS,
  now: NOW,
  eventCounts: (event, since, until) => {
    const counts = new Map<number, number>();
    if (event !== "$pageview") return counts;
    for (const [id, times] of Object.entries(VIEWS)) {
      const n = times.filter((t) => Date.parse(t) >= since && Date.parse(t) <= until).length;
      if (n) counts.set(Number(id), n);
    }
    return counts;
  },
};

const viewed = (days: number, more: Record<string, unknown> = {}) => ({ type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: days, time_interval: "day", ...more });
const dynamic = (id: number, type: string, ...values: unknown[]): CohortRecord => ({ project_id: "1", id, name: `c${id}`, filters: { properties: { type, values } } });
const members = (cohorts: CohortRecord[], id = cohorts[0]!.id) => resolveCohorts(cohorts, inputs).find((c) => c.id === id)?.person_ids;

type Case = [string, CohortRecord[], number[] | undefined];
const cases: Case[] = [
  ["static: listed persons that exist", [{ project_id: "1", id: 1, name: "s", person_ids: [3, 1, 9] }], [1, 3]],
  ["performed in the last 2 days (since 03-08 12:00: ann 03-09, bob 03-08 12:00)", [dynamic(1, "AND", viewed(2))], [1, 2]],
  ["performed in the last day", [dynamic(1, "AND", viewed(1))], [1]],
  ["did not perform in the last day", [dynamic(1, "AND", viewed(1, { negation: true }))], [2, 3]],
  ["performed at least 3 times in a week (bob's three on 03-08)", [dynamic(1, "AND", viewed(7, { value: "performed_event_multiple", operator: "gte", operator_value: 3 }))], [2]],
  ["performed fewer than 2 times in 2 weeks", [dynamic(1, "AND", viewed(2, { value: "performed_event_multiple", operator: "lt", operator_value: 2, time_interval: "week" }))], [3]],
  ["an unknown event: nobody", [dynamic(1, "AND", viewed(30, { key: "purchase" }))], []],
  ["an unevaluated condition holds for nobody", [dynamic(1, "AND", viewed(30, { value: "performed_event_first_time" }))], []],
  ["person property and behaviour", [dynamic(1, "AND", { type: "person", key: "plan", value: "free", operator: "exact" }, viewed(7))], [2]],
  ["an empty AND holds for everyone, an empty OR for nobody", [dynamic(1, "AND"), dynamic(2, "OR")], [1, 2, 3]],
  ["a nested cohort resolves first", [dynamic(1, "AND", { type: "cohort", key: "id", value: 2 }), dynamic(2, "AND", viewed(1))], [1]],
  ["not_in a nested cohort", [dynamic(1, "OR", { type: "cohort", key: "id", value: 2, operator: "not_in" }), dynamic(2, "AND", viewed(1))], [2, 3]],
  ["a reference loop has no members", [dynamic(1, "AND", { type: "cohort", key: "id", value: 2 }), dynamic(2, "AND", { type: "cohort", key: "id", value: 1 })], []],
  ["a deleted cohort is not resolved", [{ ...dynamic(1, "AND"), deleted: true }], undefined],
  ["a deleted cohort named by another has no members", [dynamic(1, "AND", { type: "cohort", key: "id", value: 2 }), { ...dynamic(2, "AND"), deleted: true }], []],
];

describe("resolveCohorts", () => {
  it.each(cases)("%s", (_, cohorts, want) => expect(members(cohorts)).toEqual(want));

  it("stamps the computation time and keeps a dynamic cohort's filters", () => {
    const [resolved] = resolveCohorts([dynamic(1, "AND", viewed(1))], inputs);
    expect(resolved).toMatchObject({ calculated_at: "2024-03-10T12:00:00.000Z", filters: { properties: { type: "AND" } } });
  });
});

describe("windowStart", () => {
  it.each([
    ["hour", 3, "2024-03-10T09:00:00.000Z"],
    ["day", 10, "2024-02-29T12:00:00.000Z"],
    ["week", 2, "2024-02-25T12:00:00.000Z"],
    ["month", 1, "2024-02-10T12:00:00.000Z"],
    ["year", 1, "2023-03-10T12:00:00.000Z"],
  ] as const)("%s × %i", (interval, value, want) => expect(new Date(windowStart(NOW, value, interval)).toISOString()).toBe(want));
});

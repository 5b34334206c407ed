/** Cohort property groups as the flags service's `cohort_operations.rs` evaluates them. */
import { describe, expect, it } from "vitest";
import { cohortMatches, cohortMembership, type CohortFilters, type CohortPropertyGroup } from "../../../src/flags/index.ts";
import { NOW } from "./support.ts";

const p = (key: string, value: unknown, extra: Record<string, unknown> = {}) => ({ key, type: "person", operator: "exact", value, ...extra });
const c = (id: number, extra: Record<string, unknown> = {}) => ({ key: "id", type: "cohort", value: id, ...extra });
const cohort = (properties: CohortPropertyGroup): CohortFilters => ({ properties });
const members = new Map([[5, true], [6, false]]);
const lookup = (id: number) => members.get(id);

type Case = [name: string, filters: CohortFilters, person: Record<string, unknown>, want: boolean];
const cases: Case[] = [
  ["OR of ANDs: second group", cohort({ type: "OR", values: [{ type: "AND", values: [p("a", 1), p("b", 2)] }, { type: "AND", values: [p("c", 3)] }] }), { a: 1, b: 9, c: 3 }, true],
  ["AND of groups: one fails", cohort({ type: "AND", values: [{ type: "AND", values: [p("a", 1)] }, { type: "OR", values: [p("b", 2)] }] }), { a: 1, b: 3 }, false],
  ["\"property\" groups are ANDs", cohort({ type: "OR", values: [{ type: "property", values: [p("a", 1), p("b", 2)] }] }), { a: 1 }, false],
  ["negation inverts a property", cohort({ type: "AND", values: [{ type: "AND", values: [p("a", 1, { negation: true })] }] }), { a: 2 }, true],
  ["negation on a missing property", cohort({ type: "AND", values: [{ type: "AND", values: [p("a", 1, { negation: true })] }] }), {}, true],
  ["cohort filter: member", cohort({ type: "AND", values: [{ type: "AND", values: [c(5)] }] }), {}, true],
  ["cohort filter: not_in", cohort({ type: "AND", values: [{ type: "AND", values: [c(6, { operator: "not_in" })] }] }), {}, true],
  ["cohort filter negated in an AND group", cohort({ type: "AND", values: [{ type: "AND", values: [c(5, { negation: true })] }] }), {}, false],
  // The service ignores negation on a cohort filter inside an OR group (posthog-node applies it).
  ["cohort filter negated in an OR group", cohort({ type: "AND", values: [{ type: "OR", values: [c(5, { negation: true })] }] }), {}, true],
  ["empty OR group", cohort({ type: "AND", values: [{ type: "OR", values: [] }] }), {}, false],
  ["empty AND group", cohort({ type: "OR", values: [{ type: "AND", values: [] }] }), {}, true],
  ["unknown combinator", cohort({ type: "XOR", values: [] }), {}, false],
  ["deeper nesting reads the same way", cohort({ type: "AND", values: [{ type: "OR", values: [{ type: "AND", values: [p("a", 1), p("b", 2)] }, p("c", 3)] }] }), { a: 1, b: 2 }, true],
];

describe("cohortMatches", () => {
  it.each(cases)("%s", (_name, filters, person, want) => {
    expect(cohortMatches(filters, person, lookup, NOW)).toBe(want);
  });

  it("relative dates use the clock it is given", () => {
    const recent = cohort({ type: "AND", values: [{ type: "AND", values: [{ key: "seen", type: "person", operator: "is_date_after", value: "-1d" }] }] });
    expect(cohortMatches(recent, { seen: "2026-11-19T13:00:00Z" }, lookup, NOW)).toBe(true);
    expect(cohortMatches(recent, { seen: "2026-11-19T13:00:00Z" }, lookup, new Date("2026-11-21T00:00:00Z"))).toBe(false);
  });

  it("reports an unknown referenced cohort (membership undefined; cohortMatches says no)", () => {
    const unknown = cohort({ type: "AND", values: [{ type: "AND", values: [c(404)] }] });
    expect(cohortMembership(unknown, {}, lookup, NOW)).toBeUndefined();
    expect(cohortMatches(unknown, {}, lookup, NOW)).toBe(false);
  });
});

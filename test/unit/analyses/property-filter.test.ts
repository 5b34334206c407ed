import { describe, expect, it } from "vitest";
import { compilePropertyFilters, compileRowPredicate, filterTreeOf, type FilterTree } from "../../../src/analyses/shared/property-filter.ts";
import { compileUserRegex } from "../../../src/core/regex.ts";
import type { EventRecord, PersonRecord } from "../../../src/store/schema.ts";
import { utc } from "./support.ts";

const ctx = { now: utc("2024-03-10T12:00"), timezone: "UTC", cohorts: [{ project_id: "1", id: 7, name: "Pros", person_ids: [1] }] };
const event = (properties: Record<string, unknown>): EventRecord => ({ uuid: "u", project_id: "1", event: "e", distinct_id: "d", timestamp: 0, properties, elements_chain: "" });
const person = (id: number, properties: Record<string, unknown> = {}): PersonRecord => ({ id, project_id: "1", uuid: "p", distinct_ids: ["d"], properties, created_at: "2024-01-01T00:00:00Z", is_identified: true });

/** [operator, value, property value, matches]: `undefined` property = key absent (reference §1.4). */
const operatorCases: [string, unknown, unknown, boolean][] = [
  ["exact", "Chrome", "Chrome", true],
  ["exact", "Chrome", "chrome", false],
  ["exact", "Chrome", undefined, false],
  ["exact", ["a", "b"], "b", true],
  ["exact", ["b"], "b", true],
  ["exact", 10, "10", true],
  ["exact", "10", 10, true],
  ["exact", "true", true, true],
  ["exact", true, "true", true],
  ["is_not", "Chrome", "Safari", true],
  ["is_not", "Chrome", "Chrome", false],
  ["is_not", ["a", "b"], "b", false],
  ["is_not", "Chrome", undefined, true],
  ["is_not", "Chrome", null, true],
  ["icontains", "chr", "Chrome", true],
  ["icontains", "%ro_e", "Chrome", true],
  ["icontains", ["xx", "FIRE"], "Firefox", true],
  ["icontains", "chr", undefined, false],
  ["not_icontains", "chr", "Safari", true],
  ["not_icontains", "chr", "Chrome", false],
  ["not_icontains", "chr", undefined, true],
  ["regex", "^Ch", "Chrome", true],
  ["regex", "^ch", "Chrome", false],
  ["regex", "(?i)^ch", "Chrome", true],
  ["regex", "^Ch", undefined, false],
  ["not_regex", "^Ch", "Chrome", false],
  ["not_regex", "^Ch", "Safari", true],
  ["not_regex", "^Ch", undefined, true],
  ["gt", 5, 6, true],
  ["gt", 5, "6", true],
  ["gt", 5, 5, false],
  ["gt", 5, "abc", false],
  ["gt", 5, undefined, false],
  ["gte", 5, 5, true],
  ["lt", 5, 4, true],
  ["lt", 5, 5, false],
  ["lte", 5, 5, true],
  ["min", 5, 5, true],
  ["min", 5, 4, false],
  ["max", 5, 5, true],
  ["max", 5, 6, false],
  ["between", [1, 3], 1, true],
  ["between", [1, 3], 3, true],
  ["between", [1, 3], 4, false],
  ["between", [1, 3], undefined, false],
  ["not_between", [1, 3], 0, true],
  ["not_between", [1, 3], 1, false],
  ["not_between", [1, 3], undefined, false],
  ["is_set", null, "", true],
  ["is_set", null, undefined, false],
  ["is_set", null, null, false],
  ["is_not_set", null, undefined, true],
  ["is_not_set", null, null, true],
  ["is_not_set", null, "x", false],
  ["is_date_before", "2024-03-01", "2024-02-28T10:00:00Z", true],
  ["is_date_before", "2024-03-01", "2024-03-02", false],
  ["is_date_before", "2024-03-01", undefined, false],
  ["is_date_after", "2024-03-01", "2024-03-02T00:00:00Z", true],
  ["is_date_after", "2024-03-01", "2024-02-02", false],
  ["is_date_after", "-7d", "2024-03-09", true],
  ["is_date_exact", "2024-03-01", "2024-03-01T15:00:00Z", true],
  ["is_date_exact", "2024-03-01", "2024-03-02", false],
  ["in", ["a", "b"], "a", true],
  ["not_in", ["a", "b"], "a", false],
  ["not_in", ["a", "b"], undefined, true],
];

describe("property operators (reference §1.4, §11 item 17)", () => {
  it.each(operatorCases)("%s %j on %j → %s", (operator, value, property, want) => {
    const matches = compilePropertyFilters([{ key: "p", value, operator, type: "event" }], ctx);
    expect(matches({ event: event(property === undefined ? {} : { p: property }) })).toBe(want);
  });

  it("exact is the default operator and event the default type", () => {
    expect(compilePropertyFilters([{ key: "p", value: "x" }], ctx)({ event: event({ p: "x" }) })).toBe(true);
  });

  it("an empty list value disables the filter", () => {
    expect(compilePropertyFilters([{ key: "p", value: [], operator: "exact" }], ctx)({ event: event({}) })).toBe(true);
  });

  it("an unknown operator is a 400 on properties", () => {
    expect(() => compilePropertyFilters([{ key: "p", value: 1, operator: "similar" }], ctx)).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "properties" }));
  });

  it("an invalid regex is a 400", () => {
    expect(() => compilePropertyFilters([{ key: "p", value: "(", operator: "regex" }], ctx)).toThrow(expect.objectContaining({ name: "AnalysisInputError" }));
    expect(() => compileUserRegex("[", "x")).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "x" }));
  });

  it("filters that cannot be parsed, or types not modelled, are ignored", () => {
    for (const f of [{}, { value: 1 }, { type: "session", key: "$session_duration", value: 1 }, { type: "group", key: "x", value: "y" }]) {
      expect(compilePropertyFilters([f], ctx)({ event: event({}) })).toBe(true);
    }
  });

  // PostHog test_stickiness_query_runner.py::test_property_filtering_hogql: a HogQL condition keeps the rows where it holds.
  it("a hogql filter keeps the events where its condition is true", () => {
    const chrome = compilePropertyFilters([{ type: "hogql", key: "properties.$browser == 'Chrome'" }], ctx);
    expect(chrome({ event: event({ $browser: "Chrome" }) })).toBe(true);
    expect(chrome({ event: event({ $browser: "Firefox" }) })).toBe(false);
    expect(compilePropertyFilters([{ type: "hogql", key: "1 = 2" }], ctx)({ event: event({}) })).toBe(false);
  });
});

describe("group filters (reference §1.4)", () => {
  const groups = {
    types: [{ project_id: "1", group_type_index: 0, group_type: "company", name_singular: null, name_plural: null }],
    groups: [{ project_id: "1", group_type_index: 0, group_key: "acme", properties: { plan: "pro" }, created_at: "2024-01-01T00:00:00Z" }],
  };
  const pro = [{ type: "group", key: "plan", value: "pro", group_type_index: 0 }];
  it.each([
    ["an event of a matching group", { $groups: { company: "acme" } }, pro, true],
    ["an event outside any group", {}, pro, false],
    ["is_not matches an event outside any group (missing)", {}, [{ ...pro[0], operator: "is_not" }], true],
    ["a group without a record has no properties", { $groups: { company: "globex" } }, pro, false],
  ])("%s", (_name, props, filters, want) => {
    expect(compilePropertyFilters(filters, { ...ctx, groups })({ event: event(props) })).toBe(want);
  });
});

describe("filter shapes and subjects", () => {
  const chromeMac = event({ $browser: "Chrome", $os: "Mac" });
  const safariWin = event({ $browser: "Safari", $os: "Windows" });

  it("a flat list is AND", () => {
    const matches = compilePropertyFilters([{ key: "$browser", value: "Chrome" }, { key: "$os", value: "Mac" }], ctx);
    expect([matches({ event: chromeMac }), matches({ event: event({ $browser: "Chrome" }) })]).toEqual([true, false]);
  });

  it("nested AND/OR groups", () => {
    const group = {
      type: "OR",
      values: [
        { type: "AND", values: [{ key: "$browser", value: "Chrome" }, { key: "$os", value: "Mac" }] },
        { type: "AND", values: [{ key: "plan", value: ["pro", "team"], type: "person" }] },
      ],
    };
    const matches = compilePropertyFilters(group, ctx);
    expect(matches({ event: chromeMac })).toBe(true);
    expect(matches({ event: safariWin, person: person(2, { plan: "team" }) })).toBe(true);
    expect(matches({ event: safariWin, person: person(2, { plan: "free" }) })).toBe(false);
    expect(compilePropertyFilters({ type: "AND", values: [] }, ctx)({ event: safariWin })).toBe(true);
  });

  it("person filters read the attributed person; no person means missing", () => {
    const matches = compilePropertyFilters([{ key: "email", value: "@x.com", operator: "icontains", type: "person" }], ctx);
    expect(matches({ person: person(1, { email: "ann@x.com" }) })).toBe(true);
    expect(matches({ event: chromeMac })).toBe(false);
  });

  it("cohort membership, negated by not_in or negation", () => {
    const inCohort = compilePropertyFilters([{ key: "id", value: 7, type: "cohort" }], ctx);
    const notIn = compilePropertyFilters([{ key: "id", value: 7, type: "cohort", operator: "not_in" }], ctx);
    const negated = compilePropertyFilters([{ key: "id", value: 7, type: "cohort", negation: true }], ctx);
    expect([inCohort({ person: person(1) }), inCohort({ person: person(2) }), inCohort({})]).toEqual([true, false, false]);
    expect([notIn({ person: person(1) }), notIn({ person: person(2) }), negated({ person: person(2) })]).toEqual([false, true, true]);
  });

  it("GET forms may carry the filter list JSON-encoded", () => {
    expect(compilePropertyFilters('[{"key":"$browser","value":"Chrome"}]', ctx)({ event: safariWin })).toBe(false);
  });
});

describe("the structure a compiled filter describes (what column scans evaluate per value)", () => {
  const tree = (filters: unknown, context = ctx) => filterTreeOf(compileRowPredicate(filters, context));
  const shape = (t: FilterTree | undefined): unknown => (t === undefined ? undefined : t.kind === "and" || t.kind === "or" ? { [t.kind]: t.of.map(shape) } : t.kind === "event" ? t.key : "person");

  it("is an AND/OR of event-property and person leaves, each leaf the filter's own predicate", () => {
    const filters = [{ key: "$browser", value: "Chrome" }, { type: "OR", values: [{ key: "plan", value: "pro", type: "person" }, { key: "id", value: 7, type: "cohort" }, { key: "$os", value: "Mac", operator: "icontains" }] }];
    const t = tree(filters);
    expect(shape(t)).toEqual({ and: ["$browser", { or: ["person", "person", "$os"] }] });
    if (t?.kind !== "and") throw new Error("and expected");
    const leaf = t.of[0]!;
    expect([leaf.test(event({ $browser: "Chrome" }), undefined), leaf.test(event({ $browser: 3 }), undefined), leaf.test(event({}), undefined)]).toEqual([true, false, false]);
    expect(tree([])).toEqual(expect.objectContaining({ kind: "and", of: [] }));
  });

  it("is absent where a condition reads something else (group properties)", () => {
    expect(tree([{ key: "$browser", value: "Chrome" }, { key: "industry", value: "media", type: "group", group_type_index: 0 }])).toBeUndefined();
  });

  it("names equal conditions alike and different ones apart, with the clock for relative dates", () => {
    const sig = (filter: Record<string, unknown>, context = ctx) => {
      const t = tree([filter], context);
      return t?.kind === "event" ? t.sig : "not an event leaf";
    };
    expect(sig({ key: "$browser", value: "Chrome" })).toBe(sig({ key: "$browser", value: "Chrome", operator: "exact" }));
    expect(sig({ key: "$browser", value: "Chrome" })).not.toBe(sig({ key: "$browser", value: "Chrome", operator: "is_not" }));
    expect(sig({ key: "$browser", value: 10 })).not.toBe(sig({ key: "$browser", value: "10" }));
    const dated = { key: "trial_ends_at", value: "-7d", operator: "is_date_after" };
    expect(sig(dated)).not.toBe(sig(dated, { ...ctx, now: ctx.now + 86_400_000 }));
    // A value holding undefined has no signature: JSON would name it as null, which compares differently.
    expect(sig({ key: "$browser", value: [undefined] })).toBeUndefined();
  });
});

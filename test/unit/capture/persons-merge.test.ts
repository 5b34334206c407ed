import { describe, expect, it } from "vitest";
import { applyPropertyOps, isIllegalMergeId, planPerson, type PersonEvent, type PersonView, type PropertyOps } from "../../../src/capture/persons-merge.ts";

const noOps: PropertyOps = { set: {}, setOnce: {}, unset: [] };
const person = (id: number, distinctIds: string[], properties: Record<string, unknown>, createdAt: string, identified = false): PersonView => ({
  id,
  distinct_ids: distinctIds,
  properties,
  created_at: createdAt,
  is_identified: identified,
});
const lookupOf = (...persons: PersonView[]) => (id: string) => persons.find((p) => p.distinct_ids.includes(id));
const ev = (event: string, distinctId: string, properties: Record<string, unknown> = {}, ops: Partial<PropertyOps> = {}): PersonEvent => ({
  event,
  distinct_id: distinctId,
  uuid: "0190aaaa-0000-7000-8000-000000000001",
  timestamp: "2024-03-01T10:00:00.000Z",
  properties,
  ops: { ...noOps, ...ops },
});

describe("applyPropertyOps (reference §3.3)", () => {
  type Case = [string, Record<string, unknown>, Partial<PropertyOps>, { properties: Record<string, unknown>; changed: boolean }];
  const cases: Case[] = [
    ["$set_once skips a present key, even a stored null", { a: null, b: 1 }, { setOnce: { a: 5, b: 2, c: 3 } }, { properties: { a: null, b: 1, c: 3 }, changed: true }],
    ["$set beats $set_once for an absent key", {}, { setOnce: { k: "once" }, set: { k: "set" } }, { properties: { k: "set" }, changed: true }],
    ["an equal scalar is no change", { k: 1 }, { set: { k: 1 } }, { properties: { k: 1 }, changed: false }],
    ["objects always count as changed", { k: { x: 1 } }, { set: { k: { x: 1 } } }, { properties: { k: { x: 1 } }, changed: true }],
    ["$set then $unset of one key removes it", { k: 1 }, { set: { k: 2 }, unset: ["k"] }, { properties: {}, changed: true }],
    ["$unset of an absent key is no change", { a: 1 }, { unset: ["z"] }, { properties: { a: 1 }, changed: false }],
  ];
  it.each(cases)("%s", (_name, given, ops, want) => {
    expect(applyPropertyOps(given, { ...noOps, ...ops })).toEqual(want);
  });
});

describe("isIllegalMergeId (reference §3.5)", () => {
  it.each(["", "  ", "anonymous", "uNdEfInEd", "GUEST", '"undefined"', "'guest'", "[object Object]", "NaN", "None", "none", "null", "0", '"null"', "distinct_id", "email", "true"])(
    "%j never merges",
    (id) => expect(isIllegalMergeId(id)).toBe(true),
  );
  it.each(["nan", "NULL", "00", "user-1", "jo@example.com", "Null"])("%j may merge", (id) => expect(isIllegalMergeId(id)).toBe(false));
});

describe("planPerson (reference §3.2, §3.4)", () => {
  it("creates an unidentified person on first sight: $set beats $set_once, the creating event remembered", () => {
    const plan = planPerson(lookupOf(), ev("$pageview", "u1", {}, { set: { plan: "pro" }, setOnce: { plan: "free", first: "x" } }));
    expect(plan).toEqual({
      kind: "create",
      distinct_ids: ["u1"],
      uuidFrom: "u1",
      properties: { plan: "pro", first: "x", $creator_event_uuid: "0190aaaa-0000-7000-8000-000000000001" },
      created_at: "2024-03-01T10:00:00.000Z",
      is_identified: false,
    });
  });

  it("the worked example: $identify merges anon-7 into jo; jo's id and uuid survive, target wins conflicts, older created_at", () => {
    const a = person(1, ["anon-7"], { x: 1, y: 1 }, "2024-01-05T00:00:00.000Z");
    const b = person(2, ["jo"], { y: 2, z: 2 }, "2024-02-01T00:00:00.000Z");
    const plan = planPerson(lookupOf(a, b), ev("$identify", "jo", { $anon_distinct_id: "anon-7" }, { set: { z: 3 }, setOnce: { x: 9, w: 4 } }));
    expect(plan).toEqual({ kind: "merge", from: a, into: b, distinct_ids: ["anon-7", "jo"], properties: { x: 1, y: 2, z: 3, w: 4 }, created_at: "2024-01-05T00:00:00.000Z" });
  });

  it("$identify without $anon_distinct_id only sets properties and does not identify", () => {
    const jo = person(2, ["jo"], { a: 1 }, "2024-02-01T00:00:00.000Z");
    expect(planPerson(lookupOf(jo), ev("$identify", "jo", {}, { set: { a: 2 } }))).toEqual({ kind: "update", person: jo, properties: { a: 2 }, is_identified: false });
  });

  it("neither id known: one identified person with both ids, uuid from the target", () => {
    const plan = planPerson(lookupOf(), ev("$identify", "jo", { $anon_distinct_id: "anon-1" }, { set: { e: 1 } }));
    expect(plan).toMatchObject({ kind: "create", distinct_ids: ["jo", "anon-1"], uuidFrom: "jo", is_identified: true, properties: { e: 1 } });
  });

  it("only the anonymous id known: the target id joins the anonymous person", () => {
    const anon = person(1, ["anon-1"], { a: 1 }, "2024-01-01T00:00:00.000Z");
    expect(planPerson(lookupOf(anon), ev("$identify", "jo", { $anon_distinct_id: "anon-1" }, { set: { b: 2 } }))).toEqual({
      kind: "add_distinct_id",
      person: anon,
      distinct_id: "jo",
      properties: { a: 1, b: 2 },
    });
  });

  it("only the target known: $create_alias adds the alias to it", () => {
    const jo = person(2, ["jo"], {}, "2024-01-01T00:00:00.000Z", true);
    expect(planPerson(lookupOf(jo), ev("$create_alias", "jo", { alias: "jo-backend" }))).toMatchObject({ kind: "add_distinct_id", person: jo, distinct_id: "jo-backend" });
  });

  it("an identified person is not merged by $identify or $create_alias; the target still gets the properties", () => {
    const a = person(1, ["ann"], { x: 1 }, "2024-01-01T00:00:00.000Z", true);
    const b = person(2, ["bob"], {}, "2024-01-02T00:00:00.000Z", false);
    for (const event of [ev("$identify", "bob", { $anon_distinct_id: "ann" }, { set: { s: 1 } }), ev("$create_alias", "bob", { alias: "ann" }, { set: { s: 1 } })]) {
      expect(planPerson(lookupOf(a, b), event)).toEqual({ kind: "update", person: b, properties: { s: 1 }, is_identified: false, warning: "cannot_merge_already_identified" });
    }
  });

  it("$merge_dangerously merges even an identified person", () => {
    const a = person(1, ["ann"], { x: 1 }, "2024-01-03T00:00:00.000Z", true);
    const b = person(2, ["bob"], { x: 2 }, "2024-01-02T00:00:00.000Z", true);
    expect(planPerson(lookupOf(a, b), ev("$merge_dangerously", "bob", { alias: "ann" }))).toEqual({
      kind: "merge",
      from: a,
      into: b,
      distinct_ids: ["bob", "ann"],
      properties: { x: 2 },
      created_at: "2024-01-02T00:00:00.000Z",
    });
  });

  it("illegal ids never merge: the event's own person is created or updated instead", () => {
    const anon = person(1, ["null"], {}, "2024-01-01T00:00:00.000Z");
    expect(planPerson(lookupOf(anon), ev("$identify", "jo", { $anon_distinct_id: "null" }))).toMatchObject({
      kind: "create",
      distinct_ids: ["jo"],
      is_identified: false,
      warning: "cannot_merge_with_illegal_distinct_id",
    });
  });

  it("both ids on one person: no move; identification set", () => {
    const p = person(1, ["a", "b"], {}, "2024-01-01T00:00:00.000Z");
    expect(planPerson(lookupOf(p), ev("$identify", "a", { $anon_distinct_id: "b" }))).toEqual({ kind: "update", person: p, properties: {}, is_identified: true });
  });

  it("other == into merges nothing (posthog-node's property-only identify)", () => {
    const p = person(1, ["a"], { k: 1 }, "2024-01-01T00:00:00.000Z");
    expect(planPerson(lookupOf(p), ev("$identify", "a", { $anon_distinct_id: "a" }))).toEqual({ kind: "none" });
  });

  it("$exception never updates person properties", () => {
    const p = person(1, ["a"], {}, "2024-01-01T00:00:00.000Z");
    expect(planPerson(lookupOf(p), ev("$exception", "a", {}, { set: { k: 1 } }))).toEqual({ kind: "none" });
  });
});

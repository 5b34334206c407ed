import { describe, expect, it } from "vitest";
import { computeFunnel } from "../../../src/analyses/funnels/index.ts";
import { groupLookup, type GroupData } from "../../../src/analyses/shared/groups.ts";
import { computeTrends } from "../../../src/analyses/trends/index.ts";
import { withEventGroupTypes } from "../../../src/store/load-fixtures.ts";
import type { EventRecord, GroupTypeRecord } from "../../../src/store/schema.ts";
import { contextFor, ev, journeys } from "./support.ts";

const type = (group_type_index: number, group_type: string, project_id = "1"): GroupTypeRecord => ({ project_id, group_type_index, group_type, name_singular: null, name_plural: null });
const groupData: GroupData = {
  types: [type(0, "company"), type(1, "workspace")],
  groups: [{ project_id: "1", group_type_index: 0, group_key: "acme", properties: { plan: "pro" }, created_at: "2024-01-01T00:00:00Z" }],
};
const event = (properties: Record<string, unknown>, project_id = "1"): EventRecord => ({ uuid: "u", project_id, event: "e", distinct_id: "d", timestamp: 0, properties, elements_chain: "" });

describe("an event's group key", () => {
  const cases: [string, Record<string, unknown>, number, string | undefined][] = [
    ["from $groups by the type's name", { $groups: { company: "acme" } }, 0, "acme"],
    ["another type of the same event", { $groups: { company: "acme", workspace: "ws-1" } }, 1, "ws-1"],
    ["no group of that type", { $groups: { company: "acme" } }, 1, undefined],
    ["a stored $group_N column when $groups lacks it", { $group_0: "initech" }, 0, "initech"],
    ["$groups wins over $group_N", { $groups: { company: "acme" }, $group_0: "initech" }, 0, "acme"],
    ["an empty key is no group", { $groups: { company: "" } }, 0, undefined],
    ["a numeric key as its string form", { $groups: { company: 42 } }, 0, "42"],
    ["an index without a group type reads only $group_N", { $groups: { team: "t" } }, 3, undefined],
  ];
  it.each(cases)("%s", (_name, properties, index, want) => {
    expect(groupLookup(groupData).keyOf(index)(event(properties))).toBe(want);
  });

  it("finds the group record by index and key", () => {
    expect(groupLookup(groupData).record(0, "acme")?.properties).toEqual({ plan: "pro" });
    expect(groupLookup(groupData).record(1, "acme")).toBeUndefined();
  });
});

describe("group types derived from events at load", () => {
  it("gives unknown names the next free index in order of first use, per project, at most five", () => {
    const events = [
      event({ $groups: { company: "a", team: "t" } }),
      event({ $groups: { org: "o" } }, "2"),
      event({ $groups: { a: 1, b: 2, c: 3, d: 4 } }),
    ];
    const derived = withEventGroupTypes([type(1, "company")], events).map((t) => `${t.project_id}:${t.group_type_index}:${t.group_type}`);
    // Project 1: company keeps 1; team takes 0; a, b, c take 2, 3, 4; d finds no free index and is ignored.
    expect(derived).toEqual(["1:1:company", "1:0:team", "2:0:org", "1:2:a", "1:3:b", "1:4:c"]);
  });
});

describe("funnels and trends by group", () => {
  // ann and ben work at acme: ann views, ben signs up; cat at globex views only; dan has no company and converts.
  const world = journeys({
    ann: [ev("view", "2024-03-01T10:00", { $groups: { company: "acme" } })],
    ben: [ev("signup", "2024-03-01T11:00", { $groups: { company: "acme" } })],
    cat: [ev("view", "2024-03-01T12:00", { $groups: { company: "globex" } })],
    dan: [ev("view", "2024-03-01T13:00"), ev("signup", "2024-03-01T14:00")],
  });
  const ctx = { ...contextFor(world), groups: groupData };
  const funnel = { events: [{ id: "view", order: 0 }, { id: "signup", order: 1 }], date_from: "2024-03-01", date_to: "2024-03-02" };
  const counts = (result: unknown) => (result as { count: number }[]).map((s) => s.count);

  it.each([
    ["persons (absent)", {}, [3, 1]],
    // 0 is group type 0 (company), as the real service reads it (PostHog test_funnel.py::test_funnel_aggregation_with_groups).
    ["group type 0 (company): acme converts across two persons, globex does not, dan drops out", { aggregation_group_type_index: 0 }, [2, 1]],
    ["group type 1 (workspace): nobody is in one", { aggregation_group_type_index: 1 }, []],
  ])("%s", (_name, extra, want) => {
    expect(counts(computeFunnel(world.events, { ...funnel, ...extra }, ctx))).toEqual(want);
  });

  it("company funnel through a type at index 1: acme converts across two persons, globex does not, dan drops out", () => {
    const atOne = { ...ctx, groups: { ...groupData, types: [type(1, "company")] } };
    expect(counts(computeFunnel(world.events, { ...funnel, aggregation_group_type_index: 1 }, atOne))).toEqual([2, 1]);
  });

  it("unique_group counts companies; events without one count for none", () => {
    const result = computeTrends(world.events, { events: [{ id: "view", math: "unique_group", math_group_type_index: 0 }], date_from: "2024-03-01", date_to: "2024-03-01" }, ctx);
    expect((result as { data: number[] }[])[0]!.data).toEqual([2]);
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { FixtureDocument } from "../../../src/store/fixture-document.ts";
import { assertFixtureDocument, FixtureError, stateFromFixtures } from "../../../src/store/load-fixtures.ts";

const NOW = Date.parse("2024-03-10T00:00:00Z");
const basic = JSON.parse(readFileSync(new URL("../../../fixtures/scenarios/basic.json", import.meta.url), "utf8")) as FixtureDocument;

const withGroups = (): FixtureDocument => ({
  version: 1,
  projects: [
    { id: "1", name: "One", api_token: "phc_one_token_000", group_types: [{ group_type_index: 0, group_type: "company", name_plural: "companies" }, { group_type_index: 1, group_type: "workspace" }] },
    { id: "2", name: "Two" },
  ],
  groups: [
    { project_id: "1", group_type_index: 0, group_key: "acme", properties: { industry: "retail" }, created_at: "2024-01-02T03:04:05Z" },
    { project_id: "1", group_type_index: 1, group_key: "ws-1" },
  ],
});

const loadError = (doc: FixtureDocument) => {
  try {
    assertFixtureDocument(doc);
    stateFromFixtures(doc, NOW);
  } catch (e) {
    if (e instanceof FixtureError) return e.message;
    throw e;
  }
  return null;
};

describe("fixture documents with groups and project API tokens", () => {
  it("a document of the earlier shape loads unchanged and its projects get derived phc_ tokens", () => {
    assertFixtureDocument(basic);
    const state = stateFromFixtures(basic, NOW);
    expect(state.meta.group_types).toEqual([]);
    expect(state.meta.groups).toEqual([]);
    for (const p of state.meta.projects) expect(p.api_token).toMatch(/^phc_[0-9A-Za-z]{43}$/);
    expect(new Set(state.meta.projects.map((p) => p.api_token)).size).toBe(state.meta.projects.length);
    expect(stateFromFixtures(basic, NOW).meta.projects.map((p) => p.api_token)).toEqual(state.meta.projects.map((p) => p.api_token));
  });

  it("group types, groups and a given token load as written", () => {
    const doc = withGroups();
    assertFixtureDocument(doc);
    const { meta } = stateFromFixtures(doc, NOW);
    expect(meta.projects[0]!.api_token).toBe("phc_one_token_000");
    expect(meta.group_types).toEqual([
      { project_id: "1", group_type_index: 0, group_type: "company", name_singular: null, name_plural: "companies" },
      { project_id: "1", group_type_index: 1, group_type: "workspace", name_singular: null, name_plural: null },
    ]);
    expect(meta.groups).toEqual([
      { project_id: "1", group_type_index: 0, group_key: "acme", properties: { industry: "retail" }, created_at: "2024-01-02T03:04:05.000Z" },
      { project_id: "1", group_type_index: 1, group_key: "ws-1", properties: {}, created_at: "2024-03-10T00:00:00.000Z" },
    ]);
  });

  it.each([
    ["a group of a type the project lacks", (d: FixtureDocument) => d.groups!.push({ project_id: "2", group_type_index: 0, group_key: "x" }), "/groups/2/group_type_index"],
    ["a duplicate group", (d: FixtureDocument) => d.groups!.push({ project_id: "1", group_type_index: 0, group_key: "acme" }), "/groups/2/group_key"],
    ["a duplicate group type index", (d: FixtureDocument) => d.projects![0]!.group_types!.push({ group_type_index: 0, group_type: "team" }), "/projects/0/group_types/2/group_type_index"],
    ["a duplicate group type name", (d: FixtureDocument) => d.projects![0]!.group_types!.push({ group_type_index: 2, group_type: "company" }), "/projects/0/group_types/2/group_type"],
    ["a token shared by two projects", (d: FixtureDocument) => (d.projects![1]!.api_token = "phc_one_token_000"), "/projects/1/api_token"],
    ["a group type index above 4", (d: FixtureDocument) => d.projects![0]!.group_types!.push({ group_type_index: 5, group_type: "team" }), "/projects/0/group_types/2/group_type_index"],
  ])("refuses %s, naming %s", (_name, spoil, pointer) => {
    const doc = withGroups();
    spoil(doc);
    expect(loadError(doc)).toMatch(new RegExp(`^${pointer.replace(/\//g, "\\/")}:`));
  });
});

/**
 * The fixture document as issue 41 grew it (../shared/fixtures.schema.json): any JSON payloads, a project_id left
 * out with one project, annotations, dashboards, client-library records and settings, a tracking plan; and one
 * refusal listing every bad value.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { FixtureDocument } from "../../../src/store/fixture-document.ts";
import { assertFixtureDocument, FixtureError, stateFromFixtures } from "../../../src/store/load-fixtures.ts";

const NOW = Date.parse("2024-03-10T00:00:00Z");
const basic = JSON.parse(readFileSync(new URL("../../../fixtures/scenarios/basic.json", import.meta.url), "utf8")) as FixtureDocument;

const load = (doc: unknown) => {
  assertFixtureDocument(doc);
  return stateFromFixtures(doc, NOW);
};
const refusal = (doc: unknown): FixtureError => {
  try {
    load(doc);
  } catch (e) {
    if (e instanceof FixtureError) return e;
    throw e;
  }
  throw new Error("the document loaded");
};

const oneProject = (extra: Partial<FixtureDocument>): FixtureDocument => ({
  version: 1,
  users: [{ id: 1, email: "a@example.com", personal_api_keys: ["phx_test_key_0001"] }],
  projects: [{ id: "7", name: "App" }],
  ...extra,
});

describe("flags as the API takes them", () => {
  it("takes a payload of any JSON value and stores it as the JSON text the real service stores", () => {
    const doc = oneProject({
      feature_flags: [
        { key: "banner", filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { title: "Hi", n: 2 } } } },
        { key: "legacy", filters: { groups: [], payloads: { true: '{"a":1}' } } },
        { key: "words", filters: { groups: [], payloads: { true: "plain words" } } },
        { key: "list", filters: { groups: [], payloads: { true: [1, 2] } } },
      ],
    });
    const flags = load(doc).meta.feature_flags;
    expect(flags.map((f) => f.filters.payloads)).toEqual([{ true: '{"title":"Hi","n":2}' }, { true: '{"a":1}' }, { true: '"plain words"' }, { true: "[1,2]" }]);
  });

  it("puts a flag without project_id in the document's only project", () => {
    const flags = load(oneProject({ feature_flags: [{ key: "f", filters: { groups: [] } }] })).meta.feature_flags;
    expect(flags.map((f) => [f.id, f.project_id])).toEqual([[1, "7"]]);
  });

  it("asks for project_id when the document has several projects", () => {
    const doc = oneProject({ projects: [{ id: "7", name: "App" }, { id: "8", name: "Other" }], feature_flags: [{ key: "f", filters: { groups: [] } }] });
    expect(refusal(doc).problems).toEqual([{ pointer: "/feature_flags/0/project_id", reason: "required: the document has 2 projects, so name one" }]);
  });
});

describe("the document's new lists", () => {
  const doc = oneProject({
    insights: [{ project_id: "7", short_id: "abc123", name: "Signups", filters: { insight: "TRENDS" } }],
    dashboards: [{ project_id: "7", name: "Growth", tiles: [{ insight: "abc123" }, { text: { body: "notes" } }] }],
    annotations: [
      { content: "launch", date_marker: "2024-03-01T12:00:00Z", scope: "project" },
      { content: "on the chart", date_marker: "2024-03-02T00:00:00Z", insight_short_id: "abc123" },
    ],
    surveys: [{ project_id: "7", name: "NPS", type: "popover", questions: [{ type: "rating", question: "How likely?" }] }],
    early_access_features: [{ project_id: "7", name: "Beta", stage: "beta" }],
    tracking_plan: { events: { signup: { type: "object" } }, additional_events: "allow" },
  });
  doc.projects![0] = { ...doc.projects![0]!, week_start_day: 1, session_recording_opt_in: true, surveys_opt_in: true };

  it("loads dashboards with their insight tiles (text tiles are not kept) and annotations with their insight", () => {
    const { meta } = load(doc);
    expect(meta.dashboards.map((d) => [d.id, d.project_id, d.name])).toEqual([[1, "7", "Growth"]]);
    expect(meta.dashboard_tiles.map((t) => [t.dashboard_id, t.insight_id])).toEqual([[1, 1]]);
    expect(meta.annotations.map((a) => [a.id, a.project_id, a.content, a.date_marker, a.scope, a.dashboard_item])).toEqual([
      [1, "7", "launch", "2024-03-01T12:00:00.000Z", "project", null],
      [2, "7", "on the chart", "2024-03-02T00:00:00.000Z", "dashboard_item", 1],
    ]);
    expect(meta.counters.annotation).toBe(2);
  });

  it("keeps project settings, surveys, early access features and the tracking plan", () => {
    const { meta } = load(doc);
    // surveys_opt_in follows the project's running surveys, as the real service's save hook sets it: NPS is a draft.
    expect(meta.projects[0]).toMatchObject({ week_start_day: 1, session_recording_opt_in: true, surveys_opt_in: false });
    expect(meta.surveys).toEqual([
      expect.objectContaining({ project_id: "7", name: "NPS", type: "popover", start_date: null, questions: [{ type: "rating", question: "How likely?", id: expect.stringMatching(/^[0-9a-f-]{36}$/) }] }),
    ]);
    // The same ids on every load of the document: a reload keeps a survey's and its questions' keys.
    const again = load(doc).meta;
    expect(again.surveys![0]!.id).toBe(meta.surveys![0]!.id);
    expect(again.surveys![0]!.questions).toEqual(meta.surveys![0]!.questions);
    // An early access feature gets its flag as the API makes one: keyed by the name, enrolment as its super condition.
    const flag = meta.feature_flags.find((f) => f.key === "beta")!;
    expect(meta.early_access_features).toEqual([expect.objectContaining({ project_id: "7", name: "Beta", stage: "beta", feature_flag_id: flag.id })]);
    expect(flag.filters).toMatchObject({ super_groups: [{ properties: [{ key: "$feature_enrollment/beta", type: "person" }] }] });
    expect(meta.tracking_plan).toEqual({ events: { signup: { type: "object" } }, additional_events: "allow" });
  });

  it("still loads a document of the earlier shape without the new keys", () => {
    const { meta } = load(basic);
    expect(meta.annotations).toEqual([]);
    expect(meta).not.toHaveProperty("surveys");
    expect(meta).not.toHaveProperty("tracking_plan");
  });
});

describe("a bad fixture", () => {
  it("lists every value the schema refuses, each with its JSON pointer, in one refusal", () => {
    const doc = { version: 1, projects: [{ id: "1" }], users: [{ id: "x", email: "a@b.c", personal_api_keys: [] }], extra: true };
    const error = refusal(doc);
    expect(error.problems.map((p) => p.pointer).sort()).toEqual(["", "/projects/0", "/users/0/id"]);
    expect(error.message).toMatch(/^3 problems: /);
    expect(error.message).toContain('/: must NOT have additional properties ("extra")');
    expect(error.message).toContain("/projects/0: must have required property 'name'");
  });

  it("lists every value the loader refuses (unknown projects, duplicates) in one refusal", () => {
    const doc = oneProject({
      persons: [{ project_id: "9", distinct_ids: ["a"] }, { project_id: "7", distinct_ids: ["a"] }, { project_id: "7", distinct_ids: ["a"] }],
      dashboards: [{ project_id: "7", name: "D", tiles: [{ insight: "nope" }] }],
    });
    expect(refusal(doc).problems).toEqual([
      { pointer: "/persons/0/project_id", reason: 'unknown project "9"' },
      { pointer: "/persons/2/distinct_ids/0", reason: 'distinct id "a" belongs to another person' },
      { pointer: "/dashboards/0/tiles/0/insight", reason: 'no insight with short_id "nope" in project 7' },
    ]);
  });

  it("with one problem, says it as before: pointer and reason", () => {
    expect(refusal(oneProject({ persons: [{ project_id: "9", distinct_ids: ["a"] }] })).message).toBe('/persons/0/project_id: unknown project "9"');
  });
});

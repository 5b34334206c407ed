/** The local-evaluation body, shaped as PostHog's `_get_flags_response_for_local_evaluation` with send_cohorts. */
import { describe, expect, it } from "vitest";
import { buildLocalEvaluationBody } from "../../../src/flags/index.ts";
import { flag } from "./support.ts";

describe("buildLocalEvaluationBody", () => {
  const base = flag("base", { groups: [{ properties: [{ key: "id", type: "cohort", value: 10 }], rollout_percentage: 50 }] });
  const middle = flag("middle", { groups: [{ properties: [{ key: String(base.id), type: "flag", operator: "flag_evaluates_to", value: true }] }] });
  const top = flag("top", { groups: [{ properties: [{ key: String(middle.id), type: "flag", operator: "flag_evaluates_to", value: "x" }, { key: "id", type: "cohort", value: 12 }] }] });
  const orphan = flag("orphan", { groups: [{ properties: [{ key: "424242", type: "flag", operator: "flag_evaluates_to", value: true }] }] });
  const selfish = flag("selfish", { groups: [] });
  selfish.filters.groups = [{ properties: [{ key: String(selfish.id), type: "flag", operator: "flag_evaluates_to", value: true }] }];
  const off = flag("off", { groups: [] }, { active: false });
  const deleted = flag("deleted", { groups: [] }, { deleted: true });
  const body = buildLocalEvaluationBody({
    flags: [base, middle, top, orphan, selfish, off, deleted],
    projectId: 7,
    groupTypes: { 0: "company", 1: "project" },
    cohorts: [
      { id: 10, filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "id", type: "cohort", value: 11 }] }] } } },
      { id: 11, filters: { properties: { type: "AND", values: [{ type: "AND", values: [{ key: "plan", type: "person", value: "pro" }] }] } } },
      { id: 12, person_ids: ["a"] },
      { id: 13, filters: { properties: { type: "AND", values: [] } } },
    ],
  });

  it("serializes undeleted flags (inactive included) with the serializer's fields", () => {
    expect(body.flags.map((f) => f.key)).toEqual(["base", "middle", "top", "orphan", "selfish", "off"]);
    expect(Object.keys(body.flags[0]!)).toEqual([
      "id", "team_id", "name", "key", "filters", "deleted", "active", "ensure_experience_continuity", "has_encrypted_payloads", "version", "evaluation_runtime", "evaluation_tags",
    ]);
    expect(body.flags[0]).toMatchObject({ id: base.id, team_id: 7, name: "base", active: true, deleted: false, version: 1 });
  });

  it("maps group type indexes as strings", () => {
    expect(body.group_type_mapping).toEqual({ "0": "company", "1": "project" });
  });

  it("rewrites flag dependencies to keys with their evaluation chain", () => {
    const props = (key: string) => body.flags.find((f) => f.key === key)!.filters.groups![0]!.properties!;
    expect(props("middle")[0]).toMatchObject({ key: "base", dependency_chain: ["base"] });
    expect(props("top")[0]).toMatchObject({ key: "middle", dependency_chain: ["base", "middle"] });
    expect(props("orphan")[0]).toMatchObject({ key: "424242", dependency_chain: [] });
    expect(props("selfish")[0]).toMatchObject({ key: "selfish", dependency_chain: [] });
  });

  it("sends the dynamic cohorts flags reference, with the cohorts they reference; never static ones", () => {
    expect(Object.keys(body.cohorts).sort()).toEqual(["10", "11"]);
    expect(body.cohorts["11"]).toEqual({ type: "AND", values: [{ type: "AND", values: [{ key: "plan", type: "person", value: "pro" }] }] });
  });

  it("does not touch the definitions it was given", () => {
    expect(middle.filters.groups![0]!.properties![0]!.key).toBe(String(base.id));
  });
});

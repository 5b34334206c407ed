/** Evaluation worked by hand: buckets computed here with node:crypto, reasons from the flags service's `get_match`. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { evaluateFlags, flagHash, type FeatureFlagDefinition, type FlagEvaluation } from "../../../src/flags/index.ts";
import { flag, NOW, person, subjectFor, type Person } from "./support.ts";

/** Independent of the module: sha1 of "key.id" + salt, 15 hex digits over 0xFFFFFFFFFFFFFFF. */
const bucket = (key: string, id: string, salt = "") =>
  parseInt(createHash("sha1").update(`${key}.${id}${salt}`).digest("hex").slice(0, 15), 16) / 0xfffffffffffffff;

const run = (flags: FeatureFlagDefinition[], who: Person, options: { onlyKeys?: string[]; override?: string; cohorts?: Parameters<typeof subjectFor>[1] } = {}) =>
  evaluateFlags(flags, subjectFor(who, options.cohorts ?? [], NOW, options.override === undefined ? undefined : new Map(flags.map((f) => [f.key, options.override!]))), options.onlyKeys, NOW);
const one = (f: FeatureFlagDefinition, who: Person, options: Parameters<typeof run>[2] = {}): FlagEvaluation => run([f], who, options).get(f.key)!;
const summary = (e: FlagEvaluation | undefined) => e && { enabled: e.enabled, variant: e.variant, reason: e.reason };

describe("the bucket", () => {
  it("is sha1('rollout-flag.alice'), first 15 hex digits, scaled to [0, 1]", () => {
    expect(createHash("sha1").update("rollout-flag.alice").digest("hex").slice(0, 15)).toBe("7e13bd123f2bba0");
    expect(flagHash("rollout-flag", "alice", "")).toBeCloseTo(0x7e13bd123f2bba0 / 0xfffffffffffffff, 15);
    expect(flagHash("rollout-flag", "alice", "")).toBeCloseTo(0.4925, 4);
    expect(flagHash("mv", "erin", "variant")).toBe(bucket("mv", "erin", "variant"));
  });

  it("admits alice at 50 % and not at 49 % (her bucket is 0.4925)", () => {
    const at = (rollout: number) => one(flag("rollout-flag", { groups: [{ properties: [], rollout_percentage: rollout }] }), person("alice"));
    expect(summary(at(50))).toEqual({ enabled: true, variant: null, reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" } });
    expect(summary(at(49))).toEqual({ enabled: false, variant: null, reason: { code: "out_of_rollout_bound", condition_index: 0, description: "Out of rollout bound" } });
  });

  it("puts each of ten people exactly where their own bucket says, for 30 %", () => {
    const f = flag("rollout-flag", { groups: [{ properties: [], rollout_percentage: 30 }] });
    for (const id of ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]) {
      expect(one(f, person(id)).enabled, id).toBe(bucket("rollout-flag", id) <= 0.3);
    }
  });
});

describe("variants", () => {
  const mv = (groups: FeatureFlagDefinition["filters"]["groups"]) =>
    flag("mv", {
      groups,
      multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 25 }, { key: "third", rollout_percentage: 25 }] },
      payloads: { control: '{"c":1}', test: "not json", true: '"bool"' },
    });

  it("takes the variant whose cumulative share passes the variant bucket", () => {
    // erin 0.1156 -> control (< 0.5); alice 0.5315 -> test (< 0.75); judy 0.9400 -> third.
    const f = mv([{ properties: [], rollout_percentage: 100 }]);
    expect(one(f, person("erin")).variant).toBe("control");
    expect(one(f, person("alice")).variant).toBe("test");
    expect(one(f, person("judy")).variant).toBe("third");
    expect(one(f, person("erin")).payload).toEqual({ c: 1 });
    expect(one(f, person("alice")).payload).toBe("not json");
    expect(one(f, person("judy")).payload).toBeUndefined();
  });

  it("uses a condition's variant only when it names one of the flag's variants", () => {
    expect(one(mv([{ properties: [], variant: "third" }]), person("erin")).variant).toBe("third");
    expect(one(mv([{ properties: [], variant: "gone" }]), person("erin")).variant).toBe("control");
  });

  it("is enabled without a variant when the shares do not cover the bucket", () => {
    const f = flag("mv", { groups: [{ properties: [] }], multivariate: { variants: [{ key: "a", rollout_percentage: 10 }] }, payloads: { true: "1" } });
    expect(summary(one(f, person("judy")))).toMatchObject({ enabled: true, variant: null });
    expect(one(f, person("judy")).payload).toBe(1);
  });
});

describe("conditions and reasons", () => {
  const plan = (value: string) => ({ key: "plan", type: "person", operator: "exact", value });

  it("reports the most telling non-match: out of rollout beats no match, and a later tie wins", () => {
    const f = flag("rollout-flag", {
      groups: [{ properties: [plan("pro")] }, { properties: [], rollout_percentage: 10 }, { properties: [plan("team")] }],
    });
    expect(one(f, person("alice", { plan: "free" })).reason).toEqual({ code: "out_of_rollout_bound", condition_index: 1, description: "Out of rollout bound" });
    const noMatch = flag("nm", { groups: [{ properties: [plan("pro")] }, { properties: [plan("team")] }] });
    expect(one(noMatch, person("alice", { plan: "free" })).reason).toEqual({ code: "no_condition_match", condition_index: 1, description: "No matching condition set" });
  });

  it("the first matching condition decides", () => {
    const f = flag("first", { groups: [{ properties: [plan("free")], rollout_percentage: 0 }, { properties: [plan("free")] }, { properties: [] }] });
    expect(one(f, person("alice", { plan: "free" })).reason).toEqual({ code: "condition_match", condition_index: 1, description: "Matched condition set 2" });
  });

  it("a flag without conditions is off with no_group_type (the service's starting reason)", () => {
    expect(one(flag("empty", { groups: [] }), person("alice")).reason).toEqual({ code: "no_group_type", condition_index: null, description: "No group type" });
  });

  it("hashes a continuity flag on the override the person first had", () => {
    const f = flag("rollout-flag", { groups: [{ properties: [], rollout_percentage: 30 }] }, { ensure_experience_continuity: true });
    // heidi 0.2630 is in, grace 0.8687 is out: grace evaluated with heidi's anonymous id is in.
    expect(one(f, person("grace"), { override: "heidi" }).enabled).toBe(true);
    expect(one(f, person("grace")).enabled).toBe(false);
    const plain = flag("rollout-flag", { groups: [{ properties: [], rollout_percentage: 30 }] });
    expect(one(plain, person("grace"), { override: "heidi" }).enabled).toBe(false);
  });

  it("leaves inactive and deleted flags out of the answer", () => {
    const flags = [flag("off", { groups: [{ properties: [] }] }, { active: false }), flag("gone", { groups: [{ properties: [] }] }, { deleted: true })];
    expect([...run(flags, person("alice")).keys()]).toEqual([]);
  });

  it("copies id and version (0 when absent)", () => {
    const f = flag("v", { groups: [{ properties: [] }] }, { version: undefined });
    expect(one(f, person("alice"))).toMatchObject({ id: f.id, version: 0, key: "v" });
  });
});

describe("group flags", () => {
  const companyFlag = flag("group-flag", {
    aggregation_group_type_index: 0,
    groups: [{ properties: [{ key: "tier", type: "group", group_type_index: 0, operator: "exact", value: "gold" }], rollout_percentage: 50 }],
  });

  it("hashes the group key, not the person", () => {
    // group-flag buckets: erin 0.2701 (in at 50 %), frank 0.5415 (out).
    const inErin = person("zed", {}, { company: "erin" }, { company: { tier: "gold" } });
    const inFrank = person("zed", {}, { company: "frank" }, { company: { tier: "gold" } });
    expect(one(companyFlag, inErin).enabled).toBe(true);
    expect(one(companyFlag, inFrank).reason.code).toBe("out_of_rollout_bound");
  });

  it("is off with no_group_type when the request names no such group", () => {
    expect(one(companyFlag, person("zed")).reason).toEqual({ code: "no_group_type", condition_index: 0, description: "No group type" });
  });

  it("says group conditions were skipped when person conditions did not match either", () => {
    const mixed = flag("mixed", {
      groups: [
        { properties: [{ key: "plan", type: "person", operator: "exact", value: "pro" }], aggregation_group_type_index: null },
        { properties: [], aggregation_group_type_index: 0 },
      ],
    });
    expect(one(mixed, person("zed", { plan: "free" })).reason).toEqual({
      code: "no_condition_match",
      condition_index: 0,
      description: "No matching condition set (group conditions were not evaluated because no group type was provided)",
    });
    expect(one(mixed, person("zed", { plan: "free" }, { company: "acme" })).reason.code).toBe("condition_match");
  });
});

describe("cohorts", () => {
  const inCohort = (id: number, operator?: string) => flag(`cohort-${id}-${operator ?? "in"}`, { groups: [{ properties: [{ key: "id", type: "cohort", value: id, operator }] }] });
  const cohorts = [
    { id: 1, person_ids: ["alice"] },
    { id: 2, filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ key: "plan", type: "person", operator: "exact", value: "pro" }] }] } } },
  ];

  it("reads static cohorts through the caller's lookup (posthog-node cannot: it defers them to the server)", () => {
    expect(one(inCohort(1), person("alice"), { cohorts }).enabled).toBe(true);
    expect(one(inCohort(1), person("bob"), { cohorts }).enabled).toBe(false);
    expect(one(inCohort(1, "not_in"), person("bob"), { cohorts }).enabled).toBe(true);
  });

  it("reads dynamic cohorts from person properties", () => {
    expect(one(inCohort(2), person("bob", { plan: "pro" }), { cohorts }).enabled).toBe(true);
  });

  it("answers an error for an unknown cohort, as the service does", () => {
    expect(one(inCohort(99), person("bob"), { cohorts })).toMatchObject({
      enabled: false,
      errored: true,
      reason: { code: "dependency_not_found", condition_index: null, description: null },
    });
  });
});

describe("flag dependencies", () => {
  const base = flag("base", { groups: [{ properties: [], rollout_percentage: 30 }] });
  const on = (target: FeatureFlagDefinition | { id: number }, value: unknown, key = "dependent") =>
    flag(key, { groups: [{ properties: [{ key: String(target.id), type: "flag", operator: "flag_evaluates_to", value }] }] });

  it("follows the dependency's value, evaluated first whatever the list order", () => {
    const dependent = on(base, true);
    const inBase = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"].find((id) => bucket("base", id) <= 0.3)!;
    expect(run([dependent, base], person(inBase)).get("dependent")!.enabled).toBe(true);
    const notInBase = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"].find((id) => bucket("base", id) > 0.3)!;
    expect(run([dependent, base], person(notInBase)).get("dependent")!.enabled).toBe(false);
    expect(run([on(base, false), base], person(notInBase)).get("dependent")!.enabled).toBe(true);
  });

  it("fails closed on a missing flag, a cycle, and anything depending on those", () => {
    const missing = on({ id: 999_999 }, true, "missing");
    const a = flag("a", { groups: [] });
    const b = on(a, true, "b");
    a.filters.groups = [{ properties: [{ key: String(b.id), type: "flag", operator: "flag_evaluates_to", value: true }] }];
    const behind = on(missing, false, "behind");
    const results = run([missing, a, b, behind], person("alice"));
    for (const key of ["missing", "a", "b", "behind"]) {
      expect(results.get(key)!.reason, key).toEqual({ code: "missing_dependency", condition_index: null, description: "Flag cannot be evaluated due to missing dependency" });
    }
  });

  it("with onlyKeys, evaluates and returns the requested flags and their dependencies", () => {
    const dependent = on(base, true);
    const other = flag("other", { groups: [{ properties: [] }] });
    expect([...run([dependent, base, other], person("alice"), { onlyKeys: ["dependent"] }).keys()].sort()).toEqual(["base", "dependent"]);
  });

  it("counts an inactive flag as false", () => {
    const off = flag("off", { groups: [{ properties: [] }] }, { active: false });
    expect(run([off, on(off, false)], person("alice")).get("dependent")!.enabled).toBe(true);
    expect(run([off, on(off, true)], person("alice")).get("dependent")!.enabled).toBe(false);
  });
});

describe("property sources", () => {
  it("a group filter on a person flag without a group type index reads no properties", () => {
    const f = flag("g", { groups: [{ properties: [{ key: "plan", type: "group", operator: "is_not", value: "x" }, { key: "plan", type: "group", operator: "is_set", value: "is_set" }] }] });
    expect(one(f, person("alice", { plan: "pro" })).enabled).toBe(false);
  });

  it("a group filter reads its own group type's properties on a person flag", () => {
    const f = flag("g", { groups: [{ properties: [{ key: "tier", type: "group", group_type_index: 0, operator: "exact", value: "gold" }] }] });
    expect(one(f, person("alice", { tier: "silver" }, { company: "acme" }, { company: { tier: "gold" } })).enabled).toBe(true);
  });
});

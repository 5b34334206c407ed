/**
 * posthog-node's own local evaluation is the oracle: it implements the flags service's algorithm. It is fed our
 * definitions body through its `fetch` option, and must agree with `evaluateFlags` for 1,000 people on every flag it
 * can resolve locally. (It leaves unresolved what it cannot decide without the server, e.g. a property the person lacks.)
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PostHog } from "posthog-node";
import { buildLocalEvaluationBody, evaluateFlags, type CohortDefinition, type FeatureFlagDefinition } from "../../../src/flags/index.ts";
import { flag, GROUP_TYPES, NOW, person, subjectFor, type Person } from "./support.ts";

const prop = (key: string, operator: string, value: unknown, extra: Record<string, unknown> = {}) => ({ key, type: "person", operator, value, ...extra });
const only = (...properties: ReturnType<typeof prop>[]) => ({ groups: [{ properties, rollout_percentage: null }] });

const multivariate = flag("multivariate", {
  groups: [
    { properties: [prop("plan", "exact", "enterprise")], rollout_percentage: 100, variant: "other" },
    { properties: [prop("plan", "exact", "free")], rollout_percentage: 100, variant: "no-such-variant" },
    { properties: [], rollout_percentage: 80 },
  ],
  multivariate: { variants: [{ key: "control", rollout_percentage: 34 }, { key: "test", rollout_percentage: 33 }, { key: "other", rollout_percentage: 33 }] },
  payloads: { control: '{"color":"blue"}', test: '{"color":"red"}', other: '"plain"' },
});
const rollout30 = flag("rollout-30", { groups: [{ properties: [], rollout_percentage: 30 }], payloads: { true: '{"a":1}' } });
const inactive = flag("inactive", { groups: [{ properties: [], rollout_percentage: 100 }] }, { active: false });
const emailFlag = flag("email", {
  groups: [
    { properties: [prop("email", "icontains", "POSTHOG")], rollout_percentage: 100 },
    { properties: [prop("email", "not_icontains", "example")], rollout_percentage: 50 },
  ],
});

const FLAGS: FeatureFlagDefinition[] = [
  rollout30,
  multivariate,
  inactive,
  emailFlag,
  flag("zero", { groups: [{ properties: [], rollout_percentage: 0 }] }),
  flag("exact-list", only(prop("country", "exact", ["us", "CA"]))),
  flag("exact-scalar", only(prop("plan", "exact", "PRO"))),
  flag("is-not", only(prop("plan", "is_not", ["free", "pro"]))),
  flag("truthy", only(prop("beta", "exact", ["true"]))),
  flag("falsy", only(prop("beta", "exact", false))),
  flag("regex", only(prop("email", "regex", "^user\\d*[05]@"))),
  flag("not-regex", only(prop("email", "not_regex", "posthog\\.com$"))),
  flag("invalid-regex", { groups: [{ properties: [prop("email", "regex", "([")] }, { properties: [prop("email", "not_regex", "([")] }] }),
  flag("starts-ends", only(prop("email", "starts_with", "USER1"), prop("email", "ends_with", ".org"))),
  flag("numeric", only(prop("age", "gt", 30), prop("age", "lte", "60"))),
  flag("numeric-2", only(prop("score", "gte", 2.5), prop("score", "lt", 7))),
  flag("date-relative", only(prop("signup", "is_date_after", "-30d"))),
  flag("date-absolute", only(prop("signup", "is_date_before", "2026-11-01"))),
  flag("date-hours", only(prop("last_seen", "is_date_after", "-36h"))),
  flag("date-months", { groups: [{ properties: [prop("signup", "is_date_after", "-1m")] }, { properties: [prop("signup", "is_date_before", "-1y")] }] }),
  flag("date-weeks", only(prop("signup", "is_date_before", "-2w"))),
  flag("semver-gte", only(prop("app_version", "semver_gte", "1.5.0"))),
  flag("semver-lt-eq", { groups: [{ properties: [prop("app_version", "semver_lt", "1.0.0")] }, { properties: [prop("app_version", "semver_eq", "2.3.4")] }] }),
  flag("semver-ranges", {
    groups: [
      { properties: [prop("app_version", "semver_tilde", "2.3.0")] },
      { properties: [prop("app_version", "semver_caret", "0.4.1")] },
      { properties: [prop("app_version", "semver_wildcard", "3.*")] },
      { properties: [prop("app_version", "semver_neq", "1.1.1"), prop("app_version", "semver_lte", "1.9.9")], rollout_percentage: 40 },
    ],
  }),
  flag("is-set", only(prop("referrer", "is_set", "is_set"))),
  flag("is-not-set", only(prop("referrer", "is_not_set", "is_not_set"))),
  flag("nullable", { groups: [{ properties: [prop("nickname", "icontains", "a")] }, { properties: [prop("nickname", "exact", "null")], rollout_percentage: 70 }] }),
  flag(
    "group",
    {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: "tier", type: "group", group_type_index: 0, operator: "exact", value: "gold" }], rollout_percentage: 60 }],
      payloads: { true: "[1,2]" },
    },
  ),
  flag("group-plain", { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 45 }] }),
  flag("cohort", only({ key: "id", type: "cohort", value: 7 } as never)),
  flag("not-in-cohort", { groups: [{ properties: [{ key: "id", type: "cohort", operator: "not_in", value: 8 }], rollout_percentage: 50 }] }),
  flag("depends-variant", only({ key: String(multivariate.id), type: "flag", operator: "flag_evaluates_to", value: "test" } as never)),
  flag("depends-true", { groups: [{ properties: [{ key: String(rollout30.id), type: "flag", operator: "flag_evaluates_to", value: true }], rollout_percentage: 70 }] }),
  flag("depends-false", only({ key: String(emailFlag.id), type: "flag", operator: "flag_evaluates_to", value: false } as never)),
  flag("depends-inactive", only({ key: String(inactive.id), type: "flag", operator: "flag_evaluates_to", value: false } as never)),
];

const COHORTS: CohortDefinition[] = [
  {
    id: 7,
    filters: {
      properties: {
        type: "OR",
        values: [
          { type: "AND", values: [prop("country", "exact", ["US"]), prop("age", "gt", 25)] },
          { type: "AND", values: [prop("plan", "exact", "enterprise"), prop("email", "icontains", "posthog", { negation: true })] },
        ],
      },
    },
  },
  { id: 8, filters: { properties: { type: "AND", values: [{ type: "OR", values: [prop("country", "exact", "DE"), { key: "id", type: "cohort", value: 9 } as never] }] } } },
  { id: 9, filters: { properties: { type: "AND", values: [{ type: "AND", values: [prop("score", "gt", 8)] }] } } },
];

/** A small deterministic generator, so the 1,000 people are the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function people(count: number): Person[] {
  const next = random(42);
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)]!;
  const day = 86_400_000;
  return Array.from({ length: count }, (_, i) => {
    const distinctId = i % 3 === 0 ? `user-${i}` : `${(i * 2654435761) >>> 0}-${i}`;
    const properties: Record<string, unknown> = {
      email: `user${i}@${pick(["example.com", "posthog.com", "Test.ORG"])}`,
      plan: pick(["free", "pro", "Pro", "enterprise", "team"]),
      country: pick(["US", "us", "CA", "DE", "FR"]),
      age: next() < 0.5 ? Math.floor(10 + next() * 70) : String(Math.floor(10 + next() * 70)),
      score: Math.round(next() * 1000) / 100,
      beta: pick([true, false, "true", "False", "maybe"]),
      signup: new Date(NOW.getTime() - Math.floor(next() * 500) * day - Math.floor(next() * day)).toISOString(),
      last_seen: new Date(NOW.getTime() - Math.floor(next() * 72 * 3_600_000)).toISOString(),
      app_version: `${Math.floor(next() * 4)}.${Math.floor(next() * 12)}.${Math.floor(next() * 15)}`,
      nickname: pick([null, "ann", "bob", "null"]),
    };
    if (next() < 0.5) properties.referrer = pick(["google", "", null]);
    const inCompany = next() < 0.7;
    const company = `company-${Math.floor(next() * 40)}`;
    const groups: Record<string, string> = inCompany ? { company } : {};
    const groupProperties: Record<string, Record<string, unknown>> = inCompany ? { company: { tier: pick(["gold", "silver", "GOLD"]) } } : {};
    return person(distinctId, properties, groups, groupProperties);
  });
}

type Answer = { featureFlags: Record<string, string | boolean>; featureFlagPayloads: Record<string, unknown> };

describe("evaluateFlags agrees with posthog-node local evaluation", () => {
  const body = buildLocalEvaluationBody({ flags: FLAGS, projectId: 1, groupTypes: GROUP_TYPES, cohorts: COHORTS });
  const everyone = people(1000);
  const answers = new Map<string, Answer>();
  let client: PostHog;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    const definitionsRequests: string[] = [];
    client = new PostHog("phc_oracle", {
      host: "http://flags.test",
      personalApiKey: "phx_oracle",
      featureFlagsPollingInterval: 3_600_000,
      fetch: async (url) => {
        if (url.includes("/flags/definitions")) definitionsRequests.push(url);
        const json = url.includes("/flags/definitions") ? body : {};
        return { status: 200, headers: new Headers(), text: async () => JSON.stringify(json), json: async () => json } as never;
      },
    });
    for (const p of everyone) {
      const groupProperties = Object.fromEntries(Object.entries(p.groupProperties));
      answers.set(
        p.distinctId,
        (await client.getAllFlagsAndPayloads(p.distinctId, { personProperties: p.properties, groups: p.groups, groupProperties, onlyEvaluateLocally: true })) as Answer,
      );
    }
    expect(definitionsRequests[0]).toContain("send_cohorts");
  });

  afterAll(async () => {
    await client.shutdown();
    vi.useRealTimers();
  });

  /** posthog-node adds distinct_id to person properties and $group_key to group properties; the caller merges the same. */
  const ours = (p: Person) =>
    evaluateFlags(
      FLAGS,
      subjectFor(
        {
          ...p,
          properties: { distinct_id: p.distinctId, ...p.properties },
          groupProperties: Object.fromEntries(Object.entries(p.groups).map(([type, key]) => [type, { $group_key: key, ...p.groupProperties[type] }])),
        },
        COHORTS,
      ),
      undefined,
      NOW,
    );

  it("gives the same value and payload for every flag it resolves", () => {
    const resolved = new Map<string, number>();
    const mismatches: string[] = [];
    for (const p of everyone) {
      const theirs = answers.get(p.distinctId)!;
      const mine = ours(p);
      for (const [key, value] of Object.entries(theirs.featureFlags)) {
        resolved.set(key, (resolved.get(key) ?? 0) + 1);
        const result = mine.get(key);
        // posthog-node answers false for an inactive flag; the service leaves it out.
        const myValue = result ? (result.enabled ? (result.variant ?? true) : false) : false;
        const myPayload = result?.enabled ? (result.payload ?? null) : null;
        if (myValue !== value || JSON.stringify(myPayload) !== JSON.stringify(theirs.featureFlagPayloads[key] ?? null)) {
          mismatches.push(`${p.distinctId} ${key}: ours ${JSON.stringify([myValue, myPayload])} theirs ${JSON.stringify([value, theirs.featureFlagPayloads[key]])}`);
        }
      }
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    // Every flag is resolved for every person, except where a person lacks the property the filter reads.
    for (const f of FLAGS) {
      const want = ["is-set", "is-not-set"].includes(f.key) ? 400 : 1000;
      expect(resolved.get(f.key) ?? 0, f.key).toBeGreaterThanOrEqual(want);
    }
  });

  it("sees every flag's values vary across people (the comparison is not vacuous)", () => {
    // posthog-node resolves is_set / is_not_set only for people who have the property, so those come out constant.
    const constant = new Set(["inactive", "depends-inactive", "zero", "invalid-regex", "is-set", "is-not-set"]);
    for (const f of FLAGS.filter((f) => !constant.has(f.key))) {
      const values = new Set(everyone.map((p) => answers.get(p.distinctId)!.featureFlags[f.key]).filter((v) => v !== undefined));
      expect(values.size, f.key).toBeGreaterThan(1);
    }
    const variants = new Set(everyone.map((p) => answers.get(p.distinctId)!.featureFlags.multivariate));
    expect(variants).toEqual(new Set([false, "control", "test", "other"]));
  });

  it("puts the same people in a 30% rollout (about 30% of them)", () => {
    const theirs = everyone.filter((p) => answers.get(p.distinctId)!.featureFlags["rollout-30"] === true).map((p) => p.distinctId);
    const mine = everyone.filter((p) => ours(p).get("rollout-30")!.enabled).map((p) => p.distinctId);
    expect(mine).toEqual(theirs);
    expect(mine.length).toBeGreaterThan(250);
    expect(mine.length).toBeLessThan(350);
  });

  it("leaves inactive flags out, where posthog-node answers false", () => {
    const p = everyone[0]!;
    expect(answers.get(p.distinctId)!.featureFlags.inactive).toBe(false);
    expect(ours(p).has("inactive")).toBe(false);
  });
});

/**
 * Early access enrolment (`super_groups`), as the early access features API writes it. posthog-node's local
 * evaluation ignores `super_groups`, so it is the oracle for the people whose enrolment property is not set (the
 * normal conditions decide); for enrolled and unenrolled people the flags service's rule is worked out by hand:
 * the super condition alone decides, reason `super_condition_value`, no variant (reference: flags service
 * `flag_matching.rs` `get_match` / `is_super_condition_match`; PostHog's
 * products/early_access_features/backend/test/test_early_access_feature.py writes these filters).
 */
describe("super_groups: enrolment decides first, as the flags service evaluates it", () => {
  const enrolment = (key: string) => ({ properties: [prop(`$feature_enrollment/${key}`, "exact", ["true"])], rollout_percentage: 100 });
  const FEATURES: FeatureFlagDefinition[] = [
    flag("early-off", { groups: [{ properties: [], rollout_percentage: 0 }], super_groups: [enrolment("early-off")], payloads: { true: '{"beta":true}' } }),
    flag("early-35", { groups: [{ properties: [], rollout_percentage: 35 }], super_groups: [enrolment("early-35")] }),
    flag("early-none", { groups: [{ properties: [], rollout_percentage: 35 }], super_groups: null }),
  ];
  const body = buildLocalEvaluationBody({ flags: FEATURES, projectId: 1, groupTypes: GROUP_TYPES, cohorts: [] });
  const STATES = [undefined, true, "true", false, "false"] as const;
  /** 500 people; person i has the enrolment property set to STATES[i % 5] on both enrolment flags (absent for undefined). */
  const everyone = Array.from({ length: 500 }, (_, i) => {
    const state = STATES[i % 5];
    const properties: Record<string, unknown> = state === undefined ? {} : { "$feature_enrollment/early-off": state, "$feature_enrollment/early-35": state };
    return person(`enrol-${i}`, properties);
  });
  const nodeAnswers = new Map<string, Answer>();
  let client: PostHog;

  beforeAll(async () => {
    client = new PostHog("phc_oracle_ea", {
      host: "http://flags.test",
      personalApiKey: "phx_oracle",
      featureFlagsPollingInterval: 3_600_000,
      fetch: async (url) => {
        const json = url.includes("/flags/definitions") ? body : {};
        return { status: 200, headers: new Headers(), text: async () => JSON.stringify(json), json: async () => json } as never;
      },
    });
    for (const p of everyone) {
      nodeAnswers.set(p.distinctId, (await client.getAllFlagsAndPayloads(p.distinctId, { personProperties: p.properties, onlyEvaluateLocally: true })) as Answer);
    }
  });
  afterAll(() => client.shutdown());

  const ours = (p: Person) => evaluateFlags(FEATURES, subjectFor({ ...p, properties: { distinct_id: p.distinctId, ...p.properties } }), undefined, NOW);

  it("without the enrolment property, the normal conditions decide, as posthog-node answers", () => {
    const unset = everyone.filter((_, i) => STATES[i % 5] === undefined);
    const mismatches = unset.flatMap((p) =>
      FEATURES.filter((f) => ours(p).get(f.key)!.enabled !== nodeAnswers.get(p.distinctId)!.featureFlags[f.key]).map((f) => `${p.distinctId} ${f.key}`),
    );
    expect(mismatches).toEqual([]);
    expect(unset.some((p) => ours(p).get("early-35")!.enabled)).toBe(true);
    expect(unset.every((p) => ours(p).get("early-35")!.reason.code !== "super_condition_value")).toBe(true);
  });

  it("an enrolled person (true or \"true\") gets the flag with reason super_condition_value and the payload, even at 0% rollout", () => {
    const enrolled = everyone.filter((_, i) => STATES[i % 5] === true || STATES[i % 5] === "true");
    for (const p of enrolled) {
      const result = ours(p).get("early-off")!;
      expect(result).toMatchObject({ enabled: true, variant: null, payload: { beta: true } });
      expect(result.reason).toEqual({ code: "super_condition_value", condition_index: 0, description: "Super condition value" });
      expect(ours(p).get("early-35")!.enabled).toBe(true);
      // posthog-node does not read super_groups: it answers the 0% rollout.
      expect(nodeAnswers.get(p.distinctId)!.featureFlags["early-off"]).toBe(false);
    }
  });

  it("a person whose enrolment is set to false gets false, even inside the normal rollout", () => {
    const unenrolled = everyone.filter((_, i) => STATES[i % 5] === false || STATES[i % 5] === "false");
    for (const p of unenrolled) {
      expect(ours(p).get("early-35")).toMatchObject({ enabled: false, reason: { code: "super_condition_value", condition_index: 0 } });
    }
    // posthog-node, which ignores super_groups, puts some of them inside the 35% rollout: the super condition overrode it.
    expect(unenrolled.filter((p) => nodeAnswers.get(p.distinctId)!.featureFlags["early-35"] === true).length).toBeGreaterThan(0);
  });

  it("a flag without super_groups ignores the property", () => {
    for (const p of everyone) expect(ours(p).get("early-none")!.enabled).toBe(nodeAnswers.get(p.distinctId)!.featureFlags["early-none"]);
  });
});

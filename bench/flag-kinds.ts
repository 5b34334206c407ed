/** The flags the flags benchmarks load: the kinds a real project mixes, in one web project. */
import type { FixtureFeatureFlag } from "../src/store/fixture-document.ts";

const person = (key: string, value: unknown, operator = "exact") => ({ key, value, operator, type: "person" });

/** N flags of the kinds a real project mixes, all in the web project. */
export function benchFlags(n: number): FixtureFeatureFlag[] {
  const kinds: ((i: number) => Omit<FixtureFeatureFlag, "project_id" | "id" | "key">)[] = [
    (i) => ({ filters: { groups: [{ properties: [], rollout_percentage: (i * 7) % 100 }] } }),
    () => ({
      ensure_experience_continuity: true,
      filters: {
        groups: [{ properties: [person("is_beta", ["true"])], variant: "b" }, { properties: [], rollout_percentage: 80 }],
        multivariate: { variants: [{ key: "a", rollout_percentage: 34 }, { key: "b", rollout_percentage: 33 }, { key: "c", rollout_percentage: 33 }] },
        payloads: { a: '{"x": 1}', b: '{"x": 2}' },
      },
    }),
    () => ({ filters: { groups: [{ properties: [person("plan", ["pro", "team", "enterprise"]), person("email", "@gmail", "not_icontains")], rollout_percentage: 100 }] } }),
    () => ({ filters: { groups: [{ properties: [person("country", "^(US|DE|FR)$", "regex")], rollout_percentage: 50 }] } }),
    () => ({ filters: { groups: [{ properties: [{ key: "id", value: 3, operator: "in", type: "cohort" }], rollout_percentage: 100 }] } }),
    () => ({ filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: "employee_count", value: "20", operator: "gt", type: "group", group_type_index: 0 }], rollout_percentage: 70 }] } }),
    (i) => ({ filters: { groups: [{ properties: [{ key: String(i), value: true, operator: "flag_evaluates_to", type: "flag" }], rollout_percentage: 100 }] } }),
  ];
  return Array.from({ length: n }, (_, i) => ({ project_id: "1", id: i + 1, key: `bench-flag-${i + 1}`, ...kinds[i % kinds.length]!(i) }));
}


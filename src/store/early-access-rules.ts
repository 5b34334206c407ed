/**
 * What an early access feature and a web experiment do to their flags, as the real serializers write them
 * (reference: products/early_access_features/backend/api.py, posthog/api/web_experiment.py).
 */
import { createHash, randomInt } from "node:crypto";
import type { EarlyAccessStage, Properties } from "./schema.ts";

/** Stages in which enrolled people get the feature (the real model's `ReleaseStage`). */
export const RELEASE_STAGES: readonly EarlyAccessStage[] = ["concept", "alpha", "beta", "general-availability"];
export const isReleaseStage = (stage: EarlyAccessStage | undefined): boolean => stage !== undefined && RELEASE_STAGES.includes(stage);

/** The enrolment condition: a person whose `$feature_enrollment/<key>` is exactly "true" gets the flag. */
export function enrolmentSuperGroups(flagKey: string): Properties[] {
  return [{ properties: [{ key: `$feature_enrollment/${flagKey}`, type: "person", operator: "exact", value: ["true"] }], rollout_percentage: 100 }];
}

/** A new feature's own flag: rolled out to nobody, with the enrolment condition in a release stage. */
export function newFeatureFlagFilters(flagKey: string, stage: EarlyAccessStage): Properties {
  const filters: Properties = { groups: [{ properties: [], rollout_percentage: 0, variant: null }] };
  if (isReleaseStage(stage)) filters.super_groups = enrolmentSuperGroups(flagKey);
  return filters;
}

/**
 * A flag's filters once its feature moves from stage `from` to `to` (undefined: no change): entering a release
 * stage adds the enrolment condition; any stage outside them sets `super_groups` to null.
 */
export function filtersAfterStage(filters: Properties, flagKey: string, from: EarlyAccessStage | undefined, to: EarlyAccessStage | undefined): Properties | undefined {
  if (to === undefined) return undefined;
  if (!isReleaseStage(from) && isReleaseStage(to)) return { ...filters, super_groups: enrolmentSuperGroups(flagKey) };
  if (!isReleaseStage(to)) return { ...filters, super_groups: null };
  return undefined;
}

/** Django's `slugify`: ASCII letters, digits, `_` and `-`, lower case, runs of spaces and dashes as one dash. */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[^\x00-\x7f]/g, "")
    .replace(/[^\w\s-]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "");
}

/** A web experiment's flag key: its name, `-web-experiment-feature-` and ten random hex digits, slugified. */
export function webExperimentFlagKey(name: string, random: () => number = () => randomInt(16)): string {
  const suffix = Array.from({ length: 10 }, () => "1234567890abcdef"[random()]).join("");
  return slugify(`${name.replaceAll(" ", "-").toLowerCase()}-web-experiment-feature-${suffix}`);
}

/** The experiment flag's variants: each variant key with its rollout percentage (0 when missing). */
export function webExperimentFlagVariants(variants: Record<string, Properties>): Properties {
  return { variants: Object.entries(variants).map(([key, v]) => ({ key, rollout_percentage: typeof v.rollout_percentage === "number" ? v.rollout_percentage : 0 })) };
}

/** A stable UUID for a fixture's feature that names none, so reloading the same fixture gives the same ids. */
export function fixtureFeatureId(projectId: string, index: number, name: string): string {
  const h = createHash("sha256").update(`${projectId}\u0000${index}\u0000${name}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

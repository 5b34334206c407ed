/**
 * A fixture's early access features, stored as the API would make them: each linked to the flag its
 * `feature_flag_key` names (given the enrolment condition in a release stage), or to a new flag keyed by the slug
 * of its name, as the early access features API makes one.
 */
import type { FixtureClientRecord, FixtureDocument } from "./fixture-document.ts";
import type { LoadContext } from "./fixture-extras.ts";
import { EARLY_ACCESS_STAGES, type EarlyAccessFeatureRecord, type EarlyAccessStage, type FeatureFlagRecord } from "./schema.ts";
import { enrolmentSuperGroups, fixtureFeatureId, isReleaseStage, newFeatureFlagFilters, slugify } from "./early-access-rules.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const text = (value: unknown, fallback: string) => (typeof value === "string" ? value : fallback);

/** The flags (the document's, then those made for features) and the features; problems go to the context. */
export function withEarlyAccess(doc: FixtureDocument, flags: FeatureFlagRecord[], now: number, ctx: LoadContext): { flags: FeatureFlagRecord[]; early_access_features: EarlyAccessFeatureRecord[] } {
  const all = [...flags];
  const features = (doc.early_access_features ?? []).map((given, i) => featureOf(given, i, all, now, ctx));
  return { flags: all, early_access_features: features.filter((f) => f !== undefined) };
}

function featureOf(given: FixtureClientRecord, i: number, flags: FeatureFlagRecord[], now: number, ctx: LoadContext): EarlyAccessFeatureRecord | undefined {
  const pointer = `/early_access_features/${i}`;
  ctx.requireProject(pointer, given.project_id);
  const stage = given.stage as EarlyAccessStage;
  if (!EARLY_ACCESS_STAGES.includes(stage)) {
    ctx.problems.add(`${pointer}/stage`, `must be one of ${EARLY_ACCESS_STAGES.join(", ")}`);
    return undefined;
  }
  const flag = linkedFlag(given, pointer, stage, flags, now, ctx);
  const id = (given as { id?: unknown }).id;
  if (id !== undefined && !(typeof id === "string" && UUID.test(id))) ctx.problems.add(`${pointer}/id`, "must be a UUID");
  return {
    id: typeof id === "string" && UUID.test(id) ? id.toLowerCase() : fixtureFeatureId(given.project_id, i, given.name),
    project_id: given.project_id,
    feature_flag_id: flag?.id ?? null,
    name: given.name,
    description: text(given.description, ""),
    stage,
    documentation_url: text(given.documentation_url, ""),
    created_at: new Date(typeof given.created_at === "string" ? Date.parse(given.created_at) : now).toISOString(),
  };
}

/** The named flag of the project (the enrolment condition added in a release stage), or a new one appended to `flags`. */
function linkedFlag(given: FixtureClientRecord, pointer: string, stage: EarlyAccessStage, flags: FeatureFlagRecord[], now: number, ctx: LoadContext): FeatureFlagRecord | undefined {
  const live = (key: string) => flags.find((f) => f.project_id === given.project_id && f.key === key && !f.deleted);
  if (typeof given.feature_flag_key === "string") {
    const flag = live(given.feature_flag_key);
    if (!flag) ctx.problems.add(`${pointer}/feature_flag_key`, `no flag "${given.feature_flag_key}" in project ${given.project_id}`);
    else if (isReleaseStage(stage)) flag.filters = { ...flag.filters, super_groups: enrolmentSuperGroups(flag.key) };
    return flag;
  }
  const key = slugify(given.name);
  if (key === "" || live(key)) {
    ctx.problems.add(`${pointer}/name`, `its flag key "${key}" is ${key === "" ? "empty" : "taken"}: name the flag with feature_flag_key`);
    return undefined;
  }
  const created = new Date(now).toISOString();
  const flag: FeatureFlagRecord = {
    id: Math.max(0, ...flags.map((f) => f.id)) + 1,
    project_id: given.project_id,
    key,
    name: `Feature Flag for Feature ${given.name}`,
    filters: newFeatureFlagFilters(key, stage),
    active: true,
    deleted: false,
    ensure_experience_continuity: false,
    version: 1,
    tags: [],
    created_by: null,
    created_at: created,
    updated_at: created,
    last_modified_by: null,
  };
  flags.push(flag);
  return flag;
}

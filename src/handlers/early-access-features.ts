/**
 * The early access features API (reference: products/early_access_features/backend/api.py): a feature is made
 * with its flag, or linked to one; its stage decides whether the flag carries the enrolment condition.
 */
import { randomUUID } from "node:crypto";
import { fail } from "../core/errors.ts";
import { writableFields } from "../http/writable-fields.ts";
import { filtersAfterStage, newFeatureFlagFilters, enrolmentSuperGroups, isReleaseStage, slugify } from "../store/early-access-rules.ts";
import type { EarlyAccessFeatureRecord, EarlyAccessStage, FeatureFlagRecord, Properties } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { toMinimalFlagJson } from "./feature-flag-json.ts";
import { requireValidKey } from "./feature-flag-validation.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { listPage } from "./list-page.ts";

const WRITABLE = ["name", "description", "stage", "documentation_url"] as const;
type FeatureInput = Partial<Pick<EarlyAccessFeatureRecord, (typeof WRITABLE)[number]>>;
type Q = Record<string, unknown>;

function featureFlagOf(feature: EarlyAccessFeatureRecord, store: Store): FeatureFlagRecord | undefined {
  return feature.feature_flag_id === null ? undefined : store.flags.get(feature.project_id, feature.feature_flag_id, { includeDeleted: true });
}

function toFeatureJson(feature: EarlyAccessFeatureRecord, store: Store) {
  const flag = featureFlagOf(feature, store);
  return {
    id: feature.id,
    feature_flag: flag ? toMinimalFlagJson(flag) : null,
    name: feature.name,
    description: feature.description,
    stage: feature.stage,
    documentation_url: feature.documentation_url,
    created_at: feature.created_at,
  };
}

function findFeature(args: HandlerArgs): EarlyAccessFeatureRecord {
  const feature = args.deps.store.earlyAccess.get(args.project.id, String((args.c.request.params as Q).id));
  if (!feature) throw fail.notFound();
  return feature;
}

/** A flag to link: the project's, not linked to another feature, for persons and boolean (the real serializer's checks). */
function linkableFlag(args: HandlerArgs, flagId: number): FeatureFlagRecord {
  const { store } = args.deps;
  const flag = store.flags.get(args.project.id, flagId);
  if (!flag) throw fail.invalid("feature_flag_id", "Feature Flag with this ID does not exist");
  if (store.earlyAccess.byFlag(flag.id)) throw fail.invalid("feature_flag_id", `Linked feature flag ${flag.key} already has a feature attached to it.`);
  if (flag.filters.aggregation_group_type_index != null) throw fail.invalid("feature_flag_id", "Group-based feature flags are not supported for Early Access Features.");
  const variants = ((flag.filters.multivariate as Properties | null | undefined)?.variants as unknown[] | undefined) ?? [];
  if (variants.length > 0) throw fail.invalid("feature_flag_id", "Multivariate feature flags are not supported for Early Access Features.");
  return flag;
}

/** The feature's flag: the linked one (given the enrolment condition in a release stage) or a new one keyed by the name's slug. */
async function flagForNewFeature(args: HandlerArgs, name: string, stage: EarlyAccessStage, flagId: number | undefined): Promise<FeatureFlagRecord> {
  const { store } = args.deps;
  const userId = args.caller.user.id;
  if (flagId !== undefined) {
    const flag = linkableFlag(args, flagId);
    if (!isReleaseStage(stage)) return flag;
    return store.flags.update(flag, { filters: { ...flag.filters, super_groups: enrolmentSuperGroups(flag.key) } }, userId);
  }
  const key = slugify(name);
  requireValidKey(key, { flags: store.flags.list(args.project.id), cohorts: [], parseDate: () => undefined });
  return store.flags.create(args.project.id, { key, name: `Feature Flag for Feature ${name}`, filters: newFeatureFlagFilters(key, stage) }, userId);
}

/** Takes the enrolment condition off a flag (the real service leaves `super_groups: null`). */
async function dropEnrolment(args: HandlerArgs, flag: FeatureFlagRecord | undefined): Promise<void> {
  if (flag) await args.deps.store.flags.update(flag, { filters: { ...flag.filters, super_groups: null } }, args.caller.user.id);
}

export const earlyAccessFeatureHandlers = {
  early_access_feature_list: (args) => {
    const page = listPage(args, args.deps.store.earlyAccess.list(args.project.id));
    return reply(200, { ...page, results: page.results.map((f) => toFeatureJson(f, args.deps.store)) });
  },

  early_access_feature_create: async (args) => {
    const body = args.c.request.requestBody as Q;
    const input = writableFields<FeatureInput>(body, WRITABLE);
    const name = input.name!;
    const stage = input.stage!;
    const flagId = typeof body.feature_flag_id === "number" ? body.feature_flag_id : undefined;
    const flag = await flagForNewFeature(args, name, stage, flagId);
    const feature = await args.deps.store.earlyAccess.create({
      id: randomUUID(),
      project_id: args.project.id,
      feature_flag_id: flag.id,
      name,
      description: input.description ?? "",
      stage,
      documentation_url: input.documentation_url ?? "",
      created_at: new Date(args.deps.clock.now()).toISOString(),
    });
    return reply(201, toFeatureJson(feature, args.deps.store));
  },

  early_access_feature_retrieve: (args) => reply(200, toFeatureJson(findFeature(args), args.deps.store)),

  early_access_feature_partial_update: async (args) => {
    const feature = findFeature(args);
    const input = writableFields<FeatureInput>(args.c.request.requestBody, WRITABLE);
    const flag = featureFlagOf(feature, args.deps.store);
    const filters = flag && filtersAfterStage(flag.filters, flag.key, feature.stage, input.stage);
    if (flag && filters) await args.deps.store.flags.update(flag, { filters }, args.caller.user.id);
    return reply(200, toFeatureJson(await args.deps.store.earlyAccess.update(feature, input), args.deps.store));
  },

  early_access_feature_destroy: async (args) => {
    const feature = findFeature(args);
    await dropEnrolment(args, featureFlagOf(feature, args.deps.store));
    await args.deps.store.earlyAccess.remove(feature);
    return reply(204);
  },
} satisfies Record<string, Handler>;

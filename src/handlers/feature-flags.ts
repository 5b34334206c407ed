import { fail } from "../core/errors.ts";
import { writableFields } from "../http/writable-fields.ts";
import { parseCallerJson } from "../http/json-depth.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { flagDefinitionsAnswer, toDefinition } from "../services/feature-flags.ts";
import { dependentFlags, possibleFlagValues } from "../flags/flag-relations.ts";
import { FLAG_WRITABLE, type FlagInput } from "../store/flags-repo.ts";
import type { FeatureFlagRecord, Properties } from "../store/schema.ts";
import { toFeatureFlagJson } from "./feature-flag-json.ts";
import { requireDependenciesAllow, requireValidKey, validFilters, type FlagWriteContext } from "./feature-flag-validation.ts";
import { parsePropertyDate } from "../flags/dates.ts";
import { listPage } from "./list-page.ts";

type Q = Record<string, unknown>;
const queryOf = (args: HandlerArgs) => args.c.request.query as Q;

function findFlag(args: HandlerArgs): FeatureFlagRecord {
  const id = Number((args.c.request.params as Q).id);
  const flag = args.deps.store.flags.get(args.project.id, id);
  if (!flag) throw fail.notFound();
  return flag;
}

const writeContext = (args: HandlerArgs, current?: FeatureFlagRecord): FlagWriteContext => ({
  flags: args.deps.store.flags.list(args.project.id),
  cohorts: args.deps.store.analysisData.cohorts(args.project.id),
  current,
  parseDate: (value) => parsePropertyDate(value, new Date(args.deps.clock.now())),
});

/** A JSON-encoded list parameter; anything else is a 400 naming it. */
function jsonList(q: Q, name: string): string[] | undefined {
  if (q[name] === undefined) return undefined;
  let value: unknown;
  try {
    value = parseCallerJson(String(q[name]), name);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
  }
  if (!Array.isArray(value)) throw fail.invalid(name, `${name} must be a JSON-encoded list.`);
  return value.map(String);
}

/** The list filters of the real service: search, active, type, created_by_id, tags, excluded_properties. */
function flagMatcher(q: Q): (f: FeatureFlagRecord) => boolean {
  const search = typeof q.search === "string" ? q.search.toLowerCase() : null;
  const tags = jsonList(q, "tags");
  const excluded = new Set(jsonList(q, "excluded_properties") ?? []);
  const isMultivariate = (f: FeatureFlagRecord) => (((f.filters.multivariate as Properties | null)?.variants as unknown[] | undefined) ?? []).length > 0;
  return (f) => {
    if (search !== null && !f.key.toLowerCase().includes(search) && !f.name.toLowerCase().includes(search)) return false;
    if (q.active === "true" && !f.active) return false;
    if (q.active === "false" && f.active) return false;
    // The mock judges no flag stale and has no experiments.
    if (q.active === "STALE" || q.type === "experiment") return false;
    if (q.type === "boolean" && isMultivariate(f)) return false;
    if (q.type === "multivariant" && !isMultivariate(f)) return false;
    if (q.created_by_id !== undefined && f.created_by !== q.created_by_id) return false;
    if (tags?.length && !f.tags.some((t) => tags.includes(t))) return false;
    return !excluded.has(f.key);
  };
}

export const featureFlagHandlers = {
  feature_flags_list: (args) => {
    const q = queryOf(args);
    const matches = args.deps.store.flags.list(args.project.id).filter(flagMatcher(q));
    const page = listPage(args, matches);
    return reply(200, { ...page, results: page.results.map((f) => toFeatureFlagJson(f, args.deps.store)) });
  },

  feature_flags_create: async (args) => {
    const input = writableFields<FlagInput>(args.c.request.requestBody, FLAG_WRITABLE);
    const ctx = writeContext(args);
    const key = input.key!;
    requireValidKey(key, ctx);
    const filters = validFilters(input.filters ?? {}, key, ctx, true);
    const flag = await args.deps.store.flags.create(args.project.id, { ...input, key, filters }, args.caller.user.id);
    return reply(201, toFeatureFlagJson(flag, args.deps.store));
  },

  feature_flags_retrieve: (args) => reply(200, toFeatureFlagJson(findFlag(args), args.deps.store)),

  feature_flags_partial_update: async (args) => {
    const input = writableFields<FlagInput>(args.c.request.requestBody, FLAG_WRITABLE);
    const flag = findFlag(args);
    const ctx = writeContext(args, flag);
    if (input.key !== undefined) requireValidKey(input.key, ctx);
    // The real service keeps the stored filters when a PATCH sends filters without condition sets.
    if (input.filters !== undefined) input.filters = input.filters.groups === undefined ? flag.filters : validFilters(input.filters, input.key ?? flag.key, ctx, false);
    requireDependenciesAllow(flag, input, ctx.flags);
    if (input.deleted === true && args.deps.store.earlyAccess.byFlag(flag.id)) {
      throw fail.invalid("deleted", "Cannot delete a feature flag that is in use with early access features. Please delete the early access feature before deleting the flag.");
    }
    const updated = await args.deps.store.flags.update(flag, input, args.caller.user.id);
    return reply(200, toFeatureFlagJson(updated, args.deps.store));
  },

  /** Hard deletes are refused with a bodiless 405; soft delete is a PATCH. */
  feature_flags_destroy: (args) => {
    findFlag(args);
    return reply(405);
  },

  /** Roles are a paid feature of the real service; no organization here has any (as the real list filters, any flag id). */
  feature_flags_role_access_list: (args) => reply(200, listPage(args, [])),

  feature_flags_dependent_flags_retrieve: (args) => {
    const flags = args.deps.store.flags.list(args.project.id).map(toDefinition);
    return reply(200, dependentFlags(toDefinition(findFlag(args)), flags).map(({ id, key, name }) => ({ id, key, name })));
  },

  /** As the real service: any flag of the project, deleted ones too, named by its id. */
  flag_value_values_retrieve: (args) => {
    const key = String(queryOf(args).key ?? "").trim();
    if (key === "") throw fail.invalid("key", "Missing flag ID parameter");
    if (!/^[+-]?\d+$/.test(key)) throw fail.invalid("key", "Invalid flag ID - must be a valid integer");
    const flag = args.deps.store.flags.get(args.project.id, Number(key), { includeDeleted: true });
    if (!flag) throw fail.notFound("Feature flag not found");
    return reply(200, { results: possibleFlagValues(toDefinition(flag)).map((name) => ({ name })), refreshing: false });
  },

  feature_flags_local_evaluation_retrieve: (args) => {
    const q = queryOf(args);
    const sendCohorts = q.send_cohorts === true || q.send_cohorts === "" || q.send_cohorts === "true";
    return flagDefinitionsAnswer(args.deps, args.project, sendCohorts, args.c.request.headers["if-none-match"] as string | undefined);
  },
} satisfies Record<string, Handler>;

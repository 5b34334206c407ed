/**
 * Feature flags for the client libraries: a `/flags` request evaluated over the stored persons, groups and
 * cohorts (src/flags/ holds the real service's algorithm), values forced by tests applied on top, and the
 * definitions posthog-node's local evaluation polls.
 */
import { createHash } from "node:crypto";
import type { ForcedFlag, ForcedFlags } from "./forced-flags.ts";
import { buildLocalEvaluationBody, cohortMatches, evaluateFlags, type CohortFilters, type FeatureFlagDefinition, type FlagEvaluation } from "../flags/index.ts";
import { withForcedValues, type DefinitionFlag } from "./forced-definitions.ts";
import { reply, type HandlerResult } from "../pipeline/result.ts";
import type { FeatureFlagRecord, GroupRecord, GroupTypeRecord, PersonRecord, ProjectRecord, Properties, ResolvedCohort } from "../store/schema.ts";
import { hasBehavioralFilter } from "../store/cohorts.ts";
import type { Store } from "../store/store.ts";
import { projectNumber } from "../util/ids.ts";

/** What a `/flags` (or `/decide`) request asks, decoded. */
export interface FlagsRequest {
  distinctId: string;
  /** The anonymous id the person had before identifying (posthog-js sends it once, after identify). */
  anonDistinctId?: string;
  groups: Record<string, string>;
  personProperties: Properties;
  groupProperties: Record<string, Properties>;
  /** Only these flags (`flag_keys_to_evaluate`); all when absent. */
  flagKeys?: string[];
}

/** One flag's answer: what the v1 and v2 shapes print. Shared between requests, so never mutated. */
export interface FlagValue {
  readonly key: string;
  readonly enabled: boolean;
  readonly variant: string | null;
  readonly reason: { readonly code: string; readonly condition_index: number | null; readonly description: string | null };
  /** The stored payload text for the value, or null. */
  readonly payload: string | null;
  readonly id: number;
  readonly version: number;
  /** Set when a test forced the value (`/_mock/feature_flags/`). */
  readonly forced: boolean;
}

export interface FlagsDeps {
  store: Store;
  clock: { now(): number };
  forced: ForcedFlags;
}

export const toDefinition = (f: FeatureFlagRecord): FeatureFlagDefinition => ({
  id: f.id,
  key: f.key,
  name: f.name,
  active: f.active,
  deleted: f.deleted,
  ensure_experience_continuity: f.ensure_experience_continuity,
  version: f.version,
  filters: f.filters as FeatureFlagDefinition["filters"],
});

const payloadOf = (flag: FeatureFlagRecord | undefined, value: string | boolean): string | null => {
  const payloads = (flag?.filters.payloads ?? {}) as Record<string, string>;
  const key = typeof value === "string" ? value : value ? "true" : null;
  return key === null ? null : (payloads[key] ?? null);
};

/** What every flags request of a project reads, built once per data revision. */
interface ProjectFlags {
  revision: number;
  flags: FeatureFlagRecord[];
  definitions: FeatureFlagDefinition[];
  byKey: Map<string, FeatureFlagRecord>;
  continuityKeys: string[];
  cohorts: Map<number, ResolvedCohort>;
  /** Members of the cohorts matched by their computed members (static, or with behavioural conditions), made on first use. */
  computedMembers: Map<number, Set<number>>;
  /** Cohorts matched on the request's view of the person (dynamic, without behavioural conditions). */
  propertyCohorts: Set<number>;
  groupTypes: GroupTypeRecord[];
  groupTypeNames: Map<number, string>;
  /** The project's groups by type index and key, made on the first request that names a group. */
  groupsByKey?: Map<string, GroupRecord>;
  /** The values each flag has answered so far (a flag has few: a value per condition and variant), shared between requests. */
  answers: Map<string, FlagValue[]>;
}
const projectFlagsCache = new WeakMap<Store, Map<string, ProjectFlags>>();

function projectFlags(store: Store, projectId: string): ProjectFlags {
  let byProject = projectFlagsCache.get(store);
  if (!byProject) projectFlagsCache.set(store, (byProject = new Map()));
  const revision = store.revision();
  const known = byProject.get(projectId);
  if (known?.revision === revision) return known;
  const flags = store.flags.list(projectId);
  const cohorts = store.analysisData.cohorts(projectId);
  const groupTypes = store.groups.types(projectId);
  const built: ProjectFlags = {
    revision,
    flags,
    definitions: flags.map(toDefinition),
    byKey: new Map(flags.map((f) => [f.key, f])),
    continuityKeys: flags.filter((f) => f.ensure_experience_continuity && f.active).map((f) => f.key),
    cohorts: new Map(cohorts.map((c) => [c.id, c])),
    computedMembers: new Map(),
    propertyCohorts: new Set(cohorts.filter((c) => c.filters && !hasBehavioralFilter(c.filters)).map((c) => c.id)),
    groupTypes,
    groupTypeNames: new Map(groupTypes.map((t) => [t.group_type_index, t.group_type])),
    answers: new Map(),
  };
  byProject.set(projectId, built);
  return built;
}

const groupLookupKey = (groupTypeIndex: number, groupKey: string) => `${groupTypeIndex}\u0001${groupKey}`;

/** A stored group, looked up in the revision's map of the project's groups (a scan of every group per request cost more than evaluating). */
function storedGroup(store: Store, projectId: string, flagsNow: ProjectFlags, groupTypeIndex: number, groupKey: string): GroupRecord | undefined {
  if (!flagsNow.groupsByKey) {
    flagsNow.groupsByKey = new Map();
    // The first of duplicates wins, as a scan finds it.
    for (const g of store.groups.list(projectId)) {
      const key = groupLookupKey(g.group_type_index, g.group_key);
      if (!flagsNow.groupsByKey.has(key)) flagsNow.groupsByKey.set(key, g);
    }
  }
  return flagsNow.groupsByKey.get(groupLookupKey(groupTypeIndex, groupKey));
}

/** Whether the person is among a cohort's computed members (a set per cohort and revision, not a scan of the list). */
function inComputedMembers(flagsNow: ProjectFlags, cohort: ResolvedCohort, person: PersonRecord | undefined): boolean {
  if (person === undefined) return false;
  let members = flagsNow.computedMembers.get(cohort.id);
  if (!members) flagsNow.computedMembers.set(cohort.id, (members = new Set(cohort.person_ids)));
  return members.has(person.id);
}

/** The person's hash keys for continuity flags, recording `$anon_distinct_id` as the real service does on first sight. */
async function hashKeyOverrides(store: Store, project: ProjectRecord, req: FlagsRequest, person: PersonRecord | undefined, continuity: readonly string[]): Promise<Map<string, string>> {
  if (!continuity.length) return new Map();
  if (person && req.anonDistinctId !== undefined) await store.flags.addHashKeyOverrides(project.id, person.uuid, continuity, req.anonDistinctId);
  const stored = person ? store.flags.hashKeyOverrides(project.id, person.uuid) : new Map<string, string>();
  // Before the person exists, the anonymous id still decides, so that identifying does not re-bucket.
  if (!person && req.anonDistinctId !== undefined) for (const key of continuity) stored.set(key, req.anonDistinctId);
  return stored;
}

/** Evaluates the project's flags for one request, as the real `/flags` does; forced values win. */
export async function evaluateForRequest(deps: FlagsDeps, project: ProjectRecord, req: FlagsRequest): Promise<FlagValue[]> {
  const { store } = deps;
  const now = new Date(deps.clock.now());
  const person = store.persons.byDistinctId(project.id, req.distinctId);
  // As posthog-node's local evaluation sees them: the distinct id as a property, the request's values winning.
  const personProperties = { distinct_id: req.distinctId, ...(person?.properties ?? {}), ...req.personProperties };
  const overrides = await hashKeyOverrides(store, project, req, person, projectFlags(store, project.id).continuityKeys);
  // Read after the overrides are written: a write moves the revision.
  const flagsNow = projectFlags(store, project.id);
  const { definitions, byKey, cohorts, groupTypes, groupTypeNames } = flagsNow;
  const groupProperties: Record<string, Properties> = {};
  for (const [type, key] of Object.entries(req.groups)) {
    const index = groupTypes.find((t) => t.group_type === type)?.group_type_index;
    const stored = index === undefined ? undefined : storedGroup(store, project.id, flagsNow, index, key);
    groupProperties[type] = { $group_key: key, ...(stored?.properties ?? {}), ...(req.groupProperties[type] ?? {}) };
  }
  // Cohorts being matched: every door refuses a loop of references, but one that got in anyway counts as an
  // unknown cohort (no member) instead of recursing until the stack overflows.
  const matching = new Set<number>();
  const inCohort = (id: number): boolean | undefined => {
    const cohort = cohorts.get(id);
    if (!cohort || matching.has(id)) return undefined;
    // A dynamic cohort is matched on the request's view of the person, as the flags service matches it; one with
    // behavioural conditions by its computed members (events are not in the request).
    if (!flagsNow.propertyCohorts.has(id)) return inComputedMembers(flagsNow, cohort, person);
    matching.add(id);
    try {
      return cohortMatches(cohort.filters! as unknown as CohortFilters, personProperties, inCohort, now);
    } finally {
      matching.delete(id);
    }
  };
  const evaluated = evaluateFlags(
    definitions,
    {
      distinctId: req.distinctId,
      hashKeyOverrides: overrides,
      personProperties,
      groups: req.groups,
      groupProperties,
      groupTypeName: (index: number) => groupTypeNames.get(index),
      inCohort,
    },
    req.flagKeys,
    now,
  );
  const evaluatedValues = [...evaluated.values()].map((e) => sharedValue(flagsNow.answers, e, byKey.get(e.key)));
  const forcedValues = deps.forced.forSubject({ projectId: project.id, distinctId: req.distinctId, groups: req.groups });
  // Most requests have nothing forced: the evaluated values as they are, without a map to merge into.
  if (forcedValues.size === 0) return evaluatedValues;
  const values = new Map(evaluatedValues.map((v) => [v.key, v]));
  for (const forced of forcedValues.values()) {
    if (req.flagKeys && !req.flagKeys.includes(forced.key)) continue;
    values.set(forced.key, fromForced(forced, byKey.get(forced.key)));
  }
  return [...values.values()];
}

/** Bounds what one flag keeps: its outcomes are few, so more means conditions that say something per person. */
const ANSWERS_PER_FLAG = 64;

/** The shared value equal to an evaluation, made on its first occurrence (values are never mutated). */
function sharedValue(answers: Map<string, FlagValue[]>, e: FlagEvaluation, flag: FeatureFlagRecord | undefined): FlagValue {
  let known = answers.get(e.key);
  if (!known) answers.set(e.key, (known = []));
  for (const v of known) {
    if (v.enabled === e.enabled && v.variant === e.variant && v.reason.code === e.reason.code && v.reason.condition_index === e.reason.condition_index && v.reason.description === e.reason.description) return v;
  }
  const value = fromEvaluation(e, flag);
  if (known.length < ANSWERS_PER_FLAG) known.push(value);
  return value;
}

const fromEvaluation = (e: FlagEvaluation, flag: FeatureFlagRecord | undefined): FlagValue => ({
  key: e.key,
  enabled: e.enabled,
  variant: e.variant,
  reason: e.reason,
  payload: e.enabled ? payloadOf(flag, e.variant ?? true) : null,
  id: e.id,
  version: e.version,
  forced: false,
});

function fromForced(forced: ForcedFlag, flag: FeatureFlagRecord | undefined): FlagValue {
  const enabled = forced.value !== false;
  const payload = forced.payload !== undefined ? JSON.stringify(forced.payload) : enabled ? payloadOf(flag, forced.value) : null;
  return {
    key: forced.key,
    enabled,
    variant: typeof forced.value === "string" ? forced.value : null,
    reason: { code: "forced", condition_index: null, description: `Forced by test (override ${forced.id})` },
    payload,
    id: flag?.id ?? 0,
    version: flag?.version ?? 0,
    forced: true,
  };
}

/** Each shared value's v2 entry as JSON text (`"key":{…}`): an answer of 50 flags is joined, not serialised. */
const v2Fragments = new WeakMap<FlagValue, string>();

function v2Fragment(v: FlagValue): string {
  let text = v2Fragments.get(v);
  if (text === undefined) {
    const entry = { key: v.key, enabled: v.enabled, variant: v.variant, reason: v.reason, metadata: { id: v.id, version: v.version, payload: v.payload, description: null } };
    text = `${JSON.stringify(v.key)}:${JSON.stringify(entry)}`;
    v2Fragments.set(v, text);
  }
  return text;
}

/** `/flags?v=2`'s `flags` object, as JSON text. */
export const v2FlagsJson = (values: readonly FlagValue[]): string => `{${values.map(v2Fragment).join(",")}}`;

/** v1's `featureFlags` (variant key or boolean) and `featureFlagPayloads` (enabled flags with a payload). */
export function v1Flags(values: readonly FlagValue[]) {
  const featureFlags: Record<string, string | boolean> = {};
  const featureFlagPayloads: Record<string, string> = {};
  for (const v of values) {
    featureFlags[v.key] = v.variant ?? v.enabled;
    if (v.enabled && v.payload !== null) featureFlagPayloads[v.key] = v.payload;
  }
  return { featureFlags, featureFlagPayloads };
}

/** Whether remote config should tell posthog-js to ask `/flags`: the project has an active flag, or a test forced one. */
export const hasFeatureFlags = (deps: FlagsDeps, project: ProjectRecord) =>
  projectFlags(deps.store, project.id).flags.some((f) => f.active) || deps.forced.forProject(project.id).length > 0;

interface Definitions {
  body: unknown;
  /** The body as JSON text, serialised once for every poll that gets it. */
  text: string;
  etag: string;
}
const definitionsCache = new WeakMap<Store, Map<string, Definitions>>();

/** The local evaluation body and its ETag, rebuilt only when the state (or a forced value) changed. */
export function flagDefinitions(deps: FlagsDeps, project: ProjectRecord, sendCohorts: boolean): Definitions {
  const { store } = deps;
  const forced = deps.forced.forProject(project.id);
  const cacheKey = `${project.id}:${sendCohorts}:${store.revision()}:${JSON.stringify(forced)}`;
  let cache = definitionsCache.get(store);
  if (!cache) definitionsCache.set(store, (cache = new Map()));
  const known = cache.get(cacheKey);
  if (known) return known;
  const teamId = projectNumber(project);
  const built = buildLocalEvaluationBody({
    projectId: teamId,
    flags: store.flags.list(project.id).map(toDefinition),
    groupTypes: Object.fromEntries(store.groups.types(project.id).map((t) => [t.group_type_index, t.group_type])),
    cohorts: store.analysisData.cohorts(project.id).map((c) => (c.filters ? { id: c.id, filters: c.filters as unknown as CohortFilters } : { id: c.id, person_ids: c.person_ids })),
  });
  const newFlag = (key: string): DefinitionFlag => ({ id: 0, team_id: teamId, name: "", key, filters: {}, deleted: false, active: true, ensure_experience_continuity: false, version: 0 });
  const flags = withForcedValues(built.flags as unknown as DefinitionFlag[], forced, newFlag);
  const body = { ...built, flags, cohorts: sendCohorts ? built.cohorts : {} };
  const text = JSON.stringify(body);
  const etag = createHash("sha1").update(text).digest("hex").slice(0, 32);
  if (cache.size >= 16) cache.clear();
  const definitions = { body, text, etag };
  cache.set(cacheKey, definitions);
  return definitions;
}

/** The local evaluation answer: 304 when `If-None-Match` names the current definitions; `text` is the body serialised. */
export function flagDefinitionsAnswer(deps: FlagsDeps, project: ProjectRecord, sendCohorts: boolean, ifNoneMatch: string | undefined): HandlerResult & { text?: string } {
  const { body, text, etag } = flagDefinitions(deps, project, sendCohorts);
  const headers = { ETag: `W/"${etag}"`, "Cache-Control": "private, must-revalidate" };
  const given = ifNoneMatch?.trim().replace(/^W\//, "").replace(/"/g, "");
  return given === etag ? reply(304, undefined, headers) : { ...reply(200, body, headers), text };
}

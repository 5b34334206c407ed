import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { CLOCK_RANGE, isPrintableInstant } from "../core/clock.ts";
import type { FixtureDocument } from "./fixture-document.ts";
import { derivedProjectToken, looksAnonymous, personUuid, stableShortId, stableUuid } from "../util/ids.ts";
import { projectFile } from "../util/project-files.ts";
import { EventStore } from "./event-store.ts";
import { actionFromFixture } from "./actions-repo.ts";
import { findCohortCycle } from "./cohorts.ts";
import { FixtureError, ProblemList } from "./fixture-problems.ts";
import { withEarlyAccess } from "./early-access-fixtures.ts";
import { annotationsOf, clientRecordsOf, declaredDashboards, flagFiltersOf, type LoadContext } from "./fixture-extras.ts";
import type {
  DashboardRecord,
  DashboardTileRecord,
  EventRecord,
  FeatureFlagRecord,
  GroupRecord,
  GroupTypeRecord,
  InsightRecord,
  PersonRecord,
  ProjectClientSettings,
  ProjectRecord,
  State,
  UserRecord,
} from "./schema.ts";

export { FixtureError, type FixtureProblem } from "./fixture-problems.ts";

const require = createRequire(import.meta.url);
const SCHEMA_PATH = projectFile("fixtures/fixtures.schema.json");

let validateDocument: ((doc: unknown) => boolean) & { errors?: { instancePath: string; message?: string; params: object }[] | null };

function validator() {
  if (!validateDocument) {
    // Every bad value at once: one refusal lists them all (issue 41).
    const ajv = new Ajv2020.default({ allErrors: true, strict: false });
    addFormats.default(ajv);
    validateDocument = ajv.compile(require(SCHEMA_PATH) as object) as typeof validateDocument;
  }
  return validateDocument;
}

/** Checks a parsed document against fixtures.schema.json; throws one FixtureError listing every bad path. */
export function assertFixtureDocument(doc: unknown): asserts doc is FixtureDocument {
  const validate = validator();
  const problems = new ProblemList();
  if (!validate(doc)) {
    for (const err of validate.errors!) {
      const params = err.params as Record<string, unknown>;
      const extra = params.additionalProperty ? ` ("${String(params.additionalProperty)}")` : "";
      problems.add(err.instancePath, `${err.message ?? "is invalid"}${extra}`);
    }
  }
  // The clock is frozen at `now`, and stays where an answer can print it (the control API's own bound).
  const now = (doc as { now?: unknown } | null)?.now;
  if (typeof now === "string" && !Number.isNaN(toMs(now)) && !isPrintableInstant(toMs(now))) {
    problems.add("/now", `must lie between ${new Date(CLOCK_RANGE.min).toISOString()} and ${new Date(CLOCK_RANGE.max).toISOString()}`);
  }
  problems.done();
}

/** Reads, parses and validates a fixture file. */
export async function readFixtureFile(file: string): Promise<FixtureDocument> {
  const text = await readFile(file, "utf8");
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new FixtureError([{ pointer: "", reason: `not valid JSON (${(e as Error).message})` }]);
  }
  assertFixtureDocument(doc);
  return doc;
}

const toMs = (iso: string) => Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
const isoOf = (iso: string) => new Date(toMs(iso)).toISOString();

/**
 * Builds the whole state from a validated fixture document; `now` fills creation times the document leaves out.
 * `events`, when given, are the document's events already in the store (generated straight into it; their
 * uuids are unique by construction), and the document's own list is ignored.
 */
export function stateFromFixtures(doc: FixtureDocument, now: number, events?: EventStore): State {
  const users = (doc.users ?? []).map(toUser);
  const projects = (doc.projects ?? []).map(toProject);
  const ctx = loadContext(projects);
  const userIds = new Set(users.map((u) => u.id));
  projects.forEach((p, i) =>
    p.members?.forEach((m, j) => {
      if (!userIds.has(m)) ctx.problems.add(`/projects/${i}/members/${j}`, `unknown user ${m}`);
    }),
  );
  uniqueTokens(projects, ctx);
  const records: Iterable<EventRecord> = events ?? toEvents(doc, ctx);
  const groupTypes = withEventGroupTypes(toGroupTypes(doc, ctx), records);
  const groups = toGroups(doc, groupTypes, now, ctx);
  const persons = toPersons(doc, records, now, ctx);
  events ??= EventStore.from(records);
  const insights = toInsights(doc, now, ctx, userIds);
  const { dashboards, tiles } = declaredDashboards(doc, insights, dashboardsOf(doc, insights, ctx), now, ctx);
  (doc.actions ?? []).forEach((a, i) => ctx.requireProject(`/actions/${i}`, a.project_id));
  (doc.cohorts ?? []).forEach((c, i) => ctx.requireProject(`/cohorts/${i}`, c.project_id));
  uniqueIds(doc.actions ?? [], "/actions", ctx);
  uniqueIds(doc.cohorts ?? [], "/cohorts", ctx);
  noCohortLoop(doc.cohorts ?? [], ctx);
  const { flags: featureFlags, early_access_features } = withEarlyAccess(doc, toFeatureFlags(doc, now, ctx), now, ctx);
  const annotations = annotationsOf(doc, insights, dashboards, now, ctx);
  const clientRecords = clientRecordsOf(doc, ctx, now, projects);
  ctx.problems.done();
  return {
    meta: {
      schema_version: 1,
      counters: {
        insight: Math.max(0, ...insights.map((i) => i.id)),
        person: Math.max(0, ...persons.map((p) => p.id)),
        dashboard: Math.max(0, ...dashboards.map((d) => d.id)),
        dashboard_tile: tiles.length,
        feature_flag: Math.max(0, ...featureFlags.map((f) => f.id)),
        ...(annotations.length ? { annotation: Math.max(...annotations.map((a) => a.id)) } : {}),
      },
      users,
      projects,
      actions: (doc.actions ?? []).map((a) => actionFromFixture(a, new Date(now).toISOString())),
      cohorts: (doc.cohorts ?? []).map((c) => structuredClone(c)),
      dashboards,
      dashboard_tiles: tiles,
      insights,
      insight_views: [],
      pending_deletions: [],
      group_types: groupTypes,
      groups,
      feature_flags: featureFlags,
      flag_hash_key_overrides: [],
      annotations,
      ...clientRecords,
      ...(early_access_features.length ? { early_access_features } : {}),
      ...(doc.tracking_plan ? { tracking_plan: structuredClone(doc.tracking_plan) } : {}),
    },
    persons,
    events,
    activity: [],
  };
}

/** Where every check reports, and how a record's project is checked (or taken as the only one when left out). */
function loadContext(projects: readonly ProjectRecord[]): LoadContext {
  const problems = new ProblemList();
  const projectIds = new Set(projects.map((p) => p.id));
  const requireProject = (pointer: string, id: string) => {
    if (!projectIds.has(id)) problems.add(`${pointer}/project_id`, `unknown project "${id}"`);
  };
  const projectOf = (pointer: string, id: string | undefined): string => {
    if (id !== undefined) {
      requireProject(pointer, id);
      return id;
    }
    if (projects.length === 1) return projects[0]!.id;
    problems.add(`${pointer}/project_id`, `required: the document has ${projects.length} projects, so name one`);
    return "";
  };
  return { problems, requireProject, projectOf };
}

/**
 * Flags get the next free id when the document gives none; a key names one live flag per project, as the real
 * service's unique constraint does (deleted flags may share a key).
 */
function toFeatureFlags(doc: FixtureDocument, now: number, ctx: LoadContext): FeatureFlagRecord[] {
  const flags = doc.feature_flags ?? [];
  flags.forEach((f, i) => {
    const seen = flags.findIndex((other) => other.id !== undefined && other.id === f.id);
    if (seen !== i && f.id !== undefined) ctx.problems.add(`/feature_flags/${i}/id`, `duplicate id ${f.id}`);
  });
  let nextId = Math.max(0, ...flags.map((f) => f.id ?? 0));
  const liveKeys = new Set<string>();
  return flags.map((f, i): FeatureFlagRecord => {
    const projectId = ctx.projectOf(`/feature_flags/${i}`, f.project_id);
    const deleted = f.deleted ?? false;
    if (!deleted) {
      const scoped = `${projectId}\u0000${f.key}`;
      if (liveKeys.has(scoped)) ctx.problems.add(`/feature_flags/${i}/key`, `duplicate key "${f.key}" in project ${projectId}`);
      liveKeys.add(scoped);
    }
    const createdAt = f.created_at ? isoOf(f.created_at) : new Date(now).toISOString();
    return {
      id: f.id ?? ++nextId,
      project_id: projectId,
      key: f.key,
      name: f.name ?? "",
      filters: flagFiltersOf(f.filters, `/feature_flags/${i}/filters`, ctx),
      active: f.active ?? true,
      deleted,
      ensure_experience_continuity: f.ensure_experience_continuity ?? false,
      version: 1,
      tags: [...(f.tags ?? [])],
      created_by: null,
      created_at: createdAt,
      updated_at: createdAt,
      last_modified_by: null,
    };
  });
}

/** A fixture's cohorts never reference each other in a loop (the rule of src/store/cohorts.ts, as the API applies it). */
function noCohortLoop(cohorts: NonNullable<FixtureDocument["cohorts"]>, ctx: LoadContext) {
  const loop = findCohortCycle(cohorts);
  if (loop === null) return;
  const at = cohorts.findIndex((c) => c.id === loop[0]);
  ctx.problems.add(`/cohorts/${at}/filters`, `cohorts reference each other in a loop: ${loop.join(" → ")}`);
}

function uniqueIds(items: { id: number }[], pointer: string, ctx: LoadContext) {
  const seen = new Set<number>();
  items.forEach((item, i) => {
    if (seen.has(item.id)) ctx.problems.add(`${pointer}/${i}/id`, `duplicate id ${item.id}`);
    seen.add(item.id);
  });
}

function toUser(u: NonNullable<FixtureDocument["users"]>[number]): UserRecord {
  return {
    id: u.id,
    uuid: u.uuid ?? stableUuid(`user:${u.id}`),
    distinct_id: u.distinct_id ?? stableUuid(`user-distinct-id:${u.id}`),
    first_name: u.first_name ?? u.email.split("@")[0]!,
    email: u.email,
    is_email_verified: u.is_email_verified ?? false,
    personal_api_keys: [...u.personal_api_keys],
  };
}

function toProject(p: NonNullable<FixtureDocument["projects"]>[number]): ProjectRecord {
  return {
    id: p.id,
    name: p.name,
    timezone: p.timezone ?? "UTC",
    members: p.members ? [...p.members] : null,
    test_account_filters: (p.test_account_filters ?? []) as ProjectRecord["test_account_filters"],
    week_start_day: p.week_start_day ?? 0,
    api_token: p.api_token ?? derivedProjectToken(p.id),
    ...clientSettingsOf(p),
  };
}

const CLIENT_SETTINGS = [
  "session_recording_opt_in",
  "session_recording_sample_rate",
  "session_recording_minimum_duration_milliseconds",
  "session_recording_linked_flag",
  "capture_console_log_opt_in",
  "capture_performance_opt_in",
  "autocapture_exceptions_opt_in",
  "heatmaps_opt_in",
  "surveys_opt_in",
  "capture_dead_clicks",
  "autocapture_web_vitals_opt_in",
  "autocapture_web_vitals_allowed_metrics",
] as const satisfies readonly (keyof ProjectClientSettings)[];

/** The client-library settings a project names; the ones left out stay absent (the real service's defaults). */
function clientSettingsOf(p: NonNullable<FixtureDocument["projects"]>[number]): ProjectClientSettings {
  const given = CLIENT_SETTINGS.filter((key) => p[key] !== undefined).map((key) => [key, structuredClone(p[key])]);
  return Object.fromEntries(given) as ProjectClientSettings;
}

/** A token names one project: two projects with the same token would make capture ambiguous. */
function uniqueTokens(projects: ProjectRecord[], ctx: LoadContext) {
  const seen = new Set<string>();
  projects.forEach((p, i) => {
    if (seen.has(p.api_token)) ctx.problems.add(`/projects/${i}/api_token`, `token already used by another project`);
    seen.add(p.api_token);
  });
}

function toGroupTypes(doc: FixtureDocument, ctx: LoadContext): GroupTypeRecord[] {
  return (doc.projects ?? []).flatMap((p, i) => {
    const indexes = new Set<number>();
    const names = new Set<string>();
    return (p.group_types ?? []).map((t, j): GroupTypeRecord => {
      const pointer = `/projects/${i}/group_types/${j}`;
      if (indexes.has(t.group_type_index)) ctx.problems.add(`${pointer}/group_type_index`, `duplicate group type index ${t.group_type_index}`);
      if (names.has(t.group_type)) ctx.problems.add(`${pointer}/group_type`, `duplicate group type "${t.group_type}"`);
      indexes.add(t.group_type_index);
      names.add(t.group_type);
      return { project_id: p.id, group_type_index: t.group_type_index, group_type: t.group_type, name_singular: t.name_singular ?? null, name_plural: t.name_plural ?? null };
    });
  });
}

/**
 * Group type names that events use in `$groups` but the project does not declare get the next free index, in the
 * order the events first use them, as the real service's ingestion does; beyond five types the name is ignored
 * (reference: ingestion-persons-events §2 item 3).
 */
export function withEventGroupTypes(declared: GroupTypeRecord[], events: Iterable<EventRecord>): GroupTypeRecord[] {
  const types = [...declared];
  // Per project, the names already mapped (a million events: no key strings built per event).
  const known = new Map<string, Set<string>>();
  for (const t of types) (known.get(t.project_id) ?? known.set(t.project_id, new Set()).get(t.project_id)!).add(t.group_type);
  for (const event of events) {
    const groups = event.prop ? event.prop("$groups") : event.properties.$groups;
    if (typeof groups !== "object" || groups === null || Array.isArray(groups)) continue;
    let names = known.get(event.project_id);
    if (!names) known.set(event.project_id, (names = new Set()));
    for (const name in groups) {
      if (names.has(name) || names.size >= 5) continue;
      const used = new Set(types.filter((t) => t.project_id === event.project_id).map((t) => t.group_type_index));
      const free = [0, 1, 2, 3, 4].find((i) => !used.has(i))!;
      names.add(name);
      types.push({ project_id: event.project_id, group_type_index: free, group_type: name, name_singular: null, name_plural: null });
    }
  }
  return types;
}

function toGroups(
  doc: FixtureDocument,
  types: readonly GroupTypeRecord[],
  now: number,
  ctx: LoadContext,
): GroupRecord[] {
  const seen = new Set<string>();
  return (doc.groups ?? []).map((g, i): GroupRecord => {
    ctx.requireProject(`/groups/${i}`, g.project_id);
    if (!types.some((t) => t.project_id === g.project_id && t.group_type_index === g.group_type_index)) {
      ctx.problems.add(`/groups/${i}/group_type_index`, `project "${g.project_id}" has no group type ${g.group_type_index}`);
    }
    const key = `${g.project_id}:${g.group_type_index}:${g.group_key}`;
    if (seen.has(key)) ctx.problems.add(`/groups/${i}/group_key`, `duplicate group "${g.group_key}"`);
    seen.add(key);
    return {
      project_id: g.project_id,
      group_type_index: g.group_type_index,
      group_key: g.group_key,
      properties: (g.properties ?? {}) as GroupRecord["properties"],
      created_at: g.created_at ? isoOf(g.created_at) : new Date(now).toISOString(),
    };
  });
}

function toEvents(doc: FixtureDocument, ctx: LoadContext): EventRecord[] {
  const seen = new Set<string>();
  const events = (doc.events ?? []).map((e, i): EventRecord => {
    ctx.requireProject(`/events/${i}`, e.project_id);
    const uuid = e.uuid ?? stableUuid(`event:${e.project_id}:${i}:${e.distinct_id}:${e.timestamp}`);
    const key = `${e.project_id}:${uuid}`;
    if (seen.has(key)) ctx.problems.add(`/events/${i}/uuid`, `duplicate event uuid ${uuid}`);
    seen.add(key);
    return {
      uuid,
      project_id: e.project_id,
      event: e.event,
      distinct_id: e.distinct_id,
      timestamp: toMs(e.timestamp),
      properties: (e.properties ?? {}) as EventRecord["properties"],
      elements_chain: e.elements_chain ?? "",
    };
  });
  const byTime = (a: EventRecord, b: EventRecord) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0);
  // Generated datasets arrive in order: checking is linear, sorting a million events is not.
  return events.every((e, i) => i === 0 || byTime(events[i - 1]!, e) <= 0) ? events : events.sort(byTime);
}

function toPersons(
  doc: FixtureDocument,
  events: Iterable<EventRecord>,
  now: number,
  ctx: LoadContext,
): PersonRecord[] {
  const firstSeen = new Map<string, number>();
  for (const e of events) {
    const key = `${e.project_id}:${e.distinct_id}`;
    if (!firstSeen.has(key)) firstSeen.set(key, e.timestamp);
  }
  const owner = new Map<string, number>();
  const given = doc.persons ?? [];
  let nextId = Math.max(0, ...given.map((p) => p.id ?? 0));
  const usedIds = new Set<number>();
  const persons = given.map((p, i): PersonRecord => {
    ctx.requireProject(`/persons/${i}`, p.project_id);
    p.distinct_ids.forEach((d, j) => {
      const key = `${p.project_id}:${d}`;
      if (owner.has(key)) ctx.problems.add(`/persons/${i}/distinct_ids/${j}`, `distinct id "${d}" belongs to another person`);
      owner.set(key, i);
    });
    const id = p.id ?? ++nextId;
    if (usedIds.has(id)) ctx.problems.add(`/persons/${i}/id`, `duplicate person id ${id}`);
    usedIds.add(id);
    const seen = p.distinct_ids.map((d) => firstSeen.get(`${p.project_id}:${d}`)).filter((t): t is number => t !== undefined);
    return {
      id,
      project_id: p.project_id,
      uuid: p.uuid ?? personUuid(p.project_id, p.distinct_ids[0]!),
      distinct_ids: [...p.distinct_ids],
      properties: (p.properties ?? {}) as PersonRecord["properties"],
      created_at: p.created_at ? isoOf(p.created_at) : new Date(seen.length ? Math.min(...seen) : now).toISOString(),
      is_identified: p.distinct_ids.some((d) => !looksAnonymous(d)),
    };
  });
  // An event whose distinct id belongs to no person gets a person of its own (fixtures.schema.json, events), unless
  // it is personless ($process_person_profile: false), which ingestion keeps without a person.
  for (const e of events) {
    const key = `${e.project_id}:${e.distinct_id}`;
    if (owner.has(key) || e.properties?.$process_person_profile === false) continue;
    owner.set(key, persons.length);
    persons.push({
      id: ++nextId,
      project_id: e.project_id,
      uuid: personUuid(e.project_id, e.distinct_id),
      distinct_ids: [e.distinct_id],
      properties: {},
      created_at: new Date(e.timestamp).toISOString(),
      is_identified: false,
    });
  }
  return persons;
}

function toInsights(
  doc: FixtureDocument,
  now: number,
  ctx: LoadContext,
  userIds: Set<number>,
): InsightRecord[] {
  const given = doc.insights ?? [];
  let nextId = Math.max(0, ...given.map((i) => i.id ?? 0));
  const used = new Set<number>();
  return given.map((ins, i): InsightRecord => {
    ctx.requireProject(`/insights/${i}`, ins.project_id);
    if (ins.created_by !== undefined && !userIds.has(ins.created_by)) {
      ctx.problems.add(`/insights/${i}/created_by`, `unknown user ${ins.created_by}`);
    }
    const id = ins.id ?? ++nextId;
    if (used.has(id)) ctx.problems.add(`/insights/${i}/id`, `duplicate insight id ${id}`);
    used.add(id);
    const created = ins.created_at ? isoOf(ins.created_at) : new Date(now).toISOString();
    return {
      id,
      project_id: ins.project_id,
      short_id: ins.short_id ?? stableShortId(`insight:${ins.project_id}:${id}`),
      name: ins.name ?? null,
      derived_name: ins.derived_name ?? null,
      description: ins.description ?? "",
      filters: (ins.filters ?? {}) as InsightRecord["filters"],
      query: (ins.query ?? null) as InsightRecord["query"],
      order: ins.order ?? null,
      deleted: ins.deleted ?? false,
      tags: [...(ins.tags ?? [])],
      favorited: ins.favorited ?? false,
      saved: ins.saved ?? false,
      is_sample: false,
      created_by: ins.created_by ?? null,
      created_at: created,
      updated_at: created,
      last_modified_at: created,
      last_modified_by: ins.created_by ?? null,
    };
  });
}

/**
 * Dashboards exist in fixtures only through insights' `dashboards` ids (the fixture format has no key of its
 * own for them); each id becomes a dashboard of that project, created by whoever created its earliest insight.
 */
function dashboardsOf(doc: FixtureDocument, insights: InsightRecord[], ctx: LoadContext) {
  const dashboards = new Map<number, DashboardRecord>();
  const tiles: DashboardTileRecord[] = [];
  (doc.insights ?? []).forEach((ins, i) => {
    const insight = insights[i]!;
    (ins.dashboards ?? []).forEach((dashboardId, j) => {
      const existing = dashboards.get(dashboardId);
      if (existing && existing.project_id !== insight.project_id) {
        ctx.problems.add(`/insights/${i}/dashboards/${j}`, `dashboard ${dashboardId} belongs to project ${existing.project_id}`);
        return;
      }
      if (!existing) {
        dashboards.set(dashboardId, dashboardFromInsight(dashboardId, insight));
      } else if (insight.created_at < existing.created_at) {
        Object.assign(existing, { created_at: insight.created_at, created_by: insight.created_by });
      }
      if (tiles.some((t) => t.dashboard_id === dashboardId && t.insight_id === insight.id)) return;
      tiles.push({ id: tiles.length + 1, dashboard_id: dashboardId, insight_id: insight.id, deleted: insight.deleted, removed: false, color: null, layouts: {} });
    });
  });
  return { dashboards: [...dashboards.values()], tiles };
}

/** A dashboard known only from an insight placed on it: named by its id, created with that insight. */
export function dashboardFromInsight(id: number, insight: Pick<InsightRecord, "project_id" | "created_at" | "created_by">): DashboardRecord {
  return {
    id,
    project_id: insight.project_id,
    name: `Dashboard ${id}`,
    description: "",
    pinned: false,
    tags: [],
    filters: {},
    deleted: false,
    creation_mode: "default",
    created_at: insight.created_at,
    created_by: insight.created_by,
    last_accessed_at: null,
  };
}

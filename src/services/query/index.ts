import { createHash } from "node:crypto";
import { AnalysisInputError, reject } from "../../core/analysis-errors.ts";
import { nodeFieldOf } from "../../analyses/query-node.ts";
import { lifecycleQueryItems, type LifecycleItem } from "../../analyses/lifecycle/index.ts";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import { isoUtcAfter, type Clock } from "../../core/clock.ts";
import type { PersonRecord, ProjectRecord } from "../../store/schema.ts";
import type { Store } from "../../store/store.ts";
import { minimumRefreshInterval, rangeNotes, type AnalysisKind, type AnalysisService } from "../analysis-service.ts";
import { actorColumns, insightActorsDefinition, sortActors, type Actor } from "./actors-query.ts";
import { insightDefinition } from "./insight-query.ts";
import { applyDashboardFilter } from "../../analyses/shared/dashboard-filter.ts";
import { INSIGHT_KINDS, unwrap } from "./nodes.ts";
import { projectPropertyTypes } from "../definitions.ts";
import type { SqlDatabase } from "../../sql-engine/sql-database.ts";
import type { PropertyFilter } from "../../hogql/printer/print.ts";
import { runEventsQuery } from "./events-query.ts";
import { runPersonsQuery } from "./persons-query.ts";
import { DEFAULT_ROWS, MAX_ROWS, runHogqlQuery, type SqlContext } from "./sql-query.ts";

export { QUERY_KINDS } from "./nodes.ts";

export interface QueryDeps {
  store: Store;
  clock: Clock;
  analyses: AnalysisService;
  /** The SQL engine HogQL runs on (started at its first query). */
  sql: SqlDatabase;
  /** How an actor's display name is read (the persons API's rule). */
  personName: (person: PersonRecord) => string;
}

export interface QueryRequest {
  query: Loose;
  refresh?: boolean | string;
  client_query_id?: string;
  async?: boolean;
  /** A dashboard's filters laid over the query (PostHog's DashboardFilter), for this request only. */
  filters_override?: Loose | null;
}

/** Kinds answered by the SQL engine or the actors (the others are insight kinds, computed by the analysis service). */
const COMPUTED_KINDS = new Set(["HogQLQuery", "EventsQuery", "ActorsQuery", "InsightActorsQuery", "StickinessActorsQuery"]);
/**
 * The insight actors kinds: StickinessActorsQuery is an InsightActorsQuery of a stickiness with an `operator`,
 * FunnelsActorsQuery one of a funnel with its step or entrance period, FunnelCorrelationActorsQuery one of a funnel
 * correlation with its row (the last two an ActorsQuery's source only).
 */
const INSIGHT_ACTORS_KINDS = new Set(["InsightActorsQuery", "StickinessActorsQuery", "FunnelsActorsQuery", "FunnelCorrelationActorsQuery"]);

/** Kinds that parse HogQL (the parser is loaded before they run). */
export const needsHogqlParser = (body: QueryRequest): boolean => /HogQLQuery|EventsQuery|ActorsQuery|hogql/i.test(JSON.stringify(body.query));

export const isInsightKind = (kind: string): boolean => Boolean(INSIGHT_KINDS[kind]) || kind === "FunnelCorrelationQuery";

/** The node a request runs (a wrapper's source) and its kind; an unknown kind is refused before anything runs. */
export function queryNodeOf(query: Loose): { node: Loose; attr: string; kind: string } {
  const { node, attr } = unwrap(query);
  const kind = String(node.kind);
  if (!isInsightKind(kind) && !COMPUTED_KINDS.has(kind)) throw reject.invalid(`${attr}__kind`, `Query kind "${kind}" is not supported.`);
  return { node, attr, kind };
}

/**
 * A fresh answer of a SQL, events or actors query in the real service's response envelope: SQL kinds run on the
 * SQL engine (an aborted `signal` kills their ClickHouse query), actors through the analyses' actors.
 */
export async function computedResponse(deps: QueryDeps, project: ProjectRecord, node: Loose, attr: string, signal?: AbortSignal, filtersOverride?: Loose): Promise<Loose> {
  const now = deps.clock.now();
  const fresh = { is_cached: false, last_refresh: new Date(now).toISOString(), next_allowed_client_refresh: new Date(now).toISOString(), cache_key: cacheKey(project, node, filtersOverride), timezone: project.timezone, query_status: null, timings: [] };
  if (node.kind === "HogQLQuery") return { ...(await runHogqlQuery(node, attr, sqlContext(deps, project, signal))), ...fresh };
  if (node.kind === "EventsQuery") return { ...(await runEventsQuery(node, attr, sqlContext(deps, project, signal))), ...fresh };
  if (node.kind === "ActorsQuery" && (node.source === undefined || node.source === null)) return { ...(await personsResponse(deps, project, node, attr, signal)), ...fresh };
  return { ...(await actorsResponse(deps, project, node, attr, filtersOverride)), ...fresh };
}

/**
 * An insight kind through its legacy filter and the analysis service's cache, wrapped in the real service's
 * envelope; `refresh` recomputes whatever the age of the cached result (the real service's force modes).
 */
export async function insightResponse(deps: QueryDeps, project: ProjectRecord, node: Loose, attr: string, refresh: boolean, filtersOverride?: Loose): Promise<Loose> {
  const definition = insightDefinition(node, attr);
  const kind = definition.kind;
  const filter = applyDashboardFilter(kind, definition.filter, filtersOverride);
  const ctx = { now: deps.clock.now(), timezone: project.timezone, weekStartDay: project.week_start_day };
  const maxAge = asNodeErrors(attr, () => minimumRefreshInterval(filter, ctx));
  const pkg = await asNodeErrorsAsync(attr, () => deps.analyses.runAsync(project, kind as AnalysisKind, filter, { refresh, maxAge: 0 }));
  return {
    results: kind === "LIFECYCLE" ? lifecycleQueryItems(pkg.result as LifecycleItem[]) : pkg.result,
    is_cached: pkg.is_cached,
    last_refresh: pkg.last_refresh,
    next_allowed_client_refresh: isoUtcAfter(Date.parse(pkg.last_refresh), maxAge),
    cache_key: cacheKey(project, node, filtersOverride),
    timezone: pkg.timezone,
    query_status: null,
    timings: [],
  };
}

/** The request log's notes on an insight node's answer (an inverted range answered empty), from the filter it runs. */
export function insightRangeNotes(deps: QueryDeps, project: ProjectRecord, node: Loose, attr: string, filtersOverride?: Loose): string[] {
  const definition = insightDefinition(node, attr);
  return rangeNotes(definition.kind, applyDashboardFilter(definition.kind, definition.filter, filtersOverride), project, deps.clock.now());
}

/** Runs an analysis of a node's converted filter; a field error names the node's field (`query__dateRange__date_from`), as every other query API error does. */
function asNodeErrors<T>(attr: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    throw asNodeError(attr, e);
  }
}

async function asNodeErrorsAsync<T>(attr: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw asNodeError(attr, e);
  }
}

/** An analysis field error renamed after the node's field; any other error as it is. */
function asNodeError(attr: string, e: unknown): unknown {
  if (!(e instanceof AnalysisInputError) || e.attr === null) return e;
  const field = nodeFieldOf(e.attr);
  return field === undefined ? e : new AnalysisInputError(`${attr}__${field}`, e.message, e.code);
}

export function sqlContext(deps: Pick<QueryDeps, "store" | "clock" | "sql">, project: ProjectRecord, signal?: AbortSignal): SqlContext {
  return {
    db: deps.sql,
    project,
    now: deps.clock.now(),
    propertyTypes: () => projectPropertyTypes(deps.store, project.id),
    testAccountFilters: project.test_account_filters as unknown as PropertyFilter[],
    actions: deps.store.analysisData.actions(project.id),
    signal,
  };
}

const DEFAULT_ACTOR_COLUMNS = ["person", "id", "created_at", "person_display_name -- Person"];

/** ActorsQuery without a source: every person of the project, through HogQL over `persons`. */
function personsResponse(deps: QueryDeps, project: ProjectRecord, node: Loose, attr: string, signal?: AbortSignal) {
  const select = Array.isArray(node.select) ? (node.select as string[]) : DEFAULT_ACTOR_COLUMNS;
  if (Array.isArray(node.properties) && node.properties.length > 0) throw reject.invalid(`${attr}__properties`, "Property filters on ActorsQuery are not supported.");
  const lookup = { find: (uuid: string) => deps.store.persons.find(project.id, uuid), personName: deps.personName };
  return runPersonsQuery(node, attr, select, sqlContext(deps, project, signal), lookup);
}

/** ActorsQuery over an InsightActorsQuery (or StickinessActorsQuery) source, and a bare one. */
async function actorsResponse(deps: QueryDeps, project: ProjectRecord, node: Loose, attr: string, filtersOverride?: Loose): Promise<Loose> {
  const bare = INSIGHT_ACTORS_KINDS.has(String(node.kind));
  const insightNode = bare ? node : (node.source as Loose | undefined);
  const insightAttr = bare ? attr : `${attr}__source`;
  if (!insightNode || !INSIGHT_ACTORS_KINDS.has(String(insightNode.kind))) {
    throw reject.invalid(`${insightAttr}__kind`, `ActorsQuery source kind "${String(insightNode?.kind)}" is not supported (InsightActorsQuery, StickinessActorsQuery, FunnelsActorsQuery, FunnelCorrelationActorsQuery, or none for every person).`);
  }
  const select = bare ? ["actor"] : Array.isArray(node.select) ? (node.select as string[]) : DEFAULT_ACTOR_COLUMNS;
  const columns = actorColumns(select, attr, deps.personName);
  if (Array.isArray(node.properties) && node.properties.length > 0) throw reject.invalid(`${attr}__properties`, "Property filters on ActorsQuery are not supported.");
  let actors = await insightActors(deps, project, insightNode, insightAttr, filtersOverride);
  if (typeof node.search === "string" && node.search !== "") actors = actors.filter((a) => matches(a, String(node.search), deps.personName));
  actors = sortActors(actors, node.orderBy, attr);
  const limit = Math.min(Number(node.limit ?? DEFAULT_ROWS), MAX_ROWS);
  const offset = Number(node.offset ?? 0);
  const page = actors.slice(offset, offset + limit);
  return {
    columns: select,
    types: select.map(() => "String"),
    results: page.map((actor) => columns.map((read) => read(actor))),
    hasMore: actors.length > offset + limit,
    limit,
    offset,
    missing_actors_count: 0,
  };
}

async function insightActors(deps: QueryDeps, project: ProjectRecord, node: Loose, attr: string, filtersOverride?: Loose): Promise<Actor[]> {
  const { kind, filter, point } = insightActorsDefinition(node, attr, project.timezone, filtersOverride);
  const rows = (await deps.analyses.actorsAsync(project, kind as never, filter, point)).actors;
  return rows.flatMap((row): Actor[] => {
    if (row.groupTypeIndex !== undefined) {
      const group = deps.store.groups.get(project.id, row.groupTypeIndex, String(row.key));
      return group ? [{ group, value: row.value, ...(row.appearances ? { appearances: row.appearances } : {}) }] : [];
    }
    const person = typeof row.key === "number" && row.key > 0 ? deps.store.persons.find(project.id, String(row.key)) : undefined;
    return person ? [{ person, value: row.value, ...(row.appearances ? { appearances: row.appearances } : {}) }] : [];
  });
}

function matches(actor: Actor, term: string, name: (p: PersonRecord) => string): boolean {
  const needle = term.toLowerCase();
  if (actor.group) return actor.group.group_key.toLowerCase().includes(needle);
  const p = actor.person!;
  return name(p).toLowerCase().includes(needle) || p.distinct_ids.some((id) => id.toLowerCase().includes(needle)) || String(p.properties.email ?? "").toLowerCase().includes(needle);
}

/** A stable key of the query per project, as the real service's `cache_key` (its value is opaque to clients). */
/** A query's cache key: its project, its node and the request's `filters_override` (an answer follows all three). */
export const cacheKey = (project: ProjectRecord, node: Loose, filtersOverride?: Loose): string =>
  `cache_${createHash("sha1").update(`${project.id}:${JSON.stringify(filtersOverride ? { ...node, filters_override: filtersOverride } : node)}`).digest("hex").slice(0, 32)}`;

import { LRUCache } from "lru-cache";
import stringify from "safe-stable-stringify";
import { isoUtcAfter, type Clock } from "../core/clock.ts";
import type { AnalysisContext } from "../analyses/shared/context.ts";
import { ACTORS_OF, type ActorRow, type ActorsKind, type DataPoint } from "../analyses/actors/index.ts";
import { computeCorrelation } from "../analyses/correlation/index.ts";
import { computeFunnel } from "../analyses/funnels/index.ts";
import { computeLifecycle } from "../analyses/lifecycle/index.ts";
import { computePaths } from "../analyses/paths/index.ts";
import { computeRetention } from "../analyses/retention/index.ts";
import { computeStickiness } from "../analyses/stickiness/index.ts";
import { computeTrends } from "../analyses/trends/index.ts";
import { queryNodeToFilter } from "../analyses/query-node.ts";
import { buildActorTable, type ActorTable } from "../analyses/shared/actor-table.ts";
import { INTERVALS, type Interval } from "../analyses/shared/context.ts";
import { offMainThread, sameVersion } from "../analyses/parallel/off-main-thread.ts";
import { planThreads, withThreads } from "../analyses/parallel/thread-count.ts";
import { planAnalysis, type AnalysisPlan, type Engine } from "../analyses/plan.ts";
import { generalScanView } from "../analyses/shared/event-read.ts";
import { isInvertedWindow, resolveDateRange } from "../analyses/shared/date-range.ts";
import type { TimeContext } from "../core/date-parse.ts";
import { retentionWindow } from "../analyses/retention/filter.ts";
import { deriveSessions, type SessionTable } from "../analyses/shared/session-properties.ts";
import { asClientError, fail } from "../core/errors.ts";
import type { EventList, InsightRecord, ProjectRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { projectPropertyTypes } from "./definitions.ts";
import { applyDashboardFilter } from "../analyses/shared/dashboard-filter.ts";

type Filter = Record<string, unknown>;

/**
 * Every analysis, by kind: the insight kinds of `filters.insight` (reference: analytics §9.1, §10) plus funnel
 * correlation, which has an endpoint but no insight kind of its own.
 */
const COMPUTE = {
  TRENDS: computeTrends,
  STICKINESS: computeStickiness,
  LIFECYCLE: computeLifecycle,
  FUNNELS: computeFunnel,
  RETENTION: computeRetention,
  PATHS: computePaths,
  FUNNEL_CORRELATION: computeCorrelation,
} as const satisfies Record<string, (events: EventList, filter: Filter, ctx: AnalysisContext) => unknown>;

export type AnalysisKind = keyof typeof COMPUTE;

export interface ActorsPackage {
  actors: ActorRow[];
  last_refresh: string;
  is_cached: boolean;
}

export interface AnalysisPackage {
  result: unknown;
  last_refresh: string;
  is_cached: boolean;
  timezone: string;
}

export interface InsightPackage {
  result: unknown;
  last_refresh: string | null;
  next_allowed_client_refresh: string | null;
  is_cached: boolean;
}

interface CacheEntry {
  result: unknown;
  computedAt: number;
  /** Computed ahead for a request (off the main thread) and not yet answered: that answer is not "cached". */
  computedAheadNotYetAnswered?: boolean;
  /** The insight's minimum refresh interval, kept so that serving it again needs no date arithmetic. */
  maxAge?: number;
}

/** Bound on cached results: enough for every insight of a large fixture, small enough to never grow without limit. */
const CACHE_ENTRIES = 1_000;
const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Minimum time between client refreshes of an insight (reference: analytics §9.1, next_allowed_client_refresh):
 * 1 min for minute intervals, 3 min for hourly ones or ranges of at most 7 days, 15 min otherwise.
 */
export function minimumRefreshInterval(filter: Filter, ctx: TimeContext): number {
  const window = analysisWindow(String(filter.insight), filter, ctx);
  if (window.interval === "minute") return MINUTE;
  return window.interval === "hour" || window.to - window.from <= 7 * DAY ? 3 * MINUTE : 15 * MINUTE;
}

/** The range an analysis of `filter` covers; retention's follows its own rules (reference §7.2): date_to alone is a full window, not one from -7d. */
function analysisWindow(kind: string, filter: Filter, ctx: TimeContext): { from: number; to: number; interval: Interval } {
  if (kind === "RETENTION" || filter.insight === "RETENTION") return retentionWindow(filter, ctx);
  return resolveDateRange(filter, INTERVALS.find((i) => i === filter.interval) ?? "day", ctx, undefined);
}

/**
 * What the request log says of an analysis whose range ends before it starts (date_from after date_to, or after
 * now): answered empty as the real service answers it, where this mock used to refuse it. None for any other range.
 */
export function rangeNotes(kind: string, filter: Filter, project: ProjectRecord, now: number): string[] {
  const window = analysisWindow(kind, filter, { now, timezone: project.timezone, weekStartDay: project.week_start_day });
  if (!isInvertedWindow(window)) return [];
  const iso = (ms: number) => new Date(ms).toISOString();
  return [`inverted date range: date_from (${iso(window.from)}) is after date_to (${iso(window.to)}); answered with an empty result, as the real service does`];
}

/** The insight's analysis kind and legacy filter: `query` wins over `filters` (reference: analytics §9.1, §10). */
export function definitionOf(insight: Pick<InsightRecord, "filters" | "query">): { kind: string; filter: Filter } {
  if (insight.query && Object.keys(insight.query).length) return queryNodeToFilter(insight.query);
  const filter = insight.filters ?? {};
  const declared = typeof filter.insight === "string" ? filter.insight.toUpperCase() : "TRENDS";
  return { kind: declared, filter };
}

/**
 * Analyses computed so far in this process (each run of an analysis over the data), and the engine each was planned
 * for: lets a test count them and see which engine ran.
 */
const stats = { computed: 0, engines: { columns: 0, general: 0 } as Record<Engine, number> };
export const analysisStats = (): { computed: number; engines: Record<Engine, number> } => ({ computed: stats.computed, engines: { ...stats.engines } });

/** Runs analyses over the store's data and caches results by project, data version and normalised filter. */
export interface AnalysisServiceOptions {
  /** The query parameters each persons endpoint declares (from the document), for the persons URLs in results. */
  personsQueryKeys?: AnalysisContext["personsQueryKeys"];
  /** The longest one in-process HogQL evaluation (breakdowns, maths) may run: the server's --query-time-limit. */
  queryTimeLimitMs?: number;
}

export function createAnalysisService(store: Store, clock: Clock, options: AnalysisServiceOptions = {}) {
  const cache = new LRUCache<string, CacheEntry>({ max: CACHE_ENTRIES });
  let revision = 0;
  const remember = (key: string, entry: CacheEntry) => {
    cache.set(key, entry);
    revision++;
  };

  /** Sessions per project, derived on first use and kept while the project's data version stays the same. */
  const sessionTables = new Map<string, { version: number; table: SessionTable }>();
  function sessionsOf(projectId: string): SessionTable {
    const version = store.analysisData.version(projectId);
    const known = sessionTables.get(projectId);
    if (known && known.version === version) return known.table;
    const table = deriveSessions(store.analysisData.events(projectId));
    sessionTables.set(projectId, { version, table });
    return table;
  }

  /** Each project's distinct ids resolved to actors, kept while its data version stays the same. */
  const actorTables = new Map<string, { version: number; table: ActorTable }>();
  function actorTableFor(projectId: string, personOf: AnalysisContext["personOf"]): AnalysisContext["actorTable"] {
    return (ids, count) => {
      const version = store.analysisData.version(projectId);
      const known = actorTables.get(projectId);
      if (known && known.version === version && known.table.slotOfDid.length >= count) return known.table;
      const table = buildActorTable(ids, count, personOf);
      actorTables.set(projectId, { version, table });
      return table;
    };
  }

  function contextOf(project: ProjectRecord): AnalysisContext {
    const index = store.analysisData.index(project.id);
    const personOf: AnalysisContext["personOf"] = (distinctId) => index.personsByDistinctId.get(distinctId);
    return {
      projectId: project.id,
      now: clock.now(),
      timezone: project.timezone,
      weekStartDay: project.week_start_day,
      queryTimeLimitMs: options.queryTimeLimitMs,
      personOf,
      actorTable: actorTableFor(project.id, personOf),
      cohorts: store.analysisData.cohorts(project.id),
      actions: store.analysisData.actions(project.id),
      testAccountFilters: project.test_account_filters,
      groups: store.analysisData.groupData(project.id),
      sessions: () => sessionsOf(project.id),
      propertyTypes: () => projectPropertyTypes(store, project.id),
      personsQueryKeys: options.personsQueryKeys,
    };
  }

  /** The request's plan: its engine, and its scans' threads for the rows of the project now. */
  function planOf(project: ProjectRecord, kind: string, filter: Filter, offMain: boolean): AnalysisPlan {
    const plan = planAnalysis(kind, filter, planThreads(store.analysisData.events(project.id).length, offMain));
    stats.engines[plan.engine]++;
    return plan;
  }

  /** The project's events as the plan's engine reads them. */
  const eventsFor = (project: ProjectRecord, plan: AnalysisPlan): EventList => {
    const events = store.analysisData.events(project.id);
    return plan.engine === "columns" ? events : generalScanView(events);
  };

  /** One analysis (or actors list) over the events as its plan's engine reads them, with its context. */
  type PlannedRun<T> = (events: EventList, ctx: AnalysisContext) => T;

  /** On the main thread: planned once, then run with the plan's engine and threads. */
  function planned<T>(project: ProjectRecord, kind: string, filter: Filter, run: PlannedRun<T>): T {
    const plan = planOf(project, kind, filter, false);
    return withThreads(plan.threads, () => run(eventsFor(project, plan), contextOf(project)));
  }

  /**
   * The same with its scans on the workers and the event loop free meanwhile: one plan and one context (one clock
   * reading) for every run, and the runs start over when the project's data changes in between.
   */
  function plannedOffMain<T>(project: ProjectRecord, kind: string, filter: Filter, run: PlannedRun<T>): Promise<T> {
    const plan = planOf(project, kind, filter, true);
    const ctx = contextOf(project);
    return offMainThread(() => run(eventsFor(project, plan), ctx), sameVersion(() => store.analysisData.version(project.id)), plan.threads);
  }

  /** The analysis of `kind` over `filter`; a kind this server cannot compute is a 400. */
  function analysisOf(kind: string, filter: Filter): PlannedRun<unknown> {
    const analysis = Object.hasOwn(COMPUTE, kind) ? COMPUTE[kind as AnalysisKind] : undefined;
    if (!analysis) throw fail.invalid("insight", `Insights of kind ${kind} cannot be computed here.`);
    return (events, ctx) => analysis(events, filter, ctx);
  }

  const compute = (project: ProjectRecord, kind: string, filter: Filter): unknown => planned(project, kind, filter, analysisOf(kind, filter));

  function computeOffMain(project: ProjectRecord, kind: string, filter: Filter): Promise<unknown> {
    stats.computed++;
    return plannedOffMain(project, kind, filter, analysisOf(kind, filter));
  }

  /**
   * The cached package for (project, kind, filter), recomputed when absent, when the data changed, or when
   * `refresh` asks and the cached one is older than `maxAge` (0 = always recompute on refresh).
   */
  const filterKeyOf = (filter: unknown) => stringify(filter) ?? "";
  const keyOf = (project: ProjectRecord, kind: string, filterKey: string) =>
    `${JSON.stringify([project.id, store.analysisData.version(project.id), kind])}${filterKey}`;

  /**
   * A saved insight's definition and filter key, kept while its filters, query and the dashboard overrides are
   * the same objects (a PATCH replaces them): a GET of an insight then skips the stable stringify of its filter.
   */
  const definitions = new WeakMap<InsightRecord, { filters: unknown; query: unknown; overrides: Filter | undefined; kind: string; filter: Filter; filterKey: string }>();
  function definitionWithKey(insight: InsightRecord, overrides: Filter | undefined) {
    const known = definitions.get(insight);
    if (known && known.filters === insight.filters && known.query === insight.query && known.overrides === overrides) return known;
    const definition = definitionOf(insight);
    const filter = applyDashboardFilter(definition.kind, definition.filter, overrides);
    const fresh = { filters: insight.filters, query: insight.query, overrides, kind: definition.kind, filter, filterKey: filterKeyOf(filter) };
    definitions.set(insight, fresh);
    return fresh;
  }

  function run(project: ProjectRecord, kind: string, filter: Filter, opts: { refresh: boolean; maxAge?: number }, key = keyOf(project, kind, filterKeyOf(filter))): AnalysisPackage {
    const now = clock.now();
    const cached = cache.get(key);
    // An entry computed ahead for this request is as fresh as a refresh asks.
    const fresh = cached && (cached.computedAheadNotYetAnswered || !(opts.refresh && now - cached.computedAt >= (opts.maxAge ?? 0)));
    if (!fresh) stats.computed++;
    const entry = fresh ? cached : { result: compute(project, kind, filter), computedAt: now, maxAge: opts.maxAge };
    if (!fresh) remember(key, entry);
    const isCached = Boolean(fresh) && !entry.computedAheadNotYetAnswered;
    if (entry.computedAheadNotYetAnswered) {
      // Answered once as computed for its request, it is cached from now on: bodies that show it change.
      delete entry.computedAheadNotYetAnswered;
      revision++;
    }
    return { result: entry.result, last_refresh: new Date(entry.computedAt).toISOString(), is_cached: isCached, timezone: project.timezone };
  }

  /**
   * Computes into the cache what `run` with the same arguments would compute, with the scans on the workers and
   * the event loop free meanwhile; `run` then answers it as computed for this request.
   */
  async function computeAhead(project: ProjectRecord, kind: string, filter: Filter, filterKey: string, opts: { refresh: boolean; maxAge?: number }): Promise<void> {
    const now = clock.now();
    const cached = cache.get(keyOf(project, kind, filterKey));
    if (cached && !(opts.refresh && now - cached.computedAt >= (opts.maxAge ?? 0))) return;
    const result = await computeOffMain(project, kind, filter);
    // The last run returned just now, with no write since: the data version now is the one it computed on.
    remember(keyOf(project, kind, filterKey), { result, computedAt: now, maxAge: opts.maxAge, computedAheadNotYetAnswered: true });
  }

  /** `run` for a request: a computation leaves the event loop free while the workers scan. */
  async function runAsync(project: ProjectRecord, kind: string, filter: Filter, opts: { refresh: boolean; maxAge?: number }): Promise<AnalysisPackage> {
    const filterKey = filterKeyOf(filter);
    await computeAhead(project, kind, filter, filterKey, opts);
    return run(project, kind, filter, opts, keyOf(project, kind, filterKey));
  }

  const actorsOf = (kind: ActorsKind, filter: Filter, point: DataPoint): PlannedRun<ActorRow[]> => (events, ctx) => ACTORS_OF[kind](events, filter, ctx, point);

  /** The actors behind one data point, cached like the analyses (same data version, same filter and point). */
  function actors(project: ProjectRecord, kind: ActorsKind, filter: Filter, point: DataPoint): ActorsPackage {
    const key = keyOf(project, `ACTORS:${kind}`, filterKeyOf({ filter, point }));
    const cachedEntry = cache.get(key);
    const entry = cachedEntry ?? { result: planned(project, kind, filter, actorsOf(kind, filter, point)), computedAt: clock.now() };
    if (!cachedEntry) remember(key, entry);
    const isCached = Boolean(cachedEntry) && !entry.computedAheadNotYetAnswered;
    if (entry.computedAheadNotYetAnswered) {
      delete entry.computedAheadNotYetAnswered;
      revision++;
    }
    return { actors: entry.result as ActorRow[], last_refresh: new Date(entry.computedAt).toISOString(), is_cached: isCached };
  }

  /** `actors` for a request: a computation leaves the event loop free while the workers scan. */
  async function actorsAsync(project: ProjectRecord, kind: ActorsKind, filter: Filter, point: DataPoint): Promise<ActorsPackage> {
    const key = keyOf(project, `ACTORS:${kind}`, filterKeyOf({ filter, point }));
    if (!cache.has(key)) {
      const now = clock.now();
      const result = await plannedOffMain(project, kind, filter, actorsOf(kind, filter, point));
      // Keyed anew: a write while it ran started it over on the data version now current.
      remember(keyOf(project, `ACTORS:${kind}`, filterKeyOf({ filter, point })), { result, computedAt: now, computedAheadNotYetAnswered: true });
    }
    return actors(project, kind, filter, point);
  }

  return {
    run,
    runAsync,
    actors,
    actorsAsync,
    /**
     * Computes a definition for its rejections (a saved insight's definition must be computable), with the event
     * loop free meanwhile; `keep`: the result is cached as computed for this request, so that the answer that
     * shows it does not compute it again.
     */
    async check(project: ProjectRecord, kind: string, filter: Filter, keep: boolean): Promise<void> {
      if (keep) await computeAhead(project, kind, filter, filterKeyOf(filter), { refresh: false });
      else await computeOffMain(project, kind, filter);
    },
    /** An insight's result; `overrides` are the dashboard's filters when loaded with from_dashboard. */
    /** `compute: false` (lists, create) serves only what is cached, as the real service's list does. */
    forInsight(project: ProjectRecord, insight: InsightRecord, opts: { refresh: boolean; overrides?: Filter; compute?: boolean }): InsightPackage {
      const none = { result: null, last_refresh: null, next_allowed_client_refresh: null, is_cached: false };
      let definition: ReturnType<typeof definitionWithKey>;
      try {
        definition = definitionWithKey(insight, opts.overrides);
      } catch (e) {
        if (asClientError(e)) return none;
        throw e;
      }
      const { filter, filterKey } = definition;
      const key = keyOf(project, definition.kind, filterKey);
      const entry = cache.get(key);
      if (opts.compute === false && !entry) return none;
      try {
        const maxAge = entry?.maxAge ?? minimumRefreshInterval(filter, contextOf(project));
        const pkg =
          opts.compute === false
            ? { result: entry!.result, last_refresh: new Date(entry!.computedAt).toISOString(), is_cached: true }
            : run(project, definition.kind, filter, { refresh: opts.refresh, maxAge }, key);
        const nextRefresh = isoUtcAfter(Date.parse(pkg.last_refresh), maxAge);
        return { result: pkg.result, last_refresh: pkg.last_refresh, next_allowed_client_refresh: nextRefresh, is_cached: pkg.is_cached };
      } catch (e) {
        // A saved insight whose definition cannot be computed (a draft without series, say) has no result yet.
        if (asClientError(e)) return none;
        throw e;
      }
    },
    /** Computes an insight's result ahead for a request, off the main thread, for `forInsight` to answer next. */
    async prepareInsight(project: ProjectRecord, insight: InsightRecord, opts: { refresh: boolean; overrides?: Filter }): Promise<void> {
      try {
        const { kind, filter, filterKey } = definitionWithKey(insight, opts.overrides);
        const cached = cache.get(keyOf(project, kind, filterKey));
        // Cached and no refresh asked: nothing to compute (a PATCH of a name, a view), and no context to build.
        if (cached && !opts.refresh) return;
        const maxAge = cached?.maxAge ?? minimumRefreshInterval(filter, contextOf(project));
        await computeAhead(project, kind, filter, filterKey, { refresh: opts.refresh, maxAge });
      } catch (e) {
        // forInsight answers a definition that cannot be computed (no result yet).
        if (!asClientError(e)) throw e;
      }
    },
    /** The request log's notes on a saved insight's answer (an inverted range answered empty); none for a definition that cannot be computed. */
    insightRangeNotes(project: ProjectRecord, insight: InsightRecord, overrides?: Filter): string[] {
      try {
        const { kind, filter } = definitionWithKey(insight, overrides);
        return rangeNotes(kind, filter, project, clock.now());
      } catch (e) {
        if (!asClientError(e)) throw e;
        return [];
      }
    },
    clear: () => {
      cache.clear();
      revision++;
    },
    /** Changes whenever a result is cached or the cache is cleared: bodies that show cached results are keyed by it. */
    revision: () => revision,
  };
}

export type AnalysisService = ReturnType<typeof createAnalysisService>;

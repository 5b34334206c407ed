import { readFile } from "node:fs/promises";
import { isPrintableInstant, type Clock } from "../core/clock.ts";
import { fail } from "../core/errors.ts";
import { bodyEvents, type RequestLog, type RequestLogEntry } from "../pipeline/request-log.ts";
import type { AnalysisService } from "../services/analysis-service.ts";
import type { QueryStatuses } from "../services/query/query-statuses.ts";
import type { ResultCache } from "../services/query/result-cache.ts";
import { assertFixtureDocument, FixtureError, stateFromFixtures } from "../store/load-fixtures.ts";
import type { State } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import type { OverrideRequest, Overrides } from "../pipeline/overrides.ts";
import type { ForcedFlagRequest, ForcedFlags } from "../services/forced-flags.ts";
import { compilePattern, queryFields, type RequestPattern } from "../pipeline/request-matcher.ts";
import { scenarioFile, scenarioList, scenarioNames } from "./scenarios.ts";
import { snapshotOf } from "./snapshot.ts";
import { compilePlanDocument } from "./tracking-plan.ts";
import type { Observation } from "./observe.ts";
import { createRecordingWaits } from "./recordings-wait.ts";
import { createSurveyForcing } from "./survey-forcing.ts";

export interface ControlDeps {
  store: Store;
  clock: Clock;
  analyses: AnalysisService;
  /** The query API's background queries and cached answers (a reset stops the one and forgets both). */
  queries: { statuses: QueryStatuses; results: ResultCache };
  requestLog: RequestLog;
  overrides: Overrides;
  forced: ForcedFlags;
  /** What apps sent to the capture endpoints, waited for and judged by the tracking plan. */
  observation: Observation;
  /** The state the server started with (reset restores it). */
  startup: State;
  startupClock: number | null;
  /** The `--rate-limits` buckets, emptied by a reset; absent when rate limits are off. */
  rateLimits?: { clear(): void };
}

export interface LoadOptions {
  /** Make the loaded state (and its clock) what later resets restore. */
  resetPoint?: boolean;
}

/** A logged request as a pattern sees it (a truncated body matches no body condition). */
const matchable = (e: RequestLogEntry) => ({ ...e, query: queryFields(e.query), body: e.body_truncated ? undefined : e.body, events: e.body_truncated ? [] : bodyEvents(e.body) });

const summary = (store: Store) => {
  const s = store.snapshot();
  return { projects: s.meta.projects.length, persons: s.persons.length, events: s.events.length, insights: s.meta.insights.length };
};

const OUT_OF_RANGE = "the clock must stay between 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z";

/** What tests may do to a running server: the same functions behind /_mock/ and the embedding API. */
export function createControl(deps: ControlDeps) {
  const { store, clock, analyses } = deps;
  const clockState = () => ({ now: new Date(clock.now()).toISOString(), frozen: clock.isFrozen() });
  /** Relative dates read the clock: cached analyses of another "now" must not be served. */
  const clockMoved = async () => {
    analyses.clear();
    deps.queries.results.clear();
    await store.events.runDueDeletions();
    return clockState();
  };
  /** What reset restores: the start-up state, until a load marks itself the reset point. */
  let resetPoint = { state: deps.startup, clock: deps.startupClock };
  const loadFixtures = async (doc: unknown, options: LoadOptions = {}) => {
    assertFixtureDocument(doc);
    const plan = doc.tracking_plan === undefined ? null : compilePlanDocument(doc.tracking_plan);
    if (typeof plan === "string") throw new FixtureError([{ pointer: "/tracking_plan", reason: plan }]);
    const now = doc.now ? Date.parse(doc.now) : null;
    const state = stateFromFixtures(doc, now ?? clock.now());
    await store.replace(state);
    if (plan) deps.observation.plan.install(plan);
    if (now !== null) clock.set(now);
    analyses.clear();
    if (options.resetPoint) resetPoint = { state: snapshotOf(store.snapshot()), clock: clock.isFrozen() ? clock.now() : null };
    return summary(store);
  };
  return {
    async reset() {
      deps.overrides.clear();
      deps.forced.clear();
      deps.rateLimits?.clear();
      await store.replace(snapshotOf(resetPoint.state));
      if (resetPoint.clock === null) clock.unfreeze();
      else clock.set(resetPoint.clock);
      analyses.clear();
      deps.queries.statuses.clear();
      deps.queries.results.clear();
      return summary(store);
    },
    /**
     * Replaces the whole state with a fixture document; throws FixtureError (nothing changed) when it is invalid.
     * With `resetPoint`, later resets come back to this state and clock instead of the start-up ones.
     */
    loadFixtures,
    /** Loads a bundled scenario by name (a 404 listing the names for an unknown one). */
    async loadScenario(name: string, options: LoadOptions = {}) {
      const file = scenarioFile(name);
      if (!file) throw fail.notFound(`No bundled scenario "${name}"; the bundled ones are ${scenarioNames().join(", ")}.`);
      return loadFixtures(JSON.parse(await readFile(file, "utf8")), options);
    },
    scenarios: scenarioList,
    clock: {
      get: clockState,
      set: (ms: number) => {
        if (!isPrintableInstant(ms)) throw fail.invalid("now", `now is out of range: ${OUT_OF_RANGE}.`);
        clock.set(ms);
        return clockMoved();
      },
      /** Checked before the clock moves: a step past year 9999 is refused and leaves it where it was. */
      advance: (ms: number) => {
        if (!isPrintableInstant(clock.now() + ms)) throw fail.invalid("seconds", `seconds moves the clock out of range: ${OUT_OF_RANGE}.`);
        clock.advance(ms);
        return clockMoved();
      },
      unfreeze: () => {
        clock.unfreeze();
        return clockMoved();
      },
    },
    /** What the state holds now, counted. */
    summary: () => summary(store),
    requests: (limit?: number) => ({ total: deps.requestLog.total, results: deps.requestLog.list(limit) }),
    clearRequests: () => deps.requestLog.clear(),
    /** Logged requests matching the pattern, newest first (only those the bounded log still holds). */
    findRequests(pattern: RequestPattern): RequestLogEntry[] {
      const matches = compilePattern(pattern);
      return deps.requestLog.list().filter((e) => matches(matchable(e)));
    },
    observation: deps.observation,
    /** Waits for session recordings to arrive through `/s/`. */
    recordings: createRecordingWaits(store),
    /** Shows a survey to one distinct id (forced flags, cleared by reset). */
    surveys: createSurveyForcing(store, deps.forced),
    forcedFlags: {
      add: (req: ForcedFlagRequest) => deps.forced.add(req),
      list: () => deps.forced.list(),
      remove: (id: number) => deps.forced.remove(id),
      clear: () => deps.forced.clear(),
    },
    overrides: {
      add: (req: OverrideRequest) => deps.overrides.add(req),
      list: () => deps.overrides.list(),
      remove: (id: number) => deps.overrides.remove(id),
      clear: () => deps.overrides.clear(),
    },
  };
}

export type Control = ReturnType<typeof createControl>;

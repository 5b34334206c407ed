import type { ForcedFlag, ForcedFlagRequest } from "./services/forced-flags.ts";
import type { ForcedSurvey, SurveyForceRequest } from "./control/survey-forcing.ts";
import type { Override, OverrideRequest } from "./pipeline/overrides.ts";
import { parseConfig } from "./config.ts";
import type { FixtureDocument } from "./store/fixture-document.ts";
import { createLogger } from "./core/logger.ts";
import { startServer as startCli, StartupError } from "./server.ts";
import type { RequestLogEntry } from "./pipeline/request-log.ts";
import { scenarioFile, scenarioList, scenarios } from "./control/scenarios.ts";
import type { TrackingPlan } from "./control/tracking-plan.ts";
import type { EventPattern, JudgedEvent, WaitAnswer, WaitRequest } from "./control/observe.ts";
import type { CapturedRequest } from "./capture/captured-log.ts";

export type { FixtureDocument } from "./store/fixture-document.ts";
export type { paths, components, operations } from "./generated/openapi.ts";
export type { RequestLogEntry } from "./pipeline/request-log.ts";
export type { ForcedFlag, ForcedFlagRequest } from "./services/forced-flags.ts";
export type { ForcedSurvey, SurveyForceRequest } from "./control/survey-forcing.ts";
export type { Override, OverrideRequest } from "./pipeline/overrides.ts";
export type { TrackingPlan, PlanViolation } from "./control/tracking-plan.ts";
export type { EventPattern, JudgedEvent, WaitRequest, WaitAnswer } from "./control/observe.ts";
export type { CapturedRequest } from "./capture/captured-log.ts";
export { StartupError } from "./server.ts";
export { FixtureError } from "./store/load-fixtures.ts";

/**
 * The bundled scenarios (small hand-made datasets in fixtures/scenarios/), by name: absolute paths, so they
 * work from any working directory. `startServer({ scenario: "basic" })` is the short form; `scenarioList`
 * says what each is for.
 */
export { scenarios, scenarioList };

/** Names of the bundled scenarios; any other string is checked against fixtures/scenarios/ at start. */
export type ScenarioName = "basic" | "capture" | "funnels" | "groups" | "sessions" | (string & {});

/** The command line's options, for tests that start the server in-process (port 0 and in-memory by default). */
export interface ServerOptions {
  port?: number;
  host?: string;
  /** Main store file; omitted: the state stays in memory. */
  data?: string;
  /**
   * With `data`: replace a stored state with the start-up dataset. Without it a data file written from a fixture
   * follows that fixture (reloaded once the fixture changed), and any other stored state is never replaced.
   */
  resetData?: boolean;
  /** With `data` and `fixtures`: keep the stored state even when the fixture changed since it was written. */
  keepData?: boolean;
  /** A fixture file path (relative paths are read from the working directory), or the document itself. Omitted: the generated dataset. */
  fixtures?: string | FixtureDocument;
  /** A bundled scenario by name (see `scenarios`); instead of `fixtures`. */
  scenario?: ScenarioName;
  /** true: move every timestamp so the newest event is now; false: never; omitted: the generated dataset only. */
  shiftToNow?: boolean;
  now?: string | Date;
  seed?: number;
  persons?: number;
  events?: number;
  bodyLimit?: number;
  latency?: number | [number, number];
  corsOrigins?: string[] | "none";
  /** Origins whose pages may call the control API (default: only the server's own). */
  controlOrigins?: string[];
  /** The longest one HogQL evaluation may run, in ms (default 1000). */
  queryTimeLimitMs?: number;
  adminToken?: string;
  /** A tracking plan file (as `--tracking-plan`), or the plan itself: it judges captured events. */
  trackingPlan?: string | TrackingPlan;
  logLevel?: "silent" | "info" | "debug";
  /** Throttle personal-API-key requests with the real service's rate limits (`--rate-limits`). */
  rateLimits?: boolean;
  /** Session recording on for every project (`--session-recording`). */
  sessionRecording?: boolean;
}

/** A running embedded server: the control API (/_mock/) as functions. */
export interface EmbeddedServer {
  url: string;
  close(): Promise<void>;
  /** Back to the start-up state and clock. */
  reset(): Promise<unknown>;
  /** Replaces the whole state with a fixture document; rejects with FixtureError (nothing changed) when it is invalid. */
  /** `{ resetPoint: true }`: later `reset()`s come back to this document (and its clock) instead of the start-up state. */
  loadFixtures(doc: FixtureDocument, options?: { resetPoint?: boolean }): Promise<unknown>;
  /** Loads a bundled scenario by name, as `POST /_mock/scenarios/{name}/` does; an unknown name rejects listing the names. */
  loadScenario(name: ScenarioName, options?: { resetPoint?: boolean }): Promise<unknown>;
  clock: {
    get(): { now: string; frozen: boolean };
    set(instant: string | Date): Promise<{ now: string; frozen: boolean }>;
    /** Moves the clock forward by `seconds`, as `POST /_mock/clock/advance/ {"seconds": N}` does (freezing it if it ran). */
    advance(by: { seconds: number }): Promise<{ now: string; frozen: boolean }>;
    /** Back to the wall clock. */
    unfreeze(): Promise<{ now: string; frozen: boolean }>;
  };
  requests(limit?: number): { total: number; results: RequestLogEntry[] };
  clearRequests(): void;
  /**
   * One-off answers, delays, 429s and fault rates of any operation (product, capture, flags), as
   * `/_mock/overrides/` takes them; an invalid one throws the API's 400 error. `reset()` clears them too.
   */
  overrides: {
    add(request: OverrideRequest): Override;
    list(): Override[];
    clear(): void;
  };
  /** Feature flag values forced for tests, as `/_mock/feature_flags/` does; `reset()` clears them too. */
  flags: {
    /** `value` true/false or a variant key, for one `distinct_id`, one `group`, or everyone. */
    force(request: ForcedFlagRequest): ForcedFlag;
    list(): ForcedFlag[];
    clear(): void;
  };
  /** Surveys shown to one distinct id, as `POST /_mock/surveys/force/` does (forced flags: `reset()` releases them). */
  surveys: { force(request: SurveyForceRequest): ForcedSurvey };
  /** The first project's id and token (what posthog-js and posthog-node are given) and the first user's personal API key, in the current state. */
  credentials(): { project_id: string; token: string; api_key: string | null };
  /** What apps sent to the capture endpoints, as `/_mock/captured/events/`, `/_mock/captured/wait/` and `/_mock/tracking_plan/`. */
  captured: {
    /** Stored events matching the pattern, oldest first, with the tracking plan's verdict. */
    events(pattern?: EventPattern): JudgedEvent[];
    /** Resolves once `count` (default 1) events match, or after `timeout_ms` (default 5000) with status "timed_out". */
    wait(request: WaitRequest): Promise<WaitAnswer>;
    /** Capture and flags requests the server refused (a wrong token, an undecodable body), newest first, each with its `error`. */
    refused(): CapturedRequest[];
    clear(): void;
    plan: { get(): TrackingPlan | null; set(plan: TrackingPlan): TrackingPlan; clear(): void };
  };
}

function bundledScenarioFile(name: string): string {
  const file = scenarioFile(name);
  if (!file) throw new StartupError(`unknown scenario "${name}": the bundled ones are ${Object.keys(scenarios).join(", ")}`);
  return file;
}

function fixturesPath(o: ServerOptions): string | undefined {
  if (o.scenario !== undefined && o.fixtures !== undefined) throw new StartupError("pass either scenario or fixtures, not both");
  if (o.scenario !== undefined) return bundledScenarioFile(o.scenario);
  return typeof o.fixtures === "string" ? o.fixtures : undefined;
}

function argv(o: ServerOptions): string[] {
  const args: string[] = ["--port", String(o.port ?? 0), "--log-level", o.logLevel ?? "silent"];
  const add = (flag: string, value: unknown) => value !== undefined && args.push(flag, String(value));
  const flag = (name: string, on: boolean | undefined) => on && args.push(name);
  add("--host", o.host);
  if (o.data) add("--data", o.data);
  else args.push("--in-memory");
  flag("--reset-data", o.resetData);
  flag("--keep-data", o.keepData);
  add("--fixtures", fixturesPath(o));
  flag("--shift-to-now", o.shiftToNow === true);
  flag("--no-shift", o.shiftToNow === false);
  add("--now", o.now instanceof Date ? o.now.toISOString() : o.now);
  add("--seed", o.seed);
  add("--persons", o.persons);
  add("--events", o.events);
  add("--body-limit", o.bodyLimit);
  add("--latency", Array.isArray(o.latency) ? o.latency.join("-") : o.latency);
  add("--cors-origins", Array.isArray(o.corsOrigins) ? o.corsOrigins.join(",") : o.corsOrigins);
  add("--control-origins", o.controlOrigins?.join(","));
  add("--query-time-limit", o.queryTimeLimitMs);
  add("--admin-token", o.adminToken);
  flag("--rate-limits", o.rateLimits);
  flag("--session-recording", o.sessionRecording);
  if (typeof o.trackingPlan === "string") add("--tracking-plan", o.trackingPlan);
  return args;
}

/** Seconds as the HTTP control API takes them; a bare number is refused (it used to mean milliseconds). */
function secondsOf(by: { seconds: number }): number {
  const seconds = (by as { seconds?: unknown } | null)?.seconds;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
    throw new TypeError(`clock.advance takes { seconds: N } with N ≥ 0, as POST /_mock/clock/advance/ does; got ${JSON.stringify(by)}`);
  }
  return seconds;
}

/**
 * Starts analytics-mock in this process and resolves once it listens. `close()` stops it; the control API is
 * there as functions: `reset()`, `loadFixtures(doc)`, `clock.get/set/advance/unfreeze`, `requests()`.
 * A start-up that cannot go on (missing fixture file, port in use, …) rejects with a StartupError or FixtureError.
 */
export async function startServer(options: ServerOptions = {}): Promise<EmbeddedServer> {
  const config = parseConfig(argv(options))!;
  const document = typeof options.fixtures === "object" ? options.fixtures : undefined;
  const started = await startCli(config, createLogger(config.logLevel), document);
  const { control } = started;
  if (typeof options.trackingPlan === "object") {
    try {
      control.observation.plan.set(options.trackingPlan);
    } catch (e) {
      await started.close();
      throw new StartupError(`trackingPlan: ${(e as { body?: { detail?: string } }).body?.detail ?? (e as Error).message}`);
    }
  }
  const { observation } = control;
  return {
    url: started.url,
    close: started.close,
    reset: control.reset,
    loadFixtures: control.loadFixtures,
    loadScenario: control.loadScenario,
    clock: {
      get: control.clock.get,
      set: (instant) => control.clock.set(new Date(instant).getTime()),
      advance: async (by) => control.clock.advance(secondsOf(by) * 1000),
      unfreeze: control.clock.unfreeze,
    },
    requests: control.requests,
    clearRequests: control.clearRequests,
    overrides: { add: control.overrides.add, list: control.overrides.list, clear: control.overrides.clear },
    flags: { force: control.forcedFlags.add, list: control.forcedFlags.list, clear: control.forcedFlags.clear },
    surveys: { force: control.surveys.force },
    credentials: () => {
      const project = started.store.projects.all()[0];
      if (!project) throw new Error("the state holds no project");
      return { project_id: project.id, token: project.api_token, api_key: started.store.users.all()[0]?.personal_api_keys[0] ?? null };
    },
    captured: {
      events: observation.events,
      wait: (request) => observation.wait(request),
      refused: () => observation.requests(Number.MAX_SAFE_INTEGER).results.filter((r) => r.error !== null),
      clear: observation.clear,
      plan: observation.plan,
    },
  };
}

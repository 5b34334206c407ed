import { parseArgs } from "node:util";
import path from "node:path";
import { fixturesFileOf, scenarioNames } from "./control/scenarios.ts";
import type { LogLevel } from "./core/logger.ts";
import { DEFAULT_DELETION_SCHEDULE, parseDeletionSchedule, type DeletionSchedule } from "./store/deletion-schedule.ts";

/** Everything the server can be told at start, validated once. */
export interface Config {
  port: number;
  host: string;
  /** Main store file; null with --in-memory. */
  dataFile: string | null;
  /** A fixture document to start from instead of the generated dataset. */
  fixturesFile: string | null;
  /** Frozen clock (epoch ms); null = wall clock (or the fixture's `now`). */
  now: number | null;
  seed: number;
  persons: number | null;
  events: number | null;
  /** Maximum JSON body size, in bytes. */
  bodyLimit: number;
  logLevel: LogLevel;
  /** Allowed CORS origins of the product API: ["*"] mirrors any origin; [] turns CORS off. */
  corsOrigins: string[];
  /** Origins whose pages may call the control API (/_mock/) besides the server's own loopback origin. */
  controlOrigins: string[];
  /** The longest a HogQL evaluation may hold the event loop, in ms. */
  queryTimeLimitMs: number;
  /** The longest one SQL query may run in ClickHouse, in ms (it runs in the engine's process, never on the event loop). */
  sqlTimeLimitMs: number;
  /** Delay added to every answer, uniformly in [min, max] ms. */
  latency: { min: number; max: number } | null;
  /** Token that opens the control API (/_mock/) to non-loopback clients. */
  adminToken: string | null;
  /** Reload the contract when openapi/ changes, keeping the state. */
  watch: boolean;
  /** Entries kept by the request log of the control API. */
  requestLogSize: number;
  /** A tracking plan (JSON Schema per event name) judging captured events; null: none until one is PUT. */
  trackingPlanFile: string | null;
  deletionSchedule: DeletionSchedule;
  /** Replace an existing data file with the start-up dataset (the fixture file or a freshly generated one). */
  resetData: boolean;
  /** Keep the stored state even when the --fixtures file changed since it was written from it. */
  keepData?: boolean;
  /**
   * Move every timestamp so that the newest event is now: "auto" does it for the generated dataset only
   * (when it is an hour or more out of date), "always" for any dataset (--shift-to-now), "never" (--no-shift).
   */
  shiftToNow: "auto" | "always" | "never";
  /** Apply the real service's rate limits per personal API key (--rate-limits); off by default. */
  rateLimits?: boolean;
  /** Session recording on for every project, whatever its own setting says (--session-recording); off by default. */
  sessionRecording?: boolean;
}

export const DEFAULTS = {
  port: 8000,
  host: "127.0.0.1",
  data: "./data/db.json",
  seed: 42,
  bodyLimit: 1_048_576,
  requestLogSize: 1000,
  queryTimeLimitMs: 1000,
  sqlTimeLimitMs: 30_000,
} as const;

/** The help text, naming the command as it was invoked (`npm start --`, `npx analytics-mock`, …). */
export function usage(command = "npm start --"): string {
  return `analytics-mock: a contract-first mock-and-reference server for a product analytics API

Usage: ${command} [options]

  --port P          port to listen on (default ${DEFAULTS.port}; 0 picks a free one)
  --host H          interface to bind (default ${DEFAULTS.host})
  --data PATH       main store file (default ${DEFAULTS.data}); persons, events and activity live in
                    sibling files PATH minus .json plus .persons.json, .persons.journal.ndjson,
                    .events.ndjson, .activity.ndjson
  --in-memory       keep the state in memory only; write nothing
  --fixtures FILE   start from this fixture document (format: fixtures/fixtures.schema.json)
                    instead of the generated dataset, or from a bundled scenario by name:
                    ${scenarioNames().join(", ")}. It is written to the data file when there is none
                    yet. A data file written from a fixture follows it: while the fixture is unchanged
                    the stored state (with what the API changed) is served; once the fixture is edited,
                    the next start reloads it and says so (--keep-data keeps the stored state). A data
                    file that did not come from a fixture is never replaced unless --reset-data is
                    given (use --in-memory to leave the data file alone)
  --keep-data       keep the stored state even when the --fixtures file changed since it was written
  --reset-data      replace the stored state in the data file with the start-up dataset
                    (the --fixtures file, else a freshly generated dataset)
  --shift-to-now    move every timestamp (events, persons, insights, surveys, recordings…) by one offset so
                    that the newest event is now by the server's clock; with --fixtures the fixture's
                    "now" is then ignored. Default: only the generated dataset is shifted, at each start
                    where its newest event is an hour or more old; fixtures keep their times
  --no-shift        never shift timestamps, not even the generated dataset's
  --now ISO         freeze the clock at this instant (default: the fixture's "now", else the wall clock)
  --seed N          seed of the generated dataset (default ${DEFAULTS.seed})
  --persons N       persons in the generated dataset (default 500)
  --events N        events in the generated dataset (default 50000); more than the JavaScript heap
                    (about 45 bytes each) or the machine (about 230 bytes each at the peak) holds is
                    refused at start, naming the NODE_OPTIONS that would raise the heap
  --body-limit N    maximum request body in bytes (default ${DEFAULTS.bodyLimit})
  --log-level L     silent | info | debug (default info; debug adds stack traces to start-up errors)
  --cors-origins L  origins allowed to call the product API from a browser, comma-separated; "*" for
                    any, "none" to turn CORS off (default *, as the real service)
  --control-origins L
                    origins whose pages may call the control API (/_mock/), comma-separated (default
                    none: only the server's own pages; a call carrying another Origin is refused)
  --query-time-limit MS
                    the longest one in-process HogQL evaluation (events list where/select, HogQL
                    breakdowns and math) may run before it is stopped with a 400 (default
                    ${DEFAULTS.queryTimeLimitMs}; other requests wait meanwhile)
  --sql-time-limit MS
                    the longest one SQL query (HogQL on the embedded ClickHouse, in its own process: other
                    requests are answered meanwhile) may run before it stops with a 400 (default
                    ${DEFAULTS.sqlTimeLimitMs}; a query also stops past 2 GiB of memory)
  --latency MS[-MS] delay every answer by MS, or uniformly between the two (default none)
  --rate-limits     throttle personal-API-key requests as the real service does (429 with Retry-After):
                    analytics 240/minute and 1200/hour, query API 2400/hour, the rest 480/minute and
                    4800/hour, per key, on the server's clock; capture and flags are never throttled
                    (default off)
  --session-recording
                    session replay on for every project (remote config and /flags answer the
                    sessionRecording object), whatever the project's session_recording_opt_in says (default
                    off: each project's own setting)
  --admin-token T   let non-loopback clients use the control API (/_mock/) with "X-Admin-Token: T"
                    (default: the control API answers loopback clients only)
  --watch           reload the contract when openapi/ changes, keeping the state
  --request-log N   entries kept by the control API's request log (default ${DEFAULTS.requestLogSize})
  --tracking-plan FILE  a JSON tracking plan ({"events": {"<name>": <JSON Schema of properties>},
                    "additional_events": "allow"|"deny"}) that judges captured events (/_mock/captured/events/)
  --deletion-schedule "DAY HH:00"
                    when queued person-event deletions run, UTC (default "SUN 05:00")
  --help            print this help
`;
}

/**
 * How the user typed the command, for the help text: npm sets npm_lifecycle_event ("start", or "npx" under
 * npx) and npm_command; otherwise the script's own name (the package's bin, or `node dist/main.mjs`).
 */
export function invokedAs(env: NodeJS.ProcessEnv = process.env, script = process.argv[1] ?? "", cwd = process.cwd()): string {
  if (env.npm_lifecycle_event === "start") return "npm start --";
  if (env.npm_lifecycle_event === "npx" || env.npm_command === "exec") return "npx analytics-mock";
  const name = path.basename(script);
  if (/^analytics-mock(\.m?js)?$/.test(name)) return "analytics-mock";
  return `node ${path.relative(cwd, script) || name}`;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

function integer(name: string, value: string | undefined, min: number): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

function instant(value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ConfigError(`--now must be an ISO 8601 date-time, got "${value}"`);
  return ms;
}

/** Parses argv (without node and script); throws ConfigError with a readable message. Returns null for --help. */
export function parseConfig(argv: string[], cwd = process.cwd()): Config | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      data: { type: "string" },
      "in-memory": { type: "boolean" },
      fixtures: { type: "string" },
      "reset-data": { type: "boolean" },
      "keep-data": { type: "boolean" },
      "shift-to-now": { type: "boolean" },
      "no-shift": { type: "boolean" },
      now: { type: "string" },
      seed: { type: "string" },
      persons: { type: "string" },
      events: { type: "string" },
      "body-limit": { type: "string" },
      "log-level": { type: "string" },
      "cors-origins": { type: "string" },
      "control-origins": { type: "string" },
      "query-time-limit": { type: "string" },
      "sql-time-limit": { type: "string" },
      latency: { type: "string" },
      "admin-token": { type: "string" },
      watch: { type: "boolean" },
      "request-log": { type: "string" },
      "tracking-plan": { type: "string" },
      "deletion-schedule": { type: "string" },
      "rate-limits": { type: "boolean" },
      "session-recording": { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return null;
  const logLevel = values["log-level"] ?? "info";
  if (logLevel !== "silent" && logLevel !== "info" && logLevel !== "debug") {
    throw new ConfigError(`--log-level must be silent, info or debug, got "${logLevel}"`);
  }
  if (values["in-memory"] && values.data) throw new ConfigError("--data and --in-memory exclude each other");
  if (values["keep-data"] && values["reset-data"]) throw new ConfigError("--keep-data and --reset-data exclude each other");
  if (values["shift-to-now"] && values["no-shift"]) throw new ConfigError("--shift-to-now and --no-shift exclude each other");
  const port = integer("port", values.port, 0) ?? DEFAULTS.port;
  if (port > 65535) throw new ConfigError(`--port must be ≤ 65535, got ${port}`);
  return {
    port,
    host: values.host ?? DEFAULTS.host,
    dataFile: values["in-memory"] ? null : path.resolve(cwd, values.data ?? DEFAULTS.data),
    fixturesFile: values.fixtures ? fixturesFileOf(values.fixtures, cwd) : null,
    now: instant(values.now),
    seed: integer("seed", values.seed, 0) ?? DEFAULTS.seed,
    persons: integer("persons", values.persons, 1),
    events: integer("events", values.events, 0),
    bodyLimit: integer("body-limit", values["body-limit"], 1024) ?? DEFAULTS.bodyLimit,
    logLevel,
    corsOrigins: corsOrigins(values["cors-origins"]),
    controlOrigins: controlOrigins(values["control-origins"]),
    queryTimeLimitMs: integer("query-time-limit", values["query-time-limit"], 1) ?? DEFAULTS.queryTimeLimitMs,
    sqlTimeLimitMs: integer("sql-time-limit", values["sql-time-limit"], 100) ?? DEFAULTS.sqlTimeLimitMs,
    latency: latency(values.latency),
    adminToken: values["admin-token"] ?? null,
    watch: values.watch ?? false,
    requestLogSize: integer("request-log", values["request-log"], 0) ?? DEFAULTS.requestLogSize,
    trackingPlanFile: values["tracking-plan"] ? path.resolve(cwd, values["tracking-plan"]) : null,
    deletionSchedule: schedule(values["deletion-schedule"]),
    resetData: values["reset-data"] ?? false,
    keepData: values["keep-data"] ?? false,
    shiftToNow: values["shift-to-now"] ? "always" : values["no-shift"] ? "never" : "auto",
    rateLimits: values["rate-limits"] ?? false,
    sessionRecording: values["session-recording"] ?? false,
  };
}

function corsOrigins(value: string | undefined): string[] {
  if (value === undefined) return ["*"];
  if (value.trim() === "none") return [];
  return value.split(",").map((o) => o.trim()).filter(Boolean);
}

function controlOrigins(value: string | undefined): string[] {
  if (value === undefined || value.trim() === "none") return [];
  const origins = value.split(",").map((o) => o.trim()).filter(Boolean);
  for (const origin of origins) {
    if (origin !== "*" && !/^https?:\/\/[^/\s]+$/.test(origin)) throw new ConfigError(`--control-origins takes origins such as http://localhost:3000, got "${origin}"`);
  }
  return origins;
}

function latency(value: string | undefined): Config["latency"] {
  if (value === undefined) return null;
  const m = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  if (!m) throw new ConfigError(`--latency must be MS or MS-MS, got "${value}"`);
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : Number(m[2]);
  if (max < min) throw new ConfigError(`--latency range must be ascending, got "${value}"`);
  return { min, max };
}

function schedule(value: string | undefined): DeletionSchedule {
  if (value === undefined) return DEFAULT_DELETION_SCHEDULE;
  try {
    return parseDeletionSchedule(value);
  } catch (e) {
    throw new ConfigError(`--deletion-schedule: ${(e as Error).message}`);
  }
}

import { createSqlDatabase, sqlFolderFor } from "./sql-engine/sql-database.ts";
import { watch } from "node:fs";
import path from "node:path";
import cors from "cors";
import http, { type IncomingMessage, type Server, type ServerResponse } from "node:http";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { Clock } from "./core/clock.ts";
import { CapturedLog } from "./capture/captured-log.ts";
import { captureContract } from "./capture/contract.ts";
import { doorSteering } from "./capture/door-steering.ts";
import { captureDoor, type RecordAnswer } from "./capture/router.ts";
import type { Config } from "./config.ts";
import { createOverrides } from "./control/overrides.ts";
import { ForcedFlags } from "./control/forced-flags.ts";
import { controlRouter, controlTakesBody } from "./control/router.ts";
import { createObservation } from "./control/observe.ts";
import { createControl } from "./control/service.ts";
import { snapshotOf } from "./control/snapshot.ts";
import { handlers } from "./handlers/index.ts";
import { createApi, OPENAPI_PATH, personsQueryKeysOf, rebuildApi, type RoutedRequest } from "./http/api.ts";
import { controlOriginPolicy } from "./http/control-origins.ts";
import { docsRouter } from "./http/docs.ts";
import { hogqlPreloader } from "./http/hogql-preload.ts";
import { fail, toApiError } from "./core/errors.ts";
import { assertJsonDepth } from "./http/json-depth.ts";
import { readFormBody } from "./http/multipart.ts";
import { ERROR_BODY_LOCAL, RequestLog, requestLogEntry } from "./http/request-log.ts";
import { quietCollector } from "./util/quiet-collector.ts";
import { respond, respondError } from "./http/respond.ts";
import { createBodyCache, SerializedJson } from "./http/serialized-body.ts";
import { AnsweredReads } from "./http/answered-reads.ts";
import { createRateLimits } from "./http/rate-limits.ts";
import { latencyDelay, parsePrefer, ResetConnection, type Steering } from "./http/steering.ts";
import type { Logger } from "./core/logger.ts";
import { createAnalysisService } from "./services/analysis-service.ts";
import { createQueryStatuses } from "./services/query/query-statuses.ts";
import { createResultCache } from "./services/query/result-cache.ts";
import type { State } from "./store/schema.ts";
import type { Store } from "./store/store.ts";

export interface AppOptions {
  store: Store;
  clock: Clock;
  config: Config;
  logger: Logger;
  /** The state to reset to; by default a snapshot of the store as the app is created. */
  startup?: State;
  /** For tests: the module the SQL engine loads (a missing one takes the path of a platform without chdb). */
  chdbModule?: string;
}

const BODY_METHODS = new Set(["POST", "PATCH", "PUT"]);
/** Decoded capture payloads can be large: fewer of them are kept than request-log lines. */
const CAPTURED_LOG_SIZE = 200;
/** Idle this long after a burst that grew the heap this much, the server collects its garbage (quiet-collector.ts). */
const QUIET_COLLECTION_MS = 5_000;
const QUIET_COLLECTION_GROWTH = 32 * 2 ** 20;

/** A body that is not JSON cannot be read: answer 415 instead of validating an empty body. */
function requireJsonBody(req: Request, _res: Response, next: NextFunction) {
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (BODY_METHODS.has(req.method) && hasBody && !req.is("application/json") && !req.is("+json")) {
    next(fail.unsupportedMediaType(req.headers["content-type"] ?? "none"));
    return;
  }
  next();
}

/** The product API's CORS, as the real service answers it; the control API has its own policy. */
const productCorsOf = (origins: string[]) =>
  cors({ origin: origins.includes("*") ? true : origins, credentials: true, exposedHeaders: ["Preference-Applied"], maxAge: 600 }) as (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

const isControlPath = (path: string) => /^\/_mock(\/|$)/i.test(path);

/** `Prefer` steering and `--latency`: parsed first, the delay waited before the request is handled. */
function steeringAndLatency(latency: Config["latency"]) {
  return (req: Request, res: Response, next: NextFunction) => {
    let steering: Steering;
    try {
      steering = parsePrefer(req.get("prefer"));
    } catch (e) {
      return next(e);
    }
    res.locals.steering = steering;
    const delay = latencyDelay(latency) + (steering.delay ?? 0);
    if (delay <= 0) return next();
    const timer = setTimeout(next, delay);
    req.once("close", () => clearTimeout(timer));
  };
}

/**
 * Bodies are read only for operations that declare one: an unknown path still answers 404/405 whatever its
 * body, and a body sent with a GET or DELETE is ignored rather than judged.
 */
function readDeclaredBody(jsonParser: express.RequestHandler, takesBody: (req: Request) => boolean) {
  return (req: Request, res: Response, next: NextFunction) => {
    // A form body (multipart) was read before, by the operations that declare one.
    if (!takesBody(req) || req.body !== undefined) return next();
    const checkDepth = (err?: unknown) => {
      if (err) return next(err);
      try {
        assertJsonDepth(req.body, null);
        next();
      } catch (depthError) {
        next(depthError);
      }
    };
    requireJsonBody(req, res, (err?: unknown) => (err ? next(err) : jsonParser(req, res, checkDepth)));
  };
}

/** Builds the express app over a store and a clock; no globals, so tests start as many as they like. */
export async function createApp({ store, clock, config, logger, startup, chdbModule }: AppOptions) {
  // Persons URLs in results carry only what the persons endpoints declare; read from the router built below.
  const analyses = createAnalysisService(store, clock, { personsQueryKeys: (endpoint) => personsQueryKeys(endpoint), queryTimeLimitMs: config.queryTimeLimitMs });
  const captureApi = await captureContract();
  const overrides = createOverrides(() => [router.api, captureApi]);
  const forced = new ForcedFlags();
  const sql = createSqlDatabase({ store, folder: sqlFolderFor(config.dataFile), chdbModule, timeoutMs: config.sqlTimeLimitMs });
  const queries = { statuses: createQueryStatuses(clock, (message, err) => logger.error(message, err)), results: createResultCache() };
  const rateLimits = config.rateLimits ? createRateLimits(() => clock.now()) : undefined;
  const baseDeps = { store, clock, config, analyses, sql, bodies: createBodyCache(), overrides, queries, forced, rateLimits };
  let router = await createApi(handlers, baseDeps);
  let personsQueryKeys = personsQueryKeysOf(router.api);
  /** Paths are routed with a trailing slash, as the real service's, except the few documented without one. */
  // `%40` is `@` (`@current`, `@me`): express leaves the path encoded, the real service's router decodes it.
  const routedPathOf = (raw: string) => {
    const path = raw.replace(/%40/gi, "@");
    return router.projectPathOf(path.endsWith("/") || router.slashless.has(path) ? path : `${path}/`);
  };
  const deletionDue = () => {
    const due = store.events.nextDeletionAt();
    return due !== null && due <= clock.now();
  };
  const answered = new AnsweredReads({
    revisions: () => `${store.revision()}:${analyses.revision()}`,
    unsteered: () => overrides.isEmpty() && !rateLimits && !config.latency && !deletionDue(),
  });
  const requestLog = new RequestLog(config.requestLogSize);
  const collector = quietCollector({ quietMs: QUIET_COLLECTION_MS, growthBytes: QUIET_COLLECTION_GROWTH });
  const captured = new CapturedLog(Math.min(config.requestLogSize, CAPTURED_LOG_SIZE));
  const control = createControl({
    store,
    clock,
    analyses,
    queries,
    requestLog,
    overrides,
    forced,
    rateLimits,
    observation: createObservation(captured),
    startup: startup ?? snapshotOf(store.snapshot()),
    startupClock: clock.isFrozen() ? clock.now() : null,
  });
  /** The operation a logged request was routed to (matched again: cheap, and right for refused requests too). */
  const operationOf = (method: string, path: string) => {
    // Only the product API has operations; capture and flags paths (the hot ones under SDK load) skip the match.
    if (!path.startsWith("/api/")) return null;
    try {
      return router.api.matchOperation({ method: method.toLowerCase(), path: routedPathOf(path), headers: {} })?.operationId ?? null;
    } catch {
      return null;
    }
  };
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // The docs' dozen routes are never under /api/: API requests skip walking them.
  const docs = docsRouter(store);
  app.use((req, res, next) => (req.path.startsWith("/api/") ? next() : docs(req, res, next)));
  /** Every answered request: a log line, and an entry in the request log (the control API's own calls excepted). */
  const record: RecordAnswer = (req, status, errorBody, ms, operationId) => {
    const at = req.originalUrl.indexOf("?");
    const path = at === -1 ? req.originalUrl : req.originalUrl.slice(0, at);
    logger.request(req.method, path, status, ms);
    collector.touch();
    if (!path.startsWith("/_mock")) requestLog.push(requestLogEntry(req, status, errorBody, operationId ?? operationOf(req.method, path), ms));
  };
  app.use((req, res, next) => {
    const started = performance.now();
    res.on("finish", () => record(req, res.statusCode, res.locals[ERROR_BODY_LOCAL], performance.now() - started, res.locals.operationId as string | undefined));
    next();
  });
  // Capture (openapi/capture.yaml) is answered ahead of express, by its own door: see captureDoor.
  const door = captureDoor({ store, clock, captured, forced, logger, record, steer: doorSteering(captureApi, overrides, config.latency) });
  app.use("/_mock", controlOriginPolicy(config.controlOrigins));
  const productCors = config.corsOrigins.length ? productCorsOf(config.corsOrigins) : undefined;
  if (productCors) app.use((req, res, next) => (isControlPath(req.path) ? next() : productCors(req, res, next)));
  const formBody = readFormBody(config.bodyLimit, `${config.bodyLimit} bytes`);
  app.use((req, res, next) => {
    if (!BODY_METHODS.has(req.method) || !req.is("multipart/form-data") || req.path.startsWith("/_mock")) return next();
    const operation = router.api.matchOperation({ method: req.method.toLowerCase(), path: routedPathOf(req.path), headers: {} });
    return (operation?.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.["multipart/form-data"] ? formBody(req, res, next) : next();
  });
  app.use(readDeclaredBody(express.json({ limit: config.bodyLimit, type: ["application/json", "+json"], strict: false }), (req) => {
    if (!BODY_METHODS.has(req.method)) return false;
    if (req.path.startsWith("/_mock")) return controlTakesBody(req.method, req.path);
    return Boolean(router.api.matchOperation({ method: req.method.toLowerCase(), path: routedPathOf(req.path), headers: {} })?.requestBody);
  }));
  app.use("/_mock", await controlRouter(control, config.adminToken));
  app.use(steeringAndLatency(config.latency));
  // Queued person-event deletions run once the (possibly frozen) clock passes their slot, before any read.
  app.use((_req, _res, next) => {
    if (!deletionDue()) return next();
    store.events.runDueDeletions().then(() => next(), next);
  });
  const preloadHogql = hogqlPreloader(store);
  app.use(async (req, res, next) => {
    try {
      const readKey = answered.keyOf(req);
      await preloadHogql(req);
      const routedPath = routedPathOf(req.path);
      let url: URL | undefined;
      const request: RoutedRequest = {
        method: req.method,
        path: routedPath,
        query: req.query as Record<string, string | string[]>,
        headers: req.headers,
        body: req.body,
        // Parsed only by the operations that build links (pagination).
        get url() {
          return (url ??= new URL(req.originalUrl, `${req.protocol}://${req.get("host") ?? "localhost"}`));
        },
        get href() {
          return `${req.get("host") ?? "localhost"}${req.originalUrl}`;
        },
      };
      const result = await router.handle(request, res.locals.steering as Steering);
      res.locals.operationId = request.operationId;
      if (result.status >= 400) res.locals[ERROR_BODY_LOCAL] = result.body;
      const format = typeof req.query.format === "string" ? req.query.format : undefined;
      if (readKey && result.repeatable && result.body instanceof SerializedJson && !result.headers && format !== "csv" && request.operationId) {
        answered.remember(readKey, request.operationId, result.body);
      }
      respond(res, result, format);
    } catch (err) {
      next(err);
    }
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ResetConnection) {
      req.socket.destroy();
      return;
    }
    const apiError = toApiError(err);
    if (apiError) {
      res.locals[ERROR_BODY_LOCAL] = apiError.body;
      return respondError(res, apiError.status, apiError.body);
    }
    logger.error("unexpected error", err);
    const internal = fail.internal();
    respondError(res, internal.status, internal.body);
  });

  /** --watch: a changed contract is loaded into a new router; the state is untouched. A broken one is reported and ignored. */
  const watcher = config.watch
    ? watch(path.dirname(OPENAPI_PATH), { recursive: true }, debounce(async () => {
        try {
          router = await rebuildApi(handlers, baseDeps);
          answered.clear();
          personsQueryKeys = personsQueryKeysOf(router.api);
          logger.info("openapi/ changed: contract reloaded (state kept)");
        } catch (e) {
          logger.error("openapi/ changed but does not load; keeping the previous contract", e);
        }
      }, 200))
    : null;

  /** A repeated read is answered ahead of express (http/answered-reads.ts), logged as the router's answer was. */
  const readDoor = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const read = answered.find(req);
    if (!read) return false;
    const send = () => {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": read.body.bytes.length });
      res.end(read.body.bytes);
      record({ method: "GET", originalUrl: req.url!, body: undefined }, 200, undefined, performance.now() - started, read.operationId);
    };
    if (productCors) productCors(req, res, send);
    else send();
    return true;
  };
  return {
    app: withDoor((req, res) => door(req, res) || readDoor(req, res), app),
    api: router.api,
    control,
    close: async () => {
      watcher?.close();
      collector.stop();
      control.observation.close();
      await sql.close();
    },
  };
}

/** What the server listens with: the capture door first, then the express app (also usable as middleware). */
export type AppHandler = ((req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void) & {
  listen(port: number, host: string, callback?: (err?: Error) => void): Server;
};

function withDoor(door: (req: IncomingMessage, res: ServerResponse) => boolean, app: Express): AppHandler {
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => {
    // Without a next, express ends an unanswered request itself (404); inside another app, that app goes on.
    if (door(req, res)) return;
    if (next) app(req as Request, res as Response, next);
    else (app as unknown as (req: IncomingMessage, res: ServerResponse) => void)(req, res);
  };
  // As express's own listen: a listening error reaches the callback.
  const listen = (port: number, host: string, callback?: (err?: Error) => void): Server => {
    const server = http.createServer(handler);
    if (callback) {
      server.once("error", callback);
      server.once("listening", () => {
        server.off("error", callback);
        callback();
      });
    }
    return server.listen(port, host);
  };
  return Object.assign(handler, { listen });
}

function debounce(fn: () => void, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

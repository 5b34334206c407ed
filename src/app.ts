import { createSqlDatabase, sqlFolderFor } from "./sql-engine/sql-database.ts";
import { watch } from "node:fs";
import path from "node:path";
import cors from "cors";
import http, { type IncomingMessage, type Server, type ServerResponse } from "node:http";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { Clock } from "./core/clock.ts";
import { CapturedLog } from "./capture/captured-log.ts";
import { captureContract } from "./capture/contract.ts";
import { captureTransport } from "./capture/transport.ts";
import type { Config } from "./config.ts";
import { createOverrides } from "./pipeline/overrides.ts";
import { ForcedFlags } from "./services/forced-flags.ts";
import { controlDocument, controlDocumentAnswer, controlSurface, controlTakesBody } from "./control/router.ts";
import { createObservation } from "./control/observe.ts";
import { createControl } from "./control/service.ts";
import { snapshotOf } from "./control/snapshot.ts";
import { handlers } from "./handlers/index.ts";
import { documentFacts, productApiSurface, productDocument } from "./handlers/product-api.ts";
import type { Deps } from "./handlers/types.ts";
import { controlOriginPolicy } from "./http/control-origins.ts";
import { docsRouter } from "./http/docs.ts";
import { hogqlPreloader } from "./http/hogql-preload.ts";
import { BODY_METHODS, readDeclaredBody } from "./http/json-body.ts";
import { readFormBody } from "./http/multipart.ts";
import { OPENAPI_PATH } from "./pipeline/documents.ts";
import { RequestLog } from "./pipeline/request-log.ts";
import { createAnswerLog, noteAnswer } from "./pipeline/log.ts";
import { authenticate } from "./pipeline/authenticate.ts";
import { quietCollector } from "./util/quiet-collector.ts";
import { errorAnswer, write } from "./pipeline/write.ts";
import { createBodyCache } from "./pipeline/serialized-body.ts";
import { RememberedReads } from "./pipeline/remembered-reads.ts";
import { createRateLimits } from "./pipeline/rate-limits.ts";
import { pipelineRequest, serveThroughPipeline, type TransportDeps, type TransportRequest } from "./pipeline/transport.ts";
import type { SteeringDeps } from "./pipeline/steer.ts";
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

/** Decoded capture payloads can be large: fewer of them are kept than request-log lines. */
const CAPTURED_LOG_SIZE = 200;
/** Idle this long after a burst that grew the heap this much, the server collects its garbage (quiet-collector.ts). */
const QUIET_COLLECTION_MS = 5_000;
const QUIET_COLLECTION_GROWTH = 32 * 2 ** 20;

/** The product API's CORS, as the real service answers it; the control API has its own policy. */
const productCorsOf = (origins: string[]) =>
  cors({ origin: origins.includes("*") ? true : origins, credentials: true, exposedHeaders: ["Preference-Applied"], maxAge: 600 }) as (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

const isControlPath = (path: string) => /^\/_mock(\/|$)/i.test(path);

/** Builds the express app over a store and a clock; no globals, so tests start as many as they like. */
export async function createApp({ store, clock, config, logger, startup, chdbModule }: AppOptions) {
  // Persons URLs in results carry only what the persons endpoints declare; read from the document loaded below.
  const analyses = createAnalysisService(store, clock, { personsQueryKeys: (endpoint) => facts.personsQueryKeys(endpoint), queryTimeLimitMs: config.queryTimeLimitMs });
  const captureApi = await captureContract();
  let api = await productDocument();
  let facts = documentFacts(api);
  const overrides = createOverrides(() => [api, captureApi]);
  const forced = new ForcedFlags();
  const sql = createSqlDatabase({ store, folder: sqlFolderFor(config.dataFile), chdbModule, timeoutMs: config.sqlTimeLimitMs });
  const queries = { statuses: createQueryStatuses(clock, (message, err) => logger.error(message, err)), results: createResultCache() };
  const rateLimits = config.rateLimits ? createRateLimits(() => clock.now()) : undefined;
  const bodies = createBodyCache();
  const deps = (): Deps => ({ store, clock, config, analyses, sql, bodies, queries, forced, schemas: facts.schemas });
  let handlerDeps = deps();
  /** Paths are routed with a trailing slash, as the real service's, except the few documented without one. */
  // `%40` is `@` (`@current`, `@me`): express leaves the path encoded, the real service's router decodes it.
  const routedPathOf = (raw: string) => {
    const path = raw.replace(/%40/gi, "@");
    return facts.projectPathOf(path.endsWith("/") || facts.slashless.has(path) ? path : `${path}/`);
  };
  const steering: SteeringDeps = {
    overrides,
    rateLimits,
    latency: config.latency,
    dueDeletions: () => {
      const due = store.events.nextDeletionAt();
      return due !== null && due <= clock.now() ? store.events.runDueDeletions() : null;
    },
  };
  const remembered = new RememberedReads(() => `${store.revision()}:${analyses.revision()}`);
  const preloadHogql = hogqlPreloader(store);
  const product = productApiSurface(() => api, handlers, () => handlerDeps, steering, remembered, (req) => preloadHogql({ originalUrl: req.originalUrl, path: req.path, body: req.body }));
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
  /** The operation of a logged request the pipeline did not match (refused before it): matched again, cheaply. */
  const operationOf = (method: string, path: string) => {
    // Only the product API is matched here; capture's and the control API's requests are noted by their transports.
    if (!path.startsWith("/api/")) return null;
    try {
      return api.router.matchOperation({ method: method.toLowerCase(), path: routedPathOf(path), headers: {} })?.operationId ?? null;
    } catch {
      return null;
    }
  };
  const log = createAnswerLog({ logger, requestLog, answered: () => collector.touch(), operationOf });
  const inExpress: TransportDeps = { log, logger, logsAnswers: false };
  const onNode: TransportDeps = { log, logger, logsAnswers: true };
  const controlApi = await controlDocument();
  const inspectorSession = () => ({ projects: store.projects.all().map(({ id, name, api_token }) => ({ id, name, api_token })) });
  const controlPipeline = await controlSurface(control, config.adminToken, inspectorSession);
  const controlPath = (path: string) => (path.endsWith("/") ? path : `${path}/`);

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // The docs' dozen routes are never under /api/: API requests skip walking them.
  const docs = docsRouter(store);
  app.use((req, res, next) => (req.path.startsWith("/api/") ? next() : docs(req, res, next)));
  app.use((req, res, next) => {
    log.logWhenFinished(req, res);
    next();
  });
  app.use("/_mock", controlOriginPolicy(config.controlOrigins));
  const productCors = config.corsOrigins.length ? productCorsOf(config.corsOrigins) : undefined;
  if (productCors) app.use((req, res, next) => (isControlPath(req.path) ? next() : productCors(req, res, next)));
  const formBody = readFormBody(config.bodyLimit, `${config.bodyLimit} bytes`);
  app.use((req, res, next) => {
    if (!BODY_METHODS.has(req.method) || !req.is("multipart/form-data") || req.path.startsWith("/_mock")) return next();
    const operation = api.router.matchOperation({ method: req.method.toLowerCase(), path: routedPathOf(req.path), headers: {} });
    return (operation?.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.["multipart/form-data"] ? formBody(req, res, next) : next();
  });
  app.use(readDeclaredBody(express.json({ limit: config.bodyLimit, type: ["application/json", "+json"], strict: false }), (req) => {
    if (!BODY_METHODS.has(req.method)) return false;
    if (req.path.startsWith("/_mock")) return controlTakesBody(controlApi, req.method, req.path);
    return Boolean(api.router.matchOperation({ method: req.method.toLowerCase(), path: routedPathOf(req.path), headers: {} })?.requestBody);
  }));
  app.use("/_mock", (req, res) => {
    if (req.method === "GET" && req.path === "/openapi.yaml") {
      // The document is not an operation of itself: served after the same authentication.
      try {
        authenticate({ scheme: "admin", adminToken: req.headers["x-admin-token"], remoteAddress: req.socket.remoteAddress, expected: config.adminToken });
        return write(res, controlDocumentAnswer());
      } catch (e) {
        const refusal = errorAnswer(e, logger);
        return write(res, { status: refusal.status, body: refusal.body });
      }
    }
    const request = pipelineRequest(req as TransportRequest, controlPath);
    // A long-poll (captured/wait) gives up when its client hangs up.
    const hangup = new AbortController();
    res.once("close", () => hangup.abort());
    request.signal = hangup.signal;
    void serveThroughPipeline(controlPipeline, req, res, request, inExpress);
  });
  app.use((req, res) => {
    void serveThroughPipeline(product, req as TransportRequest, res, pipelineRequest(req as TransportRequest, routedPathOf), inExpress);
  });
  // What fails before the pipeline (a body that does not parse, too large, too deep) is answered by its writer.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const refusal = errorAnswer(err, logger);
    noteAnswer(req, { errorBody: refusal.body });
    write(res, { status: refusal.status, body: refusal.body });
  });

  /** --watch: a changed contract is loaded into a new router; the state is untouched. A broken one is reported and ignored. */
  const watcher = config.watch
    ? watch(path.dirname(OPENAPI_PATH), { recursive: true }, debounce(async () => {
        try {
          api = await productDocument(true);
          facts = documentFacts(api);
          handlerDeps = deps();
          remembered.clear();
          logger.info("openapi/ changed: contract reloaded (state kept)");
        } catch (e) {
          logger.error("openapi/ changed but does not load; keeping the previous contract", e);
        }
      }, 200))
    : null;

  // Capture and flags (openapi/capture.yaml) on Node's own request: see capture/transport.ts.
  const settingsOverride = { sessionRecording: config.sessionRecording ?? false };
  const capture = captureTransport({ store, clock, captured, forced, logger, settingsOverride, api: captureApi, steering, log });
  /** A product API read runs on Node's own request too (no body to read): the same pipeline, without express's machinery. */
  const productRead = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== "GET" || !req.url?.startsWith("/api/")) return false;
    const serve = () => void serveThroughPipeline(product, req, res, pipelineRequest(req, routedPathOf), onNode);
    if (productCors && req.headers.origin !== undefined) productCors(req, res, serve);
    else serve();
    return true;
  };
  return {
    app: withTransports((req, res) => capture(req, res) || productRead(req, res), app),
    control,
    close: async () => {
      watcher?.close();
      collector.stop();
      control.observation.close();
      control.recordings.close();
      await sql.close();
    },
  };
}

/** What the server listens with: the transports on Node's own request first (capture, product API reads), then the express app (also usable as middleware). */
export type AppHandler = ((req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void) & {
  listen(port: number, host: string, callback?: (err?: Error) => void): Server;
};

function withTransports(answered: (req: IncomingMessage, res: ServerResponse) => boolean, app: Express): AppHandler {
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => {
    // Without a next, express ends an unanswered request itself (404); inside another app, that app goes on.
    if (answered(req, res)) return;
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

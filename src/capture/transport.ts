/**
 * Capture, flags, flag definitions, remote config and posthog-js's extension scripts are served on Node's own request and response, ahead of
 * express: SDKs call them at load-test rates, and express's per-request machinery (prototype swaps, a router
 * walk over every earlier layer) cost more than evaluating 50 flags. They still go through the pipeline's
 * stages, in its order: steering's waits → match (this table, each route's operation resolved once) →
 * authenticate → steer → handle → write → log.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQueryString } from "node:querystring";
import cors from "cors";
import type { Operation } from "openapi-backend";
import type { Backend } from "../pipeline/documents.ts";
import { RESET_STATUS, type AnswerLog } from "../pipeline/log.ts";
import { ResetConnection } from "../pipeline/prefer.ts";
import type { HandlerResult } from "../pipeline/result.ts";
import { steer, steeringDelay, type SteeringDeps } from "../pipeline/steer.ts";
import { errorAnswer, write } from "../pipeline/write.ts";
import { BATCH_LIMIT, EVENT_LIMIT } from "./body.ts";
import { captureRoute, decideShape, definitionsRoute, flagsRoute, flagsShape, remoteConfigRoute } from "./routes.ts";
import { staticPathParts, staticScriptRoutes } from "./static-scripts.ts";
import type { CaptureDeps, CaptureRequest, CaptureRoute } from "./request.ts";
import { snapshotRoute } from "./snapshot-route.ts";
import { publicSurveysRoute } from "./surveys-route.ts";
import { publicEarlyAccessRoute, publicWebExperimentsRoute } from "./client-features-routes.ts";

const EVENT_PATHS = ["/e", "/i/v0/e", "/capture", "/track", "/engage"];
/** Paths under which CORS is answered, preflights included (the real service mirrors the origin). */
const CORS_PREFIXES = [...EVENT_PATHS, "/batch", "/s", "/flags", "/decide", "/array", "/api/feature_flag", "/api/surveys", "/api/early_access_features", "/api/web_experiments"];

/** `capture_e` for `/e`, `capture_i_v0_e_get` for `GET /i/v0/e`: capture.yaml's names. */
const captureOperationId = (path: string, verb: "GET" | "POST") => `capture_${path.slice(1).replaceAll("/", "_")}${verb === "GET" ? "_get" : ""}`;

/** The routes by exact path (a trailing slash is optional, as elsewhere) and method. */
function routeTable(deps: CaptureDeps) {
  const table = new Map<string, Partial<Record<"GET" | "POST", CaptureRoute>>>();
  for (const path of [...EVENT_PATHS, "/batch"]) {
    const limit = path === "/batch" ? BATCH_LIMIT : EVENT_LIMIT;
    table.set(path, { GET: captureRoute(deps, captureOperationId(path, "GET"), limit, path === "/engage"), POST: captureRoute(deps, captureOperationId(path, "POST"), limit, path === "/engage") });
  }
  table.set("/s", { POST: snapshotRoute(deps, "capture_s") });
  table.set("/flags", { GET: flagsRoute(deps, "flags_evaluate_get", flagsShape, false), POST: flagsRoute(deps, "flags_evaluate", flagsShape, true) });
  table.set("/decide", { GET: flagsRoute(deps, "decide_evaluate_get", decideShape, false), POST: flagsRoute(deps, "decide_evaluate", decideShape, true) });
  table.set("/api/surveys", { GET: publicSurveysRoute(deps, "surveys_public") });
  table.set("/api/early_access_features", { GET: publicEarlyAccessRoute(deps, "early_access_features_public") });
  table.set("/api/web_experiments", { GET: publicWebExperimentsRoute(deps, "web_experiments_public") });
  table.set("/flags/definitions", { GET: definitionsRoute(deps, "flags_definitions") as CaptureRoute });
  table.set("/api/feature_flag/local_evaluation", { GET: definitionsRoute(deps, "flags_local_evaluation_legacy") as CaptureRoute });
  return table;
}

/** `/array/{token}/config` (JSON) and `/array/{token}/config.js` (the script posthog-js loads). */
const REMOTE_CONFIG = /^\/array\/([^/]+)\/(config|config\.js)\/?$/;

const underCorsPrefix = (path: string) => CORS_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
/** Scripts are public: any origin, no credentials (as an assets host answers). */
const isStaticPath = (path: string) => path.startsWith("/static/");

const firstValues = (query: Record<string, string | string[] | undefined>): Record<string, string | undefined> => {
  const first: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) first[k] = Array.isArray(v) ? v[0] : v;
  return first;
};

export interface CaptureTransportDeps extends CaptureDeps {
  /** openapi/capture.yaml: the operations steering answers for. */
  api: Backend;
  steering: SteeringDeps;
  log: AnswerLog;
}

/** Capture and flags are authenticated by the payload's token, inside their handlers (the body is read there). */
const ANONYMOUS = Object.freeze({ who: undefined, rateKey: undefined });

/** The stages after matching: authenticate → steer → handle. */
async function answerOf(req: CaptureRequest, url: string, operation: Operation, deps: CaptureTransportDeps): Promise<HandlerResult> {
  const { route } = req;
  const steering = await steeringDelay(deps.steering, req.raw.headers);
  const { who, rateKey } = route.authenticate ? route.authenticate(req) : ANONYMOUS;
  // Capture reads its body after steering (it may be gzip or a form): overrides match the query only.
  const search = url.indexOf("?") === -1 ? "" : url.slice(url.indexOf("?"));
  const steered = await steer(deps.steering, deps.api, operation, { method: req.method, path: req.path, search, body: undefined }, steering, rateKey);
  return steered ?? (await route.handle(req, who));
}

/**
 * A function that answers the requests capture owns (returning true) and leaves every other request to the
 * app. Paths are matched as written, as the real capture's router does: `/E/` is no capture endpoint.
 */
export function captureTransport(deps: CaptureTransportDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const table = routeTable(deps);
  // Each route's operation in capture.yaml, found once (the router's own lookup scans every operation).
  const operations = new Map(deps.api.router.getOperations().map((op) => [op.operationId!, op]));
  const remote = { GET: remoteConfigRoute(deps, "remote_config_retrieve"), script: remoteConfigRoute(deps, "remote_config_script") };
  const scripts = staticScriptRoutes();
  const routes = [...[...table.values()].flatMap((byVerb) => Object.values(byVerb)), remote.GET, remote.script, scripts.unversioned, scripts.versioned];
  const undocumented = routes.filter((route) => !operations.has(route.operationId)).map((route) => route.operationId);
  if (undocumented.length) throw new Error(`capture routes without an operation in openapi/capture.yaml: ${undocumented.join(", ")}`);
  type CorsMiddleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  const corsHeaders = cors({ origin: true, credentials: true, methods: ["GET", "POST", "OPTIONS"], optionsSuccessStatus: 200, maxAge: 600 }) as unknown as CorsMiddleware;
  const staticCorsHeaders = cors({ origin: "*", methods: ["GET", "HEAD", "OPTIONS"], optionsSuccessStatus: 200, maxAge: 600 }) as unknown as CorsMiddleware;

  const routeOf = (method: string, path: string): { route: CaptureRoute; params: Record<string, string> } | undefined => {
    const verb = method === "HEAD" ? "GET" : method;
    if (verb !== "GET" && verb !== "POST") return undefined;
    const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
    const route = table.get(trimmed)?.[verb];
    if (route) return { route, params: {} };
    const script = verb === "GET" ? staticPathParts(path) : null;
    if (script) return script.version === undefined ? { route: scripts.unversioned, params: { file: script.file } } : { route: scripts.versioned, params: { version: script.version, file: script.file } };
    const config = verb === "GET" ? REMOTE_CONFIG.exec(path) : null;
    return config ? { route: config[2] === "config" ? remote.GET : remote.script, params: { token: config[1]!, file: config[2]! } } : undefined;
  };

  const finish = (raw: IncomingMessage, req: CaptureRequest | undefined, status: number, startedAt: number, errorBody?: unknown, notes?: readonly string[]) =>
    deps.log.logAnswer(raw, status, startedAt, { operationId: req?.route.operationId, errorBody, decoded: req?.decoded, notes });

  return (raw, res) => {
    const url = raw.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    const method = raw.method ?? "GET";
    const preflight = method === "OPTIONS" && (underCorsPrefix(path) || isStaticPath(path));
    const matched = preflight ? undefined : routeOf(method, path);
    if (!preflight && !matched) return false;
    const startedAt = performance.now();
    (isStaticPath(path) ? staticCorsHeaders : corsHeaders)(raw, res, () => {
      const req: CaptureRequest = {
        raw,
        res,
        method,
        path,
        query: q === -1 ? {} : firstValues(parseQueryString(url.slice(q + 1))),
        header: (name) => {
          const value = raw.headers[name];
          return Array.isArray(value) ? value.join(", ") : value;
        },
        route: matched!.route,
        params: matched!.params,
        body: Buffer.alloc(0),
      };
      answerOf(req, url, operations.get(req.route.operationId)!, deps).then(
        (result) => {
          write(res, result);
          finish(raw, req, result.status, startedAt, result.status >= 400 ? result.body : undefined, result.notes);
        },
        (e: unknown) => {
          if (e instanceof ResetConnection) {
            // A fault rate's dropped connection: no answer at all, as a crashed server or a proxy gives.
            raw.socket.destroy();
            return finish(raw, req, RESET_STATUS, startedAt);
          }
          const refusal = errorAnswer(e, deps.logger);
          write(res, { status: refusal.status, body: refusal.body });
          finish(raw, req, refusal.status, startedAt, refusal.body);
        },
      );
    });
    // A preflight is answered by cors itself.
    if (preflight) finish(raw, undefined, res.statusCode, startedAt);
    return true;
  };
}

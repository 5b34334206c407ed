/**
 * The capture surface the client libraries call (openapi/capture.yaml): capture, `/flags`, `/decide`, flag
 * definitions and remote config. Authenticated by the project token in the payload, not by a personal API key,
 * and answered with CORS for any browser origin, as the real service does.
 *
 * This door is served on Node's own request and response, ahead of express: SDKs call it at load-test rates,
 * and express's per-request machinery (prototype swaps, a router walk over every earlier layer, `res.json`)
 * cost more than evaluating 50 flags. Bodies are still read by body-parser and CORS answered by `cors`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQueryString } from "node:querystring";
import cors from "cors";
import express from "express";
import { v7 as uuidv7 } from "uuid";
import { isPrintableInstant, type Clock } from "../core/clock.ts";
import { ApiError, fail, isUndecodableBody, toApiError, type ErrorBody } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Store } from "../store/store.ts";
import type { CapturedEvent, CapturedLog, CapturedRequest } from "./captured-log.ts";
import { decodeCapture, type RawCapture } from "./decode.ts";
import { captureFail } from "./errors.ts";
import { ingest } from "./ingest.ts";
import { normaliseEvent, toBatch, type NormalisedEvent } from "./normalise.ts";
import { decideAnswerJson, flagsAnswerJson, remoteConfig, remoteConfigScript, type FlagsOutcome } from "./remote-config.ts";
import { flagsRequestOf } from "./flags-request.ts";
import { evaluateForRequest, flagDefinitionsAnswer, hasFeatureFlags, type FlagsRequest } from "../services/feature-flags.ts";
import type { ForcedFlags } from "../control/forced-flags.ts";
import type { HandlerResult } from "../http/types.ts";
import type { DoorSteer } from "./door-steering.ts";
import type { ProjectRecord } from "../store/schema.ts";
import { derivedProjectSecretKey } from "../util/ids.ts";

/** Body limits of the real capture: 20 MB for `/batch/`, 2 MB elsewhere; after decompression. */
export const BATCH_LIMIT = 20 * 1024 * 1024;
export const EVENT_LIMIT = 2 * 1024 * 1024;

const EVENT_PATHS = ["/e", "/i/v0/e", "/capture", "/track", "/engage"];
/** Paths under which CORS is answered, preflights included (the real service mirrors the origin). */
const CORS_PREFIXES = [...EVENT_PATHS, "/batch", "/flags", "/decide", "/array", "/api/feature_flag"];

/**
 * What the app records of every answered request (the request log and the log line). `decoded`: a capture
 * payload as decoded (gzip, lz64, base64, forms), which the request log keeps instead of the bytes.
 */
export type RecordAnswer = (req: { method: string; originalUrl: string; body: unknown; decoded?: unknown }, status: number, errorBody: unknown, ms: number, operationId?: string) => void;

/** A small capture body's decoded payload, left on the request for the request log (a large one is logged as bytes). */
type DecodedRequest = IncomingMessage & { decoded?: unknown };
const DECODED_LOG_LIMIT = 64 * 1024;

export interface CaptureDeps {
  store: Store;
  clock: Clock;
  captured: CapturedLog;
  /** Flag values forced by tests (`/_mock/feature_flags/`). */
  forced: ForcedFlags;
  logger: Logger;
  record: RecordAnswer;
  /** Overrides and `Prefer` (capture/door-steering.ts): an answer that replaces the route's, or null. */
  steer?: DoorSteer;
}

/** A request at the door, parsed once: its path and query (first value of each key), headers and body bytes. */
interface DoorRequest {
  raw: IncomingMessage & { body?: unknown };
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  header(name: string): string | undefined;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /** The body bytes, read for the routes that take one (empty otherwise). */
  body: Buffer;
}

/** An answer written by a route: the status and, for a refusal, the error body the request log keeps. */
interface Answered {
  status: number;
  errorBody?: ErrorBody;
}

type Route = (req: DoorRequest, res: ServerResponse) => Promise<Answered> | Answered;

const firstValues = (query: Record<string, string | string[] | undefined>): Record<string, string | undefined> => {
  const first: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) first[k] = Array.isArray(v) ? v[0] : v;
  return first;
};

function send(res: ServerResponse, status: number, type: string, text: string, headers: Record<string, string> = {}): Answered {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader("Content-Type", `${type}; charset=utf-8`);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
  return { status };
}

const sendJson = (res: ServerResponse, status: number, body: unknown) => send(res, status, "application/json", JSON.stringify(body));

function sendError(res: ServerResponse, e: ApiError): Answered {
  if (!res.headersSent) sendJson(res, e.status, e.body);
  return { status: e.status, errorBody: e.body };
}

/** An event as the captured log keeps it, for waiting and the tracking plan. */
const capturedEvent = (e: NormalisedEvent, capturedAt: string): CapturedEvent => ({
  uuid: e.uuid,
  event: e.event,
  distinct_id: e.distinct_id,
  properties: e.properties,
  timestamp: new Date(e.timestamp).toISOString(),
  captured_at: capturedAt,
});

/** A request as the captured log keeps it. */
function capturedEntry(req: DoorRequest, status: number, decoded: unknown, error: string | null): CapturedRequest {
  return {
    at: new Date().toISOString(),
    method: req.method,
    path: req.path,
    query: req.query,
    content_type: req.header("content-type") ?? null,
    content_encoding: req.header("content-encoding") ?? null,
    body_bytes: req.body.length,
    status,
    decoded,
    error,
  };
}

/** A flags request in the captured log, with who was evaluated and what each flag came out as. */
function logFlags(req: DoorRequest, captured: CapturedLog, outcome: (FlagsOutcome & { request?: FlagsRequest; body: unknown }) | null, status: number, error: string | null) {
  const request = outcome?.request;
  const values: Record<string, string | boolean> = {};
  for (const v of outcome?.values ?? []) values[v.key] = v.variant ?? v.enabled;
  captured.push({
    ...capturedEntry(req, status, outcome?.body ?? null, error),
    ...(request ? { flags: { distinct_id: request.distinctId, groups: request.groups, values } } : {}),
  });
}

/** Token shape: trimmed, 1–64 ASCII characters, no NUL, never a personal key (`phx_`). */
const wellFormedToken = (token: string) => token.length <= 64 && /^[\x01-\x7f]+$/.test(token) && !token.startsWith("phx_");

/** body-parser's failures (size, encoding, aborted) as capture errors. */
function bodyError(err: unknown, limit: number): ApiError | null {
  const type = (err as { type?: string } | null)?.type;
  if (type === "entity.too.large") return captureFail.tooLarge(limit);
  if (type === "encoding.unsupported") return captureFail.decoding("unsupported content encoding");
  if (type === "request.aborted" || type === "request.size.invalid") return fail.invalid(null, "The request was aborted.", "request_aborted");
  if (isUndecodableBody(err)) return captureFail.decoding(`the body does not decode with its Content-Encoding (${err.message})`);
  return null;
}

/**
 * Reads the body with body-parser (Content-Encoding: gzip is inflated there, its limit applying to the inflated
 * size, so a gzip bomb is a 413); a body that cannot be read is refused as capture refuses it.
 */
function bodyReader(limit: number) {
  const parse = express.raw({ type: () => true, limit, inflate: true }) as unknown as (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
  return (req: DoorRequest, res: ServerResponse): Promise<void> =>
    new Promise((resolve, reject) =>
      parse(req.raw, res, (err) => {
        if (err) return reject(bodyError(err, limit) ?? toApiError(err) ?? err);
        if (Buffer.isBuffer(req.raw.body)) req.body = req.raw.body;
        resolve();
      }),
    );
}

function captureRoute(deps: CaptureDeps, limit: number, engage: boolean): Route {
  const readBody = bodyReader(limit);
  return async (req, res) => {
    const log = (status: number, decoded: unknown, error: string | null, events: CapturedEvent[] = []) =>
      deps.captured.push(capturedEntry(req, status, decoded, error), events);
    let decoded: unknown = null;
    try {
      await readBody(req, res);
      const raw: RawCapture = { body: req.body, contentType: req.header("content-type"), contentEncoding: undefined, query: req.query };
      decoded = decodeCapture(raw, limit);
      if (req.body.length <= DECODED_LOG_LIMIT) (req.raw as DecodedRequest).decoded = decoded;
      const batch = toBatch(decoded);
      // Authentication before validation: a request for no project learns nothing about its events.
      if (batch.token === undefined) throw captureFail.missingToken();
      const project = wellFormedToken(batch.token) ? deps.store.projects.byToken(batch.token) : undefined;
      if (!project) throw captureFail.unknownToken();
      const now = deps.clock.now();
      const ctx = { now, sentAt: batch.sentAt ?? sentAtOfQuery(req.query), engage, ip: req.raw.socket.remoteAddress, newUuid: () => uuidv7({ msecs: now }) };
      const events = batch.events.map((e) => normaliseEvent(e, ctx)).filter((e) => e !== null);
      await ingest(deps.store, project, events);
      const capturedAt = new Date(now).toISOString();
      log(200, decoded, null, events.map((e) => capturedEvent(e, capturedAt)));
      if (req.query.beacon === "1") {
        res.statusCode = 204;
        res.end();
        return { status: 204 };
      }
      return sendJson(res, 200, { status: 1 });
    } catch (e) {
      const refusal = toApiError(e);
      if (!refusal) throw e;
      log(refusal.status, decoded, refusal.body.detail);
      return sendError(res, refusal);
    }
  };
}

/**
 * `_` or `sent_at` in the query: epoch milliseconds, honoured only after 2020 (a seconds value is ignored)
 * and before year 10000 (past it there is no date to write).
 */
function sentAtOfQuery(query: Record<string, string | undefined>): string | undefined {
  const ms = Number(query.sent_at ?? query._);
  return isPrintableInstant(ms) && ms > Date.UTC(2021, 0, 1) ? new Date(ms).toISOString() : undefined;
}

/** A flags request's decoded body (null when there is none) and token: query `token`/`api_key`, or the body's. */
function flagsBodyAndToken(req: DoorRequest): { body: unknown; token: string | undefined } {
  let body: unknown = null;
  if (req.body.length > 0) {
    try {
      body = decodeCapture({ body: req.body, contentType: req.header("content-type"), contentEncoding: undefined, query: { compression: req.query.compression } }, EVENT_LIMIT);
      // Decoded once: the request log keeps this instead of parsing the bytes again.
      if (req.body.length <= DECODED_LOG_LIMIT) (req.raw as DecodedRequest).decoded = body;
    } catch {
      body = null;
    }
  }
  const fields = (body ?? {}) as Record<string, unknown>;
  const token = req.query.token || req.query.api_key || fields.token || fields.api_key;
  return { body, token: typeof token === "string" ? token : undefined };
}

/**
 * Evaluates a flags request. A token that names no project is refused, as the real `/flags` does; no token at
 * all is answered without flags; `disable_flags` (posthog-js's config-only call) asks for none.
 */
async function flagsOutcome(req: DoorRequest, deps: CaptureDeps): Promise<FlagsOutcome & { request?: FlagsRequest; body: unknown }> {
  const { body, token } = flagsBodyAndToken(req);
  if (token === undefined) return { token, hasFeatureFlags: false, values: [], body };
  const project = deps.store.projects.byToken(token);
  if (!project) throw captureFail.unknownToken();
  const hasFlags = hasFeatureFlags(deps, project);
  if ((body as Record<string, unknown> | null)?.disable_flags === true) return { token, hasFeatureFlags: hasFlags, values: [], body };
  const request = flagsRequestOf(body, req.query);
  return { token, hasFeatureFlags: hasFlags, values: await evaluateForRequest(deps, project, request), request, body };
}

/** `/flags` and `/decide` in one of their answer shapes; a POST's body is read first. */
function flagsRoute(deps: CaptureDeps, shape: (query: Record<string, string | undefined>, outcome: FlagsOutcome) => string, readBody?: (req: DoorRequest, res: ServerResponse) => Promise<void>): Route {
  return async (req, res) => {
    try {
      if (readBody) await readBody(req, res);
      const outcome = await flagsOutcome(req, deps);
      const answered = send(res, 200, "application/json", shape(req.query, outcome));
      logFlags(req, deps.captured, outcome, 200, null);
      return answered;
    } catch (e) {
      const refusal = toApiError(e);
      if (!refusal) throw e;
      logFlags(req, deps.captured, null, refusal.status, refusal.body.detail);
      return sendError(res, refusal);
    }
  };
}

/**
 * The project whose flag definitions a local evaluation poll asks for: the `token` names it, and the bearer key
 * is a personal API key of a member or that project's secret key (`phs_…`); without a token, the key's user's
 * first project (as `@current`).
 */
function definitionsProject(req: DoorRequest, store: Store): ProjectRecord {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.header("authorization") ?? "")?.[1];
  if (bearer === undefined) throw fail.notAuthenticated();
  const token = req.query.token;
  const named = token === undefined ? undefined : store.projects.byToken(token);
  if (token !== undefined && !named) throw captureFail.unknownToken();
  if (bearer.startsWith("phs_")) {
    const project = named ?? store.projects.all().find((p) => derivedProjectSecretKey(p.id) === bearer);
    if (!project || derivedProjectSecretKey(project.id) !== bearer) throw fail.badKey();
    return project;
  }
  const user = store.users.byKey(bearer);
  if (!user) throw fail.badKey();
  const project = named ?? store.projects.forUser(user.id)[0];
  if (!project) throw fail.notFound();
  if (project.members !== null && !project.members.includes(user.id)) throw fail.forbidden();
  return project;
}

/** Writes a steered answer (an override's or `Prefer`'s) as the door writes its own. */
function sendResult(res: ServerResponse, result: HandlerResult): Answered {
  if (result.body === undefined) {
    res.statusCode = result.status;
    for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
    res.end();
    return { status: result.status };
  }
  send(res, result.status, "application/json", JSON.stringify(result.body), result.headers);
  return { status: result.status, errorBody: result.status >= 400 ? (result.body as ErrorBody) : undefined };
}

/** A route behind steering: a steered answer replaces the route's. */
const steered = (steer: DoorSteer, route: Route): Route =>
  refusing(async (req, res) => {
    const answer = await steer(req);
    if (answer === "reset") {
      // A fault rate's dropped connection: no answer at all, as a crashed server or a proxy gives. Logged as status 0.
      req.raw.socket.destroy();
      return { status: 0 };
    }
    return answer ? sendResult(res, answer) : route(req, res);
  });

/** Answers a route's refusal with the API's error; anything else is a server fault for the door to report. */
const refusing = (route: Route): Route => async (req, res) => {
  try {
    return await route(req, res);
  } catch (e) {
    const refusal = toApiError(e);
    if (!refusal) throw e;
    return sendError(res, refusal);
  }
};

function knownToken(req: DoorRequest, store: Store): string {
  if (!store.projects.byToken(req.params.token!)) throw fail.notFound();
  return req.params.token!;
}

/** The door's routes by method and exact path (a trailing slash is optional, as elsewhere). */
function routeTable(deps: CaptureDeps) {
  const table = new Map<string, Partial<Record<"GET" | "POST", Route>>>();
  for (const path of EVENT_PATHS) table.set(path, { GET: captureRoute(deps, EVENT_LIMIT, path === "/engage"), POST: captureRoute(deps, EVENT_LIMIT, path === "/engage") });
  table.set("/batch", { GET: captureRoute(deps, BATCH_LIMIT, false), POST: captureRoute(deps, BATCH_LIMIT, false) });
  const readSmall = bodyReader(EVENT_LIMIT);
  const v2OrV1 = (query: Record<string, string | undefined>, outcome: FlagsOutcome) => flagsAnswerJson(Number(query.v ?? 1), outcome);
  table.set("/flags", { GET: flagsRoute(deps, v2OrV1), POST: flagsRoute(deps, v2OrV1, readSmall) });
  const decide = (query: Record<string, string | undefined>, outcome: FlagsOutcome) => decideAnswerJson(Number(query.v ?? 3), outcome);
  table.set("/decide", { GET: flagsRoute(deps, decide), POST: flagsRoute(deps, decide, readSmall) });
  // posthog-node's local evaluation polls (5.x: /flags/definitions; older: /api/feature_flag/local_evaluation).
  const definitions = refusing((req, res) => {
    const project = definitionsProject(req, deps.store);
    const raw = req.query.send_cohorts;
    const answer = flagDefinitionsAnswer(deps, project, raw !== undefined && raw !== "false", req.header("if-none-match"));
    if (answer.text !== undefined) return send(res, answer.status, "application/json", answer.text, answer.headers);
    res.statusCode = answer.status;
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    res.end();
    return { status: answer.status };
  });
  table.set("/flags/definitions", { GET: definitions });
  table.set("/api/feature_flag/local_evaluation", { GET: definitions });
  return table;
}

/** `/array/{token}/config` (JSON) and `/array/{token}/config.js` (the script posthog-js loads). */
const REMOTE_CONFIG = /^\/array\/([^/]+)\/(config|config\.js)\/?$/;

function remoteConfigRoute(deps: CaptureDeps): Route {
  const hasFlags = (token: string) => hasFeatureFlags(deps, deps.store.projects.byToken(token)!);
  return refusing((req, res) => {
    // The token first: an unknown one is answered with the JSON error, not under the script's type.
    const token = knownToken(req, deps.store);
    if (req.params.file === "config") return sendJson(res, 200, remoteConfig(token, hasFlags(token)));
    return send(res, 200, "application/javascript", remoteConfigScript(token, hasFlags(token)));
  });
}

const underCorsPrefix = (path: string) => CORS_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

/**
 * The door: a function that answers the requests it owns (returning true) and leaves every other request to the
 * app. Paths are matched as written, as the real capture's router does: `/E/` is no capture endpoint.
 */
export function captureDoor(deps: CaptureDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const table = routeTable(deps);
  const remote = remoteConfigRoute(deps);
  const corsHeaders = cors({ origin: true, credentials: true, methods: ["GET", "POST", "OPTIONS"], optionsSuccessStatus: 200, maxAge: 600 }) as unknown as (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

  const routeOf = (method: string, path: string): { route: Route; params: Record<string, string> } | undefined => {
    const verb = method === "HEAD" ? "GET" : method;
    if (verb !== "GET" && verb !== "POST") return undefined;
    const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
    const route = table.get(trimmed)?.[verb];
    if (route) return { route, params: {} };
    const config = verb === "GET" ? REMOTE_CONFIG.exec(path) : null;
    return config ? { route: remote, params: { token: config[1]!, file: config[2]! } } : undefined;
  };

  return (raw, res) => {
    const url = raw.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    const method = raw.method ?? "GET";
    const preflight = method === "OPTIONS" && underCorsPrefix(path);
    const matched = preflight ? undefined : routeOf(method, path);
    if (!preflight && !matched) return false;
    const started = performance.now();
    const finish = (status: number, errorBody?: unknown) =>
      deps.record({ method, originalUrl: url, body: (raw as { body?: unknown }).body, decoded: (raw as DecodedRequest).decoded }, status, errorBody, performance.now() - started);
    corsHeaders(raw, res, () => {
      const req: DoorRequest = {
        raw,
        method,
        path,
        query: q === -1 ? {} : firstValues(parseQueryString(url.slice(q + 1))),
        header: (name) => {
          const value = raw.headers[name];
          return Array.isArray(value) ? value.join(", ") : value;
        },
        params: matched!.params,
        body: Buffer.alloc(0),
      };
      Promise.resolve()
        .then(() => (deps.steer ? steered(deps.steer, matched!.route) : matched!.route)(req, res))
        .then(
          (answered) => finish(answered.status, answered.errorBody),
          (e: unknown) => {
            deps.logger.error("unexpected error", e);
            const internal = fail.internal();
            sendError(res, internal);
            finish(internal.status, internal.body);
          },
        );
    });
    // A preflight is answered by cors itself.
    if (preflight) finish(res.statusCode);
    return true;
  };
}

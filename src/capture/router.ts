/**
 * The capture surface the client libraries call (openapi/capture.yaml; reference: ingestion-persons-events
 * §1): authenticated by the project token in the payload, not by a personal API key, and answered with CORS
 * for any browser origin, as the real service does.
 */
import cors from "cors";
import express, { type NextFunction, type Request, type Response } from "express";
import { v7 as uuidv7 } from "uuid";
import { isPrintableInstant, type Clock } from "../clock.ts";
import { ApiError, fail, isUndecodableBody } from "../http/errors.ts";
import { respondError } from "../http/respond.ts";
import type { Store } from "../store/store.ts";
import type { CapturedLog, CapturedRequest } from "./captured-log.ts";
import { decodeCapture, type RawCapture } from "./decode.ts";
import { captureFail } from "./errors.ts";
import { ingest } from "./ingest.ts";
import { normaliseEvent, toBatch } from "./normalise.ts";
import { decideAnswer, flagsAnswer, remoteConfig, remoteConfigScript, type FlagsOutcome } from "./remote-config.ts";
import { flagsRequestOf } from "./flags-request.ts";
import { evaluateForRequest, flagDefinitionsAnswer, hasFeatureFlags, type FlagsRequest } from "../services/feature-flags.ts";
import type { ForcedFlags } from "../control/forced-flags.ts";
import type { ProjectRecord } from "../store/schema.ts";
import { derivedProjectSecretKey } from "../util/ids.ts";

/** Body limits of the real capture (reference §1.1): 20 MB for `/batch/`, 2 MB elsewhere; after decompression. */
export const BATCH_LIMIT = 20 * 1024 * 1024;
export const EVENT_LIMIT = 2 * 1024 * 1024;

const EVENT_PATHS = ["/e", "/i/v0/e", "/capture", "/track", "/engage"];

export interface CaptureDeps {
  store: Store;
  clock: Clock;
  captured: CapturedLog;
  /** Flag values forced by tests (`/_mock/feature_flags/`). */
  forced: ForcedFlags;
}

/** A request as the captured log keeps it. */
function capturedEntry(req: Request, query: Record<string, string | undefined>, status: number, decoded: unknown, error: string | null): CapturedRequest {
  return {
    at: new Date().toISOString(),
    method: req.method,
    path: req.path,
    query,
    content_type: req.get("content-type") ?? null,
    content_encoding: req.get("content-encoding") ?? null,
    body_bytes: Buffer.isBuffer(req.body) ? req.body.length : 0,
    status,
    decoded,
    error,
  };
}

/** A flags request in the captured log, with who was evaluated and what each flag came out as. */
function logFlags(req: Request, query: Record<string, string | undefined>, captured: CapturedLog, outcome: (FlagsOutcome & { request?: FlagsRequest; body: unknown }) | null, status: number, error: string | null) {
  const request = outcome?.request;
  const values = outcome ? Object.fromEntries(outcome.values.map((v) => [v.key, v.variant ?? v.enabled])) : {};
  captured.push({
    ...capturedEntry(req, query, status, outcome?.body ?? null, error),
    ...(request ? { flags: { distinct_id: request.distinctId, groups: request.groups, values } } : {}),
  });
}

const firstValues = (query: Request["query"]): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? String(v[0]) : typeof v === "string" ? v : undefined]));

/** Token shape (reference §1.4): trimmed, 1–64 ASCII characters, no NUL, never a personal key (`phx_`). */
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

function captureHandler(deps: CaptureDeps, limit: number, engage: boolean) {
  // Content-Encoding: gzip is inflated by body-parser (its limit applies to the inflated size, so a gzip bomb
  // is a 413); every other encoding is decoded by decodeCapture.
  const readBody = express.raw({ type: () => true, limit, inflate: true });
  return (req: Request, res: Response, next: NextFunction) => {
    readBody(req, res, async (err?: unknown) => {
      const query = firstValues(req.query);
      const log = (status: number, decoded: unknown, error: string | null) => deps.captured.push(capturedEntry(req, query, status, decoded, error));
      let decoded: unknown = null;
      try {
        if (err) throw bodyError(err, limit) ?? err;
        const raw: RawCapture = { body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), contentType: req.get("content-type"), contentEncoding: undefined, query };
        decoded = decodeCapture(raw, limit);
        const batch = toBatch(decoded);
        // Authentication before validation: a request for no project learns nothing about its events.
        if (batch.token === undefined) throw captureFail.missingToken();
        const project = wellFormedToken(batch.token) ? deps.store.projects.byToken(batch.token) : undefined;
        if (!project) throw captureFail.unknownToken();
        const now = deps.clock.now();
        const ctx = { now, sentAt: batch.sentAt ?? sentAtOfQuery(query), engage, ip: req.ip, newUuid: () => uuidv7({ msecs: now }) };
        const events = batch.events.map((e) => normaliseEvent(e, ctx)).filter((e) => e !== null);
        await ingest(deps.store, project, events);
        log(200, decoded, null);
        if (query.beacon === "1") res.status(204).end();
        else res.status(200).json({ status: 1 });
      } catch (e) {
        if (!(e instanceof ApiError)) return next(e);
        log(e.status, decoded, e.body.detail);
        respondError(res, e.status, e.body);
      }
    });
  };
}

/**
 * `_` or `sent_at` in the query: epoch milliseconds, honoured only after 2020 (a seconds value is ignored;
 * reference §1.2) and before year 10000 (past it there is no date to write).
 */
function sentAtOfQuery(query: Record<string, string | undefined>): string | undefined {
  const ms = Number(query.sent_at ?? query._);
  return isPrintableInstant(ms) && ms > Date.UTC(2021, 0, 1) ? new Date(ms).toISOString() : undefined;
}

/** A flags request's decoded body (null when there is none) and token: query `token`/`api_key`, or the body's. */
function flagsBodyAndToken(req: Request, query: Record<string, string | undefined>): { body: unknown; token: string | undefined } {
  let body: unknown = null;
  if (Buffer.isBuffer(req.body) && req.body.length > 0) {
    try {
      body = decodeCapture({ body: req.body, contentType: req.get("content-type"), contentEncoding: undefined, query: { compression: query.compression } }, EVENT_LIMIT);
    } catch {
      body = null;
    }
  }
  const fields = (body ?? {}) as Record<string, unknown>;
  const token = query.token || query.api_key || fields.token || fields.api_key;
  return { body, token: typeof token === "string" ? token : undefined };
}

/**
 * Evaluates a flags request. A token that names no project is refused, as the real `/flags` does; no token at
 * all is answered without flags; `disable_flags` (posthog-js's config-only call) asks for none.
 */
async function flagsOutcome(req: Request, query: Record<string, string | undefined>, deps: CaptureDeps): Promise<FlagsOutcome & { request?: FlagsRequest; body: unknown }> {
  const { body, token } = flagsBodyAndToken(req, query);
  if (token === undefined) return { token, hasFeatureFlags: false, values: [], body };
  const project = deps.store.projects.byToken(token);
  if (!project) throw captureFail.unknownToken();
  const hasFlags = hasFeatureFlags(deps, project);
  if ((body as Record<string, unknown> | null)?.disable_flags === true) return { token, hasFeatureFlags: hasFlags, values: [], body };
  const request = flagsRequestOf(body, query);
  return { token, hasFeatureFlags: hasFlags, values: await evaluateForRequest(deps, project, request), request, body };
}

/**
 * The project whose flag definitions a local evaluation poll asks for: the `token` names it, and the bearer key
 * is a personal API key of a member or that project's secret key (`phs_…`); without a token, the key's user's
 * first project (as `@current`).
 */
function definitionsProject(req: Request, store: Store): ProjectRecord {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.get("authorization") ?? "")?.[1];
  if (bearer === undefined) throw fail.notAuthenticated();
  const token = firstValues(req.query).token;
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

/** `GET|DELETE /_mock/captured/` (openapi/control.yaml): the captured-request log; mounted behind the control API's guard. */
export function capturedLogRouter(captured: CapturedLog) {
  const router = express.Router();
  router.get("/", (req, res) => {
    const raw = firstValues(req.query).limit;
    const limit = raw === undefined ? 20 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1) {
      const err = fail.invalid("limit", "limit must be an integer of at least 1.");
      return respondError(res, err.status, err.body);
    }
    res.json({ total: captured.total, results: captured.list(limit) });
  });
  router.delete("/", (_req, res) => {
    captured.clear();
    res.status(204).end();
  });
  return router;
}

/** The capture endpoints, `/flags`, `/decide` and remote config; mounted before the project API. */
export function captureRouter(deps: CaptureDeps) {
  // Paths are matched as written, as the real capture's router does: `/E/` is no capture endpoint.
  const router = express.Router({ caseSensitive: true });
  // The real service mirrors the origin and the requested headers and allows credentials (reference §1.6).
  router.use(
    [...EVENT_PATHS, "/batch", "/flags", "/decide", "/array", "/api/feature_flag"],
    cors({ origin: true, credentials: true, methods: ["GET", "POST", "OPTIONS"], optionsSuccessStatus: 200, maxAge: 600 }),
  );
  for (const path of EVENT_PATHS) router.route(path).get(captureHandler(deps, EVENT_LIMIT, path === "/engage")).post(captureHandler(deps, EVENT_LIMIT, path === "/engage"));
  router.route("/batch").get(captureHandler(deps, BATCH_LIMIT, false)).post(captureHandler(deps, BATCH_LIMIT, false));
  const raw = express.raw({ type: () => true, limit: EVENT_LIMIT });
  // A body that cannot be read (too large, an unknown or broken Content-Encoding) is refused as capture refuses it.
  const rawSmall = (req: Request, res: Response, next: NextFunction) => raw(req, res, (err?: unknown) => next(err ? (bodyError(err, EVENT_LIMIT) ?? err) : undefined));
  const answer = (build: (req: Request) => unknown) => (req: Request, res: Response, next: NextFunction) => {
    try {
      res.json(build(req));
    } catch (e) {
      if (e instanceof ApiError) respondError(res, e.status, e.body);
      else next(e);
    }
  };
  // Express parses the query string at every read of req.query: once per request here.
  const flags = (shape: (query: Record<string, string | undefined>, outcome: FlagsOutcome) => unknown) => async (req: Request, res: Response, next: NextFunction) => {
    const query = firstValues(req.query);
    try {
      const outcome = await flagsOutcome(req, query, deps);
      res.json(shape(query, outcome));
      logFlags(req, query, deps.captured, outcome, 200, null);
    } catch (e) {
      if (!(e instanceof ApiError)) return next(e);
      logFlags(req, query, deps.captured, null, e.status, e.body.detail);
      respondError(res, e.status, e.body);
    }
  };
  const v2OrV1 = flags((query, outcome) => flagsAnswer(Number(query.v ?? 1), outcome));
  router.route("/flags").get(v2OrV1).post(rawSmall, v2OrV1);
  const decide = flags((query, outcome) => decideAnswer(Number(query.v ?? 3), outcome));
  router.route("/decide").get(decide).post(rawSmall, decide);
  // posthog-node's local evaluation polls (5.x: /flags/definitions; older: /api/feature_flag/local_evaluation).
  const definitions = (req: Request, res: Response, next: NextFunction) => {
    try {
      const project = definitionsProject(req, deps.store);
      const raw = firstValues(req.query).send_cohorts;
      const answer = flagDefinitionsAnswer(deps, project, raw !== undefined && raw !== "false", req.get("if-none-match"));
      res.status(answer.status).set(answer.headers ?? {});
      if (answer.text === undefined) res.end();
      else res.type("application/json").send(answer.text);
    } catch (e) {
      if (e instanceof ApiError) respondError(res, e.status, e.body);
      else next(e);
    }
  };
  router.get(["/flags/definitions", "/api/feature_flag/local_evaluation"], definitions);
  const knownToken = (req: Request) => {
    const token = String(req.params.token);
    if (!deps.store.projects.byToken(token)) throw fail.notFound();
    return token;
  };
  const hasFlags = (token: string) => hasFeatureFlags(deps, deps.store.projects.byToken(token)!);
  router.get("/array/:token/config", answer((req) => remoteConfig(knownToken(req), hasFlags(String(req.params.token)))));
  router.get("/array/:token/config.js", (req, res, next) => {
    try {
      // The token first: an unknown one is answered with the JSON error, not under the script's type.
      const token = knownToken(req);
      const script = remoteConfigScript(token, hasFlags(token));
      res.type("application/javascript").send(script);
    } catch (e) {
      if (e instanceof ApiError) respondError(res, e.status, e.body);
      else next(e);
    }
  });
  return router;
}

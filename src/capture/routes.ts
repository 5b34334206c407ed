/**
 * The capture surface the client libraries call (openapi/capture.yaml): capture, `/flags`, `/decide`, flag
 * definitions and remote config, as handlers that return their answers. Capture and flags are authenticated by
 * the project token in the payload (read once the body is decoded); flag definitions by a bearer key.
 */
import { v7 as uuidv7 } from "uuid";
import { isPrintableInstant } from "../core/clock.ts";
import { fail, toApiError } from "../core/errors.ts";
import { authenticate, bearerToken } from "../pipeline/authenticate.ts";
import { TextBody, type HandlerResult } from "../pipeline/result.ts";
import type { ProjectRecord } from "../store/schema.ts";
import { evaluateForRequest, flagDefinitionsAnswer } from "../services/feature-flags.ts";
import { BATCH_LIMIT, bodyReader, EVENT_LIMIT } from "./body.ts";
import { capturedEntry, capturedEvent, logFlags, type EvaluatedFlags } from "./captured-entries.ts";
import type { CapturedEvent } from "./captured-log.ts";
import { decodeCapture, type RawCapture } from "./decode.ts";
import { captureFail } from "./errors.ts";
import { flagsRequestOf } from "./flags-request.ts";
import { ingest } from "./ingest.ts";
import { normaliseEvent, toBatch } from "./normalise.ts";
import { decideAnswerJson, flagsAnswerJson, remoteConfig, remoteConfigInputs, remoteConfigScript, type FlagsOutcome } from "./remote-config.ts";
import { DECODED_LOG_LIMIT, type CaptureDeps, type CaptureRequest, type CaptureRoute } from "./request.ts";

const json = (status: number, text: string, headers?: Record<string, string>): HandlerResult => ({ status, body: new TextBody(text, "application/json"), headers });

/**
 * `_` or `sent_at` in the query: epoch milliseconds, honoured only after 2020 (a seconds value is ignored)
 * and before year 10000 (past it there is no date to write).
 */
function sentAtOfQuery(query: Record<string, string | undefined>): string | undefined {
  const ms = Number(query.sent_at ?? query._);
  return isPrintableInstant(ms) && ms > Date.UTC(2021, 0, 1) ? new Date(ms).toISOString() : undefined;
}

/** `/e`, `/batch` and their kin: decode → authenticate the payload's token → normalise → append. */
export function captureRoute(deps: CaptureDeps, operationId: string, limit: number, engage: boolean): CaptureRoute {
  const readBody = bodyReader(limit);
  return {
    operationId,
    async handle(req) {
      const log = (status: number, decoded: unknown, error: string | null, events: CapturedEvent[] = []) => deps.captured.push(capturedEntry(req, status, decoded, error), events);
      let decoded: unknown = null;
      try {
        req.body = await readBody(req.raw, req.res);
        const raw: RawCapture = { body: req.body, contentType: req.header("content-type"), contentEncoding: undefined, query: req.query };
        decoded = decodeCapture(raw, limit);
        if (req.body.length <= DECODED_LOG_LIMIT) req.decoded = decoded;
        const batch = toBatch(decoded);
        // Authentication before validation: a request for no project learns nothing about its events.
        const project = authenticate({ scheme: "project_token", token: batch.token }, deps.store);
        const now = deps.clock.now();
        const ctx = { now, sentAt: batch.sentAt ?? sentAtOfQuery(req.query), engage, ip: req.raw.socket.remoteAddress, newUuid: () => uuidv7({ msecs: now }) };
        const events = batch.events.map((e) => normaliseEvent(e, ctx)).filter((e) => e !== null);
        await ingest(deps.store, project, events);
        const capturedAt = new Date(now).toISOString();
        log(200, decoded, null, events.map((e) => capturedEvent(e, capturedAt)));
        return req.query.beacon === "1" ? { status: 204 } : json(200, '{"status":1}');
      } catch (e) {
        const refusal = toApiError(e);
        if (refusal) log(refusal.status, decoded, refusal.body.detail);
        throw e;
      }
    },
  };
}

/** A flags request's decoded body (null when there is none) and token: query `token`/`api_key`, or the body's. */
function flagsBodyAndToken(req: CaptureRequest): { body: unknown; token: string | undefined } {
  let body: unknown = null;
  if (req.body.length > 0) {
    try {
      body = decodeCapture({ body: req.body, contentType: req.header("content-type"), contentEncoding: undefined, query: { compression: req.query.compression } }, EVENT_LIMIT);
      // Decoded once: the request log keeps this instead of parsing the bytes again.
      if (req.body.length <= DECODED_LOG_LIMIT) req.decoded = body;
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
async function evaluateFlags(req: CaptureRequest, deps: CaptureDeps): Promise<EvaluatedFlags> {
  const { body, token } = flagsBodyAndToken(req);
  if (token === undefined) return { config: undefined, values: [], body };
  const project = deps.store.projects.byToken(token);
  if (!project) throw captureFail.unknownToken();
  const config = remoteConfigInputs(deps, project);
  if ((body as Record<string, unknown> | null)?.disable_flags === true) return { config, values: [], body };
  const request = flagsRequestOf(body, req.query);
  return { config, values: await evaluateForRequest(deps, project, request), request, body };
}

type FlagsShape = (query: Record<string, string | undefined>, outcome: FlagsOutcome) => string;

/** `/flags` and `/decide` in one of their answer shapes; a POST's body is read first. */
export function flagsRoute(deps: CaptureDeps, operationId: string, shape: FlagsShape, takesBody: boolean): CaptureRoute {
  const readBody = takesBody ? bodyReader(EVENT_LIMIT) : undefined;
  return {
    operationId,
    async handle(req) {
      try {
        if (readBody) req.body = await readBody(req.raw, req.res);
        const outcome = await evaluateFlags(req, deps);
        logFlags(req, deps.captured, outcome, 200, null);
        return json(200, shape(req.query, outcome));
      } catch (e) {
        const refusal = toApiError(e);
        if (refusal) logFlags(req, deps.captured, null, refusal.status, refusal.body.detail);
        throw e;
      }
    },
  };
}

export const flagsShape: FlagsShape = (query, outcome) => flagsAnswerJson(Number(query.v ?? 1), outcome);
export const decideShape: FlagsShape = (query, outcome) => decideAnswerJson(Number(query.v ?? 3), outcome);

/** posthog-node's local evaluation polls (5.x: /flags/definitions; older: /api/feature_flag/local_evaluation). */
export function definitionsRoute(deps: CaptureDeps, operationId: string): CaptureRoute<ProjectRecord> {
  return {
    operationId,
    authenticate: (req) => ({
      who: authenticate({ scheme: "secret_or_personal_key", authorization: req.header("authorization"), token: req.query.token }, deps.store),
      rateKey: bearerToken(req.header("authorization")),
    }),
    handle(req, project) {
      const raw = req.query.send_cohorts;
      const answer = flagDefinitionsAnswer(deps, project, raw !== undefined && raw !== "false", req.header("if-none-match"));
      return answer.text === undefined ? { status: answer.status, headers: answer.headers } : json(answer.status, answer.text, answer.headers);
    },
  };
}

/** `/array/{token}/config` (JSON) and `/array/{token}/config.js` (the script posthog-js loads). */
export function remoteConfigRoute(deps: CaptureDeps, operationId: string): CaptureRoute {
  return {
    operationId,
    handle(req) {
      // The token first: an unknown one is answered with the JSON error, not under the script's type.
      const token = req.params.token!;
      const project = deps.store.projects.byToken(token);
      if (!project) throw fail.notFound();
      const inputs = remoteConfigInputs(deps, project);
      if (req.params.file === "config") return { status: 200, body: remoteConfig(inputs) };
      return { status: 200, body: new TextBody(remoteConfigScript(inputs), "application/javascript") };
    },
  };
}

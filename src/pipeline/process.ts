import type { Context, Operation, Request as ApiRequest } from "openapi-backend";
import type { Backend } from "./documents.ts";
import { matchOperation, type Matched } from "./match.ts";
import { validateRequest } from "./validate.ts";
import { handlerContext } from "./handle.ts";
import { steer, steeringDelay, type SteeringDeps } from "./steer.ts";
import type { HandlerResult } from "./result.ts";
import type { RememberedReads } from "./remembered-reads.ts";
import { dropUndeclaredQuery } from "./undeclared-query.ts";

/** A request as the pipeline takes it from any transport (express or Node's own request). */
export interface PipelineRequest {
  method: string;
  /** The path as the surface routes it (its trailing slash and aliases applied). */
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The path and query as received. */
  originalUrl: string;
  /** Whether it came over TLS: the scheme of absolute links (pagination). */
  secure: boolean;
  remoteAddress?: string;
  /** Aborted when the client hangs up (a long poll gives up then). */
  signal?: AbortSignal;
  /** Set once matched: the log need not match the path again. */
  operationId?: string;
}

/** Who authentication found: what the handler is given, and the key rate limits count against. */
export interface Identified<Who> {
  who: Who;
  rateKey?: string;
}

/** What one handled operation gets: its context (as openapi-backend builds it), the caller, the request. */
export interface Handled<Who> {
  c: Context;
  who: Who;
  req: PipelineRequest;
}

/** A surface: one of the three documents with its own authentication and handlers, through the same stages. */
export interface Surface<Who> {
  api(): Backend;
  steering: SteeringDeps;
  /** The authenticate stage for a matched operation (by its security scheme); throws the 401/403/404. */
  authenticate(operation: Operation, matched: Matched, req: PipelineRequest): Identified<Who>;
  handle(handled: Handled<Who>): HandlerResult | Promise<HandlerResult>;
  /** Answers of repeated reads, looked up after authentication and steering (the product API's). */
  remembered?: RememberedReads;
  /** Work a request needs before its handler runs (loading the HogQL parser). */
  prepare?(req: PipelineRequest): Promise<void>;
  /**
   * Query parameters the operation does not take are ignored, with a note in the request log, as the real service
   * ignores them (the product API); otherwise they are a 400 naming them (the control API, ours, whose requests
   * the request log leaves out).
   */
  ignoresUndeclaredQuery?: boolean;
}

/** The answer with the pipeline's own notes added to its handler's. */
const withNotes = (result: HandlerResult, notes: readonly string[]): HandlerResult => (notes.length ? { ...result, notes: [...(result.notes ?? []), ...notes] } : result);

const searchOf = (url: string) => {
  const at = url.indexOf("?");
  return at === -1 ? "" : url.slice(at);
};

/**
 * The one pipeline: steering's waits (so every answer is delayed) → match → authenticate → validate → steer →
 * a remembered answer → handle (a remembered GET was validated when first answered). Resolves to the answer to write, or throws an ApiError (or ResetConnection)
 * for the transport to write.
 */
export async function runPipeline<Who>(surface: Surface<Who>, req: PipelineRequest): Promise<HandlerResult> {
  const steering = await steeringDelay(surface.steering, req.headers);
  const api = surface.api();
  const matched = matchOperation(api, req as unknown as ApiRequest);
  const { operation } = matched;
  req.operationId = operation.operationId;
  const { who, rateKey } = surface.authenticate(operation, matched, req);
  const ignored = surface.ignoresUndeclaredQuery ? dropUndeclaredQuery(operation, req.query) : [];
  const readKey = surface.remembered?.keyOf(req);
  const remembered = readKey === undefined ? undefined : surface.remembered!.find(readKey);
  // A remembered answer's request (the same GET: method, URL and headers that count) met the contract when it was
  // first answered, and the contract has not changed since (a reload forgets every answer): validating it again
  // would repeat the same verdict (profiled: half the CPU of a remembered read).
  if (!remembered) validateRequest(api, req as unknown as ApiRequest, matched);
  const steered = await steer(surface.steering, api, operation, { method: req.method, path: req.path, search: searchOf(req.originalUrl), body: req.body }, steering, rateKey);
  if (steered) return withNotes(steered, ignored);
  if (remembered) return withNotes(remembered, ignored);
  await surface.prepare?.(req);
  const result = await surface.handle({ c: handlerContext(api, matched), who, req });
  if (readKey !== undefined) surface.remembered!.remember(readKey, result, req.query.format);
  return withNotes(result, ignored);
}

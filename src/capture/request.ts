import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/logger.ts";
import type { Store } from "../store/store.ts";
import type { ForcedFlags } from "../services/forced-flags.ts";
import type { HandlerResult } from "../pipeline/result.ts";
import type { ClientSettingsOverride } from "../store/project-settings.ts";
import type { CapturedLog } from "./captured-log.ts";

/** A capture request, parsed once: its path and query (first value of each key), headers and body bytes. */
export interface CaptureRequest {
  raw: IncomingMessage & { body?: unknown };
  /** Only for body-parser, which reads through it; routes never write it. */
  res: ServerResponse;
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  header(name: string): string | undefined;
  /** The route it matched, and that route's path parameters. */
  route: CaptureRoute;
  params: Record<string, string>;
  /** The body bytes, once read (empty before, and for routes without one). */
  body: Buffer;
  /** Set by a route that decoded a small payload: the request log keeps it instead of the bytes. */
  decoded?: unknown;
}

export interface CaptureDeps {
  store: Store;
  clock: Clock;
  captured: CapturedLog;
  /** Flag values forced by tests (`/_mock/feature_flags/`). */
  forced: ForcedFlags;
  logger: Logger;
  /** Settings the server was started with for every project (`--session-recording`). */
  settingsOverride?: ClientSettingsOverride;
}

/** A capture route: authenticated (by the pipeline's authenticate, where its scheme is a header) and handled. */
export interface CaptureRoute<Who = unknown> {
  /** The operation of openapi/capture.yaml it answers (steering reads its documented answers). */
  operationId: string;
  authenticate?(req: CaptureRequest): { who: Who; rateKey?: string };
  handle(req: CaptureRequest, who: Who): HandlerResult | Promise<HandlerResult>;
}

/** A small capture body's decoded payload is kept for the request log (a large one is logged as bytes). */
export const DECODED_LOG_LIMIT = 64 * 1024;

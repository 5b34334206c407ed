import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../core/logger.ts";
import { requestLogEntry, type RequestLog } from "./request-log.ts";

/** What the pipeline learnt of a request while answering it, for its log entry. */
export interface AnswerNote {
  /** The operation it was matched to (else the log matches the path again). */
  operationId?: string;
  /** A refusal's error body: its `code` and `attr` go into the entry. */
  errorBody?: unknown;
  /** A capture payload as decoded (gzip, lz64, base64, forms), logged instead of its bytes. */
  decoded?: unknown;
  /** What the handler said of its answer (HandlerResult.notes), for the entry's `notes`. */
  notes?: readonly string[];
}

const NOTE = Symbol("answer note");
type NotedRequest = IncomingMessage & { [NOTE]?: AnswerNote; body?: unknown };

/** Notes what the log should say of this request (merged with what was noted before). */
export function noteAnswer(req: IncomingMessage, note: AnswerNote): void {
  const noted = req as NotedRequest;
  noted[NOTE] = noted[NOTE] ? Object.assign(noted[NOTE], note) : note;
}

/** A reset connection has no status: its entry says 0. */
export const RESET_STATUS = 0;

export interface AnswerLogDeps {
  logger: Logger;
  requestLog: RequestLog;
  /** Told of every answer (the quiet collector waits for a pause in them). */
  answered(): void;
  /** The operation of a request the pipeline did not note one for (refused before matching, or answered outside it). */
  operationOf(method: string, path: string): string | null;
}

/**
 * The log stage: every answered request, faulted or reset too, gets a log line and an entry in the request log
 * (the control API's own calls only the line).
 */
export function createAnswerLog(deps: AnswerLogDeps) {
  /** `note`: what the transport knows of the answer, besides what was noted on the request. */
  const logAnswer = (req: IncomingMessage, status: number, startedAt: number, given?: AnswerNote): void => {
    const ms = performance.now() - startedAt;
    // Express rewrites `url` inside a mounted router; `originalUrl` is what was asked.
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? "/";
    const at = url.indexOf("?");
    const path = at === -1 ? url : url.slice(0, at);
    const method = req.method ?? "GET";
    deps.logger.request(method, path, status, ms);
    deps.answered();
    if (path.startsWith("/_mock")) return;
    const note = given ?? (req as NotedRequest)[NOTE];
    const logged = { method, originalUrl: url, body: (req as NotedRequest).body, decoded: note?.decoded };
    const { entry, weight } = requestLogEntry(logged, status, note?.errorBody, note?.operationId ?? deps.operationOf(method, path), ms, note?.notes);
    deps.requestLog.push(entry, weight);
  };
  return {
    logAnswer,
    /** For answers written outside the pipeline's transports (express's own: docs pages, preflights): logged once finished. */
    logWhenFinished(req: IncomingMessage, res: ServerResponse): void {
      const startedAt = performance.now();
      res.once("finish", () => logAnswer(req, res.statusCode, startedAt));
    },
  };
}

export type AnswerLog = ReturnType<typeof createAnswerLog>;

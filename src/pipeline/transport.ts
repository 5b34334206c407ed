import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { parse as parseQueryString } from "node:querystring";
import type { Logger } from "../core/logger.ts";
import { noteAnswer, RESET_STATUS, type AnswerLog, type AnswerNote } from "./log.ts";
import { ResetConnection } from "./prefer.ts";
import { runPipeline, type PipelineRequest, type Surface } from "./process.ts";
import { errorAnswer, write } from "./write.ts";

/** A request as a transport receives it: Node's own, or express's (which read its body and keeps `originalUrl`). */
export type TransportRequest = IncomingMessage & { body?: unknown; originalUrl?: string };

export interface TransportDeps {
  log: AnswerLog;
  logger: Logger;
  /**
   * Whether this transport logs its answers itself (Node's own request), or leaves it to express's finish hook
   * (pipeline/log.ts `logWhenFinished`). A reset connection never finishes: it is always logged here.
   */
  logsAnswers: boolean;
}

/** The pipeline's request, from Node's: the query parsed as express's simple parser does (node:querystring). */
export function pipelineRequest(req: TransportRequest, routedPath: (path: string) => string): PipelineRequest {
  const url = req.originalUrl ?? req.url ?? "/";
  const at = url.indexOf("?");
  return {
    method: req.method ?? "GET",
    path: routedPath(at === -1 ? url : url.slice(0, at)),
    query: at === -1 ? {} : (parseQueryString(url.slice(at + 1)) as Record<string, string | string[]>),
    headers: req.headers,
    body: req.body,
    originalUrl: url,
    secure: (req.socket as TLSSocket).encrypted === true,
    remoteAddress: req.socket.remoteAddress,
  };
}

/** The log stage for this transport: logged now (Node's own request), or noted for express's finish hook. */
function logged(req: TransportRequest, status: number, note: AnswerNote, deps: TransportDeps, startedAt: number): void {
  if (deps.logsAnswers) deps.log.logAnswer(req, status, startedAt, note);
  else noteAnswer(req, note);
}

/** Runs one request through the pipeline of `surface` and writes what it answers (or closes the connection). */
export function serveThroughPipeline<Who>(surface: Surface<Who>, req: TransportRequest, res: ServerResponse, request: PipelineRequest, deps: TransportDeps): Promise<void> {
  const startedAt = performance.now();
  return runPipeline(surface, request).then(
    (result) => {
      write(res, result, typeof request.query.format === "string" ? request.query.format : undefined);
      // A handler's or steering's notes (an inverted range, an override that answered) go into the log entry.
      logged(req, res.statusCode, { operationId: request.operationId, errorBody: result.status >= 400 ? result.body : undefined, ...(result.notes ? { notes: result.notes } : {}) }, deps, startedAt);
    },
    (err: unknown) => {
      if (err instanceof ResetConnection) {
        // A fault rate's dropped connection: no answer at all, as a crashed server or a proxy gives.
        req.socket.destroy();
        deps.log.logAnswer(req, RESET_STATUS, startedAt, { operationId: request.operationId });
        return;
      }
      const refusal = errorAnswer(err, deps.logger);
      write(res, { status: refusal.status, body: refusal.body });
      logged(req, res.statusCode, { operationId: request.operationId, errorBody: refusal.body }, deps, startedAt);
    },
  );
}

import type { ServerResponse } from "node:http";
import { csvRows, toCsv } from "./csv.ts";
import { fail, toApiError, type ApiError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { SerializedJson } from "./serialized-body.ts";
import { retryAfterOf } from "./prefer.ts";
import { TextBody, type HandlerResult } from "./result.ts";

/** Success statuses with a body that `format=csv` renders as CSV (every operation; errors stay JSON). */
const CSV_STATUSES: ReadonlySet<number> = new Set([200, 201]);

function send(res: ServerResponse, type: string, bytes: Buffer | string): void {
  res.setHeader("Content-Type", `${type}; charset=utf-8`);
  res.setHeader("Content-Length", typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.length);
  res.end(bytes);
}

const jsonOf = (body: unknown): unknown => (body instanceof SerializedJson ? (JSON.parse(body.bytes.toString("utf8")) as unknown) : body);

/**
 * The one writer of every surface's answers, on Node's own response: JSON by default (serialized bytes as they
 * are), text of its own type, no body, or CSV when the request asked `format=csv` of a success. Every 429 says
 * when to come back, in its detail and as `Retry-After` (the same seconds).
 */
export function write(res: ServerResponse, result: HandlerResult, format?: string): void {
  if (res.headersSent) return;
  res.statusCode = result.status;
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if (result.status === 429 && !res.hasHeader("retry-after")) res.setHeader("retry-after", String(retryAfterOf(result.body)));
  const { body } = result;
  if (body === undefined) res.end();
  else if (format === "csv" && CSV_STATUSES.has(result.status)) send(res, "text/csv", toCsv(csvRows(jsonOf(body))));
  else if (body instanceof SerializedJson) send(res, "application/json", body.bytes);
  else if (body instanceof TextBody) send(res, body.type, body.text);
  else send(res, "application/json", JSON.stringify(body));
}

/** An error as an answer: the API's own errors as they are, anything else a logged 500 `server_error`. */
export function errorAnswer(err: unknown, logger: Logger): ApiError {
  const apiError = toApiError(err);
  if (apiError) return apiError;
  logger.error("unexpected error", err);
  return fail.internal();
}

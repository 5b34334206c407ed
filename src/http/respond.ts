import type { Response } from "express";
import { csvRows, toCsv } from "./csv.ts";
import type { ErrorBody } from "../core/errors.ts";
import { SerializedJson } from "./serialized-body.ts";
import { retryAfterOf } from "./steering.ts";
import type { HandlerResult } from "./types.ts";

/** Success statuses with a body that `format=csv` renders as CSV (every operation; errors stay JSON). */
const CSV_STATUSES: ReadonlySet<number> = new Set([200, 201]);

/** The one writer of responses: JSON by default, CSV when the request asked `format=csv` of a success. */
export function respond(res: Response, result: HandlerResult, format: string | undefined): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  res.status(result.status);
  if (result.body === undefined) {
    res.end();
    return;
  }
  if (format === "csv" && CSV_STATUSES.has(result.status)) {
    const body = result.body instanceof SerializedJson ? (JSON.parse(result.body.bytes.toString("utf8")) as unknown) : result.body;
    res.type("text/csv; charset=utf-8").send(toCsv(csvRows(body)));
    return;
  }
  if (result.body instanceof SerializedJson) {
    res.type("application/json; charset=utf-8").send(result.body.bytes);
    return;
  }
  res.json(result.body);
}

export function respondError(res: Response, status: number, body: ErrorBody): void {
  if (res.headersSent) return;
  // Every 429 says when to come back, in its detail and as `Retry-After` (the same seconds).
  if (status === 429) res.setHeader("retry-after", String(retryAfterOf(body)));
  res.status(status).json(body);
}

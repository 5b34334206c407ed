import type { Response } from "express";
import { csvRows, toCsv } from "./csv.ts";
import type { ErrorBody } from "./errors.ts";
import { SerializedJson } from "./serialized-body.ts";
import type { HandlerResult } from "./types.ts";

/** The one writer of responses: JSON by default, CSV when the request asked `format=csv` of a 200. */
export function respond(res: Response, result: HandlerResult, format: string | undefined): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  res.status(result.status);
  if (result.body === undefined) {
    res.end();
    return;
  }
  if (result.body instanceof SerializedJson) {
    res.type("application/json; charset=utf-8").send(result.body.bytes);
    return;
  }
  if (format === "csv" && result.status === 200) {
    res.type("text/csv; charset=utf-8").send(toCsv(csvRows(result.body)));
    return;
  }
  res.json(result.body);
}

export function respondError(res: Response, status: number, body: ErrorBody): void {
  if (res.headersSent) return;
  res.status(status).json(body);
}

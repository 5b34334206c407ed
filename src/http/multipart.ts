import { Busboy, type BusboyFileStream, type BusboyHeaders } from "@fastify/busboy";
import type { NextFunction, Request, Response } from "express";
import { fail } from "../core/errors.ts";

/**
 * Reads a `multipart/form-data` body into `req.body`, for operations that declare that media type (the real
 * web app uploads a static cohort's CSV this way). Text fields stay strings, except `true`/`false` (form
 * booleans, as the real service's serializers read them) and JSON objects or lists (the web app sends `filters`
 * JSON-encoded); a file becomes its UTF-8 text under its field name. A body over the limit is a 413, one that
 * is not multipart a 400.
 */
export function readFormBody(limitBytes: number, limitText: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    let form: Busboy;
    try {
      form = new Busboy({ headers: req.headers as BusboyHeaders, limits: { fileSize: limitBytes, fieldSize: limitBytes, files: 5, fields: 50 } });
    } catch (e) {
      return next(fail.invalid(null, `The multipart body cannot be read: ${(e as Error).message}.`, "parse_error"));
    }
    const body: Record<string, unknown> = {};
    let failed: unknown = null;
    // Busboy may report an error and still finish: answer once.
    let answered = false;
    const answer = (err?: unknown) => {
      if (answered) return;
      answered = true;
      if (err) {
        req.unpipe(form);
        req.resume();
      }
      next(err);
    };
    form.on("field", (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (valueTruncated) failed ??= fail.tooLarge(limitText);
      body[name] = jsonValue(value);
    });
    form.on("file", (name: string, stream: BusboyFileStream) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("limit", () => (failed ??= fail.tooLarge(limitText)));
      stream.on("end", () => (body[name] = Buffer.concat(chunks).toString("utf8")));
    });
    form.on("error", (e: Error) => answer(fail.invalid(null, `The multipart body cannot be read: ${e.message}.`, "parse_error")));
    req.on("error", (e: Error) => answer(e));
    form.on("finish", () => {
      if (failed) return answer(failed);
      req.body = body;
      answer();
    });
    req.pipe(form);
  };
}

function jsonValue(value: string): unknown {
  if (value === "true" || value === "false") return value === "true";
  if (!/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

import type { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import { fail, isUndecodableBody, toApiError, type ApiError } from "../core/errors.ts";
import { captureFail } from "./errors.ts";

/** Body limits of the real capture: 20 MB for `/batch/`, 2 MB elsewhere; after decompression. */
export const BATCH_LIMIT = 20 * 1024 * 1024;
export const EVENT_LIMIT = 2 * 1024 * 1024;

/** body-parser's failures (size, encoding, aborted) as capture errors. */
function bodyError(err: unknown, limit: number): ApiError | null {
  const type = (err as { type?: string } | null)?.type;
  if (type === "entity.too.large") return captureFail.tooLarge(limit);
  if (type === "encoding.unsupported") return captureFail.decoding("unsupported content encoding");
  if (type === "request.aborted" || type === "request.size.invalid") return fail.invalid(null, "The request was aborted.", "request_aborted");
  if (isUndecodableBody(err)) return captureFail.decoding(`the body does not decode with its Content-Encoding (${err.message})`);
  return null;
}

type RawParser = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * Reads a capture body with body-parser (Content-Encoding: gzip is inflated there, its limit applying to the
 * inflated size, so a gzip bomb is a 413); a body that cannot be read is refused as capture refuses it.
 */
export function bodyReader(limit: number): (raw: IncomingMessage & { body?: unknown }, res: ServerResponse) => Promise<Buffer> {
  const parse = express.raw({ type: () => true, limit, inflate: true }) as unknown as RawParser;
  return (raw, res) =>
    new Promise((resolve, reject) =>
      parse(raw, res, (err) => {
        if (err) return reject(bodyError(err, limit) ?? toApiError(err) ?? err);
        resolve(Buffer.isBuffer(raw.body) ? raw.body : Buffer.alloc(0));
      }),
    );
}

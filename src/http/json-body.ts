import express, { type NextFunction, type Request, type Response } from "express";
import { fail } from "../core/errors.ts";
import { assertJsonDepth } from "./json-depth.ts";

/** The methods whose requests may carry a body an operation reads. */
export const BODY_METHODS = new Set(["POST", "PATCH", "PUT"]);

/** A body that is not JSON cannot be read: answer 415 instead of validating an empty body. */
function requireJsonBody(req: Request, _res: Response, next: NextFunction) {
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (BODY_METHODS.has(req.method) && hasBody && !req.is("application/json") && !req.is("+json")) {
    next(fail.unsupportedMediaType(req.headers["content-type"] ?? "none"));
    return;
  }
  next();
}

/**
 * Bodies are read only for operations that declare one: an unknown path still answers 404/405 whatever its
 * body, and a body sent with a GET or DELETE is ignored rather than judged.
 */
export function readDeclaredBody(jsonParser: express.RequestHandler, takesBody: (req: Request) => boolean) {
  return (req: Request, res: Response, next: NextFunction) => {
    // A form body (multipart) was read before, by the operations that declare one.
    if (!takesBody(req) || req.body !== undefined) return next();
    const checkDepth = (err?: unknown) => {
      if (err) return next(err);
      try {
        assertJsonDepth(req.body, null);
        next();
      } catch (depthError) {
        next(depthError);
      }
    };
    requireJsonBody(req, res, (err?: unknown) => (err ? next(err) : jsonParser(req, res, checkDepth)));
  };
}

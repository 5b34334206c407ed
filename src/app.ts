import express, { type NextFunction, type Request, type Response } from "express";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { handlers } from "./handlers/index.ts";
import { createApi } from "./http/api.ts";
import { ApiError, fail } from "./http/errors.ts";
import { respond, respondError } from "./http/respond.ts";
import type { Logger } from "./logger.ts";
import { createAnalysisService } from "./services/analysis-service.ts";
import type { Store } from "./store/store.ts";

export interface AppOptions {
  store: Store;
  clock: Clock;
  config: Config;
  logger: Logger;
}

const BODY_METHODS = new Set(["POST", "PATCH", "PUT"]);

/** Express-level failures (body parsing, size) mapped to the API's errors. */
function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  const type = (err as { type?: string }).type;
  if (type === "entity.parse.failed") return fail.parse((err as Error).message);
  if (type === "entity.too.large") return fail.tooLarge(`${(err as { limit?: number }).limit ?? "?"} bytes`);
  if (type === "encoding.unsupported" || type === "charset.unsupported") return fail.unsupportedMediaType(String((err as { charset?: string }).charset ?? "encoding"));
  if (type === "request.aborted") return fail.invalid(null, "The request was aborted.", "request_aborted");
  return null;
}

/** A body that is not JSON cannot be read: answer 415 instead of validating an empty body. */
function requireJsonBody(req: Request, _res: Response, next: NextFunction) {
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (BODY_METHODS.has(req.method) && hasBody && !req.is("application/json") && !req.is("+json")) {
    next(fail.unsupportedMediaType(req.headers["content-type"] ?? "none"));
    return;
  }
  next();
}

/** Builds the express app over a store and a clock; no globals, so tests start as many as they like. */
export async function createApp({ store, clock, config, logger }: AppOptions) {
  const deps = { store, clock, config, analyses: createAnalysisService(store, clock) };
  const router = await createApi(handlers, deps);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use((req, res, next) => {
    const started = performance.now();
    res.on("finish", () => logger.request(req.method, req.path, res.statusCode, performance.now() - started));
    next();
  });
  app.use(requireJsonBody);
  // Queued person-event deletions run once the (possibly frozen) clock passes their slot, before any read.
  app.use(async (_req, _res, next) => {
    const due = store.events.nextDeletionAt();
    if (due === null || due > clock.now()) return next();
    try {
      await store.events.runDueDeletions();
      next();
    } catch (err) {
      next(err);
    }
  });
  app.use(express.json({ limit: config.bodyLimit, type: ["application/json", "+json"], strict: false }));
  app.use(async (req, res, next) => {
    try {
      const path = req.path.endsWith("/") ? req.path : `${req.path}/`;
      const url = new URL(req.originalUrl, `${req.protocol}://${req.get("host") ?? "localhost"}`);
      const result = await router.handle({
        method: req.method,
        path,
        query: req.query as Record<string, string | string[]>,
        headers: req.headers,
        body: req.body,
        url,
      });
      respond(res, result, typeof req.query.format === "string" ? req.query.format : undefined);
    } catch (err) {
      next(err);
    }
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const apiError = toApiError(err);
    if (apiError) return respondError(res, apiError.status, apiError.body);
    logger.error("unexpected error", err);
    const internal = fail.internal();
    respondError(res, internal.status, internal.body);
  });
  return { app, api: router.api };
}

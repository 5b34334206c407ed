import { readFileSync } from "node:fs";
import { timingSafeEqual } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Context } from "openapi-backend";
import { newBackend, routingErrorHandlers, type Backend } from "../http/api.ts";
import { fail } from "../core/errors.ts";
import { FixtureError } from "../store/load-fixtures.ts";
import type { OverrideRequest } from "./overrides.ts";
import type { ForcedFlagRequest } from "./forced-flags.ts";
import type { RequestPattern } from "./request-matcher.ts";
import type { Control } from "./service.ts";
import { loadOptionsOf, steerHandlers } from "./steer-handlers.ts";
import { projectFile } from "../util/project-files.ts";
import { observeHandlers } from "./observe.ts";

export const CONTROL_OPENAPI_PATH = projectFile("openapi/control.yaml");

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Loopback clients, or anyone with the admin token the server was started with. */
export function guard(adminToken: string | null) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const token = req.get("x-admin-token");
    if (adminToken !== null && token !== undefined && sameToken(token, adminToken)) return next();
    if (LOOPBACK.has(req.socket.remoteAddress ?? "")) return next();
    next(
      fail.forbidden("The control API answers loopback clients, or clients sending the X-Admin-Token the server was started with."),
    );
  };
}

/** A fixture error names its JSON pointer; as an `attr`, `/` becomes `__` like every other field path. */
const fixtureError = (e: FixtureError) => fail.invalid(e.pointer.split("/").slice(1).join("__") || null, e.message);

/** A handler's answer that made something: written as 201 instead of 200. */
class Created {
  constructor(readonly body: unknown) {}
}
const created = (body: unknown) => new Created(body);

type ControlHandler = (c: Context, control: Control) => unknown;

const handlers: Record<string, ControlHandler> = {
  control_reset: (_c, control) => control.reset(),
  control_state_replace: async (c, control) => {
    try {
      return await control.loadFixtures(c.request.requestBody, loadOptionsOf(c));
    } catch (e) {
      throw e instanceof FixtureError ? fixtureError(e) : e;
    }
  },
  ...steerHandlers,
  control_clock_retrieve: (_c, control) => control.clock.get(),
  control_clock_update: (c, control) => {
    const body = c.request.requestBody as { now?: string; frozen?: false };
    if (body.now !== undefined) return control.clock.set(Date.parse(body.now));
    if (body.frozen === false) return control.clock.unfreeze();
    throw fail.required("now");
  },
  control_clock_advance: (c, control) => control.clock.advance((c.request.requestBody as { seconds: number }).seconds * 1000),
  control_requests_list: (c, control) => control.requests((c.request.query as { limit?: number }).limit ?? 100),
  control_requests_clear: (_c, control) => {
    control.clearRequests();
    return undefined;
  },
  control_requests_find: (c, control) => ({ requests: control.findRequests(c.request.requestBody as RequestPattern) }),
  control_requests_count: (c, control) => ({ count: control.findRequests(c.request.requestBody as RequestPattern).length }),
  control_flags_force: (c, control) => created(control.forcedFlags.add(c.request.requestBody as ForcedFlagRequest)),
  control_flags_list: (_c, control) => ({ results: control.forcedFlags.list() }),
  control_flags_clear: (_c, control) => {
    control.forcedFlags.clear();
    return undefined;
  },
  control_flags_destroy: (c, control) => {
    const id = Number(c.request.params.id);
    if (!control.forcedFlags.remove(id)) throw fail.notFound(`No forced flag ${id}.`);
    return undefined;
  },
  control_overrides_create: (c, control) => created(control.overrides.add(c.request.requestBody as OverrideRequest)),
  control_overrides_list: (_c, control) => ({ results: control.overrides.list() }),
  control_overrides_clear: (_c, control) => {
    control.overrides.clear();
    return undefined;
  },
  control_overrides_destroy: (c, control) => {
    const id = Number(c.request.params.id);
    if (!control.overrides.remove(id)) throw fail.notFound(`No override ${id}.`);
    return undefined;
  },
  ...observeHandlers,
};

let backend: Promise<Backend> | undefined;
/** The backend once loaded (the first controlRouter awaits it, before any request). */
let loaded: Backend | undefined;

/**
 * Whether a request to `/_mock/…` has its body read: only for the operations that declare one, as in the
 * product API, so that a wrong method is a 405 and an unknown path a 404, whatever the body.
 */
export function controlTakesBody(method: string, path: string): boolean {
  if (!loaded) return true;
  const routed = path.endsWith("/") ? path : `${path}/`;
  return Boolean(loaded.router.matchOperation({ method: method.toLowerCase(), path: routed, headers: {} })?.requestBody);
}

function controlBackend(): Promise<Backend> {
  backend ??= (async () => {
    const api = newBackend(CONTROL_OPENAPI_PATH, {
      handlers: {
        ...Object.fromEntries(Object.entries(handlers).map(([id, h]) => [id, (c: Context, control: Control) => h(c, control)])),
        ...routingErrorHandlers,
      },
    });
    await api.init();
    loaded = api;
    return api;
  })();
  return backend;
}

/** `/_mock/…`: the control API, validated against openapi/control.yaml, which it also serves. */
export async function controlRouter(control: Control, adminToken: string | null) {
  const api = await controlBackend();
  const yaml = readFileSync(CONTROL_OPENAPI_PATH, "utf8");
  const router = express.Router();
  router.use(guard(adminToken));
  router.get("/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(yaml);
  });
  router.use(async (req, res, next) => {
    try {
      const path = `/_mock${req.path.endsWith("/") ? req.path : `${req.path}/`}`;
      // A long-poll (captured/wait) gives up when its client hangs up.
      const hangup = new AbortController();
      res.once("close", () => hangup.abort());
      const request = { method: req.method, path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string>, body: req.body, signal: hangup.signal };
      const body = await api.handleRequest(request, control);
      if (body === undefined) res.status(204).end();
      else if (body instanceof Created) res.status(201).json(body.body);
      else res.status(200).json(body);
    } catch (e) {
      next(e);
    }
  });
  return router;
}

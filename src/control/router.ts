import { readFileSync } from "node:fs";
import type { Context } from "openapi-backend";
import { CONTROL_OPENAPI_PATH, loadDocument, type Backend } from "../pipeline/documents.ts";
import { authenticate } from "../pipeline/authenticate.ts";
import type { Surface } from "../pipeline/process.ts";
import { TextBody, type HandlerResult } from "../pipeline/result.ts";
import { fail } from "../core/errors.ts";
import { FixtureError } from "../store/load-fixtures.ts";
import type { OverrideRequest } from "../pipeline/overrides.ts";
import type { ForcedFlagRequest } from "../services/forced-flags.ts";
import type { SurveyForceRequest } from "./survey-forcing.ts";
import type { RequestPattern } from "../pipeline/request-matcher.ts";
import type { Control } from "./service.ts";
import { loadOptionsOf, steerHandlers } from "./steer-handlers.ts";
import { observeHandlers } from "./observe.ts";
import { recordingWaitHandlers } from "./recordings-wait.ts";
import { inspectorHandlers, type InspectorSession } from "./inspector.ts";

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
  control_state_retrieve: (_c, control) => control.summary(),
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
  control_surveys_force: (c, control) => created(control.surveys.force(c.request.requestBody as SurveyForceRequest)),
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
  ...recordingWaitHandlers,
};

let loading: Promise<Backend> | undefined;

/** openapi/control.yaml, loaded once per process. */
export const controlDocument = (): Promise<Backend> => (loading ??= loadDocument(CONTROL_OPENAPI_PATH));

/** An answer a handler made whole (a page, a file of its own type): written as it is. */
class Whole {
  constructor(readonly result: HandlerResult) {}
}

/** A handler's value as an answer: 204 for none, 201 for something made, else 200. */
const controlAnswer = (value: unknown): HandlerResult =>
  value === undefined ? { status: 204 } : value instanceof Whole ? value.result : value instanceof Created ? { status: 201, body: value.body } : { status: 200, body: value };

/**
 * `/_mock/…` (openapi/control.yaml) as a surface of the pipeline: loopback clients, or the admin token; never
 * delayed nor steered (the README: the control API answers at once).
 */
export async function controlSurface(control: Control, adminToken: string | null, session: () => InspectorSession): Promise<Surface<null>> {
  const api = await controlDocument();
  const page = inspectorHandlers(session);
  const all: Record<string, ControlHandler> = {
    ...handlers,
    control_ui_retrieve: () => new Whole(page.control_ui_retrieve()),
    control_ui_asset_retrieve: (c) => new Whole(page.control_ui_asset_retrieve(c)),
  };
  return {
    api: () => api,
    steering: { prefer: false },
    authenticate(_operation, _matched, req) {
      authenticate({ scheme: "admin", adminToken: req.headers["x-admin-token"], remoteAddress: req.remoteAddress, expected: adminToken });
      return { who: null };
    },
    async handle({ c }) {
      return controlAnswer(await all[c.operation.operationId!]!(c, control));
    },
  };
}

/** The control API's own document, served to the same callers as the API it describes. */
export const controlDocumentAnswer = (): HandlerResult => ({ status: 200, body: new TextBody(readFileSync(CONTROL_OPENAPI_PATH, "utf8"), "application/yaml") });

/**
 * Whether a request to `/_mock/…` has its body read: only for the operations that declare one, as in the
 * product API, so that a wrong method is a 405 and an unknown path a 404, whatever the body.
 */
export function controlTakesBody(api: Backend, method: string, path: string): boolean {
  const routed = path.endsWith("/") ? path : `${path}/`;
  return Boolean(api.router.matchOperation({ method: method.toLowerCase(), path: routed, headers: {} })?.requestBody);
}

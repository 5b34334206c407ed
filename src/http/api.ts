import { fileURLToPath } from "node:url";
import OpenAPIBackendModule, { type Context, type Request as ApiRequest } from "openapi-backend";
import addFormats from "ajv-formats";
import type { Ajv } from "ajv";
import { authenticate } from "./auth.ts";
import { ApiError, fail, fromAjvError } from "./errors.ts";
import { createSchemaValidator, type SchemaValidator } from "./schemas.ts";
import type { Caller, Deps, Handler, HandlerResult, OperationId, ProjectlessHandler } from "./types.ts";

export const OPENAPI_PATH = fileURLToPath(new URL("../../openapi/openapi.yaml", import.meta.url));

const OpenAPIBackend = OpenAPIBackendModule.default ?? OpenAPIBackendModule;

/**
 * openapi-backend checks documents against its OpenAPI 3.0 meta-schema, which rejects valid 3.1 documents;
 * ours is linted by Redocly in `npm test` instead.
 */
export class Backend extends OpenAPIBackend {
  override validateDefinition() {
    return this.document;
  }
}

export const addApiFormats = (ajv: Ajv) => {
  addFormats.default(ajv as never, ["date-time", "date", "email", "uuid", "uri"]);
  return ajv;
};

export type HandlerMap = Partial<Record<OperationId, Handler>> & { projects_list?: ProjectlessHandler };

export interface RoutedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Absolute URL of the request, for pagination links. */
  url: URL;
}

/** What every routed request carries to its handler: the request and the app's dependencies. */
interface RequestContext {
  req: RoutedRequest;
  deps: Deps;
}

function operationHandler(handler: Handler | ProjectlessHandler) {
  return (c: Context, { req, deps }: RequestContext) => {
    const caller = c.security?.PersonalAPIKey as Caller;
    const args = { c, caller, deps, url: req.url };
    return caller.project ? (handler as Handler)({ ...args, project: caller.project }) : (handler as ProjectlessHandler)(args);
  };
}

async function buildBackend(handlers: HandlerMap) {
  const api = new Backend({
    definition: OPENAPI_PATH,
    strict: true,
    coerceTypes: true,
    ignoreTrailingSlashes: false,
    customizeAjv: addApiFormats,
    handlers: {
      ...Object.fromEntries(Object.entries(handlers).map(([id, handler]) => [id, operationHandler(handler!)])),
      notFound: () => {
        throw fail.notFound();
      },
      methodNotAllowed: (c: Context) => {
        throw fail.methodNotAllowed(c.request.method.toUpperCase());
      },
      validationFail: (c: Context) => {
        throw fromAjvError(c.validation.errors![0]!);
      },
      unauthorizedHandler: (c: Context) => {
        const result = c.security?.PersonalAPIKey as { error?: unknown } | undefined;
        throw result?.error instanceof ApiError ? result.error : fail.notAuthenticated();
      },
      notImplemented: (c: Context) => {
        throw fail.notImplemented(c.operation.operationId ?? "This operation");
      },
    },
    securityHandlers: {
      PersonalAPIKey: (c: Context, { req, deps }: RequestContext) => {
        const header = req.headers.authorization;
        return authenticate(c, Array.isArray(header) ? header[0] : header, deps.store);
      },
    },
  });
  await api.init();
  return { api, schemas: createSchemaValidator(api.definition) };
}

/**
 * The validated router is built once per process and handler map (loading the document and compiling its
 * validators is the expensive part of start-up); each app passes its own dependencies per request.
 */
const built = new WeakMap<HandlerMap, Promise<{ api: Backend; schemas: SchemaValidator }>>();

/** Routes each operation through security → validation → its handler, by operationId. */
export async function createApi(handlers: HandlerMap, baseDeps: Omit<Deps, "schemas">) {
  let pending = built.get(handlers);
  if (!pending) built.set(handlers, (pending = buildBackend(handlers)));
  const { api, schemas } = await pending;
  const deps: Deps = { ...baseDeps, schemas };
  return {
    api,
    /** Routes one request; resolves to what the handler returned, or throws an ApiError. */
    handle: (req: RoutedRequest) =>
      api.handleRequest(
        { method: req.method, path: req.path, query: req.query, headers: req.headers as ApiRequest["headers"], body: req.body },
        { req, deps } satisfies RequestContext,
      ) as Promise<HandlerResult>,
  };
}

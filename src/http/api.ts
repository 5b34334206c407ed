import OpenAPIBackendModule, { type Context, type Request as ApiRequest } from "openapi-backend";
import addFormats from "ajv-formats";
import type { Ajv } from "ajv";
import { authenticate, bearerKey } from "./auth.ts";
import { Throttled, type RateLimits } from "./rate-limits.ts";
import type { PersonsEndpoint } from "../analyses/shared/context.ts";
import { ApiError, fail, fromAjvError } from "../core/errors.ts";
import { compileOperationMatcher, compileRequestParser } from "./operation-matcher.ts";
import { createSchemaValidator, type SchemaValidator } from "./schemas.ts";
import { SteeredResponse, steeredResponse, throttledAnswer, type Steering } from "./steering.ts";
import { applyOverride } from "../control/overrides.ts";
import { queryFields } from "../control/request-matcher.ts";
import type { Caller, Deps, Handler, HandlerArgs, HandlerResult, OperationId, ProjectlessHandler } from "./types.ts";
import { projectFile } from "../util/project-files.ts";
import { environmentPathRouter } from "./environment-paths.ts";

export const OPENAPI_PATH = projectFile("openapi/openapi.yaml");

const OpenAPIBackend = OpenAPIBackendModule.default ?? OpenAPIBackendModule;

/**
 * openapi-backend checks documents against its OpenAPI 3.0 meta-schema, which rejects valid 3.1 documents;
 * ours is linted by Redocly in `npm test` instead.
 */
export class Backend extends OpenAPIBackend {
  override validateDefinition() {
    return this.document;
  }

  /**
   * openapi-backend's router rebuilds its flat operation list (twice) and a RegExp per operation on every
   * match, and a path-parameter pattern on every parse; the document does not change after init, so all are
   * built once (profiled: two thirds of a GET's CPU went to the list, a tenth to the patterns).
   * These are router internals, not public API (the library has no option to cache them, nor a way to pass
   * our own router): openapi-backend is pinned to an exact version, and
   * test/contract/openapi-backend-internals.test.ts fails, naming the method, if an upgrade changes their shape.
   */
  override async init() {
    await super.init();
    const operations = this.router.getOperations();
    this.router.getOperations = () => operations;
    this.router.matchOperation = compileOperationMatcher(this.router, operations) as typeof this.router.matchOperation;
    this.router.parseRequest = compileRequestParser(this.router, operations) as typeof this.router.parseRequest;
    return this;
  }
}

export const addApiFormats = (ajv: Ajv) => {
  addFormats.default(ajv as never, ["date-time", "date", "email", "uuid", "uri"]);
  return ajv;
};

/** Routing and validation failures, answered with the one Error shape by every router we build. */
export const routingErrorHandlers = {
  notFound: () => {
    throw fail.notFound();
  },
  methodNotAllowed: (c: Context) => {
    throw fail.methodNotAllowed(c.request.method.toUpperCase());
  },
  validationFail: (c: Context) => {
    throw fromAjvError(c.validation.errors![0]!);
  },
};

/**
 * A router over one of our documents: strict, query/path coercion, trailing slashes kept, our formats.
 * `quick` compiles each operation's validators on its first request instead of all of them (responses
 * included, which the server never validates) at start-up.
 */
export function newBackend(definition: string, rest: Pick<ConstructorParameters<typeof Backend>[0], "handlers" | "securityHandlers"> & { strict?: boolean }) {
  return new Backend({ definition, strict: true, quick: true, coerceTypes: true, ignoreTrailingSlashes: false, customizeAjv: addApiFormats, ...rest });
}

/** Operations without a `{project_id}` get a ProjectlessHandler (no project resolved for them). */
export type HandlerMap = Partial<Record<OperationId, Handler | ProjectlessHandler>>;

export interface RoutedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Absolute URL of the request, for pagination links. */
  url: URL;
  /** Host and path with the query, unparsed: a cache key (parsing `url` cost a GET of a cached body ~4 %). */
  href: string;
  /** Set once the request reached its operation's handler: the request log need not match the path again. */
  operationId?: string;
}

/** What every routed request carries to its handler: the request, the app's dependencies, the steering asked. */
interface RequestContext {
  req: RoutedRequest;
  deps: Deps;
  steering: Steering;
}

function operationHandler(handler: Handler | ProjectlessHandler) {
  return (c: Context, { req, deps }: RequestContext) => {
    req.operationId = c.operation.operationId;
    const caller = c.security?.PersonalAPIKey as Caller;
    // Built whole, never spread: a spread would call the getters, and `url` parses the request's URL.
    const args = {
      c,
      caller,
      deps,
      project: caller?.project,
      get url() {
        return req.url;
      },
      get href() {
        return req.href;
      },
    };
    // Operations without security (token introspection) have no caller.
    return caller?.project ? (handler as Handler)(args as HandlerArgs) : (handler as ProjectlessHandler)(args);
  };
}

/** Counts a personal-key request against its rate limits; a full bucket answers the throttled 429. */
function throttle(limits: RateLimits, c: Context, operationId: string, req: RoutedRequest): void {
  const header = req.headers.authorization;
  const key = c.security?.PersonalAPIKey ? bearerKey(Array.isArray(header) ? header[0] : header) : undefined;
  if (key === undefined) return;
  try {
    limits.check(operationId, key);
  } catch (e) {
    if (e instanceof Throttled) throw new SteeredResponse(throttledAnswer(e.seconds));
    throw e;
  }
}

async function buildBackend(handlers: HandlerMap) {
  const api = newBackend(OPENAPI_PATH, {
    handlers: {
      ...Object.fromEntries(Object.entries(handlers).map(([id, handler]) => [id, operationHandler(handler!)])),
      ...routingErrorHandlers,
      unauthorizedHandler: (c: Context) => {
        const result = c.security?.PersonalAPIKey as { error?: unknown } | undefined;
        throw result?.error instanceof ApiError ? result.error : fail.notAuthenticated();
      },
      notImplemented: (c: Context) => {
        throw fail.notImplemented(c.operation.operationId ?? "This operation");
      },
      // After security and validation: a valid request that asks `Prefer: code=N` gets the documented response.
      // Overrides set through the control API come first, then `Prefer`.
      preOperationHandler: async (c: Context, { req, deps, steering }: RequestContext) => {
        const mock = (id: string, opts: { code?: number; example?: string }) => api.mockResponseForOperation(id, { code: opts.code, example: opts.example });
        const operationId = c.operation.operationId!;
        if (deps.rateLimits) throttle(deps.rateLimits, c, operationId, req);
        const override = deps.overrides?.take(operationId, () => ({ method: req.method, path: req.path, operation_id: operationId, query: queryFields(req.url.search), body: req.body }));
        if (override) await applyOverride(override, c.operation, mock);
        if (steering.code === undefined && steering.example === undefined) return;
        throw steeredResponse(c.operation, steering, mock);
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
  return routerOver(await pending, baseDeps);
}

/** Loads the document again (--watch); the new router replaces the shared one only once it loaded. */
export async function rebuildApi(handlers: HandlerMap, baseDeps: Omit<Deps, "schemas">) {
  const fresh = await buildBackend(handlers);
  built.set(handlers, Promise.resolve(fresh));
  return routerOver(fresh, baseDeps);
}

function routerOver({ api, schemas }: { api: Backend; schemas: SchemaValidator }, baseDeps: Omit<Deps, "schemas">) {
  const deps: Deps = { ...baseDeps, schemas };
  const documented = api.router.getOperations().map((op) => op.path);
  return {
    api,
    /** Documented paths without a trailing slash (the real service's `@current` key, token introspection): routed as they are. */
    slashless: new Set(documented.filter((p) => !p.endsWith("/") && !p.includes("{"))),
    /** `/api/environments/{id}/…` as its `/api/projects/{id}/…` twin where the document has no environment path. */
    projectPathOf: environmentPathRouter(documented),
    /** Routes one request; resolves to what the handler (or the steering) answered, or throws an ApiError. */
    handle: async (req: RoutedRequest, steering: Steering = {}): Promise<HandlerResult> => {
      try {
        return (await api.handleRequest(
          { method: req.method, path: req.path, query: req.query, headers: req.headers as ApiRequest["headers"], body: req.body },
          { req, deps, steering } satisfies RequestContext,
        )) as HandlerResult;
      } catch (e) {
        if (e instanceof SteeredResponse) return e.result;
        throw e;
      }
    },
  };
}

/** The persons endpoints results link to, by the operation that answers their GET form. */
const PERSONS_OPERATIONS: Record<PersonsEndpoint, string> = {
  funnel: "persons_funnel_retrieve",
  retention: "persons_retention_retrieve",
  "funnel/correlation": "persons_funnel_correlation_retrieve",
};

/** The query parameters the document declares for a persons endpoint (what a persons URL may carry), memoised per backend. */
export function personsQueryKeysOf(api: Backend): (endpoint: PersonsEndpoint) => ReadonlySet<string> | undefined {
  const known = new Map<PersonsEndpoint, ReadonlySet<string> | undefined>();
  return (endpoint) => {
    if (!known.has(endpoint)) {
      const operation = api.getOperation(PERSONS_OPERATIONS[endpoint]);
      const names = (operation?.parameters ?? []).flatMap((p) => ("in" in p && p.in === "query" ? [p.name] : []));
      known.set(endpoint, operation ? new Set(names) : undefined);
    }
    return known.get(endpoint);
  };
}

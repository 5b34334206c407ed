import type { Operation } from "openapi-backend";
import type { PersonsEndpoint } from "../analyses/shared/context.ts";
import { fail } from "../core/errors.ts";
import { authenticate, authenticateSharingToken, bearerToken, sharingAccessToken, type Caller } from "../pipeline/authenticate.ts";
import { loadDocument, OPENAPI_PATH, type Backend } from "../pipeline/documents.ts";
import { environmentPathRouter } from "../pipeline/environment-paths.ts";
import type { Handled, PipelineRequest, Surface } from "../pipeline/process.ts";
import type { RememberedReads } from "../pipeline/remembered-reads.ts";
import { createSchemaValidator } from "../pipeline/schemas.ts";
import type { SteeringDeps } from "../pipeline/steer.ts";
import type { Deps, Handler, HandlerArgs, OperationId, ProjectlessHandler } from "./types.ts";

/** Operations without a `{project_id}` get a ProjectlessHandler (no project resolved for them). */
export type HandlerMap = Partial<Record<OperationId, Handler | ProjectlessHandler>>;

/** Loading the document and compiling its router is the expensive part of start-up: once per process (again on --watch). */
let loaded: Promise<Backend> | undefined;

export function productDocument(reload = false): Promise<Backend> {
  if (reload || !loaded) {
    const fresh = loadDocument(OPENAPI_PATH);
    // A document that does not load leaves the previous one in place.
    fresh.then(() => (loaded = fresh), () => undefined);
    loaded ??= fresh;
    return fresh;
  }
  return loaded;
}

/** Whether an operation asks for a personal API key (the document's global requirement, unless it says `security: []`). */
const takesPersonalKey = (operation: Operation) => (operation.security ?? []).some((requirement) => "PersonalAPIKey" in requirement);

/** The handler's arguments, built whole, never spread: a spread would call the getters, and `url` parses the request's URL. */
function handlerArgs({ c, who, req }: Handled<Caller | undefined>, deps: Deps) {
  return {
    c,
    caller: who,
    deps,
    project: who?.project,
    get url() {
      return new URL(req.originalUrl, `${req.secure ? "https" : "http"}://${req.headers.host ?? "localhost"}`);
    },
    get href() {
      return `${req.headers.host ?? "localhost"}${req.originalUrl}`;
    },
  };
}

/** The product API (openapi/openapi.yaml) as a surface of the pipeline: personal API keys, handlers by operationId. */
export function productApiSurface(api: () => Backend, handlers: HandlerMap, deps: () => Deps, steering: SteeringDeps, remembered: RememberedReads, prepare: (req: PipelineRequest) => Promise<void>): Surface<Caller | undefined> {
  return {
    api,
    steering,
    remembered,
    prepare,
    ignoresUndeclaredQuery: true,
    authenticate(operation, matched, req) {
      if (!takesPersonalKey(operation)) return { who: undefined };
      const params = matched.params as Record<string, string | undefined>;
      // As the real service, a sharing token is tried before the key (its authentication class comes first).
      const sharing = sharingAccessToken(req.query);
      if (sharing !== undefined) return { who: authenticateSharingToken(sharing, req.method, operation.operationId, params, deps().store), rateKey: sharing };
      const who = authenticate({ scheme: "personal_api_key", authorization: req.headers.authorization, projectParam: params.project_id }, deps().store);
      return { who, rateKey: bearerToken(req.headers.authorization) };
    },
    handle(handled) {
      const handler = handlers[handled.c.operation.operationId as OperationId];
      if (!handler) throw fail.notImplemented(handled.c.operation.operationId ?? "This operation");
      const args = handlerArgs(handled, deps());
      // Operations without security (token introspection) have no caller.
      return handled.who?.project ? (handler as Handler)(args as HandlerArgs) : (handler as ProjectlessHandler)(args as Omit<HandlerArgs, "project">);
    },
  };
}

const factsOf = new WeakMap<Backend, ReturnType<typeof readFacts>>();

/** What the app needs of the loaded document besides routing: its schemas, and how paths are routed (once per document). */
export function documentFacts(api: Backend) {
  let facts = factsOf.get(api);
  if (!facts) factsOf.set(api, (facts = readFacts(api)));
  return facts;
}

function readFacts(api: Backend) {
  const documented = api.router.getOperations().map((op) => op.path);
  return {
    schemas: createSchemaValidator(api.definition),
    /** Documented paths without a trailing slash (the real service's `@current` key, token introspection): routed as they are. */
    slashless: new Set(documented.filter((p) => !p.endsWith("/") && !p.includes("{"))),
    /** `/api/environments/{id}/…` as its `/api/projects/{id}/…` twin where the document has no environment path. */
    projectPathOf: environmentPathRouter(documented),
    personsQueryKeys: personsQueryKeysOf(api),
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

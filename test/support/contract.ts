import { newBackend, OPENAPI_PATH, type Backend } from "../../src/pipeline/documents.ts";
import { environmentPathRouter } from "../../src/pipeline/environment-paths.ts";

let loaded: Promise<InstanceType<typeof Backend>> | undefined;

/** The OpenAPI document, loaded once per test file, independent of the server under test. */
export function contract(): Promise<InstanceType<typeof Backend>> {
  loaded ??= loadContract(OPENAPI_PATH);
  return loaded;
}

/** One of our documents as a non-strict router, for matching and validating answers. */
export async function loadContract(path: string): Promise<InstanceType<typeof Backend>> {
  const api = newBackend(path, { strict: false });
  await api.init();
  return api;
}

export interface Observed {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

/**
 * Fails unless the response is what the document promises: the operation exists (or the request was a
 * routing 404/405, answered with the Error body), the status is documented for it, the media type is
 * documented, and the JSON body validates against the schema of that status.
 */
export async function assertConforms(res: Observed, document: Promise<Backend> = contract()): Promise<void> {
  const api = await document;
  // An environment path without its own operation is its project path's (as the document's introduction says),
  // decided, as the server does, on the path with its trailing slash settled.
  const routed = environmentPathRouter(api.router.getOperations().map((op) => op.path));
  const path = res.path.split("?")[0]!.replace(/%40/gi, "@");
  // The server routes a path with a trailing slash unless the document has it without one (then both forms).
  const match = (p: string) => api.router.matchOperation({ method: res.method.toLowerCase(), path: routed(p), headers: {} });
  const operation = match(path) ?? match(path.endsWith("/") ? path : `${path}/`) ?? (path.length > 1 && path.endsWith("/") && !path.endsWith("//") ? match(path.slice(0, -1)) : undefined);
  if (!operation) {
    if (res.status !== 404 && res.status !== 405) throw new Error(`${res.method} ${path}: no operation, and status ${res.status} is not a routing error`);
    assertErrorShape(res);
    return;
  }
  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  const documented = responses[String(res.status)] ?? responses.default;
  if (!documented) throw new Error(`${operation.operationId}: status ${res.status} is not documented (documented: ${Object.keys(responses).join(", ")})`);
  const content = documented.content ?? {};
  if (Object.keys(content).length === 0) {
    if (res.body !== undefined && res.body !== "") throw new Error(`${operation.operationId} ${res.status}: documented without a body, got ${JSON.stringify(res.body)}`);
    return;
  }
  const mediaType = (res.contentType ?? "").split(";")[0]!.trim();
  if (!content[mediaType]) throw new Error(`${operation.operationId} ${res.status}: media type "${mediaType}" is not documented`);
  if (mediaType !== "application/json") return;
  const result = api.validateResponse(res.body, operation, res.status);
  if (result.errors?.length) {
    throw new Error(`${operation.operationId} ${res.status}: response does not conform: ${JSON.stringify(result.errors.slice(0, 3), null, 1)}\nbody: ${JSON.stringify(res.body).slice(0, 800)}`);
  }
}

function assertErrorShape(res: Observed) {
  const body = res.body as Record<string, unknown>;
  const keys = body && typeof body === "object" ? Object.keys(body).sort().join(",") : "";
  if (keys !== "attr,code,detail,type") throw new Error(`${res.method} ${res.path} ${res.status}: not the Error shape: ${JSON.stringify(body)}`);
}

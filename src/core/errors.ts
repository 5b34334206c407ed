import type { ErrorObject } from "ajv";
import { AnalysisInputError } from "./analysis-errors.ts";
import { SqlEngineError } from "./sql-errors.ts";

/** The one error body of the API, as the real service writes it (reference: ingestion-persons-events §6.3). */
export interface ErrorBody {
  type: "validation_error" | "authentication_error" | "invalid_request" | "throttled_error" | "server_error";
  code: string;
  detail: string;
  attr: string | null;
}

/** Thrown anywhere below a handler; the error middleware writes it as it is. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.detail);
  }
}

const error = (status: number, type: ErrorBody["type"], code: string, detail: string, attr: string | null = null) =>
  new ApiError(status, { type, code, detail, attr });

/** The catalogue: every error the server answers is built here. */
export const fail = {
  invalid: (attr: string | null, detail: string, code = "invalid_input") => error(400, "validation_error", code, detail, attr),
  required: (attr: string) => error(400, "validation_error", "required", "This field is required.", attr),
  parse: (detail: string) => error(400, "invalid_request", "parse_error", `JSON parse error - ${detail}`),
  undecodable: (detail: string) => error(400, "invalid_request", "parse_error", `The body does not decode with its Content-Encoding: ${detail}.`),
  notAuthenticated: () =>
    error(401, "authentication_error", "not_authenticated", "Authentication credentials were not provided."),
  badKey: () =>
    error(401, "authentication_error", "authentication_failed", "Personal API key found in request Authorization header is invalid."),
  forbidden: (detail = "You don't have access to the project.") => error(403, "authentication_error", "permission_denied", detail),
  notFound: (detail = "Not found.") => error(404, "invalid_request", "not_found", detail),
  methodNotAllowed: (method: string) => error(405, "invalid_request", "method_not_allowed", `Method "${method}" not allowed.`),
  tooLarge: (limit: string) => error(413, "invalid_request", "payload_too_large", `Request body exceeds the limit of ${limit}.`),
  unsupportedMediaType: (type: string) =>
    error(415, "invalid_request", "unsupported_media_type", `Unsupported media type "${type}" in request.`),
  headersTooLarge: () =>
    error(431, "invalid_request", "request_header_fields_too_large", "The request line and headers exceed 16 KiB."),
  requestTimeout: () => error(408, "invalid_request", "request_timeout", "The request was not received in time."),
  malformedRequest: () => error(400, "invalid_request", "malformed_request", "The request is not valid HTTP/1.1."),
  notImplemented: (what: string) => error(501, "server_error", "not_implemented", `${what} is not implemented yet.`),
  /** The SQL engine cannot run here (no chdb build for the platform) or its process failed: not the query's fault. */
  engineUnavailable: (detail: string) => error(503, "server_error", "sql_engine_unavailable", detail),
  internal: () => error(500, "server_error", "error", "A server error occurred."),
  /**
   * A project past its share of the SQL engine: the real query API's ConcurrencyLimitExceeded as DRF's Throttled
   * (posthog/api/query.py; posthog/clickhouse/client/limit.py names the limit and its key).
   */
  tooManyQueries: (limit: number, projectId: string, seconds: number) =>
    error(429, "throttled_error", "throttled", `Exceeded maximum concurrency limit: ${limit} for key: project ${projectId} (SQL queries running or waiting at once). Expected available in ${seconds} second${seconds === 1 ? "" : "s"}.`),
  /** DRF's throttle answer, word for word (its message says "second" for one). */
  throttled: (seconds: number) =>
    error(429, "throttled_error", "throttled", `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? "" : "s"}.`),
};

const SEGMENT_ROOTS = new Set(["query", "path", "requestBody", "headers", "body"]);

/** Turns one Ajv error into the API error: `attr` is the field path joined with `__`, without the query/path/body root. */
export function fromAjvError(err: ErrorObject, root?: string): ApiError {
  const segments = err.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (segments.length && SEGMENT_ROOTS.has(segments[0]!)) segments.shift();
  const params = err.params as Record<string, unknown>;
  const leaf = params.missingProperty ?? params.additionalProperty;
  if (typeof leaf === "string") segments.push(leaf);
  const prefix = root ? [root] : [];
  const attr = [...prefix, ...segments].join("__") || null;
  if (err.keyword === "required") return fail.required(attr ?? "body");
  if (err.keyword === "additionalProperties") return fail.invalid(attr, `Unknown field "${String(leaf)}".`);
  const allowed = err.keyword === "enum" ? `: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` : "";
  return fail.invalid(attr, `${attr ?? "value"} ${err.message ?? "is invalid"}${allowed}.`);
}

/** The edge between the analyses and the API: an analysis' rejected input is a 400 naming the field. */
export function fromAnalysisError(err: AnalysisInputError): ApiError {
  return err.code === "required" ? fail.required(err.attr ?? "body") : fail.invalid(err.attr, err.message, err.code);
}

/** A compressed body that does not inflate (gzip, deflate, br): body-parser passes zlib's error on, marked 400. */
export function isUndecodableBody(err: unknown): err is Error {
  const e = err as { status?: unknown; errno?: unknown; code?: unknown };
  return err instanceof Error && e.status === 400 && typeof e.errno === "number" && typeof e.code === "string";
}

/** Any error that already says what the client did wrong, as the API's error; null for everything else. */
export function asClientError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof AnalysisInputError) return fromAnalysisError(err);
  if (isUndecodableBody(err)) return fail.undecodable(err.message);
  if (err instanceof SqlEngineError) return fail.engineUnavailable(err.message);
  return null;
}

/** Request-level failures (body parsing, size, encoding) and client errors mapped to the API's errors; null for a server fault. */
export function toApiError(err: unknown): ApiError | null {
  const known = asClientError(err);
  if (known) return known;
  const type = (err as { type?: string }).type;
  if (type === "entity.parse.failed") return fail.parse((err as Error).message);
  if (type === "entity.too.large") return fail.tooLarge(`${(err as { limit?: number }).limit ?? "?"} bytes`);
  if (type === "encoding.unsupported" || type === "charset.unsupported") return fail.unsupportedMediaType(String((err as { charset?: string }).charset ?? "encoding"));
  if (type === "request.aborted") return fail.invalid(null, "The request was aborted.", "request_aborted");
  // openapi-backend decodes path parameters with decodeURIComponent: a malformed escape is the client's error.
  if (err instanceof URIError) return fail.invalid(null, "The path is not valid percent-encoding.");
  return null;
}

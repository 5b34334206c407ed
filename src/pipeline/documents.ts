import OpenAPIBackendModule, { type Operation, type Request as ApiRequest } from "openapi-backend";
import addFormats from "ajv-formats";
import type { Ajv } from "ajv";
import { compileOperationMatcher, compileRequestParser } from "./operation-matcher.ts";
import { projectFile } from "../util/project-files.ts";

/** The three documents every request is matched against. */
export const OPENAPI_PATH = projectFile("openapi/openapi.yaml");
export const CAPTURE_OPENAPI_PATH = projectFile("openapi/capture.yaml");
export const CONTROL_OPENAPI_PATH = projectFile("openapi/control.yaml");

const OpenAPIBackend = OpenAPIBackendModule.default ?? OpenAPIBackendModule;

/**
 * openapi-backend checks documents against its OpenAPI 3.0 meta-schema, which rejects valid 3.1 documents;
 * ours is linted by Redocly in `npm test` instead.
 */
export class Backend extends OpenAPIBackend {
  /** A matched request's path parameters, parsed without the rest of the request (set by init). */
  pathParams: (req: ApiRequest, operation: Operation) => Record<string, string> = () => ({});

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
    const { parseRequest, pathParams } = compileRequestParser(this.router, operations);
    this.router.parseRequest = parseRequest as typeof this.router.parseRequest;
    this.pathParams = pathParams;
    return this;
  }
}

export const addApiFormats = (ajv: Ajv) => {
  addFormats.default(ajv as never, ["date-time", "date", "email", "uuid", "uri"]);
  return ajv;
};

/**
 * One of our documents as a router and validator: strict, query/path coercion, trailing slashes kept, our
 * formats. The pipeline runs the stages itself (pipeline/process.ts): openapi-backend matches, parses,
 * validates and mocks. `quick` compiles each operation's validators on its first request instead of all of
 * them (responses included, which the server never validates) at start-up.
 */
export function newBackend(definition: string, options: { strict?: boolean } = {}) {
  return new Backend({ definition, strict: true, quick: true, coerceTypes: true, ignoreTrailingSlashes: false, customizeAjv: addApiFormats, handlers: {}, ...options });
}

/** A document loaded and its router compiled. */
export async function loadDocument(definition: string): Promise<Backend> {
  const api = newBackend(definition);
  await api.init();
  return api;
}

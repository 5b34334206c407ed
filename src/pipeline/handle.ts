import type { Context } from "openapi-backend";
import type { Backend } from "./documents.ts";
import type { Matched } from "./match.ts";

/**
 * The context a handler reads (`c.request.params`, `c.request.query`, `c.request.requestBody`, `c.operation`),
 * shaped as openapi-backend's so that handlers written against it read a request the same way on every surface.
 * Reached only by requests that passed authentication and validation.
 */
export const handlerContext = (api: Backend, matched: Matched): Context =>
  ({ api, request: matched.parsed, operation: matched.operation, security: { authorized: true }, validation: { valid: true, errors: null } }) as unknown as Context;

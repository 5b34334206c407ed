import type { Request as ApiRequest } from "openapi-backend";
import { fromAjvError } from "../core/errors.ts";
import type { Backend } from "./documents.ts";
import type { Matched } from "./match.ts";

/**
 * The request against its operation's parameters and body (Ajv, query and path coerced in place): the first
 * error as a 400 naming its field (`fromAjvError`).
 */
export function validateRequest(api: Backend, req: ApiRequest, matched: Matched): void {
  const errors = api.validator.validateRequest(req, matched.operation).errors;
  if (errors?.length) throw fromAjvError(errors[0]!);
}

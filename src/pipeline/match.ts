import type { Operation, ParsedRequest, Request as ApiRequest } from "openapi-backend";
import { fail } from "../core/errors.ts";
import type { Backend } from "./documents.ts";

/** A request matched to its operation in one of the three documents, its path parameters parsed. */
export interface Matched {
  operation: Operation;
  /** The path parameters (what authentication needs: the project). */
  params: Record<string, string>;
  /**
   * What openapi-backend parsed (params, query, headers, body); validation coerces its query in place. Parsed on
   * first use: a remembered read is answered without it (profiled: a fifth of its CPU).
   */
  readonly parsed: ParsedRequest;
}

/**
 * The operation a request calls: 404 for a path no operation has, 405 for a path one has under another method
 * (the document's router, compiled once: pipeline/operation-matcher.ts).
 */
export function matchOperation(api: Backend, req: ApiRequest): Matched {
  let operation: Operation | undefined;
  try {
    operation = api.router.matchOperation(req, true);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith("405")) throw fail.methodNotAllowed(req.method.toUpperCase());
    throw fail.notFound();
  }
  if (!operation) throw fail.notFound();
  let parsed: ParsedRequest | undefined;
  return {
    operation,
    params: api.pathParams(req, operation),
    get parsed() {
      return (parsed ??= api.router.parseRequest(req, operation));
    },
  };
}

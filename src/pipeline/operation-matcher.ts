import type { Operation, OpenAPIRouter, ParsedRequest, Request as ApiRequest } from "openapi-backend";
import { escapeRegExp } from "../core/regex.ts";

/** A path template as a RegExp: its literal parts escaped, each `{parameter}` as `segment`. */
export const templatePattern = (path: string, segment: string) => new RegExp(`^${path.split(/\{[^}]+\}/).map(escapeRegExp).join(segment)}$`);

/**
 * What a path parameter naming a resource looks like here: an integer id, a uuid, an 8-character short id,
 * `@current`. A path that matches a template only through another value (`/persons/bulk_delete2/`) is an
 * unknown sub-path: 404, not 405 (a method a real resource's path lacks stays 405).
 */
const ID_LIKE = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9]{8}|@current)$/i;

interface Template {
  pattern: RegExp;
  /** The same template capturing each parameter's value. */
  capture: RegExp;
  /** Length of the literal part: the most specific template wins, as openapi-backend orders them. */
  specificity: number;
  operations: Operation[];
}

/**
 * openapi-backend's `matchOperation` with its path patterns compiled once: the library builds a RegExp for
 * every operation on every request (profiled: a tenth of a GET's CPU). Same answers: an exact path first,
 * then the templates by specificity, `undefined` or the library's 404/405 errors when `strict`; one
 * difference: 405 only where the path's parameters look like ids (ID_LIKE), else 404.
 */
export function compileOperationMatcher(router: OpenAPIRouter, operations: Operation[]) {
  const exact = new Map<string, Operation[]>();
  const byTemplate = new Map<string, Template>();
  for (const op of operations) {
    exact.set(op.path, [...(exact.get(op.path) ?? []), op]);
    const template = byTemplate.get(op.path) ?? {
      pattern: templatePattern(op.path, "[^/]+"),
      capture: templatePattern(op.path, "([^/]+)"),
      specificity: op.path.replace(/\{.*?\}/g, "").length,
      operations: [],
    };
    template.operations.push(op);
    byTemplate.set(op.path, template);
  }
  // Stable sort, like lodash's orderBy in the library: equal specificity keeps document order.
  const templates = [...byTemplate.values()].sort((a, b) => b.specificity - a.specificity);

  return function matchOperation(req: ApiRequest, strict?: boolean): Operation | undefined {
    const normalized = router.normalizeRequest(req);
    const notFound = () => {
      if (strict) throw Error("404-notFound: no route matches request");
      return undefined;
    };
    if (!(router as unknown as { isUnderApiRoot(path: string): boolean }).isUnderApiRoot(normalized.path)) return notFound();
    const path = router.normalizePath(normalized.path);
    const exactMatch = exact.get(path)?.find((op) => op.method === normalized.method);
    if (exactMatch) return exactMatch;
    let pathMatched = false;
    for (const template of templates) {
      if (!template.pattern.test(path)) continue;
      const match = template.operations.find((op) => op.method === normalized.method);
      if (match) return match;
      pathMatched ||= template.capture.exec(path)!.slice(1).every((value) => ID_LIKE.test(value));
    }
    if (!pathMatched) return notFound();
    if (strict) throw Error("405-methodNotAllowed: this method is not registered for the route");
    return undefined;
  };
}

/**
 * openapi-backend's `parseRequest` with each operation's path-parameter pattern compiled once: the library
 * compiles the template (bath) on every request. Everything else is the library's own parsing, asked
 * without the operation; what it does with the operation beyond path parameters (JSON `content` and
 * non-exploded query parameters) the document does not use, and this refuses to start if it ever does.
 */
export function compileRequestParser(router: OpenAPIRouter, operations: Operation[]) {
  const unsupported = operations.flatMap((op) =>
    (op.parameters ?? []).filter((p) => "in" in p && p.in === "query" && (p.content !== undefined || p.explode === false)).map((p) => `${op.operationId} ${"name" in p ? p.name : "?"}`),
  );
  if (unsupported.length) throw new Error(`compileRequestParser: query parameters with content or explode: false are not handled: ${unsupported.join(", ")}`);
  const parsers = new Map<string, (path: string) => Record<string, string>>();
  for (const { path } of operations) {
    if (parsers.has(path)) continue;
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const pattern = templatePattern(path, "([^/]*)");
    parsers.set(path, (pathname) => {
      const values = pattern.exec(pathname);
      // Like the library: values percent-decoded (a malformed escape throws URIError, answered 400 upstream).
      return values ? Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i + 1]!)])) : {};
    });
  }
  const parseWithoutOperation = router.parseRequest.bind(router);
  // The library parses each request twice (before matching, then with the operation): the second reuses the first.
  const parsedOnce = new WeakMap<ApiRequest, ParsedRequest>();
  const paramsOf = (operation: Operation, path: string) => parsers.get(operation.path)?.(router.normalizePath(path)) ?? {};
  const parseRequest = (req: ApiRequest, operation?: Operation): ParsedRequest => {
    let parsed = parsedOnce.get(req);
    if (!parsed) parsedOnce.set(req, (parsed = parseWithoutOperation(req)));
    if (!operation) return parsed;
    return { ...parsed, params: paramsOf(operation, parsed.path) };
  };
  /** The path parameters alone, without the library's whole parse (headers, query, cookies, body). */
  const pathParams = (req: ApiRequest, operation: Operation): Record<string, string> => paramsOf(operation, req.path.split("?")[0]!);
  return { parseRequest, pathParams };
}

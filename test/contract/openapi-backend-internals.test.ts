import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import OpenAPIBackendModule, { OpenAPIRouter, type Document } from "openapi-backend";
import { describe, expect, it } from "vitest";
import { Backend } from "../../src/pipeline/documents.ts";

/**
 * src/http/api.ts replaces three methods of openapi-backend's router on each instance (`getOperations`,
 * `matchOperation`, `parseRequest`) with versions compiled once, and src/http/operation-matcher.ts calls
 * three more (`normalizeRequest`, `normalizePath`, `isUnderApiRoot`) and copies the library's routing-error
 * protocol. None of that is public API: the package is pinned to one exact version, and this file fails,
 * naming the internal, when an upgrade changes any of it. (test/unit/http/operation-matcher.test.ts checks
 * that the compiled versions answer as the library's own do.)
 */
const OpenAPIBackend = OpenAPIBackendModule.default ?? OpenAPIBackendModule;
const require = createRequire(import.meta.url);
const INTERNALS = ["getOperations", "matchOperation", "parseRequest", "normalizeRequest", "normalizePath", "isUnderApiRoot"] as const;
const WHY = "src/http/api.ts and src/http/operation-matcher.ts rely on openapi-backend's router internals";

const DEFINITION: Document = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/things/": { get: { operationId: "things_list", responses: { 200: { description: "ok" } } } },
    "/things/{id}/": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: { operationId: "things_retrieve", responses: { 200: { description: "ok" } } },
    },
  },
};

async function libraryRouter() {
  const api = new OpenAPIBackend({ definition: structuredClone(DEFINITION), quick: true, ignoreTrailingSlashes: false });
  await api.init();
  return api.router;
}

describe("openapi-backend, whose router internals src/http/api.ts replaces", () => {
  it("is pinned to the exact version installed", () => {
    const declared = (JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string> }).dependencies["openapi-backend"];
    const installed = (require("openapi-backend/package.json") as { version: string }).version;
    expect(declared, `${WHY}: pin an exact version in package.json`).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed, `${WHY}: node_modules holds another version than package.json pins`).toBe(declared);
  });

  it("has the router methods we replace or call, as instance-assignable methods", async () => {
    const router = await libraryRouter();
    expect(router, `${WHY}: the backend's \`router\` is no longer an OpenAPIRouter`).toBeInstanceOf(OpenAPIRouter);
    for (const name of INTERNALS) {
      expect(typeof (router as unknown as Record<string, unknown>)[name], `${WHY}: router.${name} is gone`).toBe("function");
      expect(Object.getOwnPropertyDescriptor(router, name), `${WHY}: router.${name} is now an own property; Backend.init's replacement may be overwritten`).toBeUndefined();
    }
  });

  it("getOperations lists operations with the fields the compiled matcher reads", async () => {
    const operations = (await libraryRouter()).getOperations();
    expect(operations.map((op) => [op.operationId, op.method, op.path]), `${WHY}: getOperations() changed shape`).toEqual([
      ["things_list", "get", "/things/"],
      ["things_retrieve", "get", "/things/{id}/"],
    ]);
    expect(operations[1]!.parameters, `${WHY}: getOperations() no longer merges path-level parameters into the operation`).toEqual([
      expect.objectContaining({ name: "id", in: "path" }),
    ]);
  });

  it("matchOperation and the routing-error protocol handleRequest reads (404/405 in the message)", async () => {
    const router = await libraryRouter();
    expect(router.matchOperation({ method: "get", path: "/things/7/", headers: {} })?.operationId, `${WHY}: matchOperation(req)`).toBe("things_retrieve");
    expect(() => router.matchOperation({ method: "get", path: "/nowhere/", headers: {} }, true), `${WHY}: strict matchOperation's 404 message`).toThrow(/^404-notFound/);
    expect(() => router.matchOperation({ method: "post", path: "/things/", headers: {} }, true), `${WHY}: strict matchOperation's 405 message`).toThrow(/^405-methodNotAllowed/);
  });

  it("parseRequest, normalizeRequest, normalizePath and isUnderApiRoot take and return what we use", async () => {
    const router = await libraryRouter();
    const req = { method: "GET", path: "/things/a%20b/", query: "limit=5", headers: {} };
    const parsed = router.parseRequest(req);
    expect(parsed, `${WHY}: parseRequest(req) without an operation`).toMatchObject({ method: "get", path: "/things/a%20b/", params: {}, query: { limit: "5" } });
    const op = router.matchOperation(req)!;
    expect(router.parseRequest(req, op).params, `${WHY}: parseRequest(req, operation) path parameters`).toEqual({ id: "a b" });
    expect(router.normalizeRequest(req), `${WHY}: normalizeRequest(req)`).toMatchObject({ method: "get", path: "/things/a%20b/" });
    expect(router.normalizePath("/things/"), `${WHY}: normalizePath(path)`).toBe("/things/");
    const underRoot = (router as unknown as { isUnderApiRoot(path: string): boolean }).isUnderApiRoot("/things/");
    expect(underRoot, `${WHY}: isUnderApiRoot(path)`).toBe(true);
  });

  it("handleRequest routes through the router's instance methods, so the compiled ones are the ones used", async () => {
    const api = new Backend({ definition: structuredClone(DEFINITION), quick: true, ignoreTrailingSlashes: false, handlers: { things_retrieve: (c) => c.request.params } });
    await api.init();
    const calls: string[] = [];
    for (const name of ["matchOperation", "parseRequest"] as const) {
      const compiled = api.router[name].bind(api.router) as (...args: unknown[]) => unknown;
      (api.router as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        calls.push(name);
        return compiled(...args);
      };
    }
    await expect(api.handleRequest({ method: "GET", path: "/things/7/", headers: {} })).resolves.toEqual({ id: "7" });
    // Parsed before routing, matched, parsed again with the operation (and after coercion): all through the instance.
    expect(calls.slice(0, 3), `${WHY}: handleRequest no longer calls this.router.matchOperation/parseRequest`).toEqual(["parseRequest", "matchOperation", "parseRequest"]);
  });
});

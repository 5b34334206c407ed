import OpenAPIBackendModule from "openapi-backend";
import { beforeAll, describe, expect, it } from "vitest";
import { Backend, OPENAPI_PATH } from "../../../src/pipeline/documents.ts";

/**
 * The compiled matcher and request parser against openapi-backend's own (an untouched instance over the same
 * document): the same operation and the same path parameters for every documented path and for paths that
 * match nothing.
 */
const OpenAPIBackend = OpenAPIBackendModule.default ?? OpenAPIBackendModule;
type Api = InstanceType<typeof OpenAPIBackend>;

let library: Api;
let ours: Api;
beforeAll(async () => {
  const options = { definition: OPENAPI_PATH, quick: true, validate: false, ignoreTrailingSlashes: false };
  library = new OpenAPIBackend(options);
  library.validateDefinition = () => library.document;
  await library.init();
  ours = await new Backend(options).init();
});

/** Each documented path with its parameters filled in several ways, plus paths no operation has. */
function requests(): { method: string; path: string }[] {
  const fills = ["1", "42", "abc", "a%20b", "%E2%9C%93", "018f0c1e-5a8b-7c3d-9e4f-0123456789ab", ""];
  const out: { method: string; path: string }[] = [];
  for (const op of library.router.getOperations()) {
    for (const fill of fills) {
      const path = op.path.replace(/\{[^}]+\}/g, fill);
      for (const method of [op.method, "put", "get"]) out.push({ method, path });
    }
  }
  out.push({ method: "get", path: "/nowhere/" }, { method: "get", path: "/api/projects/1/unknown/" }, { method: "get", path: "/api/projects/1/insights" });
  return out;
}

describe("the compiled operation matcher and request parser", () => {
  it("match the operation openapi-backend matches, and parse the same path parameters", () => {
    const cases = requests();
    expect(cases.length).toBeGreaterThan(900);
    for (const { method, path } of cases) {
      const req = { method, path, headers: {}, query: "limit=5&search=x" };
      const expected = library.router.matchOperation(req);
      const actual = ours.router.matchOperation(req);
      expect(actual?.operationId, `${method} ${path}`).toBe(expected?.operationId);
      if (!expected) continue;
      const want = library.router.parseRequest(req, expected);
      const got = ours.router.parseRequest(req, actual);
      expect(got.params, `${method} ${path}`).toEqual(want.params);
      expect(got.query).toEqual(want.query);
      expect(got.path).toBe(want.path);
    }
  });

  it("throws URIError on a malformed escape in a path parameter, as the library does", () => {
    const req = { method: "get", path: "/api/projects/1/insights/%E0%A4%A/", headers: {} };
    const op = ours.router.matchOperation(req)!;
    expect(() => library.router.parseRequest(req, op)).toThrow(URIError);
    expect(() => ours.router.parseRequest(req, op)).toThrow(URIError);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationsOf } from "../support/hostile-arbitraries.ts";
import { assertSafeAnswer, KNOWN_KEYS, rawRequest, startHostileServer, type HostileServer, type RawRequest } from "../support/hostile-http.ts";
import { OTHER_KEY, OWNER_KEY, scenario } from "../support/server.ts";

/**
 * Every operation of the document, without a key, with an unknown one, with a key of a user who is not a
 * member of the project, on a project nobody has: 401, 401, 403, 404, before any validation; and no
 * answer ever holds a key in full. Basic scenario: the owner (user 1) is a member of projects 1 and 2;
 * user 2 (OTHER_KEY) of projects 2 and 3.
 */
const UNKNOWN_KEY = "phx_unknown_key_not_in_store_42";
const SECRETS = [...KNOWN_KEYS, UNKNOWN_KEY];
/** Token introspection takes no key by design (RFC 7662: any token is answered, an unknown one inactive). */
const UNAUTHENTICATED = new Set(["oauth_introspect"]);
const operations = (await operationsOf()).filter((op) => !UNAUTHENTICATED.has(op.operationId));

const ID_OF: Record<string, string> = { insights: "1", persons: "1", events: "01890000-0000-4000-8000-000000000001" };

function requestOf(op: (typeof operations)[number], project: string, authorization: string | undefined): RawRequest {
  const resource = /\/(insights|persons|events)\/\{id\}/.exec(op.template)?.[1];
  const path = op.template.replace("{project_id}", project).replace("{id}", resource ? ID_OF[resource]! : "1");
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  // An invalid body: authentication and project access are checked before validation.
  if (op.body) return { method: op.method, path: `${path}?not_a_parameter=1`, headers: { ...headers, "content-type": "application/json" }, body: '{"no_such_field": []}' };
  return { method: op.method, path: `${path}?not_a_parameter=1`, headers };
}

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer(scenario("basic"));
});
afterAll(() => server.close());

async function expectError(req: RawRequest, status: number, code: string) {
  const res = await rawRequest(server.base, req);
  await assertSafeAnswer(req, res, SECRETS);
  expect(res.status, `${req.method} ${req.path} (${req.headers?.authorization ?? "no key"})`).toBe(status);
  expect((res.body as { code: string }).code).toBe(code);
}

describe("the auth sweep", () => {
  it(`covers every operation of the document (${operations.length})`, () => {
    expect(operations.length).toBeGreaterThanOrEqual(46);
  });

  for (const op of operations) {
    const projectScoped = op.template.includes("{project_id}");
    it(`${op.operationId}: no key and unknown keys 401${projectScoped ? ", a stranger's project 403, a missing project 404" : ""}`, async () => {
      await expectError(requestOf(op, "1", undefined), 401, "not_authenticated");
      for (const header of ["Bearer", "Bearer ", `Basic ${OWNER_KEY}`, "Token abc"]) await expectError(requestOf(op, "1", header), 401, "not_authenticated");
      await expectError(requestOf(op, "1", `Bearer ${UNKNOWN_KEY}`), 401, "authentication_failed");
      await expectError(requestOf(op, "1", `Bearer ${OWNER_KEY.slice(0, -1)}`), 401, "authentication_failed");
      await expectError(requestOf(op, "1", `Bearer ${OWNER_KEY}x`), 401, "authentication_failed");
      if (!projectScoped) return;
      await expectError(requestOf(op, "1", `Bearer ${OTHER_KEY}`), 403, "permission_denied");
      await expectError(requestOf(op, "3", `Bearer ${OWNER_KEY}`), 403, "permission_denied");
      await expectError(requestOf(op, "999", `Bearer ${OWNER_KEY}`), 404, "not_found");
      await expectError(requestOf(op, "999", `Bearer ${UNKNOWN_KEY}`), 401, "authentication_failed");
    });
  }

  it("lists only the caller's projects", async () => {
    for (const [key, ids] of [[OWNER_KEY, [1, 2]], [OTHER_KEY, [2, 3]]] as const) {
      const req = { method: "GET", path: "/api/projects/", headers: { authorization: `Bearer ${key}` } };
      const res = await rawRequest(server.base, req);
      await assertSafeAnswer(req, res, SECRETS);
      expect((res.body as { results: { id: number }[] }).results.map((p) => p.id)).toEqual(ids);
    }
  });

  it("never echoes a key: valid requests of every operation, as CSV too", async () => {
    for (const op of operations) {
      const resource = /\/(insights|persons|events)\/\{id\}/.exec(op.template)?.[1];
      const path = op.template.replace("{project_id}", "1").replace("{id}", resource ? ID_OF[resource]! : "1");
      if (op.method === "DELETE") continue;
      for (const query of ["", "?format=csv"]) {
        const req: RawRequest = { method: op.method, path: path + query, headers: { authorization: `Bearer ${OWNER_KEY}`, "content-type": "application/json" }, body: op.body ? "{}" : undefined };
        await assertSafeAnswer(req, await rawRequest(server.base, req), SECRETS);
      }
    }
  });
});

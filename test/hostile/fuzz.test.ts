import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationsOf, requestFor, strayRequest } from "../support/hostile-arbitraries.ts";
import { assertSafeAnswer, rawRequest, startHostileServer, stateDigest, type HostileServer, type RawRequest } from "../support/hostile-http.ts";
import { scenario } from "../support/server.ts";

/**
 * Hostile input against every operation of the document, on one in-process server: wrong types, missing
 * and extra fields, deep and huge bodies, odd unicode, invalid JSON, wrong content types, repeated and
 * malformed query parameters, path ids of every shape. Seeded, so every run sends the same requests.
 */
const SEED = 20_240_305;
const TOTAL = 10_000;
const BODY_LIMIT = 64 * 1024;

const operations = await operationsOf();
const runsPerOperation = Math.ceil(TOTAL / (operations.length + 1));

let server: HostileServer;
let sent = 0;
/** Writes the server acknowledged (2xx to anything but GET), in the order it acknowledged them. */
const acknowledged: { req: RawRequest; status: number }[] = [];

async function send(req: RawRequest): Promise<void> {
  const res = await rawRequest(server.base, req);
  sent++;
  if (req.method !== "GET" && res.status >= 200 && res.status < 300) acknowledged.push({ req, status: res.status });
  await assertSafeAnswer(req, res);
}

beforeAll(async () => {
  server = await startHostileServer(scenario("basic"), { bodyLimit: BODY_LIMIT });
});
afterAll(async () => {
  await server.close();
  console.info(`fuzz: ${sent} requests, ${acknowledged.length} acknowledged writes`);
});

describe("fuzzing every operation of the document", () => {
  it("reads the operations from the document", () => {
    expect(operations.length).toBeGreaterThanOrEqual(46);
  });

  for (const [n, op] of operations.entries()) {
    it(`${op.method} ${op.template} (${op.operationId})`, { timeout: 300_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(requestFor(op, BODY_LIMIT), (req) => send(req)),
        { seed: SEED + n, numRuns: runsPerOperation, endOnFailure: true },
      );
    });
  }

  it("paths that are no operation", { timeout: 300_000 }, async () => {
    await fc.assert(fc.asyncProperty(strayRequest, (req) => send(req)), { seed: SEED - 1, numRuns: runsPerOperation, endOnFailure: true });
  });

  it(`sent at least ${TOTAL} requests, and polluted no prototype`, () => {
    expect(sent).toBeGreaterThanOrEqual(TOTAL);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });

  it("changed the state by the acknowledged writes only: replaying them on a fresh server gives the same state", { timeout: 300_000 }, async () => {
    expect(acknowledged.length).toBeGreaterThan(100);
    const fresh = await startHostileServer(scenario("basic"), { bodyLimit: BODY_LIMIT });
    try {
      for (const { req, status } of acknowledged) {
        const res = await rawRequest(fresh.base, req);
        expect(res.status, `${req.method} ${req.path}`).toBe(status);
      }
      expect(stateDigest(server.store.snapshot())).toBe(stateDigest(fresh.store.snapshot()));
    } finally {
      await fresh.close();
    }
  });
});

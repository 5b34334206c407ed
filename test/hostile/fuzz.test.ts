import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureContract } from "../support/capture-contract.ts";
import { controlContract } from "../support/control-contract.ts";
import { operationsOf, requestFor, strayRequest, type OperationInfo } from "../support/hostile-arbitraries.ts";
import { captureRequestFor } from "../support/hostile-capture.ts";
import { BACKGROUND, controlHints } from "../support/hostile-control.ts";
import { assertSafeAnswer, rawRequest, startHostileServer, stateDigest, type HostileServer, type RawRequest } from "../support/hostile-http.ts";
import { scenario } from "../support/server.ts";

/**
 * Hostile input against every operation of the three documents: wrong types, missing and extra fields,
 * numbers at the extremes, deep, wide and huge bodies, odd unicode, invalid JSON, wrong content types and
 * encodings, repeated and malformed query parameters, path ids of every shape. Seeded, so every run sends
 * the same requests.
 *
 * The product API (openapi/openapi.yaml) and capture (openapi/capture.yaml) share one server, whose state
 * must end up as the acknowledged writes alone make it. The control API (openapi/control.yaml) resets,
 * replaces and re-clocks the state by design, so it is fuzzed on a server of its own, with product and
 * capture requests sent between its requests to show that what it does never breaks anyone else's answer.
 */
const SEED = 20_240_305;
const TOTAL = 20_000;
const BODY_LIMIT = 64 * 1024;

const apiOperations = await operationsOf();
const captureOperations = await operationsOf(captureContract());
const controlOperations = await operationsOf(controlContract());
const runsPerOperation = Math.ceil(TOTAL / (apiOperations.length + captureOperations.length + controlOperations.length + 1));
/** One product or capture request is sent to the control server after every this many control requests. */
const BACKGROUND_EVERY = 4;

let server: HostileServer;
let sent = 0;
/** Writes the first server acknowledged (a 2xx to anything but a GET, or to a capture endpoint, which writes on GET too), in order. */
const acknowledged: { req: RawRequest; status: number }[] = [];
const CAPTURE_EVENTS = /^\/(?:e|i\/v0\/e|capture|track|engage|batch)(?:\/|\?|$)/;
/** Reads sent as POST: the query API and the SQL tool change no state (an async query's 202 or a cached 200 depends on what ran before). */
const READ_POSTS = /^\/api\/(?:projects|environments)\/[^/]+\/(?:query|mcp_tools\/[^/]+)\/?(?:\?|$)/;

async function sendTo(target: HostileServer, req: RawRequest): Promise<void> {
  const res = await rawRequest(target.base, req);
  sent++;
  const write = (req.method !== "GET" && !(req.method === "POST" && READ_POSTS.test(req.path))) || CAPTURE_EVENTS.test(req.path);
  if (target === server && write && res.status >= 200 && res.status < 300) acknowledged.push({ req, status: res.status });
  await assertSafeAnswer(req, res);
}

const opTitle = (op: OperationInfo) => `${op.method} ${op.template} (${op.operationId})`;

describe("fuzzing every operation of the product API and capture, on one server", () => {
  beforeAll(async () => {
    server = await startHostileServer(scenario("basic"), { bodyLimit: BODY_LIMIT });
  });
  afterAll(() => server.close());

  it("reads the operations from the documents", () => {
    expect(apiOperations.length).toBeGreaterThanOrEqual(46);
    expect(captureOperations.map((op) => op.operationId)).toEqual(expect.arrayContaining(["capture_e", "capture_batch", "flags_evaluate", "decide_evaluate", "remote_config_retrieve"]));
  });

  for (const [n, op] of apiOperations.entries()) {
    it(opTitle(op), { timeout: 300_000 }, async () => {
      await fc.assert(fc.asyncProperty(requestFor(op, BODY_LIMIT), (req) => sendTo(server, req)), { seed: SEED + n, numRuns: runsPerOperation, endOnFailure: true });
    });
  }

  for (const [n, op] of captureOperations.entries()) {
    it(`capture: ${opTitle(op)}`, { timeout: 300_000 }, async () => {
      await fc.assert(fc.asyncProperty(captureRequestFor(op), (req) => sendTo(server, req)), { seed: SEED + 1_000 + n, numRuns: runsPerOperation, endOnFailure: true });
    });
  }

  it("paths that are no operation", { timeout: 300_000 }, async () => {
    await fc.assert(fc.asyncProperty(strayRequest, (req) => sendTo(server, req)), { seed: SEED - 1, numRuns: runsPerOperation, endOnFailure: true });
  });

  it("changed the state by the acknowledged writes only: replaying them on a fresh server gives the same state", { timeout: 300_000 }, async () => {
    expect(acknowledged.length).toBeGreaterThan(100);
    expect(acknowledged.some(({ req }) => CAPTURE_EVENTS.test(req.path))).toBe(true);
    const fresh = await startHostileServer(scenario("basic"), { bodyLimit: BODY_LIMIT });
    try {
      for (const { req, status } of acknowledged) {
        const res = await rawRequest(fresh.base, req);
        expect(res.status, `${req.method} ${req.path.slice(0, 200)}`).toBe(status);
      }
      expect(stateDigest(server.store.snapshot())).toBe(stateDigest(fresh.store.snapshot()));
    } finally {
      await fresh.close();
    }
  });
});

describe("fuzzing the control API, on a server of its own", () => {
  let control: HostileServer;
  let controlSent = 0;
  const hints = controlHints(apiOperations.map((op) => op.operationId));
  const stateReplace = controlOperations.find((op) => op.operationId === "control_state_replace");
  // A whole scenario as a document to replace the state with: mutated, it reaches the fixture checks deep inside.
  stateReplace?.body?.examples.push(scenario("basic"));
  // A wait without timeout_ms lasts the default 5 s: the fuzzer always sends one (hinted to milliseconds).
  for (const wait of controlOperations.filter((op) => op.operationId === "control_captured_wait" || op.operationId === "control_recordings_wait")) {
    if (!wait.body) continue;
    wait.body.schema = { ...wait.body.schema, required: ["timeout_ms"] };
    wait.body.examples = wait.body.examples.map((example) => ({ ...(example as object), timeout_ms: 20 }));
  }

  /** A control request, and after every few a product or capture request whose answer must stay safe (an override's own answer aside). */
  async function sendControl(req: RawRequest) {
    await sendTo(control, req);
    if (++controlSent % BACKGROUND_EVERY !== 0) return;
    const background = BACKGROUND[(controlSent / BACKGROUND_EVERY) % BACKGROUND.length]!;
    const res = await rawRequest(control.base, background);
    if (res.headers["x-mock-override"] === undefined) await assertSafeAnswer(background, res);
  }

  beforeAll(async () => {
    control = await startHostileServer(scenario("basic"), { bodyLimit: BODY_LIMIT });
    for (const req of BACKGROUND) await rawRequest(control.base, req);
  });
  afterAll(() => control.close());

  it("reads the operations from the document", () => {
    expect(controlOperations.map((op) => op.operationId)).toEqual(expect.arrayContaining(["control_reset", "control_state_replace", "control_clock_advance", "control_requests_find", "control_overrides_create", "control_captured_list"]));
  });

  for (const [n, op] of controlOperations.entries()) {
    it(`control: ${opTitle(op)}`, { timeout: 300_000 }, async () => {
      await fc.assert(fc.asyncProperty(requestFor(op, BODY_LIMIT, hints), (req) => sendControl(req)), { seed: SEED + 2_000 + n, numRuns: runsPerOperation, endOnFailure: true });
    });
  }
});

describe("the whole run", () => {
  afterAll(() => {
    console.info(`fuzz: ${sent} requests, ${acknowledged.length} acknowledged writes replayed`);
  });

  it(`sent at least ${TOTAL} requests, and polluted no prototype`, () => {
    expect(sent).toBeGreaterThanOrEqual(TOTAL);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});

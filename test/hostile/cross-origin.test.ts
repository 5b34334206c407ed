import { afterEach, describe, expect, it } from "vitest";
import { assertControlConforms } from "../support/control-contract.ts";
import { assertSafeAnswer, rawRequest, startHostileServer, type HostileServer, type RawRequest } from "../support/hostile-http.ts";
import { OWNER_KEY, scenario } from "../support/server.ts";

/**
 * A page a developer visits must not drive the control API of the server on their machine: no CORS for
 * foreign origins, and no effect from the requests a browser sends without asking (a simple POST).
 */
const EVIL = "http://evil.example";

let server: HostileServer;
afterEach(() => server.close());

async function send(req: RawRequest) {
  const res = await rawRequest(server.base, req);
  if (req.path.startsWith("/_mock")) await assertControlConforms(req.method, req.path.split("?")[0]!, res.status, res.body);
  else if (req.method !== "OPTIONS") await assertSafeAnswer(req, res);
  return res;
}

const insightCount = () => server.store.snapshot().meta.insights.filter((i) => !i.deleted).length;

describe("the control API and foreign origins", () => {
  it("refuses a preflight, a read and a simple POST from a foreign page, without CORS headers and without effect", async () => {
    server = await startHostileServer(scenario("basic"));
    const preflight = await rawRequest(server.base, {
      method: "OPTIONS",
      path: "/_mock/state/",
      headers: { origin: EVIL, "access-control-request-method": "PUT", "access-control-request-headers": "content-type" },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();

    for (const path of ["/_mock/requests/", "/_mock/captured/", "/_mock/clock/"]) {
      const read = await send({ method: "GET", path, headers: { origin: EVIL } });
      expect(read.status, path).toBe(403);
      expect(read.headers["access-control-allow-origin"], path).toBeUndefined();
      expect((read.body as { detail: string }).detail).toContain("--control-origins");
    }

    const before = insightCount();
    const created = await rawRequest(server.base, { method: "POST", path: "/api/projects/1/insights/", headers: { authorization: `Bearer ${OWNER_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name: "kept" }) });
    expect(created.status).toBe(201);
    expect(insightCount()).toBe(before + 1);
    // text/plain: a "simple" request, sent by a browser with no preflight at all.
    const reset = await send({ method: "POST", path: "/_mock/reset/", headers: { origin: EVIL, "content-type": "text/plain" }, body: "{}" });
    expect(reset.status).toBe(403);
    expect(insightCount()).toBe(before + 1);
  });

  it("refuses a page that rebinds its own name to the loopback address (its Origin and Host name it, not 127.0.0.1)", async () => {
    server = await startHostileServer(scenario("basic"));
    const port = new URL(server.base).port;
    const res = await send({ method: "GET", path: "/_mock/requests/", headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}` } });
    expect(res.status).toBe(403);
  });

  it("answers the server's own pages (the docs' Try it out) and callers without an Origin", async () => {
    server = await startHostileServer(scenario("basic"));
    const own = await send({ method: "GET", path: "/_mock/clock/", headers: { origin: server.base } });
    expect(own.status).toBe(200);
    expect(own.headers["access-control-allow-origin"]).toBe(server.base);
    expect((await send({ method: "GET", path: "/_mock/clock/" })).status).toBe(200);
  });

  it("answers the origins given with --control-origins, preflights included", async () => {
    server = await startHostileServer(scenario("basic"), { controlOrigins: ["http://localhost:3000"] });
    const preflight = await rawRequest(server.base, {
      method: "OPTIONS",
      path: "/_mock/reset/",
      headers: { origin: "http://localhost:3000", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    const reset = await send({ method: "POST", path: "/_mock/reset/", headers: { origin: "http://localhost:3000" } });
    expect(reset.status).toBe(200);
    expect((await send({ method: "GET", path: "/_mock/requests/", headers: { origin: EVIL } })).status).toBe(403);
  });

  it("keeps the product API's documented CORS (the real service's: any origin)", async () => {
    server = await startHostileServer(scenario("basic"));
    const res = await rawRequest(server.base, { method: "OPTIONS", path: "/api/projects/1/insights/", headers: { origin: EVIL, "access-control-request-method": "GET" } });
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(EVIL);
  });
});

import { gzipSync } from "node:zlib";
import LZString from "lz-string";
import { PostHog } from "posthog-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startServer } from "../../src/index.ts";
import { assertControlConforms } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Observing what an app sent: waiting for captured events (long-poll), the request log matching events inside
 * capture batches, and the tracking plan. Every control answer is checked against openapi/control.yaml.
 */
let s: TestServer;
let token: string;
let client: PostHog;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
  token = s.store.projects.get("1")!.api_token;
  // Batching as a real app has it: events leave together, a while after they are captured.
  client = new PostHog(token, { host: s.base, flushAt: 20, flushInterval: 300, fetchRetryCount: 0 });
});
afterEach(async () => {
  await client.shutdown();
  await s.close();
});

async function control(method: string, path: string, body?: unknown, signal?: AbortSignal) {
  const res = await fetch(`${s.base}/_mock${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  await assertControlConforms(method, `/_mock${path.split("?")[0]}`, res.status, json);
  return { status: res.status, body: json };
}

const wait = (pattern: Record<string, unknown>) => control("POST", "/captured/wait/", pattern);

describe("POST /_mock/captured/wait/", () => {
  it("answers once posthog-node's batch arrives, with the matching events", async () => {
    const waiting = wait({ event: "clicked buy", properties: { plan: "pro" }, count: 2, timeout_ms: 10_000 });
    client.capture({ distinctId: "u1", event: "clicked buy", properties: { plan: "pro", price: 12 } });
    client.capture({ distinctId: "u1", event: "viewed cart" });
    client.capture({ distinctId: "u2", event: "clicked buy", properties: { plan: "free" } });
    client.capture({ distinctId: "u2", event: "clicked buy", properties: { plan: "pro" } });
    const { status, body } = await waiting;
    expect(status).toBe(200);
    expect(body.status).toBe("matched");
    expect(body.count).toBe(2);
    expect(body.events.map((e: any) => [e.distinct_id, e.properties.plan])).toEqual([
      ["u1", "pro"],
      ["u2", "pro"],
    ]);
    expect(body.events[0]).toMatchObject({ event: "clicked buy", properties: { price: 12, $lib: "posthog-node" }, valid: null, errors: [] });
    expect(s.control.observation.waiting()).toBe(0);
  });

  it("answers at once when the events are already there, and narrows by distinct id", async () => {
    client.capture({ distinctId: "u1", event: "signed up" });
    client.capture({ distinctId: "u2", event: "signed up" });
    await client.flush();
    const { body } = await wait({ event: "signed up", distinct_id: "u2" });
    expect(body).toMatchObject({ status: "matched", count: 1 });
    expect(body.events[0].distinct_id).toBe("u2");
  });

  it("times out with what matched so far, and releases its listener", async () => {
    client.capture({ distinctId: "u1", event: "clicked buy" });
    await client.flush();
    const { status, body } = await wait({ event: "clicked buy", count: 3, timeout_ms: 200 });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "timed_out", count: 1 });
    expect(body.events).toHaveLength(1);
    expect(s.control.observation.waiting()).toBe(0);
  });

  it("is released when its client hangs up", async () => {
    const hangup = new AbortController();
    const pending = wait({ event: "never sent", timeout_ms: 60_000 }).catch((e: Error) => e.name);
    const dropped = control("POST", "/captured/wait/", { event: "never sent either", timeout_ms: 60_000 }, hangup.signal).catch((e: Error) => e.name);
    await expect.poll(() => s.control.observation.waiting()).toBe(2);
    hangup.abort();
    expect(await dropped).toBe("AbortError");
    await expect.poll(() => s.control.observation.waiting()).toBe(1);
    client.capture({ distinctId: "u1", event: "never sent" });
    await client.flush();
    expect(await pending).toMatchObject({ body: { status: "matched", count: 1 } });
    expect(s.control.observation.waiting()).toBe(0);
  });

  it("ends at once when the server closes", async () => {
    const server = await startServer({ scenario: "capture" });
    const pending = server.captured.wait({ event: "never sent", timeout_ms: 60_000 });
    await server.close();
    expect(await pending).toEqual({ status: "timed_out", count: 0, events: [] });
  });

  it("refuses a timeout past the maximum and an unknown field with a 400 naming them", async () => {
    expect(await wait({ event: "x", timeout_ms: 60_001 })).toMatchObject({ status: 400, body: { code: "invalid_input", attr: "timeout_ms" } });
    expect(await wait({ count: 0 })).toMatchObject({ status: 400, body: { attr: "count" } });
    expect(await wait({ evnt: "x" })).toMatchObject({ status: 400, body: { attr: "evnt" } });
  });
});

describe("capture bodies in the request log", () => {
  it("are decoded, so a pattern on the body matches an event inside posthog-node's gzip batch", async () => {
    client.capture({ distinctId: "u1", event: "viewed cart" });
    client.capture({ distinctId: "u1", event: "clicked buy", properties: { price: 12 } });
    await client.flush();
    const count = async (body: unknown) => (await control("POST", "/requests/count/", { path: "/batch/", body })).body.count;
    expect(await count({ event: "clicked buy" })).toBe(1);
    expect(await count({ event: "clicked buy", properties: { price: 12 } })).toBe(1);
    expect(await count({ event: "clicked buy", properties: { price: 13 } })).toBe(0);
    expect(await count({ event: "never sent" })).toBe(0);
    const [logged] = (await control("POST", "/requests/find/", { path: "/batch/" })).body.requests;
    expect(logged.body.batch.map((e: any) => e.event)).toEqual(["viewed cart", "clicked buy"]);
  });

  it("are decoded from lz64 and base64 forms as capture decodes them", async () => {
    const event = { event: "clicked buy", distinct_id: "u9", properties: { token } };
    const lz = LZString.compressToBase64(JSON.stringify([event]));
    const form = (data: string) => new URLSearchParams({ data }).toString();
    const post = (path: string, body: string | Buffer, type: string) => fetch(`${s.base}${path}`, { method: "POST", headers: { "content-type": type }, body });
    expect((await post("/e/?compression=lz64", form(lz), "application/x-www-form-urlencoded")).status).toBe(200);
    expect((await post("/e/", form(Buffer.from(JSON.stringify(event)).toString("base64")), "application/x-www-form-urlencoded")).status).toBe(200);
    expect((await post("/e/?compression=gzip-js", gzipSync(JSON.stringify(event)), "text/plain")).status).toBe(200);
    const found = (await control("POST", "/requests/find/", { path: "/e/", body: { event: "clicked buy", distinct_id: "u9" } })).body.requests;
    expect(found).toHaveLength(3);
  });
});

describe("GET /_mock/captured/ and /_mock/captured/events/", () => {
  beforeEach(async () => {
    client.capture({ distinctId: "u1", event: "clicked buy", properties: { plan: "pro" } });
    await client.flush();
    client.capture({ distinctId: "u2", event: "viewed cart" });
    await client.flush();
  });

  it("filter requests by the events they stored", async () => {
    const all = (await control("GET", "/captured/")).body.results;
    expect(all.filter((r: any) => r.path.startsWith("/batch"))).toHaveLength(2);
    const bought = (await control("GET", "/captured/?event=clicked%20buy")).body.results;
    expect(bought).toHaveLength(1);
    expect(bought[0].decoded.batch[0].event).toBe("clicked buy");
    const props = encodeURIComponent(JSON.stringify({ plan: "pro" }));
    expect((await control("GET", `/captured/?properties=${props}`)).body.results).toHaveLength(1);
    expect((await control("GET", "/captured/?distinct_id=u2")).body.results[0].decoded.batch[0].event).toBe("viewed cart");
  });

  it("list events one by one, newest first, filtered", async () => {
    const { body } = await control("GET", "/captured/events/");
    expect(body.results.map((e: any) => e.event)).toEqual(["viewed cart", "clicked buy"]);
    expect((await control("GET", "/captured/events/?distinct_id=u1")).body).toMatchObject({ total: 1, results: [{ event: "clicked buy" }] });
    expect((await control("GET", "/captured/events/?limit=1")).body).toMatchObject({ total: 2, results: [{ event: "viewed cart" }] });
  });

  it("refuse a properties filter that is not a JSON object with a 400 on properties", async () => {
    expect(await control("GET", "/captured/events/?properties=%7Bnope")).toMatchObject({ status: 400, body: { attr: "properties" } });
    expect(await control("GET", "/captured/?properties=%5B1%5D")).toMatchObject({ status: 400, body: { attr: "properties" } });
    expect(await control("GET", "/captured/events/?valid=maybe")).toMatchObject({ status: 400, body: { attr: "valid" } });
  });

  it("are emptied by DELETE /_mock/captured/", async () => {
    expect((await control("DELETE", "/captured/")).status).toBe(204);
    expect((await control("GET", "/captured/events/")).body).toEqual({ total: 0, results: [] });
  });
});

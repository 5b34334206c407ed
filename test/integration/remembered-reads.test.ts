/**
 * A read repeated with nothing changed is answered from the bytes of its first answer, inside the pipeline
 * after authentication, validation and steering (src/pipeline/remembered-reads.ts). What a client sees must
 * not change: the same bytes and headers, a request-log entry, every write visible at once, and steering
 * (overrides, faults, Prefer, rate limits, latency), authentication and validation as on a first read.
 * On basic.json.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { assertConforms } from "../support/contract.ts";
import { OTHER_KEY, OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
let path: string;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
  path = `/api/projects/1/insights/${(await s.get("/api/projects/1/insights/")).body.results[0].id}/`;
});
afterEach(() => s.close());

/** A raw GET: the bytes and headers as the server wrote them (Date left out). */
async function raw(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.base}${url}`, { headers: { authorization: `Bearer ${OWNER_KEY}`, ...headers } });
  const sent = Object.fromEntries([...res.headers.entries()].filter(([name]) => name !== "date"));
  const text = await res.text();
  const contentType = res.headers.get("content-type");
  await assertConforms({ method: "GET", path: url, status: res.status, contentType, body: text === "" ? undefined : JSON.parse(text) });
  return { status: res.status, headers: sent, text };
}

describe("a repeated read", () => {
  it("gets the same bytes and headers, and is logged as the router's answer", async () => {
    await s.get(path); // computes the result
    const first = await raw(path);
    const repeats = [await raw(path), await raw(path)];
    for (const repeat of repeats) expect(repeat).toEqual(first);
    const log = await callControl(s.base, "GET", "/requests/?limit=3");
    expect(log.body.results.map((r: { operation_id: string; status: number; path: string }) => [r.operation_id, r.status, r.path])).toEqual(
      Array(3).fill(["insights_retrieve", 200, path]),
    );
  });

  it("sees a write at once", async () => {
    await raw(path);
    await raw(path);
    expect((await s.patch(path, { name: "Renamed" })).status).toBe(200);
    expect(JSON.parse((await raw(path)).text).name).toBe("Renamed");
    // A write to anything else of the store also ends the repeat (the state's revision moved).
    await s.post("/api/projects/1/insights/", { name: "Another" });
    expect(JSON.parse((await raw(path)).text).name).toBe("Renamed");
  });

  it("is steered as any request: overrides, faults and Prefer", async () => {
    await raw(path);
    await raw(path);
    await callControl(s.base, "POST", "/overrides/", { operation_id: "insights_retrieve", status: 500, times: 1 });
    expect((await raw(path)).status).toBe(500);
    expect((await raw(path)).status).toBe(200);
    const preferred = await raw(path, { prefer: "code=404" });
    expect(preferred.status).toBe(404);
    expect(JSON.parse(preferred.text)).toHaveProperty("type");
  });

  it("is authenticated and validated as any request", async () => {
    await raw(path);
    await raw(path);
    expect((await raw(path, { authorization: `Bearer ${OTHER_KEY}` })).status).toBe(403);
    expect((await raw(path, { authorization: "Bearer phx_unknown" })).status).toBe(401);
    expect((await raw(`${path}?format=xml`)).status).toBe(400);
  });

  it("ends when the state is replaced", async () => {
    await raw(path);
    await raw(path);
    const doc = scenario("basic");
    doc.insights = [];
    await callControl(s.base, "PUT", "/state/", doc);
    expect((await raw(path)).status).toBe(404);
  });

  it("is counted by the rate limits and waits the latency as any request", async () => {
    await s.close();
    s = await startTestServer(scenario("basic"), { rateLimits: true, latency: { min: 300, max: 300 } });
    await raw(path);
    await raw(path);
    const started = performance.now();
    expect((await raw(path)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    await s.close();
    s = await startTestServer(scenario("basic"), { rateLimits: true });
    // A fresh server: the analytics bucket takes 240 reads a minute, the remembered ones among them.
    const statuses: number[] = [];
    for (let i = 0; i < 240; i += 40) statuses.push(...(await Promise.all(Array.from({ length: 40 }, () => raw(path)))).map((r) => r.status));
    expect(statuses.filter((st) => st === 200)).toHaveLength(240);
    expect((await raw(path)).status).toBe(429);
  });
});

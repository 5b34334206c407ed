import { describe, expect, it } from "vitest";
import { BODY_CAP, LOG_BODY_BUDGET, RequestLog, loggedBody, type RequestLogEntry } from "../../../src/pipeline/request-log.ts";

const nested = (depth: number): unknown => {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe("loggedBody", () => {
  it("keeps a small body as it is, with personal keys masked", () => {
    expect(loggedBody({ a: 1 })).toEqual({ body: { a: 1 }, body_truncated: false, weight: '{"a":1}'.length });
    expect(loggedBody({ key: "phx_abcdefghijklmnop" })).toEqual({ body: { key: "phx_…mnop" }, body_truncated: false, weight: '{"key":"phx_…mnop"}'.length });
  });

  it("cuts a large body at the cap, as a string", () => {
    const logged = loggedBody({ text: "x".repeat(BODY_CAP * 2) });
    expect(logged.body_truncated).toBe(true);
    expect(Buffer.byteLength(logged.body as string)).toBeLessThanOrEqual(BODY_CAP);
  });

  it("logs a body read as bytes as its text: parsed when it is JSON within the cap, else cut at the cap", () => {
    expect(loggedBody(Buffer.from('{"api_key":"phc_x","batch":[{"event":"e"}]}'))).toEqual({ body: { api_key: "phc_x", batch: [{ event: "e" }] }, body_truncated: false, weight: 43 });
    expect(loggedBody(Buffer.from("data=eyJ9&compression=base64 phx_abcdefghijklmnop"))).toEqual({ body: "data=eyJ9&compression=base64 phx_…mnop", body_truncated: false, weight: 38 });
    expect(loggedBody(Buffer.alloc(0))).toEqual({ body: null, body_truncated: false, weight: 0 });
    const big = loggedBody(Buffer.from(`{"batch":[${'{"event":"é"},'.repeat(BODY_CAP)}{}]}`));
    expect(big.body_truncated).toBe(true);
    expect((big.body as string).startsWith('{"batch":[{"event":"é"},')).toBe(true);
    expect(Buffer.byteLength(big.body as string)).toBeLessThanOrEqual(BODY_CAP);
    // "é" is two bytes: the cap falls between them, so the cut falls before it.
    expect(loggedBody(Buffer.from(`${"x".repeat(BODY_CAP - 1)}é and more`))).toEqual({ body: "x".repeat(BODY_CAP - 1), body_truncated: true, weight: BODY_CAP - 1 });
  });

  it("notes a body nested too deep to serialise instead of overflowing the stack", () => {
    const logged = loggedBody(nested(20_000));
    expect(logged.body_truncated).toBe(true);
    expect(logged.body).toMatch(/nested deeper than/);
  });
});

const entry = (n: number, body: unknown): RequestLogEntry => ({
  at: "2024-01-01T00:00:00.000Z",
  method: "POST",
  path: `/batch/${n}`,
  query: "",
  operation_id: null,
  body,
  body_truncated: false,
  status: 200,
  validation: "passed",
  error: null,
  duration_ms: 1,
});

describe("RequestLog", () => {
  // A body of 100 KiB of JSON text: 41 of them are more than the 4 MiB budget.
  const bigBody = { text: "x".repeat(100 * 1024 - 11) };
  const bigWeight = JSON.stringify(bigBody).length;

  it("keeps every line but drops the oldest bodies once they pass the byte budget", () => {
    expect(bigWeight).toBe(100 * 1024);
    const log = new RequestLog(1000);
    for (let n = 0; n < 100; n++) log.push(entry(n, bigBody));
    const lines = log.list();
    expect(lines).toHaveLength(100);
    expect(log.total).toBe(100);
    const kept = Math.floor(LOG_BODY_BUDGET / bigWeight); // 40
    expect(lines.slice(0, kept).every((e) => e.body === bigBody && !e.body_truncated)).toBe(true);
    expect(lines.slice(kept).every((e) => e.body === null && e.body_truncated)).toBe(true);
    expect(log.bodyBytes).toBe(kept * bigWeight);
  });

  it("frees the budget of a line that falls off, and keeps small bodies as long as they fit", () => {
    const log = new RequestLog(10);
    for (let n = 0; n < 25; n++) log.push(entry(n, { n }));
    expect(log.list().map((e) => e.path)).toEqual(Array.from({ length: 10 }, (_, i) => `/batch/${24 - i}`));
    expect(log.list().every((e) => !e.body_truncated)).toBe(true);
    expect(log.bodyBytes).toBe(log.list().reduce((sum, e) => sum + JSON.stringify(e.body).length, 0));
  });

  it("never drops the newest body, even one larger than the budget alone", () => {
    const log = new RequestLog(5);
    const huge = "y".repeat(LOG_BODY_BUDGET + 1);
    log.push(entry(0, { a: 1 }));
    log.push(entry(1, huge));
    expect(log.list().map((e) => e.body)).toEqual([huge, null]);
    log.push(entry(2, "small"));
    expect(log.list().map((e) => e.body)).toEqual(["small", null, null]);
    expect(log.bodyBytes).toBe(5);
  });
});

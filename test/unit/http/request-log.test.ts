import { describe, expect, it } from "vitest";
import { BODY_CAP, loggedBody } from "../../../src/http/request-log.ts";

const nested = (depth: number): unknown => {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe("loggedBody", () => {
  it("keeps a small body as it is, with personal keys masked", () => {
    expect(loggedBody({ a: 1 })).toEqual({ body: { a: 1 }, body_truncated: false });
    expect(loggedBody({ key: "phx_abcdefghijklmnop" })).toEqual({ body: { key: "phx_…mnop" }, body_truncated: false });
  });

  it("cuts a large body at the cap, as a string", () => {
    const logged = loggedBody({ text: "x".repeat(BODY_CAP * 2) });
    expect(logged.body_truncated).toBe(true);
    expect(Buffer.byteLength(logged.body as string)).toBeLessThanOrEqual(BODY_CAP);
  });

  it("logs a body read as bytes as its text: parsed when it is JSON within the cap, else cut at the cap", () => {
    expect(loggedBody(Buffer.from('{"api_key":"phc_x","batch":[{"event":"e"}]}'))).toEqual({ body: { api_key: "phc_x", batch: [{ event: "e" }] }, body_truncated: false });
    expect(loggedBody(Buffer.from("data=eyJ9&compression=base64 phx_abcdefghijklmnop"))).toEqual({ body: "data=eyJ9&compression=base64 phx_…mnop", body_truncated: false });
    expect(loggedBody(Buffer.alloc(0))).toEqual({ body: null, body_truncated: false });
    const big = loggedBody(Buffer.from(`{"batch":[${'{"event":"é"},'.repeat(BODY_CAP)}{}]}`));
    expect(big.body_truncated).toBe(true);
    expect((big.body as string).startsWith('{"batch":[{"event":"é"},')).toBe(true);
    expect(Buffer.byteLength(big.body as string)).toBeLessThanOrEqual(BODY_CAP);
    // "é" is two bytes: the cap falls between them, so the cut falls before it.
    expect(loggedBody(Buffer.from(`${"x".repeat(BODY_CAP - 1)}é and more`))).toEqual({ body: "x".repeat(BODY_CAP - 1), body_truncated: true });
  });

  it("notes a body nested too deep to serialise instead of overflowing the stack", () => {
    const logged = loggedBody(nested(20_000));
    expect(logged.body_truncated).toBe(true);
    expect(logged.body).toMatch(/nested deeper than/);
  });
});

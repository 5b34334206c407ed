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

  it("notes a body nested too deep to serialise instead of overflowing the stack", () => {
    const logged = loggedBody(nested(20_000));
    expect(logged.body_truncated).toBe(true);
    expect(logged.body).toMatch(/nested deeper than/);
  });
});

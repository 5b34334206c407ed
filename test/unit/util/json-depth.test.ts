import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../../src/util/json-depth.ts";

/** `levels` containers, alternating objects and arrays, around a string. */
const nested = (levels: number): unknown => {
  let value: unknown = "leaf";
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe("nestsDeeperThan", () => {
  it("counts containers, not values: the limit's depth passes, one more does not", () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan(nested(3), 3)).toBe(false);
    expect(nestsDeeperThan(nested(4), 3)).toBe(true);
    expect(nestsDeeperThan("text", 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
  });

  it("finds the deep branch among shallow siblings, in objects and arrays alike", () => {
    expect(nestsDeeperThan({ a: 1, b: [2, 3], c: { d: nested(4) } }, 5)).toBe(true);
    expect(nestsDeeperThan([1, [2], nested(4)], 4)).toBe(true);
    expect(nestsDeeperThan([1, [2], nested(3)], 4)).toBe(false);
  });

  it("answers for a value nested a million deep without overflowing the stack", () => {
    expect(nestsDeeperThan(nested(1_000_000))).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { createResultCache } from "../../../src/services/query/result-cache.ts";
import { estimatedJsonBytes } from "../../../src/util/json-size.ts";

describe("estimatedJsonBytes", () => {
  // Each want is the length of the JSON text written out by hand in the case's name.
  const cases: [string, unknown, number][] = [
    ['"abc" is 5 bytes', "abc", 5],
    ["12345 is 5 bytes", 12345, 5],
    ["-1.5 is 4 bytes", -1.5, 4],
    ["null is 4 bytes", null, 4],
    ["false is 5 bytes", false, 5],
    ["[] is 2 bytes", [], 2],
    ["{} is 2 bytes", {}, 2],
    ['[1,"ab",true] is 13 bytes', [1, "ab", true], 13],
    ['{"a":1,"b":"x"} is 15 bytes', { a: 1, b: "x" }, 15],
    ['{"results":[[1,2],[3,4]]} is 25 bytes', { results: [[1, 2], [3, 4]] }, 25],
  ];
  it.each(cases)("%s", (_name, value, want) => {
    expect(estimatedJsonBytes(value)).toBe(want);
  });

  it("walks a value nested deeper than the stack would allow a recursion", () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    // 200,001 arrays: "[" and "]" each, and no commas.
    expect(estimatedJsonBytes(deep)).toBe(400_002);
  });
});

/** An answer of `rows` rows of one string cell of `width` characters: about rows × (width + 4) bytes. */
const answer = (rows: number, width: number) => ({ results: Array.from({ length: rows }, (_, i) => [String(i % 10).repeat(width)]) });
const at = (response: Record<string, unknown>) => ({ response, revision: 1, computedAt: 0 });

describe("the result cache's byte budget", () => {
  it("keeps answers while they fit, then forgets the least recently read", () => {
    // Each answer is {"results":[…]}: 11 + 1 + 10 rows × 504 + 9 commas + 2 = 5,063 bytes; two fit in 10,500, a third evicts the least recently read.
    const cache = createResultCache(10_500);
    const one = answer(10, 500);
    expect(estimatedJsonBytes(one)).toBe(5_063);
    cache.set("a", at(one));
    cache.set("b", at(answer(10, 500)));
    expect(cache.get("a", 1, 0, 1)).toBeDefined();
    cache.set("c", at(answer(10, 500)));
    expect(cache.get("b", 1, 0, 1)).toBeUndefined();
    expect(cache.get("a", 1, 0, 1)).toBeDefined();
    expect(cache.get("c", 1, 0, 1)).toBeDefined();
    expect(cache.bytes()).toBeLessThanOrEqual(10_500);
  });

  it("does not keep an answer larger than the whole budget, and forgets what that key held", () => {
    const cache = createResultCache(10_000);
    cache.set("k", at(answer(1, 10)));
    cache.set("k", at(answer(100, 200)));
    expect(cache.get("k", 1, 0, 1)).toBeUndefined();
    expect(cache.bytes()).toBe(0);
  });

  it("holds five 40 MB-wide answers to the budget, not their sum", () => {
    // Five answers of 2,000 rows × 20,000 characters (~40 MB each) against a 64 MiB budget: at most one stays.
    const cache = createResultCache();
    for (const key of ["1", "2", "3", "4", "5"]) cache.set(key, at(answer(2_000, 20_000)));
    expect(cache.bytes()).toBeLessThanOrEqual(64 * 1024 ** 2);
    expect(["1", "2", "3", "4", "5"].filter((key) => cache.get(key, 1, 0, 1))).toEqual(["5"]);
  });
});

import { describe, expect, it } from "vitest";
import { isoUtc } from "../../../src/core/iso-time.ts";

describe("isoUtc", () => {
  it("writes what Date#toISOString writes, for sorted and unsorted instants, across days and years", () => {
    const start = Date.parse("1999-12-31T23:59:58.997Z");
    const sorted = Array.from({ length: 5000 }, (_, i) => start + i * 611);
    let seed = 7;
    const scattered = Array.from({ length: 5000 }, () => {
      seed = (seed * 48271) % 2147483647;
      return Math.round((seed / 2147483647) * 253402300799999 * 2 - 253402300799999);
    });
    for (const ms of [...sorted, ...scattered]) expect(isoUtc(ms)).toBe(new Date(ms).toISOString());
  });

  it("falls back to Date for the edges of the 24-character range, fractions and years past 9999", () => {
    for (const ms of [-62167219200000, -62167219200001, 253402300799999, 253402300800000, 1.5, -1, 0]) expect(isoUtc(ms)).toBe(new Date(ms).toISOString());
  });
});

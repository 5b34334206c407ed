import { describe, expect, it } from "vitest";
import { generationBytes, generationRefusal } from "../../../src/memory-budget.ts";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

describe("the generated dataset's memory budget", () => {
  it("estimates 150 MiB plus 600 bytes per event", () => {
    expect(generationBytes(0)).toBe(150 * MiB);
    expect(generationBytes(1_000_000)).toBe(150 * MiB + 600_000_000);
  });

  it("lets through what fits 90 % of the heap", () => {
    // 1 M events: ~0.71 GiB, under 90 % of a 4 GiB heap.
    expect(generationRefusal(1_000_000, 4 * GiB, 24 * GiB)).toBeNull();
  });

  it("refuses more, suggesting a heap in 512 MiB steps that the machine can give", () => {
    // 10 M: 150 MiB + 6e9 bytes = 5.74 GiB; / 0.9 = 6.38 GiB = 6,530 MiB → 6,656 MiB (13 × 512).
    expect(generationRefusal(10_000_000, 4 * GiB, 24 * GiB)).toBe(
      "--events 10,000,000 needs about 5.7 GiB of JavaScript heap, more than this process may use (4.0 GiB): start with NODE_OPTIONS=--max-old-space-size=6656 (this machine has 24.0 GiB), or pass fewer --events",
    );
  });

  it("says when the machine itself is too small", () => {
    expect(generationRefusal(10_000_000, 4 * GiB, 6 * GiB)).toMatch(/this machine has 6\.0 GiB, too little for it, or pass fewer --events$/);
  });
});

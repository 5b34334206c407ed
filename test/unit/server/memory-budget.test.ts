import { describe, expect, it } from "vitest";
import { generationHeapBytes, generationPeakBytes, generationRefusal } from "../../../src/memory-budget.ts";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

describe("the generated dataset's memory budget", () => {
  it("estimates the heap and the peak memory from fixed costs plus bytes per event", () => {
    expect(generationHeapBytes(0)).toBe(150 * MiB);
    expect(generationHeapBytes(10_000_000)).toBe(150 * MiB + 450_000_000);
    expect(generationPeakBytes(10_000_000)).toBe(200 * MiB + 2_300_000_000);
  });

  it("lets through what fits 90 % of the heap and 80 % of the machine: 20 M events on a 4 GiB heap and 24 GiB", () => {
    expect(generationRefusal(20_000_000, 4 * GiB, 24 * GiB)).toBeNull();
  });

  it("refuses more heap than the process has, naming the flag and a size in 512 MiB steps", () => {
    // 50 M: 150 MiB + 2.25e9 bytes = 2,407 M bytes (2.2 GiB); / 0.9 = 2,551 MiB → 2,560 MiB (5 × 512). Peak 10.9 GiB < 0.8 × 24.
    expect(generationRefusal(50_000_000, 2 * GiB, 24 * GiB)).toBe(
      "--events 50,000,000 needs about 2.2 GiB of JavaScript heap, more than this process may use (2.0 GiB): start with NODE_OPTIONS=--max-old-space-size=2560, or pass fewer --events",
    );
  });

  it("refuses what the machine itself cannot hold, whatever the heap", () => {
    // 100 M: 200 MiB + 23e9 bytes = 21.6 GiB > 0.8 × 24 GiB.
    expect(generationRefusal(100_000_000, 64 * GiB, 24 * GiB)).toBe(
      "--events 100,000,000 needs about 21.6 GiB of memory at its peak, more than this machine can give (24.0 GiB, of which 80 % is used at most): pass fewer --events",
    );
  });
});

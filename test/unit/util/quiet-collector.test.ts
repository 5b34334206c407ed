import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { quietCollector } from "../../../src/util/quiet-collector.ts";

const MiB = 2 ** 20;

describe("quietCollector: one full collection once a burst that grew the heap has gone quiet", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup(startCommitted = 100 * MiB) {
    let committed = startCommitted;
    const collect = vi.fn(() => {
      committed = startCommitted + 5 * MiB;
    });
    const collector = quietCollector({ quietMs: 5_000, growthBytes: 32 * MiB, collect, heapCommitted: () => committed, now: () => Date.now() });
    return { collector, collect, grow: (bytes: number) => (committed += bytes), lower: (to: number) => (committed = to) };
  }

  it("waits for quietMs after the last request, then collects (twice: the second frees what the first one's sweep left)", () => {
    const { collector, collect, grow } = setup();
    collector.touch();
    grow(40 * MiB);
    vi.advanceTimersByTime(3_000);
    collector.touch();
    vi.advanceTimersByTime(4_000);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(2);
    expect(collector.collections).toBe(1);
    collector.stop();
  });

  it("does not collect when the heap grew less than growthBytes, nor again without new growth", () => {
    const { collector, collect, grow } = setup();
    collector.touch();
    grow(10 * MiB);
    vi.advanceTimersByTime(10_000);
    expect(collect).not.toHaveBeenCalled();
    grow(30 * MiB);
    collector.touch();
    vi.advanceTimersByTime(5_000);
    expect(collector.collections).toBe(1);
    collector.touch();
    vi.advanceTimersByTime(5_000);
    expect(collector.collections).toBe(1);
    collector.stop();
  });

  it("measures growth from the lowest committed size seen, so a collection V8 ran itself does not hide the next burst", () => {
    const { collector, collect, lower, grow } = setup();
    lower(60 * MiB);
    collector.touch();
    vi.advanceTimersByTime(5_000);
    expect(collect).not.toHaveBeenCalled();
    grow(35 * MiB);
    collector.touch();
    vi.advanceTimersByTime(5_000);
    expect(collect).toHaveBeenCalledTimes(2);
    collector.stop();
  });

  it("stop() cancels a pending collection", () => {
    const { collector, collect, grow } = setup();
    collector.touch();
    grow(64 * MiB);
    collector.stop();
    vi.advanceTimersByTime(60_000);
    expect(collect).not.toHaveBeenCalled();
  });

  it("reaches V8's full collection without --expose-gc", () => {
    vi.useRealTimers();
    const collector = quietCollector({ quietMs: 1, growthBytes: 0 });
    collector.touch();
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        expect(collector.collections).toBe(1);
        collector.stop();
        resolve();
      }, 50),
    );
  });
});

import { describe, expect, it } from "vitest";
import { createFairSlots } from "../../../src/sql-engine/fair-slots.ts";
import { SqlEngineError } from "../../../src/core/sql-errors.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Acquires for `key` and records the order in which grants arrive. */
function recorder(slots: ReturnType<typeof createFairSlots>) {
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (name: string, key: string, signal?: AbortSignal) =>
    slots.acquire(signal, key).then((release) => {
      granted.push(name);
      releases.set(name, release);
    });
  return { granted, ask, release: (name: string) => releases.get(name)!() };
}

describe("fair slots", () => {
  it("leaves a slot for another key: project A's hundred queries take one of two slots, B's query starts at once", async () => {
    const slots = createFairSlots(2);
    const r = recorder(slots);
    for (let i = 0; i < 100; i++) void r.ask(`a${i}`, "A");
    await tick();
    expect(r.granted).toEqual(["a0"]);
    expect(slots.load("A")).toEqual({ running: 1, waiting: 99 });
    void r.ask("b0", "B");
    await tick();
    expect(r.granted).toEqual(["a0", "b0"]);
  });

  it("gives a freed slot to the waiting key served least recently, each key's queries in the order they came", async () => {
    // 3 slots, at most 2 a key. Grants: a0 #1, a1 #2, b0 #3; then A queues a2 a3, B b1, C c0.
    const slots = createFairSlots(3);
    const r = recorder(slots);
    void r.ask("a0", "A");
    void r.ask("a1", "A");
    void r.ask("b0", "B");
    await tick();
    void r.ask("a2", "A");
    void r.ask("a3", "A");
    void r.ask("b1", "B");
    void r.ask("c0", "C");
    await tick();
    expect(r.granted).toEqual(["a0", "a1", "b0"]);
    // a0 freed: A (last #2), B (#3) and C (never) wait, all under their share: C first.
    r.release("a0");
    await tick();
    expect(r.granted.at(-1)).toBe("c0");
    // b0 freed: A (#2) before B (#3).
    r.release("b0");
    await tick();
    expect(r.granted.at(-1)).toBe("a2");
    // a1 freed: A was served at #5 now, B at #3: B.
    r.release("a1");
    await tick();
    expect(r.granted.at(-1)).toBe("b1");
    r.release("c0");
    await tick();
    expect(r.granted.at(-1)).toBe("a3");
  });

  it("one key alone still uses its share, and a single slot is shared by everyone in turn", async () => {
    const one = createFairSlots(1);
    const r = recorder(one);
    void r.ask("a0", "A");
    void r.ask("a1", "A");
    void r.ask("b0", "B");
    await tick();
    expect(r.granted).toEqual(["a0"]);
    r.release("a0");
    await tick();
    // A was served last: B's turn comes before A's second query.
    expect(r.granted).toEqual(["a0", "b0"]);
    r.release("b0");
    await tick();
    expect(r.granted).toEqual(["a0", "b0", "a1"]);
  });

  it("a waiter whose signal aborts leaves the queue with a cancelled error; a release twice frees one slot", async () => {
    const slots = createFairSlots(2);
    const r = recorder(slots);
    void r.ask("a0", "A");
    await tick();
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal, "A");
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(SqlEngineError);
    expect(slots.load("A")).toEqual({ running: 1, waiting: 0 });
    r.release("a0");
    r.release("a0");
    expect(slots.load("A")).toEqual({ running: 0, waiting: 0 });
    void r.ask("b0", "B");
    void r.ask("c0", "C");
    void r.ask("d0", "D");
    await tick();
    // Two slots, not three: the second release of a0 gave nothing back.
    expect(r.granted).toEqual(["a0", "b0", "c0"]);
  });
});

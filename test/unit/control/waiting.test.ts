import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { waitFor } from "../../../src/control/waiting.ts";

/** waitFor re-checks only when woken, ends on count, timeout or abort, and always removes its listener and timer. */
describe("waitFor", () => {
  const setup = () => {
    const emitter = new EventEmitter();
    const items: number[] = [];
    let checks = 0;
    const find = () => {
      checks++;
      return items.filter((n) => n > 0);
    };
    return { emitter, items, find, checks: () => checks, wakeup: { emitter, event: "events" } };
  };

  it("answers at once when enough items are there, without listening", async () => {
    const w = setup();
    w.items.push(1, 2);
    expect(await waitFor(w.find, 2, 10_000, w.wakeup)).toEqual({ status: "matched", found: [1, 2] });
    expect(w.emitter.listenerCount("events")).toBe(0);
  });

  it("checks again only when woken, and matches on the wake-up that brings the count", async () => {
    const w = setup();
    const pending = waitFor(w.find, 2, 10_000, w.wakeup);
    expect(w.checks()).toBe(1);
    w.items.push(1, -1);
    w.emitter.emit("events");
    expect(w.checks()).toBe(2);
    w.items.push(3);
    w.emitter.emit("events");
    expect(await pending).toEqual({ status: "matched", found: [1, 3] });
    expect(w.emitter.listenerCount("events")).toBe(0);
  });

  it("times out with what it finds then", async () => {
    const w = setup();
    w.items.push(5);
    expect(await waitFor(w.find, 3, 10, w.wakeup)).toEqual({ status: "timed_out", found: [5] });
    expect(w.emitter.listenerCount("events")).toBe(0);
  });

  it("is released by an abort, and never starts on an aborted signal", async () => {
    const w = setup();
    const hangup = new AbortController();
    const pending = waitFor(w.find, 1, 10_000, w.wakeup, hangup.signal);
    expect(w.emitter.listenerCount("events")).toBe(1);
    hangup.abort();
    expect(await pending).toEqual({ status: "timed_out", found: [] });
    expect(w.emitter.listenerCount("events")).toBe(0);
    expect(await waitFor(w.find, 1, 10_000, w.wakeup, hangup.signal)).toEqual({ status: "timed_out", found: [] });
    expect(w.emitter.listenerCount("events")).toBe(0);
  });

  describe("matching only what each wake-up brings (matchIn)", () => {
    /** The log is `items`, of which the last `kept` stay; each append is announced with its batch, as the captured log does. */
    const incremental = () => {
      const w = setup();
      let dropped = 0;
      const append = (...batch: number[]) => {
        w.items.push(...batch);
        w.emitter.emit("events", batch);
      };
      let matched = 0;
      const matchIn = (batch: number[]) => {
        matched += batch.length;
        return batch.filter((n) => n > 0);
      };
      const stillHeld = (n: number) => w.items.indexOf(n) >= dropped;
      const drop = (n: number) => (dropped += n);
      const wakeup = { emitter: w.emitter, event: "events", matchIn, stillHeld, resync: [{ emitter: w.emitter, event: "cleared" }] };
      return { ...w, append, drop, matched: () => matched, wakeup };
    };

    it("reads the whole log once, at the start, and then only each new batch, also to answer", async () => {
      const w = incremental();
      w.items.push(1, -1, -2);
      const pending = waitFor(w.find, 3, 10_000, w.wakeup);
      w.append(-3);
      w.append(4, -4);
      w.append(5);
      expect(await pending).toEqual({ status: "matched", found: [1, 4, 5] });
      expect([w.checks(), w.matched()]).toEqual([1, 4]);
      expect(w.emitter.listenerCount("events")).toBe(0);
      expect(w.emitter.listenerCount("cleared")).toBe(0);
    });

    it("does not count items that left the log", async () => {
      const w = incremental();
      w.items.push(1);
      const pending = waitFor(w.find, 2, 10_000, w.wakeup);
      w.drop(1);
      w.append(2);
      w.append(3);
      expect(await pending).toEqual({ status: "matched", found: [2, 3] });
    });

    it("times out with what it holds, without reading the log again", async () => {
      const w = incremental();
      w.items.push(1);
      const pending = waitFor(w.find, 3, 20, w.wakeup);
      w.append(2, -2);
      expect(await pending).toEqual({ status: "timed_out", found: [1, 2] });
      expect(w.checks()).toBe(1);
    });

    it("finds what it holds again after a resync announcement (the log cleared)", async () => {
      const w = incremental();
      w.items.push(1);
      const pending = waitFor(w.find, 2, 10_000, w.wakeup);
      w.items.length = 0;
      w.emitter.emit("cleared");
      w.append(2);
      expect(w.checks()).toBe(2);
      w.append(3);
      expect(await pending).toEqual({ status: "matched", found: [2, 3] });
    });
  });
});

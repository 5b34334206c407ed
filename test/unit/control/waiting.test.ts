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
});

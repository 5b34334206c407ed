import { describe, expect, it } from "vitest";
import { EventStore } from "../../../src/store/event-store.ts";
import { EventTable } from "../../../src/store/event-table.ts";
import type { EventRecord } from "../../../src/store/schema.ts";

const T0 = Date.parse("2024-03-01T00:00:00Z");

function event(n: number, over: Partial<EventRecord> = {}): EventRecord {
  return {
    uuid: `0190a1b2-c3d4-7e5f-8a9b-${String(n).padStart(12, "0")}`,
    project_id: "1",
    event: n % 2 ? "$pageview" : "signed_up",
    distinct_id: `user-${n % 3}`,
    timestamp: T0 + n * 1000,
    properties: { $browser: n % 2 ? "Chrome" : "Safari", n },
    elements_chain: "",
    ...over,
  };
}

const plain = (table: Iterable<EventRecord & { toJSON?: () => EventRecord }>) => [...table].map((r) => (r.toJSON ? r.toJSON() : r));

describe("the column event table", () => {
  it("gives back every field of every event as stored, in time order", () => {
    const events = [
      event(1),
      event(2, { uuid: "not-a-uuid", properties: { nested: { a: [1, "x", null] }, flag: true, none: null, big: 1.5e300 } }),
      event(3, { uuid: "0190A1B2-C3D4-7E5F-8A9B-00000000000F", elements_chain: "a:nth-child=1" }),
      event(4, { uuid: "ffffffff-ffff-ffff-ffff-ffff00000000", properties: {} }),
    ];
    const table = new EventTable("1");
    for (const e of events) table.add(e);
    expect(table.length).toBe(4);
    expect(plain(table)).toEqual(events);
  });

  it("places an out-of-order event by timestamp, after the events of the same instant", () => {
    const table = new EventTable("1");
    for (const n of [1, 2, 4]) table.add(event(n));
    table.add(event(3));
    table.add(event(5, { timestamp: T0 + 2000 }));
    expect(plain(table).map((e) => e.uuid.slice(-2))).toEqual(["01", "02", "05", "03", "04"]);
  });

  it("a row read before an insert keeps reading its own event", () => {
    const table = new EventTable("1");
    for (const n of [2, 3]) table.add(event(n));
    const row = table.at(0)!;
    table.add(event(1));
    expect(row.uuid).toBe(event(2).uuid);
    expect(table.at(0)!.uuid).toBe(event(1).uuid);
  });

  it("reads one property without the others, and finds events by uuid and by name", () => {
    const table = new EventTable("1");
    for (let n = 1; n <= 6; n++) table.add(event(n));
    expect(table.at(2)!.prop("$browser")).toBe("Chrome");
    expect(table.at(2)!.prop("missing")).toBeUndefined();
    expect(table.positionOfUuid(event(4).uuid)).toBe(3);
    expect(table.positionOfUuid("0190a1b2-c3d4-7e5f-8a9b-999999999999")).toBe(-1);
    expect([...table.positionsOfName("signed_up")]).toEqual([1, 3, 5]);
    expect([...table.positionsOfName("nothing")]).toEqual([]);
  });

  it("removes a distinct id's events and keeps the rest intact", () => {
    const table = new EventTable("1");
    for (let n = 1; n <= 6; n++) table.add(event(n));
    expect(table.retainDistinctIds((d) => d !== "user-1")).toBe(true);
    expect(plain(table)).toEqual([2, 3, 5, 6].map((n) => event(n)));
    expect(table.retainDistinctIds(() => true)).toBe(false);
    expect([...table.positionsOfName("$pageview")]).toEqual([1, 2]);
  });

  it("a shared copy and its original change independently, whichever appends first", () => {
    const original = new EventTable("1");
    for (let n = 1; n <= 3; n++) original.add(event(n));
    const copy = original.share();
    original.add(event(4));
    copy.add(event(5));
    copy.add(event(6));
    expect(plain(original).map((e) => e.uuid.slice(-1))).toEqual(["1", "2", "3", "4"]);
    expect(plain(copy).map((e) => e.uuid.slice(-1))).toEqual(["1", "2", "3", "5", "6"]);
    original.retainDistinctIds((d) => d !== "user-2");
    expect(copy.length).toBe(5);
  });

  it("stored property values are frozen: a caller cannot change another event's properties", () => {
    const table = new EventTable("1");
    table.add(event(1, { properties: { $set: { plan: "free" } } }));
    table.add(event(2, { properties: { $set: { plan: "free" } } }));
    const set = table.at(0)!.properties.$set as Record<string, unknown>;
    expect(() => {
      set.plan = "paid";
    }).toThrow(TypeError);
    expect(table.at(1)!.properties).toEqual({ $set: { plan: "free" } });
  });
});

describe("the event store", () => {
  it("keeps each project's events in its own table, and shifts and shares them", () => {
    const store = EventStore.from([event(1), event(2, { project_id: "2" }), event(3)]);
    expect(store.length).toBe(3);
    expect(store.table("1")!.length).toBe(2);
    expect(store.newestTimestamp()).toBe(T0 + 3000);
    const before = store.share();
    store.shiftTimestamps(60_000);
    expect(store.newestTimestamp()).toBe(T0 + 63_000);
    expect(store.removeDistinctIds("1", (d) => d === "user-1")).toBe(true);
    expect(store.length).toBe(2);
    expect(before.length).toBe(3);
    expect(before.newestTimestamp()).toBe(T0 + 3000);
  });
});

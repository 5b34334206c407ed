import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventDictionaries } from "../../../src/store/columns/dictionaries.ts";
import { EventTable } from "../../../src/store/event-table.ts";
import type { EventRecord } from "../../../src/store/schema.ts";

const T0 = Date.parse("2024-03-01T00:00:00Z");

const uuidOf = (n: number) => `0190a1b2-c3d4-7e5f-8a9b-${n.toString(16).padStart(12, "0")}`;

function event(n: number, over: Partial<EventRecord> = {}): EventRecord {
  return { uuid: uuidOf(n), project_id: "1", event: "$pageview", distinct_id: `user-${n % 5}`, timestamp: T0 + n * 1000, properties: { n }, elements_chain: "", ...over };
}

/** What the index must agree with: each uuid's first row, by one scan. */
function firstRows(table: EventTable): Map<string, number> {
  const first = new Map<string, number>();
  [...table].forEach((row, i) => first.has(row.uuid) || first.set(row.uuid, i));
  return first;
}

/** Every uuid of `asked`, looked up through the index and by a scan. */
function lookups(table: EventTable, asked: readonly string[]) {
  const first = firstRows(table);
  return { indexed: asked.map((u) => table.positionOfUuid(u)), scanned: asked.map((u) => first.get(u) ?? -1) };
}

function tableOf(rows: number): EventTable {
  const table = new EventTable("1");
  for (let n = 0; n < rows; n++) table.add(event(n));
  return table;
}

describe("finding an event by uuid", () => {
  it("agrees with a scan after appends, out-of-order inserts, repeated and non-canonical uuids", () => {
    const table = new EventTable("1");
    const asked = ["not-a-uuid", "0190A1B2-C3D4-7E5F-8A9B-00000000000F", uuidOf(999), "ffffffff-ffff-ffff-ffff-ffff00000000"];
    for (let n = 0; n < 3000; n++) asked.push(uuidOf(n));
    for (let n = 0; n < 1500; n++) table.add(event(n));
    table.positionOfUuid(uuidOf(0));
    // Later events at earlier instants, a uuid stored twice (the earlier row is the one found), odd uuids.
    for (let n = 1500; n < 3000; n += 7) table.add(event(n, { timestamp: T0 + (n % 1500) * 1000 - 1 }));
    table.add(event(10, { timestamp: T0 + 5 * 1000 - 1 }));
    table.add(event(3001, { uuid: "not-a-uuid" }));
    table.add(event(3002, { uuid: "0190A1B2-C3D4-7E5F-8A9B-00000000000F", timestamp: T0 }));
    table.add(event(3003, { uuid: "ffffffff-ffff-ffff-ffff-ffff00000000" }));
    const { indexed, scanned: want } = lookups(table, asked);
    expect(indexed).toEqual(want);
    expect(table.at(table.positionOfUuid(uuidOf(10)))!.timestamp).toBe(T0 + 4999);
    expect(want.filter((p) => p === -1).length).toBeGreaterThan(0);
  });

  it("a batch with events older than the stored ones lands as adding them one by one does, and is found", () => {
    // Times from a few seconds so that ties (stored vs new, new vs new) are common.
    const times = fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 });
    fc.assert(
      fc.property(times, times, (stored, batch) => {
        const events = (from: number, ts: number[]) => ts.map((t, i) => event(from + i, { timestamp: T0 + t * 1000 }));
        const [one, all] = [new EventTable("1"), new EventTable("1")];
        for (const e of events(0, stored)) one.add(e), all.add(e);
        all.positionOfUuid(uuidOf(0));
        for (const e of events(1000, batch)) one.add(e);
        all.addAll(events(1000, batch));
        expect([...all].map((r) => r.toJSON())).toEqual([...one].map((r) => r.toJSON()));
        const asked = [...stored.keys(), ...batch.keys()].map((i) => uuidOf(i)).concat(batch.map((_, i) => uuidOf(1000 + i)));
        expect(lookups(all, asked).indexed).toEqual(lookups(all, asked).scanned);
      }),
    );
  });

  it("follows removals, and a shared copy and its original find only their own rows", () => {
    const original = tableOf(2000);
    original.positionOfUuid(uuidOf(0));
    const copy = original.share();
    original.add(event(5000));
    copy.add(event(6000));
    expect([original.positionOfUuid(uuidOf(5000)), original.positionOfUuid(uuidOf(6000))]).toEqual([2000, -1]);
    expect([copy.positionOfUuid(uuidOf(5000)), copy.positionOfUuid(uuidOf(6000))]).toEqual([-1, 2000]);
    expect(original.retainDistinctIds((d) => d !== "user-1")).toBe(true);
    const asked = [0, 1, 2, 1999, 5000, 6000].map(uuidOf);
    expect(lookups(original, asked).indexed).toEqual(lookups(original, asked).scanned);
    expect(lookups(copy, asked).indexed).toEqual(lookups(copy, asked).scanned);
    original.trim();
    original.shiftTimestamps(60_000);
    expect(lookups(original, asked).indexed).toEqual(lookups(original, asked).scanned);
  });

  it("finds the rows of a table restored from its column snapshot, and those appended after", () => {
    const dict = new EventDictionaries();
    const source = new EventTable("1", dict);
    for (let n = 0; n < 1200; n++) source.add(event(n, n % 100 === 0 ? { uuid: `odd-${n}` } : {}));
    const { rows, vals, arrays } = source.columnsForSnapshot();
    const restored = EventTable.fromSnapshot("1", dict, rows, vals, arrays.map((a) => a.slice()));
    restored.add(event(1300));
    const asked = ["odd-0", "odd-1100", "odd-1", uuidOf(1), uuidOf(1199), uuidOf(1300), uuidOf(1301)];
    expect(lookups(restored, asked).indexed).toEqual([0, 1100, -1, 1, 1199, 1200, -1]);
  });
});

describe("the work of deduplicating one captured event", () => {
  /** Uuid rows read per captured event (a lookup, then the append), over `events` of them on a table of `rows`. */
  function rowsReadPerCapture(rows: number, events = 500): { build: number; perEvent: number } {
    const table = tableOf(rows);
    table.positionOfUuid(uuidOf(0));
    const build = table.uuidRowsRead;
    for (let n = rows; n < rows + events; n++) {
      if (table.positionOfUuid(uuidOf(n)) !== -1 || table.positionOfUuid(uuidOf(n - rows)) === -1) throw new Error("lookup went wrong");
      table.add(event(n));
    }
    return { build, perEvent: (table.uuidRowsRead - build) / events };
  }

  it("does not grow with the table: 100,000 rows cost about what 1,000 do", () => {
    const small = rowsReadPerCapture(1_000);
    const large = rowsReadPerCapture(100_000);
    // A scan would read ~100,000 rows per event at the larger size; the index reads a few.
    expect(large.perEvent).toBeLessThan(20);
    expect(large.perEvent).toBeLessThan(3 * small.perEvent);
    // The index is built once: about one read per row (plus probes), not once per captured event.
    expect(large.build).toBeLessThan(3 * 100_000);
  });

  it("is built by the trim after a bulk load, so the first captured event only looks up", () => {
    const table = tableOf(10_000);
    table.trim();
    const built = table.uuidRowsRead;
    expect(built).toBeGreaterThanOrEqual(10_000);
    expect(table.positionOfUuid(uuidOf(20_000))).toBe(-1);
    expect(table.positionOfUuid(uuidOf(1234))).toBe(1234);
    expect(table.uuidRowsRead - built).toBeLessThan(20);
  });
});

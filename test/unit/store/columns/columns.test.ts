import { describe, expect, it } from "vitest";
import { emptyColumns, withInsertedRows, withRowsKept, writeRow, type EncodedEvent } from "../../../../src/store/columns/column-arrays.ts";
import { EventDictionaries } from "../../../../src/store/columns/dictionaries.ts";
import { positionsByName, runsAfter, upperBound } from "../../../../src/store/columns/row-positions.ts";
import { canonicalUuidWords, ODD_UUID, uuidTextOfWords } from "../../../../src/store/columns/uuid-words.ts";

describe("row positions", () => {
  const ts = Float64Array.of(10, 20, 20, 30);
  it.each([
    ["before every row", 5, 0],
    ["after the rows of the same instant", 20, 3],
    ["between two instants", 25, 3],
    ["after the last row", 30, 4],
  ])("upperBound: %s", (_, time, want) => {
    expect(upperBound(ts, 4, time)).toBe(want);
  });

  it("positionsByName lists each name id's rows in order, over the first `rows` only", () => {
    const names = Uint32Array.of(2, 0, 2, 2, 0, 7);
    const byName = positionsByName(names, 5);
    expect([...byName.keys()].sort()).toEqual([0, 2]);
    expect([...byName.get(2)!]).toEqual([0, 2, 3]);
    expect([...byName.get(0)!]).toEqual([1, 4]);
  });

  it.each([
    ["nothing after the last log number", [1, 1, 2], 2, []],
    ["every row after 0", [1, 1, 2], 0, [0, 3]],
    ["two runs split by an older row", [3, 1, 3, 3, 2], 2, [0, 1, 2, 4]],
  ])("runsAfter: %s", (_, seqs, after, want) => {
    expect(runsAfter(Uint32Array.from(seqs), seqs.length, after)).toEqual(want);
  });
});

describe("uuid words", () => {
  it("reads a canonical uuid as four words and back", () => {
    const words = canonicalUuidWords("0190a1b2-c3d4-7e5f-8a9b-00000000000f")!;
    expect(words).toEqual([0x0190a1b2, 0xc3d47e5f, 0x8a9b0000, 0x0000000f]);
    expect(uuidTextOfWords(Uint32Array.from(words), 0)).toBe("0190a1b2-c3d4-7e5f-8a9b-00000000000f");
  });

  it.each([["upper case", "0190A1B2-C3D4-7E5F-8A9B-00000000000F"], ["no dashes", "0190a1b2c3d47e5f8a9b00000000000f"], ["not a uuid", "abc"]])("keeps %s as text", (_, text) => {
    expect(canonicalUuidWords(text)).toBeNull();
    const dict = new EventDictionaries();
    expect(dict.uuidWords(text)).toEqual([ODD_UUID, ODD_UUID, ODD_UUID, 0]);
    expect(dict.findUuidWords(text)).toEqual([ODD_UUID, ODD_UUID, ODD_UUID, 0]);
  });

  it("keeps as text a canonical uuid whose words read as the marker, and finds no words for odd text never stored", () => {
    const dict = new EventDictionaries();
    expect(dict.uuidWords("ffffffff-ffff-ffff-ffff-ffff00000000")).toEqual([ODD_UUID, ODD_UUID, ODD_UUID, 0]);
    expect(dict.findUuidWords("never-stored")).toBeNull();
  });
});

describe("column arrays", () => {
  const encoded = (ts: number, values: number[]): EncodedEvent => ({ ts, name: ts, did: 0, uuid: [0, 0, 0, ts], chain: 0, shape: values.length, values, seq: 1 });
  /** Columns holding `events` in order, as a table appends them. */
  function columnsOf(events: EncodedEvent[]) {
    const cols = emptyColumns(8, 16);
    let values = 0;
    events.forEach((e, i) => {
      writeRow(cols, i, e, values);
      values += e.values.length;
    });
    return { cols, values };
  }
  const rowsOf = (cols: ReturnType<typeof emptyColumns>, rows: number) =>
    Array.from({ length: rows }, (_, i) => ({ ts: cols.ts[i], values: [...cols.vals.subarray(cols.valueStart[i]!, cols.valueStart[i]! + cols.shape[i]!)] }));

  it("inserts late rows at their places, their value ids after the stored ones", () => {
    const { cols, values } = columnsOf([encoded(10, [1]), encoded(30, [3, 4])]);
    const next = withInsertedRows(cols, 2, values, [encoded(5, [9]), encoded(20, [])], Int32Array.of(0, 1));
    expect(rowsOf(next, 4)).toEqual([
      { ts: 5, values: [9] },
      { ts: 10, values: [1] },
      { ts: 20, values: [] },
      { ts: 30, values: [3, 4] },
    ]);
    expect([next.rowsWritten, next.valuesWritten]).toEqual([4, 4]);
    expect([...next.valueStart.subarray(0, 4)]).toEqual([3, 0, 4, 1]);
  });

  it("keeps the chosen rows, their value ids packed", () => {
    const { cols } = columnsOf([encoded(10, [1]), encoded(20, [2, 3]), encoded(30, [4])]);
    const shapes = [Uint32Array.of(), Uint32Array.of(0), Uint32Array.of(0, 1)];
    const next = withRowsKept(cols, [0, 2], shapes, 16);
    expect(rowsOf(next, 2)).toEqual([
      { ts: 10, values: [1] },
      { ts: 30, values: [4] },
    ]);
    expect([next.rowsWritten, next.valuesWritten]).toEqual([2, 2]);
  });
});

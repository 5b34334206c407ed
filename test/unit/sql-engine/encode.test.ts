import { describe, expect, it } from "vitest";
import { createClock } from "../../../src/core/clock.ts";
import { generatedState } from "../../../src/fixtures/generated-state.ts";
import { ColumnEncoder } from "../../../src/sql-engine/mirror/encode-columns.ts";
import { dropSpareChunks, encodeEvents, groupKeyReaders, LoadBuffer, tsv } from "../../../src/sql-engine/mirror/encode.ts";
import { rawText } from "../../../src/core/property-text.ts";
import { EVENT_PROPERTY_COLUMNS } from "../../../src/sql-engine/mirror/schema.ts";
import { createStore } from "../../../src/store/store.ts";

describe("rawText: a property as the real service materialises it (JSONExtractRaw, one pair of quotes off)", () => {
  const cases: [string, unknown, string][] = [
    ["absent", undefined, ""],
    ["null", null, "null"],
    ["plain string", "Chrome", "Chrome"],
    ["empty string", "", ""],
    ["quotes and backslash escaped", 'say "hi" \\', 'say \\"hi\\" \\\\'],
    ["control characters as ClickHouse writes them", "a\n\u001f", "a\\n\\u001F"],
    ["U+2028 escaped", "x\u2028", "x\\u2028"],
    ["number", 42.5, "42.5"],
    ["boolean", true, "true"],
    ["object keeps its JSON", { a: ["b", "\u0001"] }, '{"a":["b","\\u0001"]}'],
    ["list", ["x", "y"], '["x","y"]'],
  ];
  it.each(cases)("%s", (_name, value, want) => expect(rawText(value)).toBe(want));
});

describe("tsv: fields as ClickHouse's TabSeparated reads them", () => {
  it("escapes backslash, tab and line breaks", () => expect(tsv("a\\b\tc\nd\re")).toBe("a\\\\b\\tc\\nd\\re"));
});

describe("the dictionary encoder writes what the row encoder writes", () => {
  it("over generated events and odd shapes (integer-like keys, __proto__, $group_N, odd uuids)", async () => {
    const now = Date.parse("2024-06-01T12:00:00Z");
    const store = await createStore(generatedState({ seed: 7, now: new Date(now), events: 5_000 }, now), createClock(now), null, { persist: false });
    const odd = [
      { "2": "two", "1": "one", name: "ints" },
      { ["__proto__"]: { x: 1 }, ok: true },
      { $group_3: "hand-made", $groups: { company: "acme" }, $browser: 'q"\u2028' },
      { $groups: "not an object", $current_url: null },
      {},
    ];
    await store.events.append(
      "1",
      odd.map((properties, i) => ({ uuid: i === 0 ? "not-a-uuid" : `0190ffff-0000-4000-8000-${String(i).padStart(12, "0")}`, project_id: "1", event: "odd\tevent", distinct_id: "d\n1", timestamp: now + i, properties: properties as Record<string, unknown>, elements_chain: "a:b\\c" })),
    );
    const table = store.analysisData.events("1");
    const groupKeys = groupKeyReaders(store.analysisData.groupData("1"));
    const keys = EVENT_PROPERTY_COLUMNS.map((c) => c.key);
    const viaRows = new LoadBuffer();
    encodeEvents(table.cursor(), 0, table.length, 1, groupKeys, keys, viaRows);
    const encoder = new ColumnEncoder(table, keys, groupKeys);
    const viaColumns = new LoadBuffer();
    encoder.encode(table.cursor(), 0, table.length, 1, viaColumns);
    expect(encoder.fallbacks).toBe(0);
    expect(viaColumns.rows).toBe(table.length);
    expect(viaColumns.bytes().toString()).toBe(viaRows.bytes().toString());
  });

  it("writes the same bytes into chunks given back by an earlier file (two files, the first released)", async () => {
    const now = Date.parse("2024-06-01T12:00:00Z");
    const store = await createStore(generatedState({ seed: 11, now: new Date(now), events: 4_000 }, now), createClock(now), null, { persist: false });
    const table = store.analysisData.events("1");
    const groupKeys = groupKeyReaders(store.analysisData.groupData("1"));
    const keys = EVENT_PROPERTY_COLUMNS.map((c) => c.key);
    const half = Math.floor(table.length / 2);
    const expected = new LoadBuffer();
    encodeEvents(table.cursor(), half, table.length, 1, groupKeys, keys, expected);
    const encoder = new ColumnEncoder(table, keys, groupKeys);
    const first = new LoadBuffer();
    encoder.encode(table.cursor(), 0, half, 1, first);
    const firstBytes = Buffer.from(first.bytes());
    first.release();
    expect(first.length).toBe(0);
    const second = new LoadBuffer();
    encoder.encode(table.cursor(), half, table.length, 1, second);
    expect(second.bytes().equals(expected.bytes())).toBe(true);
    expect(firstBytes.equals(second.bytes())).toBe(false);
    second.release();
    dropSpareChunks();
  });
});

import { describe, expect, it } from "vitest";
import { parseRelativeDate } from "../../../src/flags/index.ts";

/** Worked from the flags service's `relative_date.rs` tests (now = 2020-01-01T12:01:20.134Z) and its month/year clamping. */
const cases: [string, string, string | undefined][] = [
  ["2020-01-01T12:01:20.134Z", "1h", "2020-01-01T11:01:20.134Z"],
  ["2020-01-01T12:01:20.134Z", "-30h", "2019-12-31T06:01:20.134Z"],
  ["2020-01-01T12:01:20.134Z", "-7d", "2019-12-25T12:01:20.134Z"],
  ["2020-01-01T12:01:20.134Z", "-8w", "2019-11-06T12:01:20.134Z"],
  ["2020-01-01T12:01:20.134Z", "-1m", "2019-12-01T12:01:20.134Z"],
  ["2020-01-01T12:01:20.134Z", "-1y", "2019-01-01T12:01:20.134Z"],
  ["2020-01-01T12:01:20.134Z", "000h", "2020-01-01T12:01:20.134Z"],
  ["2020-03-31T00:00:00.000Z", "-1m", "2020-02-29T00:00:00.000Z"],
  ["2020-03-31T00:00:00.000Z", "-2m", "2020-01-29T00:00:00.000Z"],
  ["2020-02-29T00:00:00.000Z", "-1y", "2019-02-28T00:00:00.000Z"],
  ["2020-01-01T12:01:20.134Z", "100000d", undefined],
  ["2020-01-01T12:01:20.134Z", "1.2y", undefined],
  ["2020-01-01T12:01:20.134Z", "1s", undefined],
  ["2020-01-01T12:01:20.134Z", "-1D", undefined],
];

describe("parseRelativeDate", () => {
  it.each(cases)("%s minus %s", (now, text, want) => {
    expect(parseRelativeDate(text, new Date(now))?.toISOString()).toBe(want);
  });
});

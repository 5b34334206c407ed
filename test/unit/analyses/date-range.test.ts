import { describe, expect, it } from "vitest";
import { buildBuckets, bucketKeys, bucketLabels } from "../../../src/analyses/shared/buckets.ts";
import { parseDate, parseDateExpression, parseRelativeOrAbsoluteDate, readDateField, type TimeContext } from "../../../src/core/date-parse.ts";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { previousPeriod, resolveDateRange, shiftedPeriod } from "../../../src/analyses/shared/date-range.ts";
import type { Interval } from "../../../src/analyses/shared/context.ts";
import { utc } from "./support.ts";

const iso = (ms: number) => new Date(ms).toISOString();
const at = (now: string, timezone = "UTC", weekStartDay: 0 | 1 = 0): TimeContext => ({ now: utc(now), timezone, weekStartDay });

describe("date grammar (reference §1.2)", () => {
  // now = Wednesday 2024-03-20 15:30 UTC
  const cases: [string, string, string][] = [
    ["-7d", "UTC", "2024-03-13T15:30:00.000Z"],
    ["7d", "UTC", "2024-03-13T15:30:00.000Z"],
    ["-3h", "UTC", "2024-03-20T12:30:00.000Z"],
    ["-2w", "UTC", "2024-03-06T15:30:00.000Z"],
    ["-1m", "UTC", "2024-02-20T15:30:00.000Z"],
    ["-1q", "UTC", "2023-12-20T15:30:00.000Z"],
    ["-1y", "UTC", "2023-03-20T15:30:00.000Z"],
    ["-30M", "UTC", "2024-03-20T15:00:00.000Z"],
    ["-10s", "UTC", "2024-03-20T15:29:50.000Z"],
    ["d", "UTC", "2024-03-20T15:30:00.000Z"],
    ["dStart", "UTC", "2024-03-20T00:00:00.000Z"],
    ["-1dStart", "UTC", "2024-03-19T00:00:00.000Z"],
    ["dEnd", "UTC", "2024-03-20T23:59:59.999Z"],
    ["hStart", "UTC", "2024-03-20T15:00:00.000Z"],
    ["hEnd", "UTC", "2024-03-20T15:59:59.999Z"],
    ["mStart", "UTC", "2024-03-01T00:00:00.000Z"],
    ["-1mStart", "UTC", "2024-02-01T00:00:00.000Z"],
    ["-1mEnd", "UTC", "2024-02-29T23:59:59.999Z"],
    ["mEnd", "UTC", "2024-03-31T23:59:59.999Z"],
    ["yStart", "UTC", "2024-01-01T00:00:00.000Z"],
    ["-1yStart", "UTC", "2023-01-01T00:00:00.000Z"],
    ["wStart", "UTC", "2024-03-17T00:00:00.000Z"],
    ["2024-03-05", "UTC", "2024-03-05T00:00:00.000Z"],
    ["2024-03-05 10:20", "UTC", "2024-03-05T10:20:00.000Z"],
    ["2024-03-05 10:20:30", "UTC", "2024-03-05T10:20:30.000Z"],
    ["2024-03-05T10:20:00+02:00", "UTC", "2024-03-05T08:20:00.000Z"],
    ["2024-03-05T10:20:00Z", "Asia/Tokyo", "2024-03-05T10:20:00.000Z"],
    ["2024-03-05", "Asia/Tokyo", "2024-03-04T15:00:00.000Z"],
    ["dStart", "Asia/Tokyo", "2024-03-20T15:00:00.000Z"],
    ["???", "UTC", "2024-03-20T15:30:00.000Z"],
  ];
  it.each(cases)("%s in %s", (value, timezone, want) => {
    expect(iso(parseDateExpression(value, utc("2024-03-20T15:30"), timezone).ms)).toBe(want);
  });

  it("wStart follows the week start day", () => {
    expect(iso(parseDateExpression("wStart", utc("2024-03-20T15:30"), "UTC", 1).ms)).toBe("2024-03-18T00:00:00.000Z");
  });

  const accepted: [string, string][] = [
    ["2024-3-5", "2024-03-05T00:00:00.000Z"],
    ["2024-03-05T10:20:30.123456", "2024-03-05T10:20:30.123Z"],
    ["2024-03-05t10:20z", "2024-03-05T10:20:00.000Z"],
    ["2024-03-05 10:20:30-0130", "2024-03-05T11:50:30.000Z"],
    [" -7d ", "2024-03-13T15:30:00.000Z"],
    ["qStart", "2024-01-01T00:00:00.000Z"],
    ["-1yEnd", "2023-12-31T23:59:59.999Z"],
  ];
  it.each(accepted)("accepts %s", (value, want) => {
    expect(iso(parseDate(value, utc("2024-03-20T15:30"), "UTC")!.ms)).toBe(want);
  });

  // The real service reads all of these as "now"; here they are not dates.
  const refused = [
    "banana", "2026-13-45", "2024-02-30", "last tuesday", "today", "now", "all", "-7D", "-7days", "7 d", "+7d",
    "-1x", "dstart", "-1dStart!", "2024-03-05T25:00", "2024-03-05T10", "20240305", "-99999999999999999999d", "",
  ];
  it.each(refused)("refuses %j", (value) => {
    expect(parseDate(value, utc("2024-03-20T15:30"), "UTC")).toBeUndefined();
  });

  it("reads filter date fields: absent, parsed, or a rejection naming the field", () => {
    const ctx = at("2024-03-20T15:30");
    expect(readDateField({}, "date_to", ctx)).toBeUndefined();
    expect(readDateField({ date_to: null }, "date_to", ctx)).toBeUndefined();
    expect(readDateField({ date_to: "" }, "date_to", ctx)).toBeUndefined();
    expect(iso(readDateField({ date_to: "-1d" }, "date_to", ctx)!.ms)).toBe("2024-03-19T15:30:00.000Z");
    const error = (() => {
      try {
        resolveDateRange({ date_from: "last tuesday" }, "day", ctx, undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AnalysisInputError);
    expect((error as AnalysisInputError).attr).toBe("date_from");
    expect(() => resolveDateRange({ date_to: "all" }, "day", ctx, undefined)).toThrow(/date_to|not a date/);
  });

  it("gives the events API one bound per edge", () => {
    const now = utc("2024-03-20T15:30");
    expect(iso(parseRelativeOrAbsoluteDate("2024-03-05", now, "UTC", "start")!)).toBe("2024-03-05T00:00:00.000Z");
    expect(iso(parseRelativeOrAbsoluteDate("2024-03-05", now, "UTC", "end")!)).toBe("2024-03-05T23:59:59.999Z");
    expect(iso(parseRelativeOrAbsoluteDate("-1d", now, "UTC", "end")!)).toBe("2024-03-19T15:30:00.000Z");
  });
});

describe("query window and buckets (reference §1.2, §11 items 2–4)", () => {
  const window = (filter: Record<string, unknown>, interval: Interval, ctx: TimeContext, earliest?: number) => {
    const w = resolveDateRange(filter, interval, ctx, earliest);
    const buckets = buildBuckets(w, ctx.timezone, ctx.weekStartDay);
    return { from: iso(w.from), to: iso(w.to), days: bucketKeys(buckets, ctx.timezone), labels: bucketLabels(buckets, ctx.timezone) };
  };

  it("-7d is 8 day buckets: 7 past days and today (§11 item 3)", () => {
    const w = window({ date_from: "-7d" }, "day", at("2024-03-20T15:30"));
    expect(w.days).toEqual(["2024-03-13", "2024-03-14", "2024-03-15", "2024-03-16", "2024-03-17", "2024-03-18", "2024-03-19", "2024-03-20"]);
    expect([w.from, w.to]).toEqual(["2024-03-13T00:00:00.000Z", "2024-03-20T23:59:59.999Z"]);
  });

  it("absent date_from means -7d and absent date_to means now", () => {
    expect(window({}, "day", at("2024-03-20T15:30")).days).toHaveLength(8);
  });

  it("date_to '… 00:00:00' still covers that whole day (§11 item 3)", () => {
    expect(window({ date_from: "2024-05-13", date_to: "2024-05-14 00:00:00" }, "day", at("2024-06-01")).to).toBe("2024-05-14T23:59:59.999Z");
  });

  it("explicit_date keeps the exact instants", () => {
    const w = window({ date_from: "2024-05-13 10:00", date_to: "2024-05-14 06:00", explicit_date: true }, "day", at("2024-06-01"));
    expect([w.from, w.to]).toEqual(["2024-05-13T10:00:00.000Z", "2024-05-14T06:00:00.000Z"]);
  });

  it("-24h with day interval starts at the start of that hour (partial first day; PostHog's always_truncate)", () => {
    const w = window({ date_from: "-24h" }, "day", at("2024-03-20T15:30"));
    expect(w.from).toBe("2024-03-19T15:00:00.000Z");
    expect(w.days).toEqual(["2024-03-19", "2024-03-20"]);
  });

  it("all starts at the project's earliest event", () => {
    const w = window({ date_from: "all" }, "day", at("2024-03-20T15:30"), utc("2024-03-17T08:00"));
    expect(w.days).toEqual(["2024-03-17", "2024-03-18", "2024-03-19", "2024-03-20"]);
  });

  it("dStart, mStart, yStart, -1m", () => {
    const ctx = at("2024-03-20T15:30");
    expect(window({ date_from: "dStart" }, "day", ctx).days).toEqual(["2024-03-20"]);
    expect(window({ date_from: "mStart" }, "day", ctx).days).toHaveLength(20);
    expect(window({ date_from: "yStart" }, "month", ctx).labels).toEqual(["Jan 2024", "Feb 2024", "Mar 2024"]);
    expect(window({ date_from: "-1m" }, "day", ctx).days[0]).toBe("2024-02-20");
  });

  it("month interval truncates date_from to the 1st", () => {
    expect(window({ date_from: "2024-05-20", date_to: "2024-06-10" }, "month", at("2024-07-01"))).toMatchObject({
      from: "2024-05-01T00:00:00.000Z",
      days: ["2024-05-01", "2024-06-01"],
      labels: ["May 2024", "Jun 2024"],
    });
  });

  it("hour interval: absolute ends kept, start truncated to the hour", () => {
    const w = window({ date_from: "2024-03-01 08:30", date_to: "2024-03-01 11:00" }, "hour", at("2024-03-10"));
    expect(w.days).toEqual(["2024-03-01 08:00:00", "2024-03-01 09:00:00", "2024-03-01 10:00:00", "2024-03-01 11:00:00"]);
    expect(w.labels).toEqual(["1-Mar 08:00", "1-Mar 09:00", "1-Mar 10:00", "1-Mar 11:00"]);
    expect(w.to).toBe("2024-03-01T11:00:00.000Z");
    expect(window({ date_from: "2024-03-05", date_to: "2024-03-05" }, "hour", at("2024-03-10")).days).toEqual(["2024-03-05 00:00:00"]);
  });

  it("hour interval: relative start at the start of its hour, relative end at the end of the hour", () => {
    const w = window({ date_from: "-2h" }, "hour", at("2024-03-10T12:40"));
    expect([w.from, w.to]).toEqual(["2024-03-10T10:00:00.000Z", "2024-03-10T12:59:59.999Z"]);
    expect(w.days).toHaveLength(3);
    expect(window({ date_from: "dStart" }, "hour", at("2024-03-10T09:40")).days).toHaveLength(10);
  });

  it("week buckets start on Sunday or Monday and labels clamp to the range (§11 item 4)", () => {
    const filter = { date_from: "2024-03-01", date_to: "2024-03-14" };
    expect(window(filter, "week", at("2024-03-20"))).toMatchObject({ days: ["2024-02-25", "2024-03-03", "2024-03-10"], labels: ["1–2 Mar", "3–9 Mar", "10–14 Mar"] });
    expect(window(filter, "week", at("2024-03-20", "UTC", 1))).toMatchObject({ days: ["2024-02-26", "2024-03-04", "2024-03-11"], labels: ["1–3 Mar", "4–10 Mar", "11–14 Mar"] });
  });

  it("week labels across months, years, and of a single day", () => {
    expect(window({ date_from: "2024-04-28", date_to: "2024-05-04" }, "week", at("2024-06-01")).labels).toEqual(["28-Apr – 4-May"]);
    expect(window({ date_from: "2024-12-29", date_to: "2025-01-04" }, "week", at("2025-02-01")).labels).toEqual(["29-Dec-2024 – 4-Jan-2025"]);
    expect(window({ date_from: "2024-05-08", date_to: "2024-05-08" }, "week", at("2024-06-01")).labels).toEqual(["8-May-2024"]);
  });

  it("a DST change keeps one bucket per local day (America/New_York, 2024-03-10)", () => {
    const w = window({ date_from: "2024-03-01", date_to: "2024-03-24" }, "day", at("2024-04-01", "America/New_York"));
    expect(w.days).toHaveLength(24);
    expect(w.days.slice(8, 11)).toEqual(["2024-03-09", "2024-03-10", "2024-03-11"]);
    expect([w.from, w.to]).toEqual(["2024-03-01T05:00:00.000Z", "2024-03-25T03:59:59.999Z"]);
  });

  it("days are local dates in the project time zone (Tokyo)", () => {
    const w = window({ date_from: "2024-03-01", date_to: "2024-03-03" }, "day", at("2024-03-10", "Asia/Tokyo"));
    expect([w.from, w.to]).toEqual(["2024-02-29T15:00:00.000Z", "2024-03-03T14:59:59.999Z"]);
    expect(w.days).toEqual(["2024-03-01", "2024-03-02", "2024-03-03"]);
  });
});

describe("compare periods (reference §2.7)", () => {
  const period = (filter: Record<string, unknown>, interval: Interval, ctx: TimeContext) => {
    const p = previousPeriod(resolveDateRange(filter, interval, ctx, undefined), ctx.timezone);
    return [iso(p.from), iso(p.to)];
  };

  it("a fixed range: the same length just before", () => {
    expect(period({ date_from: "2024-03-11", date_to: "2024-03-14" }, "day", at("2024-04-01"))).toEqual(["2024-03-07T00:00:00.000Z", "2024-03-10T23:59:59.999Z"]);
  });

  it("the -14d quirk shifts the previous period one day later", () => {
    expect(period({ date_from: "-14d" }, "day", at("2024-03-20T10:00"))).toEqual(["2024-02-21T00:00:00.000Z", "2024-03-06T23:59:59.999Z"]);
  });

  it("hourly keeps the hours of the day", () => {
    expect(period({ date_from: "dStart" }, "hour", at("2024-03-20T09:40"))).toEqual(["2024-03-19T00:00:00.000Z", "2024-03-19T09:59:59.999Z"]);
  });

  // exact_timerange (a BoldNumber's): -7d at 2024-03-20 10:00 is [03-13 10:00, 03-20 10:00], 7 days long. The
  // previous period starts 7 days earlier at the same time (03-06 10:00), one day later for the -7d quirk
  // (03-07 10:00), and lasts as long, ending at its own 10:00 (03-14 10:00): get_compare_period_dates keeps the times.
  it("an exact range: from the instant date_from names to now, and a previous period keeping its times of day", () => {
    const ctx = at("2024-03-20T10:00");
    const window = resolveDateRange({ date_from: "-7d" }, "day", ctx, undefined, true);
    expect([iso(window.from), iso(window.to)]).toEqual(["2024-03-13T10:00:00.000Z", "2024-03-20T10:00:00.000Z"]);
    const p = previousPeriod(window, ctx.timezone);
    expect([iso(p.from), iso(p.to)]).toEqual(["2024-03-07T10:00:00.000Z", "2024-03-14T10:00:00.000Z"]);
  });

  it("an exact range with a date_to still ends with that day", () => {
    const window = resolveDateRange({ date_from: "-7d", date_to: "-1d" }, "day", at("2024-03-20T10:00"), undefined, true);
    expect([iso(window.from), iso(window.to)]).toEqual(["2024-03-13T10:00:00.000Z", "2024-03-19T23:59:59.999Z"]);
  });

  it("compare_to shifts the range by a relative amount", () => {
    const ctx = at("2024-04-01");
    const p = shiftedPeriod(resolveDateRange({ date_from: "2024-03-11", date_to: "2024-03-14" }, "day", ctx, undefined), "-1w", ctx);
    expect([iso(p.from), iso(p.to)]).toEqual(["2024-03-04T00:00:00.000Z", "2024-03-07T23:59:59.999Z"]);
  });
});

import { describe, expect, it } from "vitest";
import { computeTrends, type TrendResultItem } from "../../../src/analyses/trends/index.ts";
import { contextFor, ev, journeys, worked, type ContextOptions, type World } from "./support.ts";

const trend = (world: World, filter: Record<string, unknown>, options: ContextOptions = {}) => computeTrends(world.events, filter, contextFor(world, options));
const values = (items: TrendResultItem[]) => items.map((i) => [i.breakdown_value, i.count]);
const NULL = "$$_posthog_breakdown_null_$$";
const OTHER = "$$_posthog_breakdown_other_$$";
const day = { events: [{ id: "e" }], date_from: "2024-03-01", date_to: "2024-03-01" };
/** One person per value, each doing `e` once on Mar 1 with property p. */
const withValues = (list: unknown[]) => journeys(Object.fromEntries(list.map((p, i) => [`u${i}`, [ev("e", "2024-03-01T10:00", p === undefined ? {} : { p })]])));

describe("breakdowns (reference §2.5)", () => {
  it("missing, null and empty string merge into the null value, listed after regular values (§11 item 5)", () => {
    const items = trend(withValues([undefined, null, "", "x"]), { ...day, breakdown: "p" });
    expect(values(items)).toEqual([["x", 1], [NULL, 3]]);
    expect(items[1]!.label).toBe(NULL);
  });

  it("values beyond breakdown_limit become one other item; ties rank by value (§11 item 5)", () => {
    const items = trend(withValues(["a", "a", "a", "c", "c", "b", "b", "d"]), { ...day, breakdown: "p", breakdown_limit: 2 });
    expect(values(items)).toEqual([["a", 3], ["b", 2], [OTHER, 3]]);
  });

  it("the null value ranks after every other value for the limit too, whatever its total: it can fall into other", () => {
    // PostHog ranks by `breakdown_value = nil ? 1 : 0` first (trends_query_builder.py): a (2) is kept; b (1) and the
    // three nulls make other (4).
    const items = trend(withValues(["a", "a", null, null, null, "b"]), { ...day, breakdown: "p", breakdown_limit: 1 });
    expect(values(items)).toEqual([["a", 2], [OTHER, 4]]);
  });

  it("the default limit is 25: 27 values give 25 items and other", () => {
    const list = Array.from({ length: 27 }, (_, i) => `v${String(i).padStart(2, "0")}`);
    const items = trend(withValues(list), { ...day, breakdown: "p" });
    expect(items).toHaveLength(26);
    expect(items[24]!.breakdown_value).toBe("v24");
    expect(values(items.slice(25))).toEqual([[OTHER, 2]]);
  });

  it("exactly the limit gives no other item; breakdown_hide_other_aggregation drops it", () => {
    expect(trend(withValues(["a", "b"]), { ...day, breakdown: "p", breakdown_limit: 2 })).toHaveLength(2);
    expect(values(trend(withValues(["a", "b", "c"]), { ...day, breakdown: "p", breakdown_limit: 2, breakdown_hide_other_aggregation: true }))).toEqual([["a", 1], ["b", 1]]);
  });

  it("other is recomputed, not summed: one person in two merged values counts once for dau", () => {
    const w = journeys({ u: [ev("e", "2024-03-01T10:00", { p: "b" }), ev("e", "2024-03-01T11:00", { p: "c" })], v: [ev("e", "2024-03-01T10:00", { p: "a" }), ev("e", "2024-03-01T11:00", { p: "a" })], x: [ev("e", "2024-03-01T10:00", { p: "a" })] });
    expect(values(trend(w, { ...day, events: [{ id: "e", math: "dau" }], breakdown: "p", breakdown_limit: 1 }))).toEqual([["a", 2], [OTHER, 1]]);
  });

  it("booleans break down as 'true' / 'false'", () => {
    expect(values(trend(withValues([true, true, false]), { ...day, breakdown: "p" }))).toEqual([["true", 2], ["false", 1]]);
  });

  it("person properties", () => {
    const w = journeys({ a: { properties: { plan: "pro" }, events: [ev("e", "2024-03-01T10:00")] }, b: { properties: { plan: "free" }, events: [ev("e", "2024-03-01T10:00"), ev("e", "2024-03-01T11:00")] } });
    expect(values(trend(w, { ...day, breakdown: "plan", breakdown_type: "person" }))).toEqual([["free", 2], ["pro", 1]]);
  });

  it("cohorts, including all users", () => {
    const cohorts = [{ project_id: "1", id: 1, name: "Early", person_ids: [1, 2] }];
    const items = trend(worked(), { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-03", breakdown: [1, "all"], breakdown_type: "cohort" }, { cohorts });
    // The largest first, as any breakdown (PostHog test_trends.py::test_breakdown_multiple_cohorts): all users (5) before Early (4).
    expect(items.map(({ label, breakdown_value, data }) => ({ label, breakdown_value, data }))).toEqual([
      { label: "all users", breakdown_value: "all", data: [3, 1, 1] },
      { label: "Early", breakdown_value: 1, data: [2, 1, 1] },
    ]);
    expect(() => trend(worked(), { ...day, breakdown: [9], breakdown_type: "cohort" })).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "breakdown" }));
  });

  it("numeric histogram bins: 5, 8, 13 in 2 bins", () => {
    expect(values(trend(withValues([5, 8, 13]), { ...day, breakdown: "p", breakdown_histogram_bin_count: 2 }))).toEqual([["[5,9]", 2], ["[9,13.01]", 1]]);
  });

  it("a huge bin count keeps only the bins that hold a value (no label per empty bin)", () => {
    // Bins rank like values, equal totals by label (PostHog test_trends_event_multiple_numeric_breakdowns_into_bins).
    expect(values(trend(withValues([5, 8, 13]), { ...day, breakdown: "p", breakdown_histogram_bin_count: 2 ** 53 }))).toEqual([["[13,13.01]", 1], ["[5,5]", 1], ["[8,8]", 1]]);
  });

  it("breakdown_normalize_url strips the trailing slash, query and hash", () => {
    const urls = ["https://x.com/a/", "https://x.com/a?x=1", "https://x.com/a#top", "https://x.com/"];
    expect(values(trend(withValues(urls), { ...day, breakdown: "p", breakdown_normalize_url: true }))).toEqual([["https://x.com/a", 3], ["https://x.com", 1]]);
  });

  it("several series label items '<series> - <value>'", () => {
    const items = trend(worked(), { events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }], date_from: "2024-03-01", date_to: "2024-03-03", breakdown: "$browser" });
    expect(items.map((i) => i.label)).toEqual(["$pageview - Chrome", "$pageview - Firefox", "$pageview - Safari", `signup - ${NULL}`]);
  });

  it("a breakdowns list ties by its values element by element, as ClickHouse orders arrays: a shorter text first", () => {
    // ["a", "x"] before ["a b", "x"]: "a" is a prefix of "a b". As JSON text the order would flip ('"' > ' ').
    const w = journeys({ u: [ev("e", "2024-03-01T10:00", { p: "a b", q: "x" })], v: [ev("e", "2024-03-01T10:00", { p: "a", q: "x" })] });
    const items = trend(w, { ...day, breakdowns: [{ property: "p", type: "event" }, { property: "q", type: "event" }] });
    expect(values(items)).toEqual([[["a", "x"], 1], [["a b", "x"], 1]]);
  });

  it("multiple breakdowns: a list value, labels joined by ::", () => {
    const items = trend(worked(), { events: [{ id: "purchase" }], date_from: "2024-03-01", date_to: "2024-03-03", breakdowns: [{ property: "amount", type: "event" }, { property: "$browser", type: "event" }] });
    expect(items.map((i) => [i.label, i.breakdown_value])).toEqual([[`30::${NULL}`, ["30", NULL]], [`50::${NULL}`, ["50", NULL]]]);
  });

  it("unknown breakdown types, and group breakdowns without a group type, are 400s", () => {
    expect(() => trend(worked(), { ...day, breakdown: "x", breakdown_type: "group" })).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "breakdown_group_type_index" }));
    expect(() => trend(worked(), { ...day, breakdown: "x", breakdown_type: "nonsense" })).toThrow(expect.objectContaining({ name: "AnalysisInputError" }));
  });
});

describe("formula (reference §2.6)", () => {
  const both = { events: [{ id: "signup", order: 0 }, { id: "$pageview", order: 1 }], date_from: "2024-03-01", date_to: "2024-03-03" };

  it("replaces the series: A/B of signups and pageviews, zero division is 0 (§11 item 6)", () => {
    const items = trend(worked(), { ...both, formula: "A/B" });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ label: "Formula (A/B)", action: null, data: [1 / 3, 1, 0], count: 1 / 3 + 1 });
    expect(trend(worked(), { ...both, formula: "B/A" })[0]!.data).toEqual([3, 1, 0]);
  });

  it("is evaluated per breakdown value; a series lacking the value contributes zeros", () => {
    const w = journeys({
      x: { properties: { plan: "pro" }, events: [ev("$pageview", "2024-03-01T10:00"), ev("$pageview", "2024-03-01T11:00"), ev("signup", "2024-03-02T10:00")] },
      y: { properties: { plan: "free" }, events: [ev("$pageview", "2024-03-02T10:00")] },
    });
    const items = trend(w, { ...both, formula: "A+B", breakdown: "plan", breakdown_type: "person" });
    expect(items.map(({ label, breakdown_value, data }) => ({ label, breakdown_value, data }))).toEqual([
      { label: "Formula (A+B)", breakdown_value: "pro", data: [2, 1, 0] },
      { label: "Formula (A+B)", breakdown_value: "free", data: [0, 1, 0] },
    ]);
  });

  it("ties on total and count are ordered by the data, bucket by bucket, before the value (PostHog apply_formula)", () => {
    // a: two pageviews on Mar 1 → [2, 0, 0]; z: two on Mar 2 → [0, 2, 0]. Equal totals and counts; [2,0,0] > [0,2,0].
    const w = journeys({
      x: { properties: { plan: "a" }, events: [ev("$pageview", "2024-03-01T10:00"), ev("$pageview", "2024-03-01T11:00")] },
      y: { properties: { plan: "z" }, events: [ev("$pageview", "2024-03-02T10:00"), ev("$pageview", "2024-03-02T11:00")] },
    });
    const items = trend(w, { ...both, formula: "A+B", breakdown: "plan", breakdown_type: "person" });
    expect(items.map(({ breakdown_value, data }) => ({ breakdown_value, data }))).toEqual([
      { breakdown_value: "a", data: [2, 0, 0] },
      { breakdown_value: "z", data: [0, 2, 0] },
    ]);
  });

  it("is evaluated per compare period", () => {
    const items = trend(worked(), { ...both, date_from: "2024-03-02", formula: "A+B", compare: true });
    expect(items.map(({ compare_label, data, days }) => ({ compare_label, data, days }))).toEqual([
      { compare_label: "current", data: [2, 1], days: ["2024-03-02", "2024-03-03"] },
      { compare_label: "previous", data: [0, 4], days: ["2024-02-29", "2024-03-01"] },
    ]);
  });

  it("on total-value displays works on aggregated values", () => {
    expect(trend(worked(), { ...both, formula: "A/B", display: "BoldNumber" })[0]).toMatchObject({ aggregated_value: 2 / 5, data: null, count: 0 });
  });

  it("an invalid formula is a 400 on formula", () => {
    expect(() => trend(worked(), { ...both, formula: "A+C" })).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "formula" }));
  });
});

describe("compare (reference §2.7, §11 item 18)", () => {
  it("previous items come after all current items, with their own dates", () => {
    const items = trend(worked(), { events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }], date_from: "2024-03-02", date_to: "2024-03-03", compare: true });
    expect(items.map(({ label, compare, compare_label, data, days }) => ({ label, compare, compare_label, data, days }))).toEqual([
      { label: "$pageview", compare: true, compare_label: "current", data: [1, 1], days: ["2024-03-02", "2024-03-03"] },
      { label: "signup", compare: true, compare_label: "current", data: [1, 0], days: ["2024-03-02", "2024-03-03"] },
      { label: "$pageview", compare: true, compare_label: "previous", data: [0, 3], days: ["2024-02-29", "2024-03-01"] },
      { label: "signup", compare: true, compare_label: "previous", data: [0, 1], days: ["2024-02-29", "2024-03-01"] },
    ]);
  });

  it("-7d: 8 buckets each, the previous period shifted one day later so the two share a day", () => {
    const [current, previous] = trend(worked(), { events: [{ id: "$pageview" }], date_from: "-7d", compare: true }, { now: "2024-03-04T12:00" });
    expect(current!.days).toEqual(["2024-02-26", "2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"]);
    expect(previous!.days).toEqual(["2024-02-19", "2024-02-20", "2024-02-21", "2024-02-22", "2024-02-23", "2024-02-24", "2024-02-25", "2024-02-26"]);
    expect(current!.data).toEqual([0, 0, 0, 0, 3, 1, 1, 0]);
  });

  it("compare_to shifts the range by a relative amount", () => {
    const [, previous] = trend(worked(), { events: [{ id: "$pageview" }], date_from: "2024-03-08", date_to: "2024-03-10", compare: true, compare_to: "-1w" });
    expect(previous).toMatchObject({ compare_label: "previous", days: ["2024-03-01", "2024-03-02", "2024-03-03"], data: [3, 1, 1] });
  });
});

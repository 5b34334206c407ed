import { describe, expect, it } from "vitest";
import { computeTrends, type TrendResultItem } from "../../../src/analyses/trends/index.ts";
import { contextFor, ev, journeys, worked, type ContextOptions, type World } from "./support.ts";

const trend = (world: World, filter: Record<string, unknown>, options: ContextOptions = {}) => computeTrends(world.events, filter, contextFor(world, options));
const brief = (items: TrendResultItem[]) => items.map(({ label, data, count }) => ({ label, data, count }));
const pageviews = { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-03" };

describe("the worked example (reference §2.8)", () => {
  const w = worked();

  it("counts pageviews per day", () => {
    const [item] = trend(w, pageviews);
    expect(item).toMatchObject({ label: "$pageview", count: 5, data: [3, 1, 1], days: ["2024-03-01", "2024-03-02", "2024-03-03"], labels: ["1-Mar-2024", "2-Mar-2024", "3-Mar-2024"] });
    expect(item!.action).toMatchObject({ id: "$pageview", type: "events", order: 0, name: "$pageview", math: null, properties: {} });
    expect(item!.filter).toMatchObject({ insight: "TRENDS", interval: "day", date_from: "2024-03-01T00:00:00Z", date_to: "2024-03-03T23:59:59.999999Z" });
  });

  it("dau counts persons: a-anon and a are one user (§11 item 1)", () => {
    expect(brief(trend(w, { ...pageviews, events: [{ id: "$pageview", math: "dau" }] }))).toEqual([{ label: "$pageview", data: [2, 1, 1], count: 4 }]);
  });

  it("breaks down by $browser, in order of totals", () => {
    const items = trend(w, { ...pageviews, breakdown: "$browser" });
    expect(items.map(({ label, data, count, breakdown_value }) => ({ label, data, count, breakdown_value }))).toEqual([
      { label: "Chrome", data: [2, 0, 1], count: 3, breakdown_value: "Chrome" },
      { label: "Firefox", data: [0, 1, 0], count: 1, breakdown_value: "Firefox" },
      { label: "Safari", data: [1, 0, 0], count: 1, breakdown_value: "Safari" },
    ]);
  });

  it("sums a math property", () => {
    expect(brief(trend(w, { ...pageviews, events: [{ id: "purchase", math: "sum", math_property: "amount" }] }))).toEqual([{ label: "purchase", data: [50, 0, 30], count: 80 }]);
  });

  it("BoldNumber with dau is unique over the whole range", () => {
    const [item] = trend(w, { ...pageviews, events: [{ id: "$pageview", math: "dau" }], display: "BoldNumber" });
    expect(item).toMatchObject({ aggregated_value: 3, data: [], days: [], count: 0 });
    expect(item).not.toHaveProperty("labels");
  });

  it("buckets in the project time zone: Asia/Tokyo moves events 5 and 10 (§11 item 4)", () => {
    expect(trend(w, pageviews, { timezone: "Asia/Tokyo" })[0]!.data).toEqual([2, 2, 0]);
  });
});

describe("checklist (reference §11)", () => {
  it("item 1: an unknown distinct id is its own person", () => {
    const w = journeys({ x: { anonymous: true, events: [ev("$pageview", "2024-03-01T10:00")] }, y: { anonymous: true, events: [ev("$pageview", "2024-03-01T11:00")] } });
    expect(trend(w, { ...pageviews, events: [{ id: "$pageview", math: "dau" }] })[0]!.data).toEqual([2, 0, 0]);
  });

  it("item 2: every bucket is returned, empty ones as 0", () => {
    expect(trend(worked(), { events: [{ id: "signup" }], date_from: "2024-03-01", date_to: "2024-03-07" })[0]!.data).toEqual([1, 1, 0, 0, 1, 0, 0]);
  });

  it("item 3: date_to '… 00:00:00' covers the whole day; -7d is 8 buckets", () => {
    expect(trend(worked(), { ...pageviews, date_to: "2024-03-03 00:00:00" })[0]!.data).toEqual([3, 1, 1]);
    const [last] = trend(worked(), { events: [{ id: "$pageview" }], date_from: "-7d" }, { now: "2024-03-04T12:00" });
    expect(last!.days).toEqual(["2024-02-26", "2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"]);
    expect(last!.data).toEqual([0, 0, 0, 0, 3, 1, 1, 0]);
  });

  it("item 4: week start Sunday vs Monday", () => {
    const filter = { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-14", interval: "week" };
    expect(trend(worked(), filter)[0]).toMatchObject({ days: ["2024-02-25", "2024-03-03", "2024-03-10"], data: [4, 1, 0] });
    expect(trend(worked(), filter, { weekStartDay: 1 })[0]).toMatchObject({ days: ["2024-02-26", "2024-03-04", "2024-03-11"], data: [5, 0, 0] });
  });

  it("item 4: a DST change (America/New_York) keeps local days", () => {
    const w = journeys({ n: [ev("$pageview", "2024-03-10T04:30"), ev("$pageview", "2024-03-11T03:30"), ev("$pageview", "2024-03-11T04:30")] });
    const [item] = trend(w, { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-24" }, { timezone: "America/New_York" });
    expect(item!.days).toHaveLength(24);
    expect(item!.data!.slice(8, 11)).toEqual([1, 1, 1]);
    expect(item!.count).toBe(3);
  });
});

describe("date ranges through trends (reference §1.2)", () => {
  it("week interval: keys start on the week start but events before date_from do not count", () => {
    const w = journeys({ p: [ev("$pageview", "2024-05-05T10:00"), ev("$pageview", "2024-05-09T10:00")] });
    expect(trend(w, { events: [{ id: "$pageview" }], date_from: "2024-05-08", date_to: "2024-05-11", interval: "week" })[0]).toMatchObject({ days: ["2024-05-05"], labels: ["8–11 May"], data: [1] });
  });

  it("month interval: an event before date_from but in its month counts", () => {
    const w = journeys({ p: [ev("$pageview", "2024-05-03T10:00"), ev("$pageview", "2024-06-09T10:00")] });
    expect(trend(w, { events: [{ id: "$pageview" }], date_from: "2024-05-20", date_to: "2024-06-10", interval: "month" })[0]).toMatchObject({ labels: ["May 2024", "Jun 2024"], data: [1, 1] });
  });

  it("hour interval edges: start truncated, absolute end kept", () => {
    expect(trend(worked(), { events: [{ id: "$pageview" }], date_from: "2024-03-01 08:30", date_to: "2024-03-01 11:00", interval: "hour" })[0]).toMatchObject({
      days: ["2024-03-01 08:00:00", "2024-03-01 09:00:00", "2024-03-01 10:00:00", "2024-03-01 11:00:00"],
      data: [1, 0, 0, 1],
    });
  });

  it("hour interval with a relative start counts from the start of its hour", () => {
    const w = journeys({ p: [ev("$pageview", "2024-03-10T09:30"), ev("$pageview", "2024-03-10T10:30"), ev("$pageview", "2024-03-10T10:50"), ev("$pageview", "2024-03-10T12:10")] });
    expect(trend(w, { events: [{ id: "$pageview" }], date_from: "-2h", interval: "hour" }, { now: "2024-03-10T12:40" })[0]!.data).toEqual([2, 0, 1]);
  });

  it("legacy minute interval is computed as hour", () => {
    expect(trend(worked(), { ...pageviews, date_to: "2024-03-01 11:00", date_from: "2024-03-01 08:00", interval: "minute" })[0]!.data).toEqual([1, 0, 0, 1]);
  });

  it("date_from all starts at the first event", () => {
    expect(trend(worked(), { events: [{ id: "signup" }], date_from: "all" }, { now: "2024-03-05T20:00" })[0]!.data).toEqual([1, 1, 0, 0, 1]);
  });
});

describe("series", () => {
  it("merges events and actions by order, each with its own properties and custom_name", () => {
    const actions = [{ project_id: "1", id: 3, name: "Signed up or bought", steps: [{ event: "signup" }, { event: "purchase" }] }];
    const items = trend(worked(), {
      ...pageviews,
      events: [{ id: "$pageview", order: 1, custom_name: "Views", properties: [{ key: "$browser", value: "Chrome" }] }],
      actions: [{ id: 3, order: 0 }],
    }, { actions });
    expect(brief(items)).toEqual([
      { label: "Signed up or bought", data: [2, 1, 1], count: 4 },
      { label: "$pageview", data: [2, 0, 1], count: 3 },
    ]);
    expect(items[1]!.action).toMatchObject({ custom_name: "Views", order: 1 });
  });

  it("an action step can match any event by URL (contains, exact, regex) and properties", () => {
    const w = journeys({ p: [
      ev("$pageview", "2024-03-01T10:00", { $current_url: "https://x.com/pricing?a=1" }),
      ev("$autocapture", "2024-03-01T11:00", { $current_url: "https://x.com/pricing", tag: "button" }),
      ev("$pageview", "2024-03-02T10:00", { $current_url: "https://x.com/blog" }),
    ] });
    const run = (steps: object[]) => trend(w, { actions: [{ id: 1 }], date_from: "2024-03-01", date_to: "2024-03-02" }, { actions: [{ project_id: "1", id: 1, name: "a", steps }] })[0]!.data;
    expect(run([{ event: null, url: "/pricing", url_matching: "contains" }])).toEqual([2, 0]);
    expect(run([{ event: "$pageview", url: "/pricing" }])).toEqual([1, 0]);
    expect(run([{ url: "https://x.com/pricing", url_matching: "exact" }])).toEqual([1, 0]);
    expect(run([{ url: "/(blog|pricing)$", url_matching: "regex" }])).toEqual([1, 1]);
    expect(run([{ event: "$autocapture", properties: [{ key: "tag", value: "button" }] }])).toEqual([1, 0]);
  });

  it("id null is all events", () => {
    expect(brief(trend(worked(), { ...pageviews, events: [{ id: null }] }))).toEqual([{ label: "All events", data: [5, 3, 2], count: 10 }]);
  });

  it("global properties and filter_test_accounts apply to every series", () => {
    const filter = { ...pageviews, properties: [{ key: "$browser", value: "Safari", operator: "is_not" }] };
    expect(trend(worked(), filter)[0]!.data).toEqual([2, 1, 1]);
    const testAccounts = [{ key: "$browser", value: "Chrome", operator: "is_not", type: "event" }];
    expect(trend(worked(), { ...pageviews, filter_test_accounts: true }, { testAccountFilters: testAccounts })[0]!.data).toEqual([1, 1, 0]);
    expect(trend(worked(), { ...pageviews, filter_test_accounts: false }, { testAccountFilters: testAccounts })[0]!.data).toEqual([3, 1, 1]);
  });
});

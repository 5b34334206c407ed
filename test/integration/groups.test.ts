import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Group analytics over HTTP on fixtures/scenarios/groups.json (clock 2024-03-05T12:00Z, project UTC). Group types:
 * 0 company, 1 workspace (declared), 2 team (only used by an event: the loader gives it the next free index).
 *
 *  #  | who | event     | time (UTC)   | company | workspace | note
 *  1  | ann | $pageview | 03-01 09:00  | acme    | ws-a1     |
 *  2  | ann | signup    | 03-01 09:10  | acme    | ws-a1     |
 *  3  | ben | $pageview | 03-01 10:00  | acme    | ws-a1     |
 *  4  | cat | $pageview | 03-01 11:00  | globex  | ws-g1     |
 *  5  | ben | purchase  | 03-02 12:00  | acme    | ws-a1     | amount 100
 *  6  | cat | signup    | 03-02 13:00  | globex  | ws-g1     |
 *  7  | dan | $pageview | 03-02 14:00  | initech | —         | team t-1
 *  8  | eve | $pageview | 03-02 15:00  | —       | —         |
 *  9  | ann | $pageview | 03-03 09:00  | acme    | ws-a1     |
 *  10 | dan | signup    | 03-03 10:00  | initech | —         |
 *  11 | eve | signup    | 03-03 11:00  | —       | —         |
 *
 * Companies: acme (manufacturing, enterprise), globex (energy, free), initech (software, pro).
 * Every expected number below is worked out by hand from this table.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("groups"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const days = { date_from: "2024-03-01", date_to: "2024-03-03" };
const pageviews = { events: [{ id: "$pageview", type: "events", order: 0 }], ...days };
const shop = {
  events: ["$pageview", "signup", "purchase"].map((id, order) => ({ id, type: "events", order })),
  date_from: "2024-03-01",
  date_to: "2024-03-04",
};

type Step = { count: number; average_conversion_time: number | null; median_conversion_time: number | null };

describe("funnels aggregated by a group type", () => {
  it("persons: ann, cat, dan, eve sign up, ben buys without signing up", async () => {
    const res = await s.post(`${P}/insights/funnel/`, shop);
    expect(res.body.result.map((step: Step) => step.count)).toEqual([5, 4, 0]);
  });

  it("0 counts companies, as the real service reads it (PostHog test_funnel.py::test_funnel_aggregation_with_groups)", async () => {
    const res = await s.post(`${P}/insights/funnel/`, { ...shop, aggregation_group_type_index: 0 });
    // acme: #1, #2, #5 (all three steps); globex: #4, #6; initech: #7, #10. eve's events have no company.
    expect(res.body.result.map((step: Step) => step.count)).toEqual([3, 3, 1]);
  });

  it("1 counts workspaces: ws-a1 converts through ann's signup and ben's purchase; dan's and eve's events drop out", async () => {
    const res = await s.post(`${P}/insights/funnel/`, { ...shop, aggregation_group_type_index: 1 });
    expect(res.status).toBe(200);
    // ws-a1: pageview 03-01 09:00, signup 09:10 (600 s), purchase 03-02 12:00 (96,600 s after the signup).
    // ws-g1: pageview 03-01 11:00, signup 03-02 13:00 (93,600 s). Step 2 mean and median: (600 + 93,600) / 2.
    expect(res.body.result.map((step: Step) => [step.count, step.average_conversion_time, step.median_conversion_time])).toEqual([
      [2, null, null],
      [2, 47_100, 47_100],
      [1, 96_600, 96_600],
    ]);
  });

  it("lists groups, in the group actor shape, as the actors of a step", async () => {
    const res = await s.get(`${P}/persons/funnel/?${qs({ ...shop, aggregation_group_type_index: 1, funnel_step: 3 })}`);
    expect(res.status).toBe(200);
    expect(res.body.results[0].people).toEqual([
      { type: "group", id: "ws-a1", group_key: "ws-a1", group_type_index: 1, created_at: "2024-01-10T09:00:00.000Z", properties: { name: "Acme main" }, matched_recordings: [], value_at_data_point: null },
    ]);
    const dropped = await s.get(`${P}/persons/funnel/?${qs({ ...shop, aggregation_group_type_index: 1, funnel_step: -3 })}`);
    expect(dropped.body.results[0].people.map((g: { id: string }) => g.id)).toEqual(["ws-g1"]);
  });
});

describe("trends counting groups", () => {
  it("unique_group counts distinct companies per day; events outside a company count for none", async () => {
    // 03-01: acme (#1, #3), globex (#4) = 2; 03-02: initech (#7), eve has none = 1; 03-03: acme = 1.
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, events: [{ id: "$pageview", math: "unique_group", math_group_type_index: 0 }] });
    expect(res.body.result[0]).toMatchObject({ data: [2, 1, 1], count: 4 });
    const dau = await s.post(`${P}/insights/trend/`, { ...pageviews, events: [{ id: "$pageview", math: "dau" }] });
    expect(dau.body.result[0].data).toEqual([3, 2, 1]);
  });

  it("a group type met only in events' $groups gets the next free index at load (team = 2)", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, events: [{ id: "$pageview", math: "unique_group", math_group_type_index: 2 }] });
    expect(res.body.result[0].data).toEqual([0, 1, 0]);
  });

  it("the actors of a unique_group point are the companies; a group without a record counts as missing", async () => {
    const res = await s.get(`${P}/persons/trends/?${qs({ ...pageviews, events: [{ id: "$pageview", math: "unique_group", math_group_type_index: 0 }], date_to: "2024-03-01" })}`);
    expect(res.body.results[0].people.map((g: { type: string; id: string; properties: { name: string } }) => [g.type, g.id, g.properties.name])).toEqual([
      ["group", "acme", "Acme"],
      ["group", "globex", "Globex"],
    ]);
    expect(res.body.missing_persons).toBe(0);
    const team = await s.get(`${P}/persons/trends/?${qs({ ...pageviews, events: [{ id: "$pageview", math: "unique_group", math_group_type_index: 2 }] })}`);
    expect(team.body).toMatchObject({ results: [{ people: [], count: 0 }], missing_persons: 1 });
  });

  it("breaks down by a property of the event's company, read from the group record", async () => {
    // manufacturing (acme: #1, #3, #9) = 3, energy (#4) = 1, software (#7) = 1, no company (#8) = 1: ties by value, null last.
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: "industry", breakdown_type: "group", breakdown_group_type_index: 0 });
    expect(res.status).toBe(200);
    expect(res.body.result.map((i: { breakdown_value: string; data: number[] }) => [i.breakdown_value, i.data])).toEqual([
      ["manufacturing", [2, 0, 1]],
      ["energy", [1, 0, 0]],
      ["software", [0, 1, 0]],
      ["$$_posthog_breakdown_null_$$", [0, 1, 0]],
    ]);
  });

  it("a group breakdown without breakdown_group_type_index is a 400 naming it", async () => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, breakdown: "industry", breakdown_type: "group" });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("breakdown_group_type_index");
  });

  it("filters on the properties of the event's company; is_not also matches events outside any company", async () => {
    const enterprise = [{ key: "plan", value: "enterprise", operator: "exact", type: "group", group_type_index: 0 }];
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, properties: enterprise });
    expect(res.body.result[0].data).toEqual([2, 0, 1]);
    const others = await s.post(`${P}/insights/trend/`, { ...pageviews, properties: [{ ...enterprise[0], operator: "is_not" }] });
    // globex #4; initech #7 and eve's #8 (no company: the property is missing).
    expect(others.body.result[0].data).toEqual([1, 2, 0]);
  });

  it("the events list takes group property filters too", async () => {
    const res = await s.get(`${P}/events/?${qs({ properties: [{ key: "industry", value: "energy", type: "group", group_type_index: 0 }] })}`);
    expect(res.body.results.map((e: { event: string; distinct_id: string }) => [e.event, e.distinct_id])).toEqual([
      ["signup", "cat"],
      ["$pageview", "cat"],
    ]);
  });
});

describe("retention by group", () => {
  const retention = {
    target_entity: { id: "$pageview", type: "events" },
    returning_entity: { id: "$pageview", type: "events" },
    period: "Day",
    total_intervals: 3,
    date_to: "2024-03-03",
  };
  const counts = (body: { result: { values: { count: number }[] }[] }) => body.result.map((row) => row.values.map((v) => v.count));

  it("cohorts of companies: acme and globex on 03-01, acme back on 03-03; initech on 03-02; acme on 03-03", async () => {
    const res = await s.get(`${P}/insights/retention/?${qs({ ...retention, aggregation_group_type_index: 0 })}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(counts(res.body)).toEqual([
      [2, 0, 1],
      [1, 0, 0],
      [1, 0, 0],
    ]);
    const persons = await s.get(`${P}/insights/retention/?${qs(retention)}`);
    expect(counts(persons.body)).toEqual([
      [3, 0, 1],
      [2, 0, 0],
      [1, 0, 0],
    ]);
  });

  it("lists the companies of a cohort", async () => {
    const res = await s.get(`${P}/persons/retention/?${qs({ ...retention, aggregation_group_type_index: 0, selected_interval: 0 })}`);
    expect(res.body.results[0].people.map((g: { group_key: string; group_type_index: number }) => [g.group_key, g.group_type_index])).toEqual([
      ["acme", 0],
      ["globex", 0],
    ]);
  });
});

describe("paths by group", () => {
  it("joins the events of a workspace's persons into one path", async () => {
    // ws-a1 within 30 minutes: ann $pageview 09:00, ann signup 09:10 (ben's pageview at 10:00 is 50 min later: a new path).
    const res = await s.post(`${P}/insights/path/`, { date_from: "2024-03-01", date_to: "2024-03-01", aggregation_group_type_index: 1 });
    expect(res.body.result.map((e: { source: string; target: string; value: number }) => [e.source, e.target, e.value])).toEqual([["1_https://b2b.test/pricing", "2_signup", 1]]);
  });
});

describe("lifecycle aggregated by a group type", () => {
  // $pageview by company, daily, Mar 1–4 (the bucket before, Feb 29, is looked at too). acme: Mar 1 (ann, ben —
  // one company) and Mar 3; globex: Mar 1; initech: Mar 2; eve's pageview has no company and drops out. Every
  // company was created before the range, so no bucket is "new": a first activity is resurrecting, the day after
  // an activity without one is dormant.
  const lifecycle = { events: [{ id: "$pageview", type: "events", order: 0 }], shown_as: "Lifecycle", date_from: "2024-03-01", date_to: "2024-03-04", interval: "day", aggregation_group_type_index: 0 };

  it("counts companies, with the groups' own created_at", async () => {
    const res = await s.post(`${P}/insights/trend/`, lifecycle);
    expect(res.status).toBe(200);
    const byStatus = Object.fromEntries((res.body.result as { status: string; data: number[] }[]).map((i) => [i.status, i.data]));
    expect(byStatus).toEqual({ new: [0, 0, 0, 0], returning: [0, 0, 0, 0], resurrecting: [2, 1, 1, 0], dormant: [0, -2, -1, -1] });
  });

  it("lists the companies behind a lifecycle number, in the group actor shape", async () => {
    const query = new URLSearchParams({
      events: JSON.stringify(lifecycle.events),
      shown_as: "Lifecycle",
      date_from: "2024-03-01",
      date_to: "2024-03-04",
      interval: "day",
      aggregation_group_type_index: "0",
      lifecycle_type: "dormant",
      target_date: "2024-03-02",
    });
    const res = await s.get(`${P}/persons/lifecycle/?${query.toString()}`);
    expect(res.status).toBe(200);
    const people = res.body.results[0].people as { type: string; group_key: string }[];
    expect(people.map((p) => [p.type, p.group_key]).sort()).toEqual([["group", "acme"], ["group", "globex"]]);
  });
});

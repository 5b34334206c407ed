import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * fixtures/scenarios/funnels.json over HTTP: a shop where seven people sign up, create a project and buy
 * (clock frozen at 2024-04-05T12:00Z, UTC). The journeys, per person (April 2024):
 *   ann  signup 1st 10:00 · created_project 1st 11:00 · $pageview 2nd 09:00 · purchase 3rd 10:00 · $pageview 4th 08:00
 *   ben  signup 1st 12:00 · created_project 2nd 09:00 · $pageview 3rd 15:00
 *   cat  signup 2nd 08:00 · purchase 2nd 09:00 · $pageview 3rd 10:00
 *   dan  created_project 2nd 12:00 · purchase 2nd 13:00              (never signs up)
 *   eve  signup 3rd 10:00 · $pageview 4th 11:00
 *   fay  $pageview 1st 09:00 · $pageview 2nd 09:00                     (never signs up)
 *   gus  signup 4th 09:00 · created_project 4th 09:30 · purchase 4th 10:00
 * Every expected number below is worked out from this table by hand.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("funnels"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const steps = ["signup", "created_project", "purchase"].map((id, order) => ({ id, type: "events", order }));

describe("the funnels scenario", () => {
  it("funnel signup → created_project → purchase, ordered, 14-day window", async () => {
    const res = await s.post(`${P}/insights/funnel/`, { events: steps, date_from: "2024-04-01", date_to: "2024-04-04" });
    expect(res.status).toBe(200);
    // signup: ann, ben, cat, eve, gus = 5 (dan and fay never sign up).
    // created_project after signup: ann, ben, gus = 3 (cat buys without creating a project).
    // purchase after created_project: ann, gus = 2.
    expect(res.body.result.map((step: { count: number }) => step.count)).toEqual([5, 3, 2]);
    // signup→created_project: ann 1 h, ben 21 h, gus 30 min ⇒ (3600 + 75600 + 1800) / 3 = 27000 s.
    // created_project→purchase: ann 47 h, gus 30 min ⇒ (169200 + 1800) / 2 = 85500 s.
    expect(res.body.result.map((step: { average_conversion_time: number | null }) => step.average_conversion_time)).toEqual([null, 27000, 85500]);
  });

  it("a one-day window drops ann's purchase (48 h after her signup)", async () => {
    const res = await s.post(`${P}/insights/funnel/`, { events: steps, date_from: "2024-04-01", date_to: "2024-04-04", funnel_window_interval: 1, funnel_window_interval_unit: "day" });
    // The window counts from the first step: ann's purchase is 48 h after her signup, outside one day.
    expect(res.body.result.map((step: { count: number }) => step.count)).toEqual([5, 3, 1]);
  });

  it("retention: first signup, then coming back with a $pageview, daily over four days", async () => {
    const filter = {
      target_entity: JSON.stringify({ id: "signup", type: "events" }),
      returning_entity: JSON.stringify({ id: "$pageview", type: "events" }),
      retention_type: "retention_first_time",
      period: "Day",
      total_intervals: "4",
      date_to: "2024-04-04",
    };
    const res = await s.get(`${P}/insights/retention/?${new URLSearchParams(filter)}`);
    expect(res.status).toBe(200);
    // Day 0 is the cohort (first signup that day); Day j counts the cohort's people with a $pageview j days later.
    //   1st: ann, ben → 2nd ann · 3rd ben · 4th ann          [2, 1, 1, 1]
    //   2nd: cat      → 3rd cat · 4th – · 5th (future)        [1, 1, 0, 0]
    //   3rd: eve      → 4th eve                              [1, 1, 0, 0]
    //   4th: gus      → nothing after                        [1, 0, 0, 0]
    expect(res.body.result.map((r: { date: string; values: { count: number }[] }) => [r.date, r.values.map((v) => v.count)])).toEqual([
      ["2024-04-01T00:00:00Z", [2, 1, 1, 1]],
      ["2024-04-02T00:00:00Z", [1, 1, 0, 0]],
      ["2024-04-03T00:00:00Z", [1, 1, 0, 0]],
      ["2024-04-04T00:00:00Z", [1, 0, 0, 0]],
    ]);
  });

  it("ships the two analyses as saved insights", async () => {
    const res = await s.get(`${P}/insights/`);
    expect(res.body.results.map((i: { short_id: string; filters: { insight: string } }) => [i.short_id, i.filters.insight])).toEqual(
      expect.arrayContaining([["Fnl00001", "FUNNELS"], ["Ret00001", "RETENTION"]]),
    );
  });
});

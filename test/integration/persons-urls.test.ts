import { afterEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Results link to the actors behind each number (funnel steps, retention cohorts, correlation rows). The web app
 * sends display-only keys with its filters (`layout`, `show_legend`, `hidden_legend_keys`); those links must carry
 * only what the persons endpoint declares, or following them is a 400 "Unknown field".
 */
const P = "/api/projects/1";
const DISPLAY = { layout: "horizontal", show_legend: true, hidden_legend_keys: { a: true }, display: "FunnelViz" };

let s: TestServer;
afterEach(async () => s?.close());

const follow = async (url: string) => {
  const res = await s.get(url.replace(/^https?:\/\/[^/]+/, ""));
  expect(res.status, `${url} answered ${JSON.stringify(res.body)}`).toBe(200);
  return res;
};

describe("persons URLs in results", () => {
  it("funnel steps link to their converted and dropped actors, without the display keys", async () => {
    s = await startTestServer(scenario("basic"));
    const funnel = await s.post(`${P}/insights/funnel/`, {
      events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }],
      date_from: "2024-03-01",
      date_to: "2024-03-05",
      ...DISPLAY,
    });
    expect(funnel.status).toBe(200);
    const steps = funnel.body.result as { count: number; converted_people_url: string; dropped_people_url: string | null }[];
    for (const step of steps) {
      expect(step.converted_people_url).not.toMatch(/layout|show_legend|hidden_legend_keys/);
      const converted = await follow(step.converted_people_url);
      expect(converted.body.results[0].people).toHaveLength(step.count);
      if (step.dropped_people_url) await follow(step.dropped_people_url);
    }
  });

  it("retention cohorts link to their actors, without keys the persons endpoint does not take", async () => {
    s = await startTestServer(scenario("basic"));
    const query = new URLSearchParams({
      target_entity: JSON.stringify({ id: "$pageview", type: "events" }),
      returning_entity: JSON.stringify({ id: "$pageview", type: "events" }),
      date_to: "2024-03-05",
      total_intervals: "3",
      // Declared by the insight endpoint, not by the persons one.
      refresh: "true",
    });
    const retention = await s.get(`${P}/insights/retention/?${query.toString()}`);
    expect(retention.status, JSON.stringify(retention.body)).toBe(200);
    for (const cohort of retention.body.result as { people_url: string; values: { count: number }[] }[]) {
      expect(cohort.people_url).not.toMatch(/refresh/);
      const actors = await follow(cohort.people_url);
      expect(actors.body.results[0].people).toHaveLength(cohort.values[0]!.count);
    }
  });
});

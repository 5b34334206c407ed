import { afterEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Trend formulas with a breakdown, as the real service's apply_formula orders and fills them
 * (posthog/hogql_queries/insights/trends/trends_query_runner.py). The worked example (analytics §2.8) plus one
 * signup by `a` on Mar 2 with $browser Firefox. Over Mar 1–3, breakdown $browser:
 *   A = signup:    Firefox [0,1,0]; null [1,1,0] (events 2 and 8 have no $browser)
 *   B = $pageview: Chrome [2,0,1]; Firefox [0,1,0]; Safari [1,0,0]
 * A+B per value (a series lacking the value adds zeros):
 *   Firefox [0,2,0] = 2; Chrome [2,0,1] = 3 (A lacks it); Safari [1,0,0] = 1 (A lacks it); null [1,1,0] = 2.
 */
let s: TestServer;
afterEach(() => s?.close());
const P = "/api/projects/1";

function doc() {
  const d = scenario("basic");
  d.events!.push({ project_id: "1", uuid: "01890000-0000-4000-8000-000000000050", distinct_id: "a", event: "signup", timestamp: "2024-03-02T10:00:00Z", properties: { $browser: "Firefox" } });
  return d;
}

const filter = { events: [{ id: "signup", order: 0 }, { id: "$pageview", order: 1 }], formula: "A+B", breakdown: "$browser", date_from: "2024-03-01", date_to: "2024-03-03" };
const rows = (result: any[]) => result.map((r) => [r.breakdown_value, r.data, r.count]);

describe("formula with a breakdown", () => {
  it("takes the values of every series; orders regular values by total, where a value the first series lacks sorts with total 0 (its zero filler is the base)", async () => {
    s = await startTestServer(doc());
    const res = await s.post(`${P}/insights/trend/`, filter);
    expect(res.status).toBe(200);
    // Firefox (total 2) first; Chrome and Safari sort as 0, then by count (3 before 1); null last.
    expect(rows(res.body.result)).toEqual([
      ["Firefox", [0, 2, 0], 2],
      ["Chrome", [2, 0, 1], 3],
      ["Safari", [1, 0, 0], 1],
      ["$$_posthog_breakdown_null_$$", [1, 1, 0], 2],
    ]);
    expect(res.body.result.map((r: any) => r.label)).toEqual(Array(4).fill("Formula (A+B)"));
    expect(res.body.result.every((r: any) => r.action === null)).toBe(true);
  });

  it("ties on total and count go by data, then by the value, both descending", async () => {
    s = await startTestServer(scenario("basic"));
    // Only $pageview: Firefox [0,1,0] and Safari [1,0,0] tie on total and count; Safari's data is larger.
    const res = await s.post(`${P}/insights/trend/`, { ...filter, events: [{ id: "$pageview", order: 0 }], formula: "A*2" });
    expect(rows(res.body.result)).toEqual([
      ["Chrome", [4, 0, 2], 6],
      ["Safari", [2, 0, 0], 2],
      ["Firefox", [0, 2, 0], 2],
    ]);
  });

  it("with compare: each period by count, descending, ties in natural order of the value (null's $$ sorts before letters)", async () => {
    s = await startTestServer(doc());
    const res = await s.post(`${P}/insights/trend/`, { ...filter, compare: true });
    // The previous period (Feb 27–29) has no events, so it has no values and no items.
    expect(rows(res.body.result)).toEqual([
      ["Chrome", [2, 0, 1], 3],
      ["$$_posthog_breakdown_null_$$", [1, 1, 0], 2],
      ["Firefox", [0, 2, 0], 2],
      ["Safari", [1, 0, 0], 1],
    ]);
    expect(res.body.result.every((r: any) => r.compare_label === "current")).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultApiKey, generateFixtures } from "../../src/fixtures/generate.ts";
import { qs, type RequestOptions, scenario, startTestServer, type TestResponse, type TestServer } from "../support/server.ts";

/**
 * The persons ("actors") endpoints against the default generated fixtures (500 persons, 50k events, seed 42):
 * for every analysis kind and several data points, the persons listed for a number are as many as the number
 * (paths: their numbers of paths add up to the edge's value, as an actor can take an edge in several sessions).
 */
let s: TestServer;
const KEY = defaultApiKey(42);
const P = "/api/projects/1";

beforeAll(async () => {
  s = await startTestServer(generateFixtures({ seed: 42, now: new Date("2024-06-15T12:00:00Z") }));
});
afterAll(() => s.close());

const opts: RequestOptions = { key: KEY };
const get = (path: string) => s.get(path, opts);
const post = (path: string, body: unknown) => s.post(path, body, opts);

interface Listed {
  uuids: string[];
  values: (number | null)[];
  missing: number;
}

/** Every page of an actors answer, following `next`; each page must be valid and count what it holds. */
async function listAll(path: string, method: "GET" | "POST" = "GET", body?: unknown): Promise<Listed> {
  const listed: Listed = { uuids: [], values: [], missing: 0 };
  let url: string | null = path;
  while (url) {
    const res: TestResponse = await s.request(method, url, { ...opts, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [entry] = res.body.results;
    expect(entry.count).toBe(entry.people.length);
    for (const person of entry.people) {
      listed.uuids.push(person.uuid ?? person.id); // a group's id is its key
      listed.values.push(person.value_at_data_point);
    }
    listed.missing = res.body.missing_persons;
    url = res.body.next === null ? null : new URL(res.body.next).pathname + new URL(res.body.next).search;
  }
  expect(new Set(listed.uuids).size).toBe(listed.uuids.length);
  return listed;
}

/** A few indexes spread over a list (first, some middle ones, last). */
const spread = (length: number, n = 4): number[] => [...new Set(Array.from({ length: n }, (_, i) => Math.round((i * (length - 1)) / (n - 1))))];

describe("the number of actors equals the insight's number", () => {
  it("trends: dau per day, and per breakdown value", async () => {
    const filter = { events: [{ id: "$pageview", type: "events", order: 0, math: "dau" }], date_from: "-14d" };
    const trend = (await post(`${P}/insights/trend/`, filter)).body.result[0];
    for (const i of spread(trend.days.length)) {
      const listed = await listAll(`${P}/persons/trends/?${qs({ ...filter, date_from: trend.days[i], date_to: trend.days[i], entity_id: "$pageview", entity_math: "dau" })}`);
      expect([trend.days[i], listed.uuids.length, listed.missing]).toEqual([trend.days[i], trend.data[i], 0]);
    }
    const byBrowser = (await post(`${P}/insights/trend/`, { ...filter, breakdown: "$browser" })).body.result;
    for (const item of byBrowser.slice(0, 2)) {
      const i = item.data.findIndex((v: number) => v > 0);
      const listed = await listAll(`${P}/persons/trends/?${qs({ ...filter, breakdown: "$browser", date_from: item.days[i], date_to: item.days[i], entity_order: 0, breakdown_value: item.breakdown_value })}`);
      expect(listed.uuids.length).toBe(item.data[i]);
    }
  });

  it("trends: total counts events, so the actors' event counts add up to it; weekly_active looks back 7 days", async () => {
    const filter = { events: [{ id: "$pageview", type: "events", order: 0 }], date_from: "2024-06-10", date_to: "2024-06-10" };
    const [item] = (await post(`${P}/insights/trend/`, filter)).body.result;
    const listed = await listAll(`${P}/persons/trends/?${qs({ ...filter, entity_id: "$pageview" })}`);
    expect(listed.values.reduce((a, b) => a! + b!, 0)).toBe(item.data[0]);
    const weekly = { events: [{ id: "$pageview", type: "events", order: 0, math: "weekly_active" }], date_from: "2024-06-10", date_to: "2024-06-10" };
    const [active] = (await post(`${P}/insights/trend/`, weekly)).body.result;
    expect((await listAll(`${P}/persons/trends/?${qs(weekly)}`)).uuids.length).toBe(active.data[0]);
  });

  it("stickiness: actors on exactly k days", async () => {
    const filter = { insight: "STICKINESS", events: [{ id: "$pageview", type: "events", order: 0 }], date_from: "-30d" };
    const [item] = (await post(`${P}/insights/trend/`, filter)).body.result;
    const ks = item.days.filter((k: number) => item.data[k - 1] > 0).slice(0, 4);
    expect(ks.length).toBeGreaterThan(1);
    for (const k of ks) {
      const listed = await listAll(`${P}/persons/stickiness/?${qs({ ...filter, stickiness_days: k })}`);
      expect([k, listed.uuids.length]).toEqual([k, item.data[k - 1]]);
    }
  });

  it("lifecycle: each status on several days (dormant as a positive count of persons)", async () => {
    const filter = { insight: "LIFECYCLE", events: [{ id: "$pageview", type: "events", order: 0 }], date_from: "-14d" };
    const items = (await post(`${P}/insights/trend/`, filter)).body.result;
    for (const item of items) {
      for (const i of spread(item.days.length, 3)) {
        const listed = await listAll(`${P}/persons/lifecycle/?${qs({ ...filter, target_date: item.days[i], lifecycle_type: item.status })}`);
        expect([item.status, item.days[i], listed.uuids.length]).toEqual([item.status, item.days[i], Math.abs(item.data[i])]);
      }
    }
  });

  it("funnels: every step's converted and dropped people URLs resolve to /persons/funnel/ and list the step's number", async () => {
    const saved = (await get(`${P}/insights/2/`)).body;
    const steps = (await post(`${P}/insights/funnel/`, saved.filters)).body.result;
    expect(steps.length).toBe(3);
    for (const [k, step] of steps.entries()) {
      expect(new URL(step.converted_people_url, s.base).pathname).toBe(`${P}/persons/funnel/`);
      expect((await listAll(step.converted_people_url)).uuids.length).toBe(step.count);
      if (k === 0) expect(step.dropped_people_url).toBeNull();
      else expect((await listAll(step.dropped_people_url)).uuids.length).toBe(steps[k - 1].count - step.count);
    }
  });

  it("funnels with a breakdown: the URLs carry funnel_step_breakdown; POST takes the filter as the body", async () => {
    const filter = { events: ["$pageview", "signed_up"].map((id, order) => ({ id, type: "events", order })), date_from: "-60d", breakdown: "$browser" };
    const funnels = (await post(`${P}/insights/funnel/`, filter)).body.result;
    for (const steps of funnels.slice(0, 2)) {
      expect((await listAll(steps[1].converted_people_url)).uuids.length).toBe(steps[1].count);
      const viaPost = await listAll(`${P}/persons/funnel/?funnel_step=1&funnel_step_breakdown=${encodeURIComponent(steps[0].breakdown_value)}`, "POST", filter);
      expect(viaPost.uuids.length).toBe(steps[0].count);
    }
  });

  it("funnel correlation: the success and failure people URLs list success_count and failure_count", async () => {
    const funnel = { events: ["$pageview", "signed_up"].map((id, order) => ({ id, type: "events", order })), date_from: "-90d" };
    const extras = [
      {},
      // Every row: a named property some persons lack is the value "" (its URL lists them too).
      { funnel_correlation_type: "properties", funnel_correlation_names: ["plan", "country"], rows: 20 },
      // $autocapture rows: the $event_type and elements chain.
      { funnel_correlation_type: "event_with_properties", funnel_correlation_event_names: ["$autocapture"], rows: 20 },
      // Aggregated by groups: the groups' properties.
      { aggregation_group_type_index: 0, funnel_correlation_type: "properties", funnel_correlation_names: ["industry", "plan"], rows: 20 },
    ];
    for (const { rows = 3, ...extra } of extras) {
      const { result } = (await post(`${P}/insights/funnel/correlation/`, { ...funnel, ...extra })).body;
      expect(result.events.length).toBeGreaterThan(1);
      for (const row of result.events.slice(0, rows)) {
        const which = `${JSON.stringify(extra)}: ${row.event.event}`;
        expect((await listAll(row.success_people_url)).uuids.length, which).toBe(row.success_count);
        expect((await listAll(row.failure_people_url)).uuids.length, which).toBe(row.failure_count);
      }
    }
  });

  it("persons URLs carry only keys the persons endpoints declare: display keys are left out, breakdowns kept", async () => {
    const display = { layout: "vertical", show_legend: true, hidden_legend_keys: { 0: true }, show_values_on_series: true };
    const pair = ["$pageview", "signed_up"].map((id, order) => ({ id, type: "events", order }));
    const funnels = (await post(`${P}/insights/funnel/`, { ...display, events: pair, date_from: "-60d", breakdowns: [{ property: "$browser", type: "event" }] })).body.result;
    for (const steps of funnels.slice(0, 2)) {
      expect(new URL(steps[1].converted_people_url, s.base).searchParams.has("layout")).toBe(false);
      expect((await listAll(steps[1].converted_people_url)).uuids.length).toBe(steps[1].count);
      expect((await listAll(steps[1].dropped_people_url)).uuids.length).toBe(steps[0].count - steps[1].count);
    }
    const correlation = (await post(`${P}/insights/funnel/correlation/`, { ...display, events: pair, date_from: "-90d" })).body.result;
    for (const row of correlation.events.slice(0, 2)) {
      expect((await listAll(row.success_people_url)).uuids.length).toBe(row.success_count);
      expect((await listAll(row.failure_people_url)).uuids.length).toBe(row.failure_count);
    }
    // The retention GET declares no display key; a saved retention insight's filters may hold them.
    const saved = await post(`${P}/insights/`, { name: "weekly retention", filters: { ...display, insight: "RETENTION", period: "Week", total_intervals: 4, show_mean: true } });
    const rows = (await get(`${P}/insights/${saved.body.id}/?refresh=true`)).body.result;
    expect(rows).toHaveLength(4);
    for (const row of rows) expect((await listAll(row.people_url)).uuids.length).toBe(row.values[0].count);
  });

  it("retention: each cohort's people_url lists the cohort (recurring and first time)", async () => {
    for (const retention_type of ["retention_recurring", "retention_first_time"]) {
      const filter = { period: "Week", total_intervals: 8, retention_type };
      const rows = (await get(`${P}/insights/retention/?${qs(filter)}`)).body.result;
      for (const i of spread(rows.length)) {
        expect((await listAll(rows[i].people_url)).uuids.length).toBe(rows[i].values[0].count);
      }
    }
  });

  it("paths: the actors' numbers of paths add up to each edge's value; drop-offs likewise", async () => {
    const filter = { include_event_types: ["$pageview"], date_from: "-30d" };
    const edges = (await get(`${P}/insights/path/?${qs(filter)}`)).body.result;
    expect(edges.length).toBeGreaterThan(4);
    for (const edge of edges.slice(0, 4)) {
      const listed = await listAll(`${P}/persons/path/?${qs({ ...filter, path_start_key: edge.source, path_end_key: edge.target })}`);
      expect(listed.values.reduce((a, b) => a! + b!, 0)).toBe(edge.value);
      expect(listed.uuids.length).toBeLessThanOrEqual(edge.value);
    }
    const viaPost = await listAll(`${P}/persons/path/?path_start_key=${encodeURIComponent(edges[0].source)}&path_end_key=${encodeURIComponent(edges[0].target)}`, "POST", filter);
    expect(viaPost.values.reduce((a, b) => a! + b!, 0)).toBe(edges[0].value);
  });
});

describe("actors endpoints: parameters, paging and search", () => {
  const lifecycle = { events: [{ id: "$pageview", type: "events", order: 0 }], date_from: "-7d" };

  it.each([
    ["target_date", { lifecycle_type: "new" }],
    ["lifecycle_type", { target_date: "2024-06-12" }],
  ])("lifecycle without %s is a 400 naming it", async (attr, point) => {
    const res = await get(`${P}/persons/lifecycle/?${qs({ ...lifecycle, ...point })}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr });
  });

  it("pages with limit/offset: next advances offset while more follow; initial is the first page", async () => {
    const path = `${P}/persons/trends/?${qs({ ...lifecycle, entity_id: "$pageview", limit: 7 })}`;
    const first = await get(path);
    expect(first.body.results[0].count).toBe(7);
    expect(new URL(first.body.next).searchParams.get("offset")).toBe("7");
    expect(new URL(first.body.initial).searchParams.has("offset")).toBe(false);
    const all = await listAll(`${P}/persons/trends/?${qs({ ...lifecycle, entity_id: "$pageview" })}`);
    const paged = await listAll(path);
    expect(paged.uuids).toEqual(all.uuids);
  });

  it("search keeps actors whose email, name or distinct id contains the text", async () => {
    const all = await listAll(`${P}/persons/trends/?${qs({ ...lifecycle, entity_id: "$pageview" })}`);
    const res = await get(`${P}/persons/trends/?${qs({ ...lifecycle, entity_id: "$pageview", search: ".ORG" })}`);
    const people = res.body.results[0].people;
    expect(people.length).toBeGreaterThan(0);
    expect(people.length).toBeLessThan(all.uuids.length);
    for (const p of people) expect(JSON.stringify([p.properties.email, p.name, p.distinct_ids]).toLowerCase()).toContain(".org");
  });

  it("a data point for a series the insight does not have is a 400", async () => {
    const res = await get(`${P}/persons/trends/?${qs({ ...lifecycle, entity_id: "signed_up" })}`);
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("entity_id");
  });

  it("repeats are answered from the cache", async () => {
    const path = `${P}/persons/stickiness/?${qs({ ...lifecycle, stickiness_days: 1 })}`;
    expect([(await get(path)).body.is_cached, (await get(path)).body.is_cached]).toEqual([false, true]);
  });
});

describe("actors on the §2.8 data", () => {
  it("follows a funnel step URL to the persons who reached it", async () => {
    const basic = await startTestServer(scenario("basic"));
    try {
      const shop = { events: ["$pageview", "signup", "purchase"].map((id, order) => ({ id, type: "events", order })), date_from: "2024-03-01", date_to: "2024-03-04", funnel_window_interval: 1 };
      const steps = (await basic.post(`${P}/insights/funnel/`, shop)).body.result;
      const reached = await basic.get(steps[2].converted_people_url);
      expect(reached.body.results[0].people.map((p: { name: string }) => p.name)).toEqual(["a@corp.io"]);
      const dropped = await basic.get(steps[2].dropped_people_url);
      expect(dropped.body.results[0].people.map((p: { name: string }) => p.name)).toEqual(["b@corp.io"]);
    } finally {
      await basic.close();
    }
  });
});

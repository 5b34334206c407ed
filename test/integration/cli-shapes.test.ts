import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OTHER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

/** What PostHog's CLI (@posthog/cli) sends and reads, on the basic scenario (now: Tuesday 2024-03-05 12:00 UTC). */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const ids = (res: { body: { results: { id: number }[] } }) => res.body.results.map((i) => i.id);
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

describe("insights list: the CLI's parameters", () => {
  it("tags: insights having any of the JSON-listed tags; not a JSON list is 400 naming tags", async () => {
    expect(ids(await s.get(`${P}/insights/?tags=${q(["web", "other"])}`))).toEqual([1]);
    expect(ids(await s.get(`${P}/insights/?tags=${q(["other"])}`))).toEqual([]);
    const bad = await s.get(`${P}/insights/?tags=web`);
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("tags");
  });

  it("created_by takes one id or a JSON list of ids; anything else is 400", async () => {
    expect(ids(await s.get(`${P}/insights/?created_by=1`))).toEqual([2, 1]);
    expect(ids(await s.get(`${P}/insights/?created_by=${q([2, 1])}`))).toEqual([2, 1]);
    expect(ids(await s.get(`${P}/insights/?created_by=${q([2])}`))).toEqual([]);
    expect((await s.get(`${P}/insights/?created_by=ada`)).body.attr).toBe("created_by");
  });

  it("created_date_from/_to compare created_at strictly (insight 1 at 10:00, insight 2 at 11:00 on 4 March)", async () => {
    expect(ids(await s.get(`${P}/insights/?created_date_from=2024-03-04T10:30:00Z`))).toEqual([2]);
    expect(ids(await s.get(`${P}/insights/?created_date_to=2024-03-04T10:30:00Z`))).toEqual([1]);
    expect(ids(await s.get(`${P}/insights/?created_date_from=2024-03-04T10:00:00Z`))).toEqual([2]);
    expect(ids(await s.get(`${P}/insights/?created_date_from=-2d`))).toEqual([2, 1]);
    expect((await s.get(`${P}/insights/?created_date_from=yesterday`)).body.attr).toBe("created_date_from");
  });

  it("date_from/date_to filter on last_modified_at: after a rename, only the renamed insight is newer than -1h", async () => {
    expect(ids(await s.get(`${P}/insights/?date_from=-1h`))).toEqual([]);
    s.clock.set(Date.parse("2024-03-05T13:00:00Z"));
    await s.patch(`${P}/insights/1/`, { name: "Pageviews (renamed)" });
    expect(ids(await s.get(`${P}/insights/?date_from=-1h`))).toEqual([1]);
    expect(ids(await s.get(`${P}/insights/?date_to=-1h`))).toEqual([2]);
  });

  it("last_viewed_at is the caller's view; last_viewed_date_from/_to keep only insights the caller viewed in the window", async () => {
    expect((await s.get(`${P}/insights/`)).body.results.map((i: { last_viewed_at: unknown }) => i.last_viewed_at)).toEqual([null, null]);
    await s.post(`${P}/insights/2/viewed/`);
    const listed = await s.get(`${P}/insights/?last_viewed_date_from=-1h`);
    expect(ids(listed)).toEqual([2]);
    expect(listed.body.results[0].last_viewed_at).toBe("2024-03-05T12:00:00.000Z");
    expect(ids(await s.get(`${P}/insights/?last_viewed_date_to=-1h`))).toEqual([]);
    expect(ids(await s.get(`${P}/insights/?last_viewed_date_to=2024-03-06`))).toEqual([2]);
  });

  it("dashboards: insights on every listed dashboard (AND); insight 1 is on dashboard 1", async () => {
    expect(ids(await s.get(`${P}/insights/?dashboards=${q([1])}`))).toEqual([1]);
    await s.patch(`${P}/insights/2/`, { dashboards: [1] });
    await s.patch(`${P}/insights/1/`, { dashboards: [] });
    expect(ids(await s.get(`${P}/insights/?dashboards=${q([1])}`))).toEqual([2]);
    expect(ids(await s.get(`${P}/insights/?dashboards=${q([1, 99])}`))).toEqual([]);
    expect((await s.get(`${P}/insights/?dashboards=${q(["one"])}`)).body.attr).toBe("dashboards");
  });

  it("user (any value) keeps the caller's own insights: project 2's insight is Bob's", async () => {
    expect(ids(await s.get(`/api/projects/2/insights/`))).toEqual([4]);
    expect(ids(await s.get(`/api/projects/2/insights/?user=true`))).toEqual([]);
    expect(ids(await s.get(`/api/projects/2/insights/?user=false`))).toEqual([]);
    expect(ids(await s.get(`/api/projects/2/insights/?user=true`, { key: OTHER_KEY }))).toEqual([4]);
  });

  it("include_dashboards is accepted; every insight carries alerts [] and a query node derived from its filters", async () => {
    const res = await s.get(`${P}/insights/?include_dashboards=true`);
    expect(res.status).toBe(200);
    const funnel = res.body.results.find((i: { id: number }) => i.id === 2);
    expect(funnel.alerts).toEqual([]);
    expect(funnel.query).toEqual({
      kind: "InsightVizNode",
      source: {
        kind: "FunnelsQuery",
        series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "signup" }, { kind: "EventsNode", event: "purchase" }],
        dateRange: { date_from: "2024-03-01", date_to: "2024-03-04" },
        funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: "day" },
      },
    });
  });
});

describe("an insight addressed by its short id", () => {
  it("GET, PATCH and DELETE work as with the numeric id; an unknown short id is 404", async () => {
    const got = await s.get(`${P}/insights/Fnnl0002/`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(2);
    const renamed = await s.patch(`${P}/insights/Fnnl0002/`, { name: "Funnel" });
    expect(renamed.body).toMatchObject({ id: 2, name: "Funnel" });
    expect((await s.del(`${P}/insights/Fnnl0002/`)).status).toBe(405);
    expect((await s.get(`${P}/insights/Zzzz9999/`)).status).toBe(404);
    // Another project's short id names nothing here; a deleted insight's neither.
    expect((await s.get(`${P}/insights/Mobl0004/`)).status).toBe(404);
    expect((await s.get(`${P}/insights/Gone0003/`)).status).toBe(404);
    expect((await s.get(`${P}/insights/Fnnl0002/activity/`)).status).toBe(200);
  });

  it("a query node derived from filters re-runs to the saved insight's numbers through the trend endpoint", async () => {
    const insight = await s.get(`${P}/insights/PgVw0001/`);
    expect(insight.body.result[0].data).toEqual([3, 1, 1]);
    expect(insight.body.query.source.kind).toBe("TrendsQuery");
    const created = await s.post(`${P}/insights/`, { name: "Copy", query: insight.body.query });
    const copy = await s.get(`${P}/insights/${created.body.id}/`);
    expect(copy.body.result[0].data).toEqual([3, 1, 1]);
  });
});

describe("insight retrieve: filters_override", () => {
  it("applies as a dashboard's filters for this request only: $pageview from 2 March to now is 1, 1, 0, 0", async () => {
    // date_from alone replaces the whole range, as PostHog's apply_dashboard_filters does: 03-02 … now (03-05).
    const over = await s.get(`${P}/insights/1/?filters_override=${q({ date_from: "2024-03-02" })}`);
    expect(over.body.result[0].data).toEqual([1, 1, 0, 0]);
    expect(over.body.filters.date_from).toBe("2024-03-01");
    expect((await s.get(`${P}/insights/1/`)).body.result[0].data).toEqual([3, 1, 1]);
    expect((await s.get(`${P}/insights/1/?include_dashboards=true&variables_override=${q({})}`)).status).toBe(200);
    const bad = await s.get(`${P}/insights/1/?filters_override=${q([1])}`);
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("filters_override");
  });
});

describe("insights/trending", () => {
  it("lists insights viewed in the window, most viewers first, with view_count, viewers and last_viewed_at", async () => {
    const T = "/api/projects/2";
    await s.post(`${T}/insights/4/viewed/`, undefined, { key: OTHER_KEY });
    s.clock.set(Date.parse("2024-03-05T13:00:00Z"));
    await s.post(`${T}/insights/4/viewed/`);
    const res = await s.get(`${T}/insights/trending/?days=7`);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1);
    expect(res.body.results[0]).toMatchObject({ id: 4, short_id: "Mobl0004", view_count: 2, last_viewed_at: "2024-03-05T13:00:00.000Z" });
    expect(res.body.results[0].viewers.map((u: { id: number }) => u.id)).toEqual([1, 2]);
    s.clock.set(Date.parse("2024-03-13T12:30:00Z"));
    // Bob's view (5 March 12:00) is over 8 days old, Ada's (13:00) not yet.
    expect((await s.get(`${T}/insights/trending/?days=8`)).body.results[0].view_count).toBe(1);
    expect((await s.get(`${T}/insights/trending/`)).body.results).toEqual([]);
  });

  it("orders by views, then latest view; limit and offset page; a bad days is 400", async () => {
    await s.post(`${P}/insights/1/viewed/`);
    s.clock.set(Date.parse("2024-03-05T12:05:00Z"));
    await s.post(`${P}/insights/2/viewed/`);
    expect(ids(await s.get(`${P}/insights/trending/`))).toEqual([2, 1]);
    expect(ids(await s.get(`${P}/insights/trending/?limit=1&offset=1`))).toEqual([1]);
    expect((await s.get(`${P}/insights/trending/?days=0`)).body.attr).toBe("days");
  });
});

describe("persons as the CLI reads and edits them", () => {
  it("last_seen_at is the latest event over the person's distinct ids, and follows new events", async () => {
    const list = await s.get(`${P}/persons/?client_query_id=cli-1`);
    const seen = Object.fromEntries(list.body.results.map((p: { id: number; last_seen_at: string }) => [p.id, p.last_seen_at]));
    expect(seen).toEqual({ 1: "2024-03-03T23:30:00.000Z", 2: "2024-03-03T10:00:00.000Z", 3: "2024-03-05T12:00:00.000Z" });
    await s.store.events.append("1", [{ uuid: "0190aaaa-0000-7000-8000-000000000001", project_id: "1", event: "$pageview", distinct_id: "a-anon", timestamp: Date.parse("2024-03-05T11:00:00Z"), properties: {}, elements_chain: "" }]);
    expect((await s.get(`${P}/persons/1/`)).body.last_seen_at).toBe("2024-03-05T11:00:00.000Z");
  });

  it("delete_property takes $unset as a list", async () => {
    const res = await s.post(`${P}/persons/1/delete_property/`, { $unset: ["plan", "email"] });
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual({});
    expect((await s.post(`${P}/persons/2/delete_property/`, { $unset: [] })).body.attr).toBe("$unset");
  });
});

describe("persons/bulk_delete", () => {
  it("deletes by distinct id and uuid, skips unknown ones, and queues event deletion for Sunday 05:00 UTC", async () => {
    const c = await s.get(`${P}/persons/3/`);
    const res = await s.post(`${P}/persons/bulk_delete/`, { distinct_ids: ["b", "nobody"], ids: [c.body.uuid], delete_events: true });
    expect(res.status).toBe(202);
    expect((await s.get(`${P}/persons/2/`)).status).toBe(404);
    expect((await s.get(`${P}/persons/3/`)).status).toBe(404);
    expect((await s.get(`${P}/persons/1/`)).status).toBe(200);
    expect((await s.get(`${P}/events/?distinct_id=b`)).body.count).toBe(4);
    s.clock.set(Date.parse("2024-03-10T05:00:00Z"));
    // 11 events of project 1: b's 4 and c's 2 go, a's 5 stay.
    expect((await s.get(`${P}/events/`)).body.count).toBe(5);
  });

  it("keep_person keeps the person and queues only its events' deletion; without delete_events nothing happens", async () => {
    expect((await s.post(`${P}/persons/bulk_delete/`, { distinct_ids: ["b"], keep_person: true })).status).toBe(202);
    expect((await s.post(`${P}/persons/bulk_delete/`, { distinct_ids: ["c"], keep_person: true, delete_events: true })).status).toBe(202);
    expect((await s.get(`${P}/persons/2/`)).status).toBe(200);
    expect((await s.get(`${P}/persons/3/`)).status).toBe(200);
    s.clock.set(Date.parse("2024-03-10T05:00:00Z"));
    expect((await s.get(`${P}/events/?distinct_id=c`)).body.count).toBe(0);
    expect((await s.get(`${P}/events/?distinct_id=b`)).body.count).toBe(4);
  });

  it("neither ids nor distinct_ids is 400 naming ids; an unknown body key is 400 naming it", async () => {
    expect((await s.post(`${P}/persons/bulk_delete/`, { delete_events: true })).body.attr).toBe("ids");
    expect((await s.post(`${P}/persons/bulk_delete/`, { distinct_ids: ["b"], everything: true })).body.attr).toBe("everything");
  });
});

describe("unknown sub-paths", () => {
  it("are 404 with the error body, not 400 or 405; a path naming something id-like keeps 405 for a missing method", async () => {
    for (const [method, path] of [
      ["GET", `${P}/insights/whatevers/`],
      ["POST", `${P}/insights/whatevers/`],
      ["POST", `${P}/persons/not_a_thing/`],
      ["PUT", `${P}/persons/bulk_delete_all/`],
      ["GET", `${P}/nothing/here/`],
    ] as const) {
      const res = await s.request(method, path, method === "GET" ? {} : { body: {} });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    expect((await s.request("PUT", `${P}/insights/1/`, { body: {} })).status).toBe(405);
    expect((await s.request("PUT", `${P}/persons/1/`, { body: {} })).status).toBe(405);
  });
});

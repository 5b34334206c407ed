import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const ids = (res: { body: { results: { id: number }[] } }) => res.body.results.map((p) => p.id);
const q = (filters: unknown) => encodeURIComponent(JSON.stringify(filters));

describe("persons list", () => {
  it("orders by created_at descending and shapes each person", async () => {
    const res = await s.get(`${P}/persons/`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
    expect(ids(res)).toEqual([2, 3, 1]);
    const ada = res.body.results[2];
    expect(ada).toMatchObject({ id: 1, name: "a@corp.io", distinct_ids: ["a", "a-anon"], properties: { email: "a@corp.io", plan: "pro" }, created_at: "2024-03-01T08:00:00.000Z" });
    expect(ada.uuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("filters by distinct_id, email and search", async () => {
    expect(ids(await s.get(`${P}/persons/?distinct_id=a-anon`))).toEqual([1]);
    expect(ids(await s.get(`${P}/persons/?email=b@corp.io`))).toEqual([2]);
    expect(ids(await s.get(`${P}/persons/?email=B@corp.io`))).toEqual([]);
    expect(ids(await s.get(`${P}/persons/?search=CORP`))).toEqual([2, 1]);
    expect(ids(await s.get(`${P}/persons/?search=a-anon`))).toEqual([1]);
    expect(ids(await s.get(`${P}/persons/?search=anon`))).toEqual([]);
  });

  it("filters by person properties, groups and cohorts; event filters do not apply", async () => {
    expect(ids(await s.get(`${P}/persons/?properties=${q([{ key: "plan", value: "pro", type: "person" }])}`))).toEqual([1]);
    expect(ids(await s.get(`${P}/persons/?properties=${q([{ key: "plan", value: "pro", operator: "is_not", type: "person" }])}`))).toEqual([2, 3]);
    const group = { type: "OR", values: [{ key: "plan", value: "pro", type: "person" }, { key: "email", value: "EXAMPLE", operator: "icontains", type: "person" }] };
    expect(ids(await s.get(`${P}/persons/?properties=${q(group)}`))).toEqual([3, 1]);
    expect(ids(await s.get(`${P}/persons/?properties=${q([{ key: "id", value: 1, type: "cohort" }])}`))).toEqual([2, 1]);
    expect(ids(await s.get(`${P}/persons/?properties=${q([{ key: "$browser", value: "Chrome" }])}`))).toEqual([2, 3, 1]);
    const bad = await s.get(`${P}/persons/?properties=${q([{ key: "plan", operator: "nearly" }])}`);
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("properties__0__operator");
    const unparsable = await s.get(`${P}/persons/?properties=%5Bnope`);
    expect(unparsable.body).toMatchObject({ attr: "properties", detail: "Properties are unparsable!" });
  });

  it("pages with count, next and an explicit offset=0 previous", async () => {
    const first = await s.get(`${P}/persons/?limit=2`);
    expect(ids(first)).toEqual([2, 3]);
    expect(first.body.count).toBe(3);
    const next = new URL(first.body.next);
    const second = await s.get(next.pathname + next.search);
    expect(ids(second)).toEqual([1]);
    expect(second.body.next).toBeNull();
    expect(new URL(second.body.previous).searchParams.get("offset")).toBe("0");
  });

  it("renders csv with flattened properties and neutralised formulas", async () => {
    await s.patch(`${P}/persons/2/`, { properties: { note: "=HYPERLINK(1)" } });
    const res = await s.get(`${P}/persons/?format=csv`);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = res.text.trim().split("\r\n");
    expect(lines[0]!.split(",")).toEqual(expect.arrayContaining(["id", "properties.email", "properties.note"]));
    expect(lines).toHaveLength(4);
    expect(res.text).toContain("'=HYPERLINK(1)");
  });
});

describe("person retrieve and edits", () => {
  it("retrieves by integer id or uuid; 400 for a malformed id, 404 for an unknown one", async () => {
    const byId = await s.get(`${P}/persons/1/`);
    expect(byId.body.distinct_ids).toEqual(["a", "a-anon"]);
    expect((await s.get(`${P}/persons/${byId.body.uuid}/`)).body.id).toBe(1);
    const bad = await s.get(`${P}/persons/not-an-id/`);
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("id");
    expect((await s.get(`${P}/persons/999/`)).status).toBe(404);
    expect((await s.get(`${P}/persons/4/`)).status).toBe(404);
  });

  it("PATCH merges properties and never removes keys", async () => {
    const res = await s.patch(`${P}/persons/1/`, { properties: { plan: "team", seats: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual({ email: "a@corp.io", plan: "team", seats: 5 });
    expect((await s.patch(`${P}/persons/1/`, {})).body.attr).toBe("properties");
  });

  it("update_property takes key and value from the query (JSON-looking values keep their type) or the body", async () => {
    expect((await s.post(`${P}/persons/2/update_property/?key=seats&value=5`)).body.properties.seats).toBe(5);
    expect((await s.post(`${P}/persons/2/update_property/?key=beta&value=true`)).body.properties.beta).toBe(true);
    expect((await s.post(`${P}/persons/2/update_property/?key=note&value=hello`)).body.properties.note).toBe("hello");
    expect((await s.post(`${P}/persons/2/update_property/`, { key: "obj", value: { a: 1 } })).body.properties.obj).toEqual({ a: 1 });
    expect((await s.post(`${P}/persons/2/update_property/?value=1`)).body.attr).toBe("key");
    expect((await s.post(`${P}/persons/2/update_property/?key=x`)).body.attr).toBe("value");
  });

  it("delete_property removes one key", async () => {
    const res = await s.post(`${P}/persons/1/delete_property/?%24unset=plan`);
    expect(res.status).toBe(200);
    expect(res.body.properties).toEqual({ email: "a@corp.io" });
    expect((await s.post(`${P}/persons/1/delete_property/`)).body.attr).toBe("$unset");
  });

  it("split keeps the main id with the properties and gives every other id a new person", async () => {
    const res = await s.post(`${P}/persons/1/split/`, { main_distinct_id: "a" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, distinct_ids: ["a"], properties: { email: "a@corp.io", plan: "pro" } });
    const split = await s.get(`${P}/persons/?distinct_id=a-anon`);
    expect(split.body.results).toHaveLength(1);
    expect(split.body.results[0]).toMatchObject({ distinct_ids: ["a-anon"], properties: {}, name: "a-anon" });
    expect(split.body.results[0].id).not.toBe(1);
    expect((await s.get(`${P}/persons/`)).body.count).toBe(4);
    expect((await s.post(`${P}/persons/2/split/`, { main_distinct_id: "zzz" })).body.attr).toBe("main_distinct_id");
  });

  it("logs every edit as activity, per person and for the project", async () => {
    await s.patch(`${P}/persons/1/`, { properties: { plan: "team" } });
    await s.post(`${P}/persons/1/delete_property/?%24unset=plan`);
    await s.post(`${P}/persons/1/split/`, {});
    await s.del(`${P}/persons/2/`);
    const own = await s.get(`${P}/persons/1/activity/`);
    expect(own.body.results.map((a: any) => a.activity)).toEqual(["split_person", "delete_property", "updated"]);
    // The real service logs every distinct id the person had before the split, and the person's uuid as the name.
    expect(own.body.results[0].detail.changes[0]).toMatchObject({ action: "split", after: { distinct_ids: ["a", "a-anon"] } });
    expect(own.body.results[0].detail.name).toBe((await s.get(`${P}/persons/1/`)).body.uuid);
    expect(own.body.results[2].user).toEqual({ first_name: "Ada", email: "ada@example.com" });
    const all = await s.get(`${P}/persons/activity/?limit=3`);
    expect(all.body.total_count).toBe(4);
    expect(all.body.results[0].activity).toBe("deleted");
    expect(all.body.next).not.toBeNull();
  });
});

describe("person deletion", () => {
  it("removes the person and its distinct ids at once; a second delete is 404", async () => {
    const res = await s.del(`${P}/persons/2/`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await s.get(`${P}/persons/2/`)).status).toBe(404);
    expect(ids(await s.get(`${P}/persons/?distinct_id=b`))).toEqual([]);
    expect((await s.del(`${P}/persons/2/`)).status).toBe(404);
    // without delete_events the events stay
    expect((await s.get(`${P}/events/?distinct_id=b`)).body.count).toBe(4);
  });

  it("delete_events=true deletes the events at the next Sunday 05:00 UTC, not before", async () => {
    expect((await s.del(`${P}/persons/2/?delete_events=true`)).status).toBe(204);
    // now is Tuesday 2024-03-05 12:00 UTC: the batch runs Sunday 2024-03-10 05:00 UTC
    s.clock.set(Date.parse("2024-03-10T04:59:59Z"));
    expect((await s.get(`${P}/events/?distinct_id=b`)).body.count).toBe(4);
    s.clock.set(Date.parse("2024-03-10T05:00:00Z"));
    expect((await s.get(`${P}/events/?distinct_id=b`)).body.count).toBe(0);
    expect((await s.get(`${P}/events/`)).body.count).toBe(7);
  });

  it("delete_events=false queues nothing", async () => {
    await s.del(`${P}/persons/2/?delete_events=false`);
    s.clock.set(Date.parse("2024-03-11T00:00:00Z"));
    expect((await s.get(`${P}/events/?distinct_id=b`)).body.count).toBe(4);
  });
});

describe("values, cohorts, properties timeline", () => {
  it("values: distinct values with person counts, most frequent first; key required", async () => {
    await s.patch(`${P}/persons/3/`, { properties: { plan: "free" } });
    expect((await s.get(`${P}/persons/values/?key=plan`)).body).toEqual([{ name: "free", count: 2 }, { name: "pro", count: 1 }]);
    expect((await s.get(`${P}/persons/values/?key=plan&value=PR`)).body).toEqual([{ name: "pro", count: 1 }]);
    expect((await s.get(`${P}/persons/values/`)).body.attr).toBe("key");
  });

  it("cohorts: the static cohorts containing the person, or none", async () => {
    expect((await s.get(`${P}/persons/cohorts/?person_id=1`)).body).toEqual({ results: [{ id: 1, name: "Paying", count: 2 }] });
    expect((await s.get(`${P}/persons/cohorts/?person_id=3`)).body).toEqual({ results: [] });
    expect((await s.get(`${P}/persons/cohorts/`)).body.attr).toBe("person_id");
  });

  it("properties_timeline: one point per change of the crucial keys over the person's events", async () => {
    const res = await s.get(`${P}/persons/1/properties_timeline/?date_from=2024-03-01&date_to=2024-03-05`);
    expect(res.status).toBe(200);
    expect(res.body.crucial_property_keys).toEqual([]);
    expect(res.body.points).toEqual([{ timestamp: "2024-03-01T08:00:00.000Z", properties: { email: "a@corp.io", plan: "pro" }, relevant_event_count: 5 }]);
    expect(res.body.effective_date_from).toBe("2024-03-01T00:00:00.000Z");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.ts";
import { corpusFixture } from "./hogql-corpus.fixture.ts";

/**
 * What a HogQL query must never reach through `POST /api/projects/1/query/`, on the corpus's dataset
 * (./hogql-corpus.fixture.ts): the engine's files, system tables and the network, any write or setting, and
 * project 2's rows. Project 2 holds eve (email eve@other.com, plan secret, company evilcorp), a second person with
 * project 1's distinct id "bob", a session s-bob-1 that project 1 also has, and purchases of amount 999; none of
 * those values exists in project 1, so a leak shows as one of them in the answer.
 *
 * Each query must be refused with a 400 in the one error shape ({type, code, detail, attr}, attr naming the
 * query) or answer with project 1's rows only.
 */

const P = "/api/projects/1";
const LEAKS = ["eve", "evilcorp", "Evil Corp", "other.com", "secret", "999", "00000000-0000-4000-8000-00000000000e"];
const ATTRS = ["query__query", "query__source__query"];

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(corpusFixture());
}, 120_000);
afterAll(async () => s?.close());

const hogql = (query: string) => s.post(`${P}/query/`, { query: { kind: "HogQLQuery", query } });

function expectRefused(res: { status: number; body: any }) {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
  expect(res.body).toEqual({ type: "validation_error", code: expect.any(String), detail: expect.any(String), attr: expect.any(String) });
  expect(ATTRS).toContain(res.body.attr);
}

/** A 400 in the error shape, or a 200 whose answer holds none of project 2's values. */
function expectRefusedOrProjectOneOnly(res: { status: number; body: any }) {
  if (res.status === 400) return expectRefused(res);
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  const text = JSON.stringify(res.body.results);
  for (const leak of LEAKS) expect(text, leak).not.toContain(leak);
}

describe("HogQL cannot reach outside the project's tables", () => {
  it.each([
    ["a file", "SELECT * FROM file('/etc/passwd')"],
    ["a file with a format", "SELECT * FROM file('/etc/passwd', 'LineAsString')"],
    ["the system tables", "SELECT * FROM system.tables"],
    ["the system settings", "SELECT name, value FROM system.settings"],
    ["a URL", "SELECT * FROM url('http://169.254.169.254/latest/meta-data/', 'LineAsString')"],
    ["a remote server", "SELECT * FROM remote('127.0.0.1:9000', system.one)"],
    ["s3", "SELECT * FROM s3('https://bucket.s3.amazonaws.com/data.csv')"],
    ["an executable", "SELECT * FROM executable('id', 'LineAsString', 'x String')"],
    ["the mirror's staging table", "SELECT * FROM events_stage"],
    ["the person dictionary", "SELECT * FROM person_distinct_id_dict"],
    ["a SETTINGS clause", "SELECT count() FROM events SETTINGS max_threads=1"],
    ["a SETTINGS clause lifting readonly", "SELECT count() FROM events SETTINGS readonly=0"],
    ["INSERT", "INSERT INTO events (event) VALUES ('x')"],
    ["DROP", "DROP TABLE events"],
    ["ALTER", "ALTER TABLE events DELETE WHERE 1"],
    ["a second statement", "SELECT 1; DROP TABLE events"],
  ])("refuses %s with a 400 naming the query", async (_name, query) => {
    expectRefused(await hogql(query));
  });

  it("refuses a query in a DataVisualizationNode naming query__source__query", async () => {
    const res = await s.post(`${P}/query/`, { query: { kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: "SELECT * FROM file('/etc/passwd')" } } });
    expectRefused(res);
    expect(res.body.attr).toBe("query__source__query");
  });

  it("numbers(10) is refused or answers the numbers, nothing else", async () => {
    const res = await hogql("SELECT number FROM numbers(10)");
    if (res.status === 400) return expectRefused(res);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [n]));
  });

  it("a refused write changes nothing", async () => {
    await hogql("DROP TABLE events");
    await hogql("ALTER TABLE events DELETE WHERE 1");
    const res = await hogql("SELECT count() FROM events");
    if (res.status === 200) expect(res.body.results).toEqual([[40]]);
  });
});

describe("HogQL answers with project 1's rows only", () => {
  it.each([
    ["a plain select", "SELECT distinct_id, properties.amount, properties.$groups FROM events"],
    ["select *", "SELECT * FROM events"],
    ["a subquery", "SELECT * FROM (SELECT distinct_id, properties FROM events)"],
    ["a JOIN with persons", "SELECT e.distinct_id, p.properties.email, p.properties.plan FROM events e JOIN persons p ON e.person_id = p.id"],
    ["a JOIN through person_distinct_ids", "SELECT pdi.distinct_id, pdi.person.properties.email FROM person_distinct_ids pdi"],
    ["a CTE", "WITH x AS (SELECT * FROM persons) SELECT properties.email, properties.plan FROM x"],
    ["UNION ALL", "SELECT distinct_id FROM events UNION ALL SELECT distinct_id FROM person_distinct_ids UNION ALL SELECT key FROM groups"],
    ["IN (SELECT …)", "SELECT distinct_id, properties.amount FROM events WHERE distinct_id IN (SELECT distinct_id FROM person_distinct_ids)"],
    ["person.properties", "SELECT person.properties.email, person.properties.plan FROM events"],
    ["the sessions table", "SELECT session_id, distinct_id, $session_duration FROM sessions"],
    ["session.* on events", "SELECT session.session_id, session.$session_duration FROM events"],
    ["the groups table", "SELECT key, properties FROM groups"],
    ["a WHERE on team_id", "SELECT distinct_id FROM events WHERE team_id = 2"],
    ["a WHERE that ORs team_id", "SELECT distinct_id, properties.amount FROM events WHERE true OR team_id = 2"],
    ["a cross join", "SELECT a.distinct_id, b.distinct_id FROM events a, persons b"],
    ["an array join", "SELECT arrayJoin(groupArray(distinct_id)) FROM events"],
  ])("%s", async (_name, query) => {
    expectRefusedOrProjectOneOnly(await hogql(query));
  });

  it.each([
    ["events", "SELECT count() FROM events", 40],
    ["events of bob (a distinct id project 2 also has)", "SELECT count() FROM events WHERE distinct_id = 'bob'", 11],
    ["events IN (SELECT distinct_id …)", "SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM person_distinct_ids)", 40],
    ["events joined with their persons", "SELECT count() FROM events e JOIN persons p ON e.person_id = p.id", 40],
    ["persons", "SELECT count() FROM persons", 4],
    ["person_distinct_ids", "SELECT count() FROM person_distinct_ids", 6],
    ["groups", "SELECT count() FROM groups", 2],
    ["sessions", "SELECT count() FROM sessions", 18],
    ["bob's session s-bob-1 (4 minutes here, 5 in project 2)", "SELECT $session_duration FROM sessions WHERE session_id = 's-bob-1'", 240],
    ["a CTE over persons", "WITH x AS (SELECT id FROM persons) SELECT count() FROM x", 4],
    ["UNION ALL of events and persons", "SELECT count() FROM (SELECT distinct_id AS d FROM events UNION ALL SELECT toString(id) AS d FROM persons)", 44],
  ])("counts %s in project 1 only", async (_name, query, want) => {
    const res = await hogql(query);
    if (res.status === 400) return expectRefused(res);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([[want]]);
  });
});

describe("values from variables and filters stay values", () => {
  const node = (query: string, extra: object) => ({ query: { kind: "HogQLQuery", query, ...extra } });
  const variable = (value: unknown) => ({ variables: { "0190e000-bbbb-7000-8000-000000000001": { code_name: "x", variableId: "0190e000-bbbb-7000-8000-000000000001", value } } });

  it.each([["purchase' OR '1'='1"], ["purchase') OR (1=1"], ["x'; DROP TABLE events; --"], ["\\' OR 1=1 --"]])("a variable %j is one string, matching no event", async (value) => {
    const res = await s.post(`${P}/query/`, node("SELECT count() FROM events WHERE event = {variables.x}", variable(value)));
    if (res.status === 400) return expectRefused(res);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([[0]]);
  });

  it("a list variable is a list of strings", async () => {
    const res = await s.post(`${P}/query/`, node("SELECT count() FROM events WHERE event IN {variables.x}", variable(["purchase", "signup') OR (1=1"])));
    if (res.status === 400) return expectRefused(res);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([[6]]);
  });

  it.each([
    ["a property value", { key: "$browser", operator: "exact", value: "Chrome') OR (1=1", type: "event" }],
    ["a property key", { key: "$browser'), 'x') OR (1=1", operator: "exact", value: "Chrome", type: "event" }],
    ["a person property value", { key: "email", operator: "exact", value: "x' OR '1'='1", type: "person" }],
  ])("%s in {filters} is one value, matching no event", async (_name, filter) => {
    const res = await s.post(`${P}/query/`, node("SELECT count() FROM events WHERE {filters}", { filters: { properties: [filter] } }));
    if (res.status === 400) return expectRefused(res);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([[0]]);
  });

  it("a date range that is not a date is refused or matches nothing", async () => {
    const res = await s.post(`${P}/query/`, node("SELECT count() FROM events WHERE {filters}", { filters: { dateRange: { date_from: "2024-03-01') OR (1=1" } } }));
    if (res.status === 400) return expect(res.body).toMatchObject({ type: "validation_error", detail: expect.any(String) });
    expect(res.status).toBe(200);
    expect(res.body.results).not.toEqual([[40]]);
  });
});

describe("a query that would run for minutes", () => {
  it("stops at the SQL time limit with a 400 timeout_exceeded while the server keeps answering other requests", async () => {
    const started = Date.now();
    let slowDone = false;
    const slow = hogql("SELECT count() FROM events a, events b, events c, events d, events e, events f, events g").finally(() => (slowDone = true));
    // Let the query start, then ask something cheap: it must not wait for the slow one.
    await new Promise((r) => setTimeout(r, 300));
    const cheap = await s.get(`${P}/persons/`);
    expect(cheap.status).toBe(200);
    expect(slowDone).toBe(false);
    const res = await slow;
    // The test servers' limit is 10 s (--sql-time-limit); the bound leaves slack for a shared machine, and is
    // not a speed measurement.
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", code: "timeout_exceeded", attr: "query__query" });
  }, 90_000);
});

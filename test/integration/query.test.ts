import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * The query API and execute_sql over HTTP on fixtures/scenarios/basic.json (clock frozen at 2024-03-05T12:00Z,
 * project 1 in UTC). Its events, by person:
 *   person 1 (a, a-anon; plan pro):  $pageview 03-01 08:00 Chrome, signup 08:10, purchase 09:00 (amount 50),
 *                                   $pageview 03-01 15:00 Chrome, $pageview 03-03 23:30 Chrome
 *   person 2 (b; plan free):         $pageview 03-02 09:00 Firefox, $pageleave 09:10, signup 09:30,
 *                                   purchase 03-03 10:00 (amount 30)
 *   person 3 (c; no plan):           $pageview 03-01 11:00 Safari, signup 03-05 12:00
 * Every response is validated against the document by the test client.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const E = "/api/environments/1";
const march = { date_from: "2024-03-01", date_to: "2024-03-03" };
const step = (event: string) => ({ kind: "EventsNode", event });
const viz = (source: object) => ({ kind: "InsightVizNode", source });
/** An analysis result without its persons URLs: they encode the request's own form (legacy filter or query node). */
const numbersOf = (result: unknown): unknown =>
  JSON.parse(JSON.stringify(result, (key, value) => (key.endsWith("_people_url") || key === "people_url" ? undefined : value)));
const sql = (query: string) => ({ kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query } });

describe("insight query nodes: one engine, two doors", () => {
  it("a TrendsQuery answers the numbers of insights/trend, by either door", async () => {
    const legacy = await s.post(`${P}/insights/trend/`, { events: [{ id: "$pageview", type: "events", order: 0 }], ...march, interval: "day" });
    const node = { kind: "TrendsQuery", series: [step("$pageview")], dateRange: march, interval: "day" };
    const viaProjects = await s.post(`${P}/query/`, { query: viz(node) });
    const viaEnvironments = await s.post(`${E}/query/`, { query: node });
    expect(viaProjects.status).toBe(200);
    expect(viaProjects.body.results[0].data).toEqual([3, 1, 1]);
    expect(viaProjects.body.results).toEqual(legacy.body.result);
    expect(viaEnvironments.body.results).toEqual(legacy.body.result);
    expect(viaProjects.body).toMatchObject({ timezone: "UTC", last_refresh: "2024-03-05T12:00:00.000Z", next_allowed_client_refresh: "2024-03-05T12:03:00.000Z", query_status: null });
  });

  it("a FunnelsQuery answers the numbers of insights/funnel (3 enter, persons 1 and 2 sign up and buy)", async () => {
    const range = { date_from: "2024-03-01", date_to: "2024-03-04" };
    const legacy = await s.post(`${P}/insights/funnel/`, { insight: "FUNNELS", events: ["$pageview", "signup", "purchase"].map((id, order) => ({ id, type: "events", order })), ...range });
    const res = await s.post(`${E}/query/`, { query: viz({ kind: "FunnelsQuery", series: ["$pageview", "signup", "purchase"].map(step), dateRange: range }) });
    expect(res.body.results.map((r: { count: number }) => r.count)).toEqual([3, 2, 2]);
    expect(numbersOf(res.body.results)).toEqual(numbersOf(legacy.body.result));
  });

  it.each([
    ["RetentionQuery", "/insights/retention/?" + qs({ insight: "RETENTION", target_entity: { id: "signup", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 4, date_to: "2024-03-05" }),
      { kind: "RetentionQuery", dateRange: { date_to: "2024-03-05" }, retentionFilter: { targetEntity: { id: "signup", type: "events" }, returningEntity: { id: "$pageview", type: "events" }, period: "Day", totalIntervals: 4 } }],
    ["StickinessQuery", null, { kind: "StickinessQuery", series: [step("$pageview")], dateRange: march }],
    ["LifecycleQuery", null, { kind: "LifecycleQuery", series: [step("$pageview")], dateRange: march }],
    ["PathsQuery", "/insights/path/?" + qs({ insight: "PATHS", include_event_types: ["$pageview"], ...march }), { kind: "PathsQuery", dateRange: march, pathsFilter: { includeEventTypes: ["$pageview"] } }],
  ])("a %s answers what the legacy endpoint answers", async (kind, legacyPath, node) => {
    const legacy = legacyPath
      ? await s.get(`${P}${legacyPath}`)
      : await s.post(`${P}/insights/trend/`, { insight: kind === "StickinessQuery" ? "STICKINESS" : "LIFECYCLE", events: [{ id: "$pageview", type: "events", order: 0 }], ...march });
    expect(legacy.status).toBe(200);
    const res = await s.post(`${E}/query/`, { query: viz(node) });
    expect(res.status).toBe(200);
    // A LifecycleQuery's items carry PostHog's runner action object (test_lifecycle_query_whole_range); the rest is the legacy answer.
    const runnerAction = { id: "$pageview", name: "$pageview", type: "events", order: 0, math: "total" };
    const want = kind === "LifecycleQuery" ? legacy.body.result.map((item: object) => ({ ...item, action: runnerAction })) : legacy.body.result;
    expect(res.body.results).toEqual(want);
  });

  it("a FunnelCorrelationQuery answers what insights/funnel/correlation answers", async () => {
    const range = { date_from: "2024-03-01", date_to: "2024-03-04" };
    const legacy = await s.post(`${P}/insights/funnel/correlation/`, { insight: "FUNNELS", events: ["$pageview", "purchase"].map((id, order) => ({ id, type: "events", order })), ...range, funnel_correlation_type: "events" });
    const node = { kind: "FunnelCorrelationQuery", funnelCorrelationType: "events", source: { kind: "FunnelsActorsQuery", source: { kind: "FunnelsQuery", series: [step("$pageview"), step("purchase")], dateRange: range } } };
    const res = await s.post(`${E}/query/`, { query: node });
    expect(res.status).toBe(200);
    expect(numbersOf(res.body.results)).toEqual(numbersOf(legacy.body.result));
  });

  it("serves the cached result again until refresh asks", async () => {
    const body = { query: viz({ kind: "TrendsQuery", series: [step("$pageview")], dateRange: march }) };
    expect((await s.post(`${E}/query/`, body)).body.is_cached).toBe(false);
    expect((await s.post(`${E}/query/`, body)).body.is_cached).toBe(true);
    expect((await s.post(`${E}/query/`, { ...body, refresh: "force_blocking" })).body.is_cached).toBe(false);
  });

  it("refuses an unknown kind naming query__kind and an empty series naming it", async () => {
    const unknown = await s.post(`${E}/query/`, { query: { kind: "WebOverviewQuery" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.attr).toBe("query__kind");
    const empty = await s.post(`${E}/query/`, { query: viz({ kind: "TrendsQuery", series: [] }) });
    expect(empty.status).toBe(400);
    expect(empty.body.attr).toBe("query__source__series");
  });
});

describe("HogQL SQL through the query API", () => {
  it("GROUP BY with counts, columns and typed columns (5 pageviews, 3 signups, 2 purchases, 1 pageleave)", async () => {
    const res = await s.post(`${E}/query/`, { query: sql("select event, count() as c from events group by event order by c desc, event") });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      columns: ["event", "c"],
      types: [["event", "String"], ["c", "UInt64"]],
      results: [["$pageview", 5], ["signup", 3], ["purchase", 2], ["$pageleave", 1]],
      hogql: "SELECT event, count() AS c FROM events GROUP BY event ORDER BY c DESC, event ASC LIMIT 100",
      hasMore: false,
      limit: 100,
      is_cached: false,
    });
    expect(res.body.clickhouse).toContain("equals(team_id, 1)");
  });

  it("joins persons explicitly and through person.*, and reads subqueries (events by email: a 5, b 4, c 2)", async () => {
    const explicit = await s.post(`${E}/query/`, {
      query: sql("select p.properties.email as email, count() as n from events e join persons p on e.person_id = p.id group by email order by n desc"),
    });
    expect(explicit.body.results).toEqual([["a@corp.io", 5], ["b@corp.io", 4], ["c@example.com", 2]]);
    const nested = await s.post(`${E}/query/`, { query: sql("select max(n) from (select person.properties.email as email, count() as n from events group by email)") });
    expect(nested.body.results).toEqual([[5]]);
    const inList = await s.post(`${E}/query/`, { query: sql("select count() from events where distinct_id in (select distinct_id from events where event = 'purchase')") });
    // a and b bought; their distinct ids a and b (not a-anon) sent 4 + 4 events.
    expect(inList.body.results).toEqual([[8]]);
  });

  it("person properties, sums and time filters", async () => {
    const plans = await s.post(`${E}/query/`, { query: { kind: "HogQLQuery", query: "select person.properties.plan as plan, count() from events group by plan order by plan" } });
    expect(plans.body.results).toEqual([["free", 4], ["pro", 5], [null, 2]]);
    const revenue = await s.post(`${E}/query/`, { query: { kind: "HogQLQuery", query: "select sum(properties.amount) from events where event = 'purchase'" } });
    expect(revenue.body.results).toEqual([[80]]);
    const recent = await s.post(`${E}/query/`, { query: { kind: "HogQLQuery", query: "select distinct_id, toDate(timestamp) from events where timestamp > now() - interval 3 day order by timestamp" } });
    expect(recent.body.results).toEqual([["b", "2024-03-03"], ["a", "2024-03-03"], ["c", "2024-03-05"]]);
  });

  it.each([
    ["a table function", "select * from file('/etc/passwd')", /file/],
    ["an unknown function", "select toUUIDOrZero(event) from events", /toUUIDOrZero/],
    // "wher x =" is where the parser gave up: characters 32 to 35 of the text, line 1 column 33 as an editor counts.
    ["a syntax error, with where it is", "select event from events wher x = 1", /syntax error: .* \(line 1, column 33\)$/],
    // "nosuchtable" is at offset 16 of the text: line 2, column 8
    ["an unknown table, with where it is", "select *\n  from nosuchtable", /^Unknown table "nosuchtable"\. \(line 2, column 8\)$/],
    ["an unknown field, with where it is", "select event,\n  nosuchfield from events", /^Unable to resolve field: nosuchfield \(line 2, column 3\)$/],
    ["an unknown function, with where it is", "select nosuchfunc(event) from events", /^Unsupported function call 'nosuchfunc\(\.\.\.\)'.* \(line 1, column 8\)$/],
  ])("refuses %s with a 400 naming the construct", async (_name, query, detail) => {
    const res = await s.post(`${E}/query/`, { query: sql(query) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr: "query__source__query" });
    expect(res.body.detail).toMatch(detail);
  });
});

describe("HogQL over groups (fixtures/scenarios/groups.json)", () => {
  // Project 1's groups: companies (index 0) acme (500 employees), globex (40), initech (120); workspaces
  // (index 1) ws-a1, ws-g1. basic.json has none.
  it("counts, filters and selects the groups table's columns", async () => {
    const g = await startTestServer(scenario("groups"));
    try {
      const byIndex = await g.post(`${E}/query/`, { query: { kind: "HogQLQuery", query: "select index, count() from groups group by index order by index" } });
      expect(byIndex.body).toMatchObject({ types: [["index", "Int64"], ["count()", "UInt64"]], results: [[0, 3], [1, 2]] });
      const large = await g.post(`${E}/query/`, { query: { kind: "HogQLQuery", query: "select key, properties.employee_count from groups where index = 0 and properties.employee_count >= 100 order by key" } });
      expect(large.body.results).toEqual([["acme", 500], ["initech", 120]]);
      const star = await g.post(`${E}/query/`, { query: sql("select * from groups where key = 'ws-a1'") });
      expect(star.body.columns).toEqual(["index", "key", "created_at", "properties"]);
      expect(star.body.results).toHaveLength(1);
      expect(star.body.results[0].slice(0, 2)).toEqual([1, "ws-a1"]);
    } finally {
      await g.close();
    }
  });

  it("is empty where the project has no groups", async () => {
    const res = await s.post(`${E}/query/`, { query: { kind: "HogQLQuery", query: "select count() from groups" } });
    expect(res.body.results).toEqual([[0]]);
  });
});

describe("EventsQuery and ActorsQuery", () => {
  it("EventsQuery selects columns after a date, oldest first, and defaults to the last 24 hours", async () => {
    const since = await s.post(`${E}/query/`, { query: { kind: "EventsQuery", select: ["event", "distinct_id -- Who"], after: "2024-03-03", orderBy: ["timestamp ASC"] } });
    expect(since.body).toMatchObject({ columns: ["event", "distinct_id -- Who"], types: ["String", "String"], results: [["purchase", "b"], ["$pageview", "a"], ["signup", "c"]], hasMore: false });
    const lastDay = await s.post(`${E}/query/`, { query: { kind: "EventsQuery", select: ["event"] } });
    expect(lastDay.body.results).toEqual([["signup"]]);
    const counted = await s.post(`${E}/query/`, { query: { kind: "EventsQuery", select: ["event", "count()"], after: "all", where: ["event != '$pageleave'"], orderBy: ["count() DESC"] } });
    expect(counted.body.results).toEqual([["$pageview", 5], ["signup", 3], ["purchase", 2]]);
  });

  it("ActorsQuery over a trend's day lists who viewed pages on 1 March (person 1 twice, person 3 once)", async () => {
    const source = { kind: "InsightActorsQuery", source: { kind: "TrendsQuery", series: [step("$pageview")], dateRange: march, interval: "day" }, day: "2024-03-01", series: 0 };
    const res = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", source, select: ["actor", "event_count"], orderBy: ["event_count DESC"] } });
    expect(res.status).toBe(200);
    expect(res.body.results.map(([actor, n]: [{ distinct_ids: string[] }, number]) => [[...actor.distinct_ids].sort(), n])).toEqual([[["a", "a-anon"], 2], [["c"], 1]]);
  });

  it("ActorsQuery without a source lists every person, searchable", async () => {
    const res = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", select: ["properties.email"], search: "corp.io", orderBy: ["created_at ASC"] } });
    expect(res.body.results).toEqual([["a@corp.io"], ["b@corp.io"]]);
  });

  // Sourceless ActorsQuery runs as HogQL over `persons`. Persons of project 1, by created_at: 1 (a, a-anon;
  // a@corp.io, pro) 03-01 08:00, 3 (c; c@example.com, no plan) 03-01 11:00, 2 (b; b@corp.io, free) 03-02 09:00.
  it("ActorsQuery without a source orders by a property: free < pro, the missing plan (null) last", async () => {
    const res = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", select: ["properties.email", "properties.plan"], orderBy: ["properties.plan ASC"] } });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([["b@corp.io", "free"], ["a@corp.io", "pro"], ["c@example.com", null]]);
    expect(res.body.types).toEqual(["Nullable(String)", "Nullable(String)"]);
  });

  it("ActorsQuery without a source pages newest first: 2 then 3 (more to come), then 1", async () => {
    const first = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", select: ["properties.email", "created_at"], limit: 2 } });
    expect(first.body).toMatchObject({ results: [["b@corp.io", "2024-03-02T09:00:00Z"], ["c@example.com", "2024-03-01T11:00:00Z"]], hasMore: true, limit: 2, offset: 0 });
    const second = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", select: ["properties.email"], limit: 2, offset: 2 } });
    expect(second.body).toMatchObject({ results: [["a@corp.io"]], hasMore: false, limit: 2, offset: 2 });
  });

  it("ActorsQuery search matches a distinct id (case-insensitively) or the email, and builds the person from the store", async () => {
    const byDistinctId = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", select: ["person", "properties.email", "person_display_name"], search: "A-ANON" } });
    expect(byDistinctId.body.results).toHaveLength(1);
    const [person, email, display] = byDistinctId.body.results[0];
    expect([[...person.distinct_ids].sort(), email, display.display_name]).toEqual([["a", "a-anon"], "a@corp.io", "a@corp.io"]);
    const byEmail = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", select: ["properties.email"], search: "example.com" } });
    expect(byEmail.body.results).toEqual([["c@example.com"]]);
  });

  it("ActorsQuery default columns: the store's person with HogQL's id and created_at; search by the uuid", async () => {
    const res = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", search: "a-anon" } });
    expect(res.body.columns).toEqual(["person", "id", "created_at", "person_display_name -- Person"]);
    expect(res.body.types).toEqual(["String", "UUID", "DateTime64(6, 'UTC')", "String"]);
    const [[person, id, createdAt, display]] = res.body.results;
    expect([person.id, createdAt, display.id]).toEqual([id, "2024-03-01T08:00:00Z", id]);
    const byUuid = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", select: ["properties.email"], search: String(id).slice(9, 18).toUpperCase() } });
    expect(byUuid.body.results).toEqual([["a@corp.io"]]);
  });

  it("ActorsQuery without a source never shows another project's persons", async () => {
    const elsewhere = await s.post(`${E}/query/`, { query: { kind: "ActorsQuery", select: ["id"], search: "m1" } });
    expect(elsewhere.body.results).toEqual([]);
    // Project 2 (Asia/Tokyo) has only person m1, created 2024-03-01T00:00Z: HogQL shows it in the project's zone.
    const own = await s.post("/api/projects/2/query/", { query: { kind: "ActorsQuery", select: ["properties.plan", "created_at"] } });
    expect(own.body.results).toEqual([["team", "2024-03-01T09:00:00+09:00"]]);
  });
});

describe("MCP tool execute_sql", () => {
  it("answers the rows as text", async () => {
    const res = await s.post(`${E}/mcp_tools/execute_sql/`, { args: { query: "select event, count() as c from events where event like 'sign%' or event = 'purchase' group by event order by c desc;" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, content: "event|c\nsignup|3\npurchase|2" });
  });

  it("answers refused SQL as a failed tool call naming the construct, and a bad body as a 400", async () => {
    const refused = await s.post(`${E}/mcp_tools/execute_sql/`, { args: { query: "select * from system.tables" } });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ success: false, error_type: "retryable" });
    expect(refused.body.content).toMatch(/system/);
    const bad = await s.post(`${E}/mcp_tools/execute_sql/`, { args: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("args__query");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { createClock } from "../../../src/core/clock.ts";
import type { FixtureDocument } from "../../../src/store/fixture-document.ts";
import { loadHogql } from "../../../src/hogql/parse.ts";
import { runSql, type SqlAnswer, type SqlContext } from "../../../src/services/query/sql-query.ts";
import { createSqlDatabase, type SqlDatabase } from "../../../src/sql-engine/sql-database.ts";
import { stateFromFixtures } from "../../../src/store/load-fixtures.ts";
import { createStore, type Store } from "../../../src/store/store.ts";

/**
 * HogQL SQL as the query API runs it (printer + embedded ClickHouse), over six events of three people on two
 * days (UTC); the same project in Tokyo (UTC+9) as project 2:
 *   ann  (plan pro):  $pageview Chrome 03-01 10:00, purchase amount 30 03-01 11:00, $pageview Safari 03-02 09:00
 *   bob  (plan free): $pageview Chrome 03-02 12:00, purchase amount 20 03-02 13:00
 *   anon (no person): $pageview Firefox 03-02 23:30
 */
const NOW = "2024-03-03T00:00:00Z";
const events: [string, string, string, Record<string, unknown>][] = [
  ["ann", "$pageview", "2024-03-01T10:00:00Z", { $browser: "Chrome" }],
  ["ann", "purchase", "2024-03-01T11:00:00Z", { amount: 30 }],
  ["ann", "$pageview", "2024-03-02T09:00:00Z", { $browser: "Safari" }],
  ["bob", "$pageview", "2024-03-02T12:00:00Z", { $browser: "Chrome" }],
  ["bob", "purchase", "2024-03-02T13:00:00Z", { amount: 20 }],
  ["anon", "$pageview", "2024-03-02T23:30:00Z", { $browser: "Firefox" }],
];
const doc: FixtureDocument = {
  version: 1,
  now: NOW,
  users: [{ id: 1, email: "ada@example.com", personal_api_keys: ["phx_test_owner_key_0001"] }],
  projects: [
    { id: "1", name: "UTC", timezone: "UTC", members: [1] },
    { id: "2", name: "Tokyo", timezone: "Asia/Tokyo", members: [1] },
  ],
  persons: ["1", "2"].flatMap((project_id) => [
    { project_id, distinct_ids: ["ann"], properties: { plan: "pro" }, created_at: "2024-02-01T00:00:00Z" },
    { project_id, distinct_ids: ["bob"], properties: { plan: "free" }, created_at: "2024-02-15T00:00:00Z" },
  ]),
  events: ["1", "2"].flatMap((project_id) => events.map(([distinct_id, event, timestamp, properties]) => ({ project_id, distinct_id, event, timestamp, properties }))),
} as FixtureDocument;

let store: Store;
let db: SqlDatabase;
beforeAll(async () => {
  await loadHogql();
  const clock = createClock(Date.parse(NOW));
  store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
  db = createSqlDatabase({ store, folder: null });
}, 60_000);
afterAll(() => db.close());

const contextFor = (projectId: string): SqlContext => ({ db, project: store.projects.get(projectId)!, now: Date.parse(NOW), propertyTypes: () => ({ event: { amount: "Numeric" } }), testAccountFilters: [] });
const run = (sql: string, timezone = "UTC"): Promise<SqlAnswer> => runSql(sql, "query", contextFor(timezone === "UTC" ? "1" : "2"));

const refusal = async (sql: string): Promise<string> => {
  try {
    await run(sql);
  } catch (e) {
    expect(e).toBeInstanceOf(AnalysisInputError);
    expect((e as AnalysisInputError).attr).toBe("query");
    return (e as Error).message;
  }
  throw new Error(`not refused: ${sql}`);
};

describe("HogQL SQL: supported constructs", () => {
  const cases: [string, string, Partial<SqlAnswer>][] = [
    ["select fields", "select event, distinct_id from events order by timestamp limit 2", { columns: ["event", "distinct_id"], results: [["$pageview", "ann"], ["purchase", "ann"]] }],
    ["count()", "select count() from events", { columns: ["count()"], types: ["UInt64"], results: [[6]] }],
    ["count() over no rows is one row of 0", "select count() from events where event = 'nothing'", { results: [[0]] }],
    ["GROUP BY with ORDER BY alias desc", "select event, count() as c from events group by event order by c desc", { columns: ["event", "c"], results: [["$pageview", 4], ["purchase", 2]] }],
    // Ingestion gives every distinct id a person, so anon has one too (the fixture loader does the same).
    ["uniq(person_id): one person per distinct id here", "select uniq(person_id) from events", { types: ["UInt64"], results: [[3]] }],
    ["uniq(distinct_id)", "select uniq(distinct_id) from events", { results: [[3]] }],
    ["count(distinct …)", "select count(distinct properties.$browser) from events", { results: [[3]] }],
    ["sum/avg/min/max of a property", "select sum(properties.amount), avg(properties.amount), min(properties.amount), max(properties.amount) from events where event = 'purchase'", { results: [[50, 25, 20, 30]] }],
    ["countIf", "select countIf(event = 'purchase') from events", { results: [[2]] }],
    ["WHERE on properties and person.properties", "select count() from events where person.properties.plan = 'pro' and properties.$browser = 'Chrome'", { results: [[1]] }],
    ["now() - INTERVAL", "select count() from events where timestamp > now() - interval 1 day", { results: [[4]] }],
    ["toDate group by position, ordered", "select toDate(timestamp) as day, count() from events group by 1 order by 1", { types: ["Date", "UInt64"], results: [["2024-03-01", 2], ["2024-03-02", 4]] }],
    // In Tokyo (UTC+9) the events fall on 03-01 19:00, 20:00; 03-02 18:00, 21:00, 22:00; 03-03 08:30.
    ["toStartOfDay in the project's zone", "select toStartOfDay(timestamp) as d, count() from events group by d order by d", { results: [["2024-03-01T00:00:00+09:00", 2], ["2024-03-02T00:00:00+09:00", 3], ["2024-03-03T00:00:00+09:00", 1]] }],
    ["LIMIT/OFFSET", "select distinct_id from events order by timestamp limit 2 offset 3", { results: [["bob"], ["bob"]], hasMore: true }],
    ["DISTINCT", "select distinct event from events order by event", { results: [["$pageview"], ["purchase"]] }],
    ["HAVING", "select distinct_id, count() as c from events group by distinct_id having c > 1 order by distinct_id", { results: [["ann", 3], ["bob", 2]] }],
    ["expressions over aggregates", "select event, round(count() * 100 / 6, 1) as share from events group by event order by event", { results: [["$pageview", 66.7], ["purchase", 33.3]] }],
    ["table alias prefix", "select e.event from events e where e.distinct_id = 'anon'", { results: [["$pageview"]] }],
    ["persons table; NULL sorts last", "select properties.plan, count() from persons group by properties.plan order by 1", { results: [["free", 1], ["pro", 1], [null, 1]] }],
    ["BETWEEN", "select count() from events where timestamp between '2024-03-02 00:00:00' and '2024-03-02 12:00:00'", { results: [[2]] }],
    ["no FROM", "select 1 + 2 as three", { columns: ["three"], results: [[3]] }],
    ["NULL sorts last descending too", "select properties.plan as plan from persons order by plan desc", { results: [["pro"], ["free"], [null]] }],
    ["JOIN", "select p.properties.plan as plan, count() from events e join persons p on e.person_id = p.id group by plan order by plan", { results: [["free", 2], ["pro", 3], [null, 1]] }],
    ["subquery in FROM", "select x from (select 1 as x)", { results: [[1]] }],
    // ann (3 events) and bob (2) bought.
    ["IN (SELECT …)", "select count() from events where distinct_id in (select distinct_id from events where event = 'purchase')", { results: [[5]] }],
    ["UNION ALL", "select x from (select 1 as x union all select 2 as x) order by x", { results: [[1], [2]] }],
    ["WITH", "with a as (select 1 as x) select x from a", { results: [[1]] }],
    ["window function", "select distinct_id, row_number() over (partition by distinct_id order by timestamp) as n from events order by timestamp", { results: [["ann", 1], ["ann", 2], ["ann", 3], ["bob", 1], ["bob", 2], ["anon", 1]] }],
    ["LIMIT … BY", "select distinct_id, event from events order by timestamp limit 1 by distinct_id", { results: [["ann", "$pageview"], ["bob", "$pageview"], ["anon", "$pageview"]] }],
    ["{filters} without filters is true", "select count() from events where {filters}", { results: [[6]] }],
    ["timestamp type and format", "select timestamp from events order by timestamp limit 1", { types: ["DateTime64(6, 'UTC')"], results: [["2024-03-01T10:00:00Z"]] }],
  ];
  it.each(cases)("%s", async (_name, sql, want) => {
    const got = await run(sql, sql.includes("toStartOfDay") ? "Asia/Tokyo" : "UTC");
    expect(got).toMatchObject(want);
  });

  it("without LIMIT returns 100 rows at most, a LIMIT at most 50,000, and says more rows exist", async () => {
    const got = await run("select number from (select arrayJoin(range(150)) as number)");
    expect(got).toMatchObject({ limit: 100, offset: 0, hasMore: true });
    expect(got.results).toHaveLength(100);
    const capped = await run("select number from (select arrayJoin(range(50005)) as number) limit 60000");
    expect(capped).toMatchObject({ limit: 50_000, hasMore: true });
    expect(capped.results).toHaveLength(50_000);
  });
});

describe("HogQL SQL: refused constructs are 400s naming them", () => {
  const cases: [string, string, RegExp][] = [
    ["unknown table", "select * from nosuchtable", /Unknown table/],
    ["unknown function", "select sipHash64(event) from events", /Unsupported function call 'sipHash64/],
    ["unknown field", "select foo from events", /Unable to resolve field: foo/],
    ["unknown field of persons", "select email from persons", /Unable to resolve field: email/],
    ["SAMPLE", "select count() from events sample 0.1", /SAMPLE/],
    ["column not grouped (ClickHouse's message)", "select event, distinct_id, count() from events group by event", /distinct_id.*aggregate/s],
    ["aggregate in WHERE (ClickHouse's message)", "select event from events where count() > 1", /aggregate function/i],
    ["nested aggregate", "select sum(count()) from events", /cannot be nested/],
    ["unknown placeholder", "select count() from events where {nothing}", /Placeholders/],
    ["non-constant LIMIT", "select event from events limit now()", /LIMIT must be/],
    ["syntax error", "select from where", /syntax error/],
  ];
  it.each(cases)("%s", async (_name, sql, want) => {
    expect(await refusal(sql)).toMatch(want);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { AnalysisInputError } from "../../../src/analyses/errors.ts";
import { loadHogql, parseHogqlSelect } from "../../../src/hogql/parse.ts";
import { runSelect, type SqlResult } from "../../../src/hogql/sql/run.ts";
import type { SqlSource } from "../../../src/hogql/sql/tables.ts";
import { ev, journeys } from "../analyses/support.ts";

/**
 * Five events of three people over two days (UTC):
 *   ann  (plan pro):  $pageview Chrome 03-01 10:00, purchase amount 30 03-01 11:00, $pageview Safari 03-02 09:00
 *   bob  (plan free): $pageview Chrome 03-02 12:00, purchase amount 20 03-02 13:00
 *   anon (no person): $pageview Firefox 03-02 23:30
 */
const world = journeys({
  ann: { properties: { plan: "pro" }, created_at: "2024-02-01T00:00:00Z", events: [ev("$pageview", "2024-03-01 10:00", { $browser: "Chrome" }), ev("purchase", "2024-03-01 11:00", { amount: 30 }), ev("$pageview", "2024-03-02 09:00", { $browser: "Safari" })] },
  bob: { properties: { plan: "free" }, created_at: "2024-02-15T00:00:00Z", events: [ev("$pageview", "2024-03-02 12:00", { $browser: "Chrome" }), ev("purchase", "2024-03-02 13:00", { amount: 20 })] },
  anon: { anonymous: true, events: [ev("$pageview", "2024-03-02 23:30", { $browser: "Firefox" })] },
});

const source: SqlSource = {
  events: () => world.events,
  personOf: (id) => world.persons.find((p) => p.distinct_ids.includes(id)),
  persons: () => world.persons,
  groups: () => [],
};

const NOW = Date.parse("2024-03-03T00:00:00Z");
const run = (sql: string, timezone = "UTC"): SqlResult =>
  runSelect(parseHogqlSelect(sql, "query"), source, { attr: "query", now: NOW, timezone, defaultLimit: 100, maxLimit: 50_000 });

const refusal = (sql: string): string => {
  try {
    run(sql);
  } catch (e) {
    expect(e).toBeInstanceOf(AnalysisInputError);
    expect((e as AnalysisInputError).attr).toBe("query");
    return (e as Error).message;
  }
  throw new Error(`not refused: ${sql}`);
};

beforeAll(async () => {
  await loadHogql();
});

describe("HogQL SQL: supported constructs", () => {
  const cases: [string, string, Partial<SqlResult>][] = [
    ["select fields", "select event, distinct_id from events order by timestamp limit 2", { columns: ["event", "distinct_id"], results: [["$pageview", "ann"], ["purchase", "ann"]] }],
    ["count()", "select count() from events", { columns: ["count()"], types: ["UInt64"], results: [[6]] }],
    ["count() over no rows is one row of 0", "select count() from events where event = 'nothing'", { results: [[0]] }],
    ["GROUP BY with ORDER BY alias desc", "select event, count() as c from events group by event order by c desc", { columns: ["event", "c"], results: [["$pageview", 4], ["purchase", 2]] }],
    ["uniq(person_id) skips the person-less event's null", "select uniq(person_id) from events", { types: ["UInt64"], results: [[2]] }],
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
    ["persons table", "select properties.plan, count() from persons group by properties.plan order by 1", { results: [["free", 1], ["pro", 1]] }],
    ["BETWEEN", "select count() from events where timestamp between '2024-03-02 00:00:00' and '2024-03-02 12:00:00'", { results: [[2]] }],
    ["no FROM", "select 1 + 2 as three", { columns: ["three"], results: [[3]] }],
    ["nulls sort last", "select person_id is null as orphan, distinct_id from events order by person_id desc limit 1 offset 5", { results: [[true, "anon"]] }],
    ["timestamp type and format", "select timestamp from events order by timestamp limit 1", { types: ["DateTime64(6, 'UTC')"], results: [["2024-03-01T10:00:00Z"]] }],
  ];
  it.each(cases)("%s", (_name, sql, want) => {
    const got = run(sql, sql.includes("toStartOfDay") ? "Asia/Tokyo" : "UTC");
    expect(got).toMatchObject(want);
  });

  it("without LIMIT returns the default limit and says more rows exist", () => {
    const got = runSelect(parseHogqlSelect("select event from events", "query"), source, { attr: "query", now: NOW, timezone: "UTC", defaultLimit: 4, maxLimit: 5 });
    expect(got).toMatchObject({ limit: 4, offset: 0, hasMore: true });
    expect(got.results).toHaveLength(4);
    const capped = runSelect(parseHogqlSelect("select event from events limit 1000", "query"), source, { attr: "query", now: NOW, timezone: "UTC", defaultLimit: 4, maxLimit: 5 });
    expect(capped.results).toHaveLength(5);
  });
});

describe("HogQL SQL: refused constructs are 400s naming them", () => {
  const cases: [string, string, RegExp][] = [
    ["JOIN", "select * from events e join persons p on e.person_id = p.id", /JOIN is not supported/],
    ["subquery in FROM", "select x from (select 1 as x)", /Subqueries/],
    ["subquery in WHERE", "select count() from events where distinct_id in (select distinct_id from events)", /Subqueries/],
    ["UNION", "select 1 union all select 2", /UNION/],
    ["WITH", "with a as (select 1) select * from a", /WITH/],
    ["unknown table", "select * from sessions", /Unknown table "sessions"/],
    ["unknown function", "select sipHash64(event) from events", /sipHash64\(\) is not supported/],
    ["unknown field", "select foo from events", /Unknown HogQL field "foo"/],
    ["unknown field of persons", "select email from persons", /Unknown field "email" of table persons \(fields: id, created_at, is_identified, properties\)/],
    ["unknown field of groups", "select group_key from groups", /Unknown field "group_key" of table groups \(fields: index, key, created_at, properties\)/],
    ["window function", "select count() over () from events", /Window functions/],
    ["LIMIT BY", "select event from events limit 1 by event", /LIMIT … BY/],
    ["SAMPLE", "select count() from events sample 0.1", /SAMPLE/],
    ["column not grouped", "select event, distinct_id, count() from events group by event", /distinct_id is neither inside an aggregate function nor in GROUP BY/],
    ["aggregate in WHERE", "select event from events where count() > 1", /not allowed in WHERE/],
    ["nested aggregate", "select sum(count()) from events", /inside another aggregate/],
    ["placeholder", "select count() from events where {filters}", /Placeholders/],
    ["non-constant LIMIT", "select event from events limit now()", /LIMIT must be/],
    ["syntax error", "select from where", /syntax error/],
  ];
  it.each(cases)("%s", (_name, sql, want) => {
    expect(refusal(sql)).toMatch(want);
  });
});

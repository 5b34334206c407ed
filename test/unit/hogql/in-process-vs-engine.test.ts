import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { createClock } from "../../../src/core/clock.ts";
import type { FixtureDocument } from "../../../src/store/fixture-document.ts";
import { hogqlReader } from "../../../src/analyses/shared/hogql-breakdown.ts";
import { stringForm } from "../../../src/analyses/shared/property-operators.ts";
import { compileAggregate } from "../../../src/hogql/aggregate.ts";
import { compileHogql, shownValue, truthy, type EventRow } from "../../../src/hogql/evaluate.ts";
import { loadHogql, parseHogqlExpr } from "../../../src/hogql/parse.ts";
import { projectPropertyTypes } from "../../../src/services/definitions.ts";
import { runSql, type SqlContext } from "../../../src/services/query/sql-query.ts";
import { createSqlDatabase, type SqlDatabase } from "../../../src/sql-engine/sql-database.ts";
import { stateFromFixtures } from "../../../src/store/load-fixtures.ts";
import { createStore, type Store } from "../../../src/store/store.ts";

/**
 * Issue 22: the per-event HogQL expressions that stay in-process (the events list's `where`/`select`, hogql
 * breakdowns, `math_hogql`'s arguments) follow HogQL's rules, so each expression below is run both ways over the
 * same events: in-process as the events list, the breakdown and the trends math call it, and by the SQL engine
 * (`SELECT uuid, <expr> FROM events` through runSql, the query API's path).
 *
 * Normalisation: both sides as the API shows them, nothing more. A `select` cell: the engine's as the query API
 * writes it (cells.ts: a date-time in ISO 8601 in the project's zone, milliseconds only when some; a Date as
 * YYYY-MM-DD; UInt8 as 0/1; Bool as true/false), the in-process value through `shownValue`, which the events list's
 * `select` uses. A breakdown value: the engine's `toString(expr)` (the real service's breakdown), the in-process
 * one as the breakdown reads it. A `where`: the set of events kept. An aggregate: the number, to 9 digits.
 *
 * Fixture: twelve events at distinct times, in a UTC project and a Tokyo one (UTC+9); property types derived from
 * the data as the query API derives them: amount, count Numeric; flag Boolean; signup DateTime; name, coupon,
 * $browser, url, note String; tags and nested untyped (lists and objects give no type). Edge values: "" (a
 * materialised $browser reads it as NULL, other properties as ""), the text "null", JSON null, quotes and a
 * backslash (read with their JSON escapes, as HogQL reads them), a non-ASCII name (length counts bytes).
 * Persons: ann (plan pro, age 31, beta), bob (free, 25), cat (plan "", email null), dan (age 40); anon has the
 * person ingestion gives it, without properties.
 */
const NOW = "2024-03-04T00:00:00Z";
const events: [string, string, string, Record<string, unknown>][] = [
  ["ann", "$pageview", "2024-03-01T10:00:00Z", { $browser: "Chrome", amount: 30, flag: true, name: "Alice", url: "https://example.com/pricing", signup: "2024-02-20T08:30:00Z", nested: { a: { b: "deep" } }, count: 3 }],
  ["ann", "purchase", "2024-03-01T11:00:00Z", { amount: 12.5, flag: false, name: "", coupon: null }],
  ["bob", "$pageview", "2024-03-01T23:30:00Z", { $browser: "Firefox", name: "bob", amount: 0, tags: ["a", "b"] }],
  ["bob", "purchase", "2024-03-02T00:15:00Z", { amount: 100, flag: true, name: "Bob Smith", count: 10 }],
  ["cat", "$pageview", "2024-03-02T09:00:00Z", { $browser: "", name: "null" }],
  ["cat", "signup", "2024-03-02T09:05:00Z", { note: 'say "hi" \\ bye' }],
  ["anon", "$pageview", "2024-03-02T12:00:00Z", { $browser: "Safari", url: "http://test.org/a?b=1" }],
  ["ann", "$autocapture", "2024-03-02T13:00:00Z", { amount: -5, nested: { a: { b: 7 } }, name: "ALICE" }],
  ["bob", "$pageview", "2024-03-03T08:00:00Z", { $browser: "Chrome", count: 0, signup: "2024-03-01" }],
  ["dan", "purchase", "2024-03-03T09:00:00Z", { amount: 7, name: "Zoë" }],
  ["dan", "$pageview", "2024-03-03T10:00:00Z", { flag: true, coupon: "SAVE10" }],
  ["ann", "purchase", "2024-03-03T11:00:00.250Z", { amount: 3, coupon: "SAVE10", flag: false }],
];
/** The same data in a UTC project and in Tokyo (UTC+9), where date functions and date-time text read differently. */
const PROJECTS = ["1", "2"] as const;
const doc = {
  version: 1,
  now: NOW,
  users: [{ id: 1, email: "ada@example.com", personal_api_keys: ["phx_test_owner_key_0001"] }],
  projects: [
    { id: "1", name: "UTC", timezone: "UTC", members: [1] },
    { id: "2", name: "Tokyo", timezone: "Asia/Tokyo", members: [1] },
  ],
  persons: PROJECTS.flatMap((project_id) => [
    { project_id, distinct_ids: ["ann"], properties: { plan: "pro", age: 31, email: "ann@example.com", beta: true }, created_at: "2024-02-01T00:00:00Z" },
    { project_id, distinct_ids: ["bob"], properties: { plan: "free", age: 25 }, created_at: "2024-02-15T00:00:00Z" },
    { project_id, distinct_ids: ["cat"], properties: { plan: "", email: null }, created_at: "2024-02-20T00:00:00Z" },
    { project_id, distinct_ids: ["dan"], properties: { age: 40 }, created_at: "2024-02-25T00:00:00Z" },
  ]),
  events: PROJECTS.flatMap((project_id) => events.map(([distinct_id, event, timestamp, properties]) => ({ project_id, distinct_id, event, timestamp, properties }))),
} as FixtureDocument;

/** Expressions of the kinds users put in `where`, `breakdown` and `math_hogql`'s arguments. */
const AGREE: string[] = [
  "event",
  "distinct_id",
  "timestamp",
  "properties.$browser",
  "properties.name",
  "properties.amount",
  "properties.flag",
  "properties.count",
  "properties.coupon",
  "properties.tags",
  "properties.nested",
  "properties.nested.a.b",
  "properties.signup",
  "properties.missing",
  "properties.note",
  "length(properties.note)",
  "person.properties.plan",
  "person.properties.age",
  "person.properties.email",
  "person.properties.beta",
  "properties.$browser = 'Chrome'",
  "properties.$browser != 'Chrome'",
  "properties.missing = 'x'",
  "properties.missing != 'x'",
  "properties.coupon = NULL",
  "properties.coupon != NULL",
  "properties.coupon is null",
  "properties.name is not null",
  "properties.amount > 10",
  "properties.amount < 10",
  "properties.amount >= 12.5",
  "properties.count = 0",
  "properties.flag = true",
  "properties.nested.a.b = 'deep'",
  "person.properties.plan = 'pro'",
  "person.properties.age > 30",
  "properties.name like '%li%'",
  "properties.name ilike '%LI%'",
  "properties.name not like '%o%'",
  "properties.missing like '%'",
  "properties.missing not like 'x%'",
  "properties.amount * 2 + 1",
  "properties.amount / 4",
  "properties.amount - properties.count",
  "toFloat(properties.name)",
  "toInt(properties.amount)",
  "toString(properties.amount)",
  "toString(properties.flag)",
  "concat(properties.name, '-', event)",
  "lower(properties.name)",
  "upper(properties.$browser)",
  "length(properties.name)",
  "coalesce(properties.coupon, properties.name, 'none')",
  "ifNull(properties.coupon, 'none')",
  "if(properties.amount > 10, 'big', 'small')",
  // Upper case: ClickHouse reads `if` case-insensitively (test_funnel_trends.py::test_funnel_step_breakdown_empty writes IF).
  "IF(distinct_id = 'ann', NULL, 'foo')",
  "multiIf(properties.amount > 50, 'large', properties.amount > 10, 'medium', 'other')",
  "toStartOfDay(timestamp)",
  "toDate(timestamp)",
  "dateDiff('day', properties.signup, timestamp)",
  "properties.amount > 5 and properties.flag",
  "properties.$browser = 'Chrome' or properties.amount > 50",
  "not(properties.flag)",
  "not(properties.amount > 10)",
  "properties.flag or person.properties.beta",
  "properties.flag and properties.amount > 5",
  "event in ('purchase', 'signup')",
  "properties.$browser in ('Chrome', 'Safari')",
  "properties.$browser not in ('Chrome')",
  "match(properties.url, '^https://')",
  "properties.url =~ 'test'",
  "properties.url !~ 'test'",
  "equals(properties.coupon, 'SAVE10')",
  "timestamp >= '2024-03-02 00:00:00'",
  "timestamp > now() - interval 2 day",
  "person_id",
  "properties",
  "person.properties",
  "person.created_at",
  "properties.signup < timestamp",
  "toString(timestamp)",
  "toString(toDate(timestamp))",
  "toDate(properties.signup)",
  "toDateTime(properties.signup)",
  "toDate(properties.name)",
  "toDateTime(properties.url)",
  "toString(toStartOfDay(timestamp))",
  "toString(properties.signup)",
  "toString(now() - interval 1 day)",
  "concat('at ', timestamp)",
  "toString(toDateTime(timestamp))",
  "toDate(timestamp) + interval 1 day",
  "timestamp - interval 1 month",
  "timestamp + interval 36 hour",
  "toFloat(properties.amount) > 10",
  "concat(properties.amount, ' ', properties.flag)",
  "dateDiff('hour', person.created_at, timestamp)",
  "dateDiff('month', person.created_at, timestamp)",
  "properties.name = ''",
  "properties.$browser = ''",
  "if(properties.coupon = NULL, 'no coupon', properties.coupon)",
  "today()",
  "properties.flag = 'true'",
  "properties.amount = '30'",
  "person.properties.age = 31",
  "properties.amount in (30, 7)",
  "properties.signup > '2024-02-25'",
  "now()",
  "toDate(timestamp) = today()",
  "abs(properties.amount)",
  "round(properties.amount / 4)",
  "round(properties.amount / 3, 2)",
  "floor(properties.amount / 4)",
  "ceil(properties.amount / 4, 1)",
  "round(properties.amount, -1)",
  "trim(concat('  ', properties.name, ' '))",
  "startsWith(properties.url, 'https')",
  "endsWith(properties.name, 'e')",
  "empty(properties.name)",
  "notEmpty(properties.coupon)",
  "isNull(properties.coupon)",
  "isNotNull(properties.coupon)",
  "properties.amount % 3",
  "-properties.amount",
];

/** `where` filters: the events kept in-process (as the events list keeps them) are those the engine's WHERE keeps. */
const WHERE: string[] = [
  "properties.$browser != 'Chrome'",
  "properties.missing != 'x'",
  "properties.coupon = NULL",
  "properties.amount > 10",
  "properties.flag",
  "not(properties.flag)",
  "properties.flag and properties.amount > 5",
  "properties.name not like '%o%'",
  "properties.$browser not in ('Chrome')",
  "person.properties.plan = 'pro' or person.properties.age > 30",
  "match(properties.url, 'test')",
  "timestamp > now() - interval 2 day",
  // No HogQLFilters reach either side: an unset date-range bound makes its comparison a no-op (posthog/hogql/filters.py)
  "timestamp >= {filters.dateRange.from} and properties.amount > 10",
  "{filters.dateRange.to} > timestamp or properties.flag",
];

/** `math_hogql` aggregates over every event (trends compute them per bucket the same way). */
const AGGREGATES: string[] = [
  "count()",
  "count(properties.amount)",
  "sum(properties.amount)",
  "avg(properties.amount)",
  "min(properties.amount) + max(properties.amount)",
  "sum(properties.amount) / count()",
  "uniq(distinct_id)",
  "uniq(person_id)",
  "count(distinct properties.name)",
  "sum(if(properties.flag, 1, 0))",
  "sum(toFloat(properties.count))",
  "max(dateDiff('day', person.created_at, timestamp))",
];

/** Expressions the in-process evaluator refuses (a clean 400 naming the field); the engine runs them. */
const REFUSED: string[] = ["replaceAll(properties.name, 'a', 'b')", "toStartOfWeek(timestamp)", "arrayMap(x -> x, [1])", "dateDiff('week', person.created_at, timestamp)", "lengthUTF8(properties.name)"];

/** Arithmetic on text: ClickHouse refuses the query, the in-process evaluator the first row with text (both 400s). */
const REFUSED_BY_BOTH: string[] = ["properties.name * 2", "properties.tags + 1", "person.properties.plan - 1", "abs(properties.name)", "round(person.properties.plan)"];

let store: Store;
let db: SqlDatabase;
beforeAll(async () => {
  await loadHogql();
  const clock = createClock(Date.parse(NOW));
  store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
  db = createSqlDatabase({ store, folder: null });
}, 60_000);
afterAll(() => db.close());

/** The in-process side, as the events list's `select` compiles and shows a column. */
function inProcess(text: string, projectId: string): Record<string, unknown> {
  const project = store.projects.get(projectId)!;
  const compiled = compileHogql(parseHogqlExpr(text, "select"), "select", envOf(projectId));
  return Object.fromEntries(rowsOf(projectId).map((row) => [row.event.uuid, shownValue(compiled(row), project.timezone)]));
}

const envOf = (projectId: string) => ({ now: Date.parse(NOW), timezone: store.projects.get(projectId)!.timezone, propertyTypes: projectPropertyTypes(store, projectId) });

function rowsOf(projectId: string): EventRow[] {
  const index = store.analysisData.index(projectId);
  return [...store.analysisData.events(projectId)].map((event) => ({ event, person: index.personsByDistinctId.get(event.distinct_id) }));
}

async function engine(text: string, projectId: string): Promise<Record<string, unknown>> {
  const ctx: SqlContext = { db, project: store.projects.get(projectId)!, now: Date.parse(NOW), propertyTypes: () => projectPropertyTypes(store, projectId), testAccountFilters: [] };
  const answer = await runSql(`SELECT uuid, ${text} FROM events ORDER BY timestamp, uuid LIMIT 100`, "query", ctx);
  return Object.fromEntries(answer.results.map(([uuid, value]) => [String(uuid), value]));
}

const zoneOf = (projectId: string) => (projectId === "1" ? "UTC" : "Tokyo");

describe("in-process HogQL agrees with the engine, event by event", () => {
  it("has the property types the query API derives", () => {
    expect(projectPropertyTypes(store, "1")).toMatchObject({
      event: { amount: "Numeric", count: "Numeric", flag: "Boolean", signup: "DateTime", name: "String", coupon: "String" },
      person: { plan: "String", age: "Numeric", beta: "Boolean" },
    });
  });

  it.each(PROJECTS.flatMap((p) => AGREE.map((text) => [zoneOf(p), text, p] as const)))("%s: %s", async (_zone, text, projectId) => {
    const want = await engine(text, projectId);
    expect(Object.keys(want)).toHaveLength(events.length);
    expect(inProcess(text, projectId)).toEqual(want);
  });
});

describe("hogql breakdown values are the engine's toString(expr), as the real service's breakdown", () => {
  it.each(PROJECTS.flatMap((p) => AGREE.map((text) => [zoneOf(p), text, p] as const)))("%s: %s", async (_zone, text, projectId) => {
    const want = await engine(`toString(${text})`, projectId);
    const read = hogqlReader(text, "breakdown", envOf(projectId));
    const got = Object.fromEntries(rowsOf(projectId).map(({ event, person }) => {
      const v = read(event, person);
      return [event.uuid, v === null || v === undefined ? null : stringForm(v)];
    }));
    expect(got).toEqual(want);
  });
});

describe("where filters keep the events the engine keeps", () => {
  it.each(WHERE)("%s", async (text) => {
    const ctx: SqlContext = { db, project: store.projects.get("1")!, now: Date.parse(NOW), propertyTypes: () => projectPropertyTypes(store, "1"), testAccountFilters: [] };
    const want = (await runSql(`SELECT uuid FROM events WHERE ${text}`, "query", ctx)).results.map(([uuid]) => String(uuid)).sort();
    const compiled = compileHogql(parseHogqlExpr(text, "where"), "where", envOf("1"));
    expect(rowsOf("1").filter((row) => truthy(compiled(row) ?? null)).map((row) => row.event.uuid).sort()).toEqual(want);
  });
});

describe("math_hogql aggregates agree with the engine over all events", () => {
  it.each(AGGREGATES)("%s", async (text) => {
    const ctx: SqlContext = { db, project: store.projects.get("1")!, now: Date.parse(NOW), propertyTypes: () => projectPropertyTypes(store, "1"), testAccountFilters: [] };
    const [[want]] = (await runSql(`SELECT ${text} FROM events`, "query", ctx)).results as [[number]];
    const state = compileAggregate(parseHogqlExpr(text, "math_hogql"), "math_hogql", envOf("1")).create();
    rowsOf("1").forEach((row) => state.add(row));
    expect(state.value()).toBeCloseTo(want, 9);
  });
});

describe("expressions refused in-process are clean 400s, not mismatches", () => {
  it.each(REFUSED)("%s", async (text) => {
    expect(Object.keys(await engine(text, "1"))).toHaveLength(events.length);
    let refusal: unknown;
    try {
      inProcess(text, "1");
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(AnalysisInputError);
    expect((refusal as AnalysisInputError).attr).toBe("select");
  });
});

describe("arithmetic on text is refused both ways", () => {
  it.each(REFUSED_BY_BOTH)("%s", async (text) => {
    await expect(engine(text, "1")).rejects.toBeInstanceOf(AnalysisInputError);
    expect(() => inProcess(text, "1")).toThrow(AnalysisInputError);
  });
});

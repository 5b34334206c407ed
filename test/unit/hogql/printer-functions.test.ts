import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHogql, setParseTimeLimit } from "../../../src/hogql/parse.ts";
import { closeEngine, print, runHogql } from "./printer-support.ts";

beforeAll(async () => {
  setParseTimeLimit(20_000);
  await loadHogql();
});
afterAll(closeEngine);

const select = (hogql: string, ctx = {}) => {
  const sql = print(`SELECT ${hogql}`, ctx).clickhouse;
  return sql.slice("SELECT ".length, sql.lastIndexOf(" LIMIT "));
};

describe("printer: the function allow-list", () => {
  const printed: Array<[string, string]> = [
    ["count(*)", "count()"],
    ["COUNT()", "count()"],
    ["count(DISTINCT 1)", "count(DISTINCT 1)"],
    ["quantile(0.9)(1)", "quantile(0.9)(1)"],
    ["countIf(1 = 1)", "countIf(1)"],
    ["toFloat('1.5')", "accurateCastOrNull('1.5', 'Float64')"],
    ["toInt('7')", "accurateCastOrNull('7', 'Int64')"],
    ["trim(' a ')", "trimBoth(' a ')"],
    // The clock's instant (00:00 UTC) as Paris' wall clock (01:00 CET): the UTC wall time read in Paris was an hour early.
    ["now()", "toDateTime64('2024-03-03 01:00:00.000', 6, 'Europe/Paris')"],
    ["today()", "toDate(toDateTime64('2024-03-03 01:00:00.000', 6, 'Europe/Paris'))"],
    ["toDateTime('2024-03-01')", "parseDateTime64BestEffortOrNull('2024-03-01', 6, 'Europe/Paris')"],
    ["toDateTime(1)", "toDateTime(1, 'Europe/Paris')"],
    ["parseDateTimeBestEffort('2024-03-01')", "parseDateTime64BestEffortOrNull('2024-03-01', 6, 'Europe/Paris')"],
    ["concat('a', NULL, 1, properties_x)", "concat('a', '', toString(1), ifNull(toString(__hogql_subquery_0.properties_x), ''))"],
    ["arrayMap(x -> x * 2, [1, 2])", "arrayMap(x -> multiply(x, 2), [1, 2])"],
    ["arrayMap((x, y) -> x + y, [1], [2])", "arrayMap((x, y) -> plus(x, y), [1], [2])"],
    ["[1, 2][1]", "[1, 2][1]"],
    ["(1, 2).1", "(tuple(1, 2)).1"],
    ["INTERVAL 3 DAY", "toIntervalDay(3)"],
    ["1 ? 2 : 3", "if(1, 2, 3)"],
  ];
  it.each(printed)("%s", (hogql, sql) => {
    const withField = hogql.includes("properties_x") ? `${hogql} FROM (SELECT 1 AS properties_x)` : hogql;
    const out = print(`SELECT ${withField}`, { timezone: "Europe/Paris" }).clickhouse;
    expect(out.slice("SELECT ".length, out.indexOf(withField === hogql ? " LIMIT " : " FROM "))).toBe(sql);
  });

  it.each([
    ["toStartOfDay()", "Function 'toStartOfDay' expects at least 1 argument, found 0"],
    ["substring('a')", "Function 'substring' expects 3 arguments, found 1"],
    ["count(1, 2, 3)", "Aggregation 'count' expects at most 1 argument, found 3"],
    ["quantile(1)", "Aggregation 'quantile' requires parameters in addition to arguments"],
    ["quantile(0.1, 0.2)(1)", "Aggregation 'quantile' expects 1 parameter, found 2"],
    ["sum(count())", "Aggregation 'count' cannot be nested inside another aggregation 'sum'."],
    ["lowr('A')", "Unsupported function call 'lowr(...)'. Perhaps you meant 'lower(...)'?"],
    ["sleep(3)", "Unsupported function call 'sleep(...)'"],
    ["upper(*)", "Cannot use \"*\" as an argument of upper"],
    ["lower(DISTINCT 'A')", "DISTINCT is only allowed in aggregations, not in lower(...)"],
    ["retention(1 = 1) FILTER (WHERE 1)", "FILTER (WHERE …) is only supported on aggregations with an -If form"],
  ])("refuses %s", (hogql, message) => {
    expect(() => select(hogql)).toThrow(message);
  });
});

describe("printer: functions run as ClickHouse runs them", () => {
  const cases: Array<[string, string, unknown[][]]> = [
    ["multiIf", "SELECT multiIf(event = 'purchase', 'buy', properties.$browser = 'Chrome', 'chrome', 'other') AS k, count() FROM events GROUP BY k ORDER BY k", [["buy", 2], ["chrome", 2], ["other", 2]]],
    ["count(*) and COUNT()", "SELECT count(*), COUNT(), count(DISTINCT distinct_id), uniq(person_id) FROM events", [[6, 6, 3, 2]]],
    ["strings", "SELECT replaceOne('a-b-c', '-', '+'), substring('hello', 2, 3), startsWith('hello', 'he'), extract('order-42', '\\\\d+'), lower('AbC'), concat('x', NULL)", [["a+b-c", "ell", 1, "42", "abc", "x"]]],
    ["JSONExtract*", "SELECT JSONExtractString(properties, '$browser'), JSONExtractInt('{\"a\": 3}', 'a') FROM events ORDER BY timestamp LIMIT 1", [["Chrome", 3]]],
    ["toStartOfWeek returns a Date", "SELECT toStartOfWeek(timestamp), toTypeName(toStartOfWeek(timestamp)) FROM events ORDER BY timestamp LIMIT 1", [["2024-02-25", "Date"]]],
    ["toStartOfInterval in the project's zone", "SELECT toStartOfInterval(timestamp, INTERVAL 12 HOUR) AS t, count() FROM events GROUP BY t ORDER BY t", [["2024-03-01 00:00:00", 2], ["2024-03-02 00:00:00", 1], ["2024-03-02 12:00:00", 3]]],
    ["toTimeZone and formatDateTime", "SELECT formatDateTime(toTimeZone(timestamp, 'Asia/Tokyo'), '%Y-%m-%d %H') FROM events ORDER BY timestamp LIMIT 1", [["2024-03-01 19"]]],
    ["quantile(0.5)(x), sumIf, avg", "SELECT quantile(0.5)(toFloat(properties.amount)), sumIf(toFloat(properties.amount), distinct_id = 'a1'), avg(toFloat(properties.amount)) FROM events", [[25, 30, 25]]],
    ["arrays and lambdas", "SELECT arrayMap(x -> x * 2, [1, 2, 3]), arrayFilter(x -> x > 1, [1, 2, 3]), has([1, 2], 2), arraySum([1, 2, 3])", [[[2, 4, 6], [2, 3], 1, 6]]],
    ["groupArray and arrayJoin", "SELECT arrayJoin(groupArray(distinct_id)) AS d FROM events WHERE event = 'purchase' ORDER BY d", [["a1"], ["b1"]]],
    ["if and nulls", "SELECT if(properties.$browser IS NULL, 'none', properties.$browser) AS b, count() FROM events GROUP BY b ORDER BY b", [["Chrome", 2], ["Safari", 1], ["none", 3]]],
    [
      "windowFunnel over each person",
      "SELECT person.properties.plan AS plan, windowFunnel(86400)(toDateTime(timestamp), event = '$pageview', event = 'purchase') AS steps FROM events GROUP BY plan ORDER BY plan",
      [["free", 2], ["pro", 2]],
    ],
    [
      "retention",
      "SELECT distinct_id, retention(toDate(timestamp) = '2024-03-01', toDate(timestamp) = '2024-03-02') FROM events GROUP BY distinct_id ORDER BY distinct_id",
      [["a1", [1, 0]], ["a2", [0, 0]], ["b1", [0, 0]]],
    ],
    ["FILTER (WHERE …) as the -If aggregate", "SELECT count() FILTER (WHERE event = 'purchase'), sum(toFloat(properties.amount)) FILTER (WHERE distinct_id = 'b1') FROM events", [[2, 20]]],
    [
      "the issue's daily count over the last 30 days",
      "SELECT toStartOfDay(timestamp), count() FROM events WHERE event = '$pageview' AND timestamp > now() - INTERVAL 30 DAY GROUP BY 1 ORDER BY 1",
      [["2024-03-01 00:00:00", 1], ["2024-03-02 00:00:00", 3]],
    ],
    ["now() is the injected clock", "SELECT now(), dateDiff('hour', toDateTime('2024-03-02 00:00:00'), now())", [["2024-03-03 00:00:00.000000", 24]]],
  ];
  it.each(cases)("%s", (_name, hogql, want) => {
    expect(runHogql(hogql)).toEqual(want);
  });
});

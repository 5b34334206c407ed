import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHogql, setParseTimeLimit } from "../../../src/hogql/parse.ts";
import { closeEngine, print, runHogql } from "./printer-support.ts";

beforeAll(async () => {
  setParseTimeLimit(20_000);
  await loadHogql();
});
afterAll(closeEngine);

const B = `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, '$browser'), ''), 'null'), '^"|"$', '')`;
const PLAN = "events__person.properties___plan";
const whereOf = (hogql: string) => {
  const sql = print(`SELECT count() FROM events WHERE ${hogql}`).clickhouse;
  return sql.slice(sql.lastIndexOf(" WHERE ") + 7, sql.lastIndexOf(" LIMIT "));
};

/**
 * Team 7's six events: $browser Chrome (a1, b1), Safari (a2), missing on both purchases, JSON null on b1's last
 * pageview. HogQL counts a row whose left side is NULL as passing `!=`, `NOT LIKE`, `NOT ILIKE`, and as failing
 * `=`, `LIKE` (printer.py visit_compare_operation); `IN`/`NOT IN` treat NULL as a value under HogQL's
 * `transform_null_in = 1`, so a NULL is NOT IN ('Chrome', 'x') and is IN (NULL, 'Safari').
 */
const cases: Array<[string, string, number]> = [
  ["event = 'purchase'", "equals(events.event, 'purchase')", 2],
  ["properties.$browser = 'Chrome'", `ifNull(equals(${B}, 'Chrome'), 0)`, 2],
  ["properties.$browser != 'Chrome'", `ifNull(notEquals(${B}, 'Chrome'), 1)`, 4],
  ["'Chrome' != properties.$browser", `ifNull(notEquals('Chrome', ${B}), 1)`, 4],
  ["properties.$browser = NULL", `isNull(${B})`, 3],
  ["properties.$browser IS NULL", `isNull(${B})`, 3],
  ["properties.$browser != NULL", `isNotNull(${B})`, 3],
  ["properties.$browser IS NOT NULL", `isNotNull(${B})`, 3],
  ["properties.$browser LIKE 'Chr%'", `ifNull(like(${B}, 'Chr%'), and(isNull(${B}), isNull('Chr%')))`, 2],
  ["properties.$browser NOT LIKE 'Chr%'", `ifNull(notLike(${B}, 'Chr%'), or(isNotNull(${B}), isNotNull('Chr%')))`, 4],
  ["properties.$browser ILIKE 'chrome'", `ifNull(ilike(${B}, 'chrome'), and(isNull(${B}), isNull('chrome')))`, 2],
  ["properties.$browser NOT ILIKE 'chrome'", `ifNull(notILike(${B}, 'chrome'), or(isNotNull(${B}), isNotNull('chrome')))`, 4],
  ["properties.$browser IN ('Chrome', 'Safari')", `ifNull(in(${B}, tuple('Chrome', 'Safari')), 0)`, 3],
  ["properties.$browser NOT IN ('Chrome', 'x')", `ifNull(notIn(${B}, tuple('Chrome', 'x')), 0)`, 4],
  ["properties.$browser IN (NULL, 'Safari')", `ifNull(in(${B}, tuple(NULL, 'Safari')), 0)`, 4],
  ["event IN ('purchase')", "in(events.event, 'purchase')", 2],
  ["properties.$browser =~ '^S'", `ifNull(match(${B}, '^S'), and(isNull(${B}), isNull('^S')))`, 1],
  ["properties.$browser !~ '^S'", `ifNull(not(match(${B}, '^S')), or(isNotNull(${B}), isNotNull('^S')))`, 5],
  ["properties.$browser > 'D'", `ifNull(greater(${B}, 'D'), 0)`, 1],
  ["1 = 1", "1", 6],
  ["1 = 2", "0", 0],
  ["properties.$browser = person.properties.plan", `ifNull(equals(${B}, ${PLAN}), and(isNull(${B}), isNull(${PLAN})))`, 0],
  ["equals(properties.$browser, 'Chrome')", `ifNull(equals(${B}, 'Chrome'), 0)`, 2],
  ["NOT (event = 'purchase')", "not(equals(events.event, 'purchase'))", 4],
  ["event = 'purchase' AND distinct_id = 'b1' OR event = '$pageview' AND distinct_id = 'a2'", "or(and(equals(events.event, 'purchase'), equals(events.distinct_id, 'b1')), and(equals(events.event, '$pageview'), equals(events.distinct_id, 'a2')))", 2],
  ["(event, distinct_id) IN (('purchase', 'b1'), ('x', 'y'))", "ifNull(in(tuple(events.event, events.distinct_id), tuple(tuple('purchase', 'b1'), tuple('x', 'y'))), 0)", 1],
  ["toHour(timestamp) BETWEEN 10 AND 12", "(toHour(toTimeZone(events.timestamp, 'UTC')) BETWEEN 10 AND 12)", 3],
];

describe("printer: comparisons with HogQL's null rules", () => {
  it.each(cases)("%s", (hogql, where, count) => {
    expect(whereOf(hogql)).toBe(where);
    expect(runHogql(`SELECT count() FROM events WHERE ${hogql}`)).toEqual([[count]]);
  });

  it("prints comparisons plain inside a JOIN's ON, as HogQL does", () => {
    const sql = print("SELECT count() FROM events e JOIN persons p ON p.properties.plan = e.properties.$browser").clickhouse;
    expect(sql).toContain("ON equals(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(p.properties, 'plan')");
    expect(sql).not.toContain("ON ifNull(");
  });

  it("prints arithmetic as functions", () => {
    expect(print("SELECT 1 + 2 * 3 - 4 / 2 % 3, -1").clickhouse).toBe("SELECT minus(plus(1, multiply(2, 3)), modulo(divide(4, 2), 3)), -1 LIMIT 101");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHogql, setParseTimeLimit } from "../../../src/hogql/parse.ts";
import { closeEngine, print, rows, runHogql } from "./printer-support.ts";

beforeAll(async () => {
  setParseTimeLimit(20_000);
  await loadHogql();
});
afterAll(closeEngine);

describe("printer: clauses", () => {
  const cases: Array<[string, string, unknown[][]]> = [
    ["a subquery in FROM", "SELECT n FROM (SELECT distinct_id, count() AS n FROM events GROUP BY distinct_id) ORDER BY n DESC, distinct_id", [[3], [2], [1]]],
    ["a subquery CTE", "WITH buyers AS (SELECT DISTINCT distinct_id FROM events WHERE event = 'purchase') SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM buyers)", [[5]]],
    ["a column CTE", "WITH 'purchase' AS buy SELECT count() FROM events WHERE event = buy", [[2]]],
    ["IN (SELECT …) over persons", "SELECT DISTINCT distinct_id FROM events WHERE person_id IN (SELECT id FROM persons WHERE properties.plan = 'pro') ORDER BY 1", [["a1"], ["a2"]]],
    ["UNION ALL", "SELECT k, n FROM (SELECT 'e' AS k, count() AS n FROM events UNION ALL SELECT 'p' AS k, count() AS n FROM persons) ORDER BY k", [["e", 6], ["p", 2]]],
    ["LIMIT … BY", "SELECT distinct_id, event FROM events ORDER BY distinct_id, timestamp LIMIT 1 BY distinct_id", [["a1", "$pageview"], ["a2", "$pageview"], ["b1", "$pageview"]]],
    ["ARRAY JOIN", "SELECT distinct_id, x FROM events ARRAY JOIN [1, 2] AS x WHERE distinct_id = 'a2' ORDER BY x", [["a2", 1], ["a2", 2]]],
    [
      "a window function",
      "SELECT distinct_id, event, row_number() OVER (PARTITION BY distinct_id ORDER BY timestamp) AS n FROM events WHERE distinct_id = 'a1' ORDER BY n",
      [["a1", "$pageview", 1], ["a1", "purchase", 2]],
    ],
    [
      "a named window and a frame",
      "SELECT event, sum(1) OVER w AS running FROM events WHERE distinct_id = 'b1' WINDOW w AS (ORDER BY timestamp ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) ORDER BY running",
      [["$pageview", 1], ["purchase", 2], ["$pageview", 3]],
    ],
    ["PREWHERE, folded into WHERE", "SELECT count() FROM events PREWHERE event = 'purchase' WHERE distinct_id = 'a1'", [[1]]],
    ["GROUP BY and HAVING", "SELECT distinct_id, count() AS c FROM events GROUP BY distinct_id HAVING c > 1 ORDER BY distinct_id", [["a1", 2], ["b1", 3]]],
    ["OFFSET", "SELECT distinct_id FROM person_distinct_ids ORDER BY distinct_id LIMIT 1 OFFSET 1", [["a2"]]],
    ["OFFSET without LIMIT in a subquery", "SELECT count() FROM (SELECT distinct_id FROM person_distinct_ids ORDER BY distinct_id OFFSET 1)", [[2]]],
  ];
  it.each(cases)("%s", (_name, hogql, want) => {
    expect(runHogql(hogql)).toEqual(want);
  });
});

describe("printer: LIMIT", () => {
  it("prints the default limit + 1 so the caller can tell hasMore", () => {
    const p = print("SELECT event FROM events");
    expect(p.limit).toBe(100);
    expect(p.clickhouse.endsWith(" LIMIT 101")).toBe(true);
  });

  it("keeps the query's limit, at most the maximum", () => {
    expect(print("SELECT 1 LIMIT 5").clickhouse).toBe("SELECT 1 LIMIT 6");
    expect(print("SELECT 1 LIMIT 100000").limit).toBe(50_000);
    expect(print("SELECT 1 LIMIT 100000").clickhouse).toBe("SELECT 1 LIMIT 50001");
    expect(print("SELECT 1 LIMIT 10", { maxLimit: 3 }).limit).toBe(3);
  });

  it("returns one more row than the limit when there are more", () => {
    const p = print("SELECT event FROM events ORDER BY timestamp LIMIT 2");
    expect(rows(p.clickhouse)).toHaveLength(3);
    const q = print("SELECT event FROM events ORDER BY timestamp LIMIT 6");
    expect(rows(q.clickhouse)).toHaveLength(6);
  });

  it("caps each branch of a top-level UNION ALL, as the real printer treats each as a top query", () => {
    expect(print("SELECT 1 UNION ALL SELECT 2").clickhouse).toBe("SELECT 1 LIMIT 101 UNION ALL SELECT 2 LIMIT 101");
    expect(runHogql("SELECT event FROM events WHERE event = 'purchase' UNION ALL SELECT key FROM groups").map(String).sort()).toEqual(["acme", "acme", "purchase", "purchase"]);
  });

  it("refuses a LIMIT that is not a constant", () => {
    expect(() => print("SELECT 1 LIMIT 1 + 1")).toThrow("LIMIT must be a non-negative integer constant");
  });

  it("keeps subqueries' own limits", () => {
    expect(print("SELECT count() FROM (SELECT event FROM events LIMIT 2)").clickhouse).toContain("AS events LIMIT 2)");
    expect(runHogql("SELECT count() FROM (SELECT event FROM events LIMIT 2)")).toEqual([[2]]);
  });
});

describe("printer: placeholders", () => {
  it("{filters} becomes the date range and property filters, resolved like the query's own fields", () => {
    const filters = { dateRange: { date_from: "2024-03-02", date_to: "2024-03-02T12:30:00Z" }, properties: [{ key: "$browser", value: ["Chrome", "Safari"], operator: "exact" }] };
    expect(runHogql("SELECT count() FROM events WHERE {filters}", { filters })).toEqual([[2]]);
    expect(runHogql("SELECT count() FROM events WHERE {filters}", { filters: { properties: [{ key: "plan", value: "pro", type: "person" }] } })).toEqual([[3]]);
    expect(runHogql("SELECT count() FROM events WHERE {filters}", { filters: { properties: [{ key: "$browser", operator: "is_not_set" }] } })).toEqual([[3]]);
    expect(runHogql("SELECT count() FROM events WHERE {filters}", { filters: { properties: [{ key: "$browser", value: "Chrome", operator: "is_not" }] } })).toEqual([[4]]);
    expect(runHogql("SELECT count() FROM events WHERE {filters}")).toEqual([[6]]);
    const testAccountFilters = [{ key: "email", value: "example.com", operator: "not_icontains", type: "person" as const }];
    expect(runHogql("SELECT count() FROM events WHERE {filters}", { testAccountFilters, filters: { filterTestAccounts: true } })).toEqual([[3]]);
    expect(runHogql("SELECT count() FROM events WHERE {filters}", { testAccountFilters, filters: { filterTestAccounts: false } })).toEqual([[6]]);
  });

  it("{variables.x} becomes a constant, escaped like any other", () => {
    expect(runHogql("SELECT count() FROM events WHERE event = {variables.name}", { variables: { name: "purchase" } })).toEqual([[2]]);
    expect(print("SELECT {variables.v}", { variables: { v: "x' OR 1" } }).clickhouse).toBe("SELECT 'x\\' OR 1' LIMIT 101");
    expect(() => print("SELECT {variables.missing}", { variables: {} })).toThrow("Variable missing is missing");
    expect(() => print("SELECT {variables.o}", { variables: { o: { a: 1 } } })).toThrow("must be a string, number, boolean");
  });

  it("refuses a CTE that names itself, and a column CTE that uses itself, instead of looping", () => {
    expect(() => print("WITH a AS (SELECT * FROM a) SELECT * FROM a")).toThrow('Unknown table "a".');
    expect(() => print("WITH x + 1 AS x SELECT x")).toThrow("Unable to resolve field: x");
  });

  it("refuses other placeholders, as the real service does", () => {
    expect(() => print("SELECT {other}")).toThrow("Placeholders, such as {other}, are not supported in this context");
  });
});

describe("printer: the query as HogQL prints it", () => {
  it.each([
    ["SELECT event, count() FROM events WHERE properties.$browser != 'Chrome' GROUP BY event", "SELECT event, count() FROM events WHERE notEquals(properties.$browser, 'Chrome') GROUP BY event LIMIT 100"],
    ["select 1 + 2 as x from events e join persons p on p.id = e.person_id limit 3", "SELECT plus(1, 2) AS x FROM events AS e JOIN persons AS p ON equals(p.id, e.person_id) LIMIT 3"],
    ["SELECT event FROM events WHERE distinct_id IN (SELECT distinct_id FROM person_distinct_ids)", "SELECT event FROM events WHERE in(distinct_id, (SELECT distinct_id FROM person_distinct_ids)) LIMIT 100"],
    ["SELECT 1 LIMIT 100000", "SELECT 1 LIMIT 50000"],
  ])("%s", (hogql, want) => {
    expect(print(hogql).hogql).toBe(want);
  });
});

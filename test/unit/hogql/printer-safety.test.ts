import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { loadHogql, parseHogqlSelect, setParseTimeLimit } from "../../../src/hogql/parse.ts";
import { printSelect } from "../../../src/hogql/printer/print.ts";
import { baseCtx, closeEngine, print, runHogql, TEAM } from "./printer-support.ts";

beforeAll(async () => {
  setParseTimeLimit(20_000);
  await loadHogql();
});
afterAll(closeEngine);

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AnalysisInputError);
    return (e as Error).message;
  }
  throw new Error("expected a refusal");
};

describe("printer safety: only the HogQL database is reachable", () => {
  const refused: Array<[string, string, RegExp]> = [
    ["file()", "SELECT * FROM file('/etc/passwd')", /Table functions are not allowed: file/],
    ["url()", "SELECT * FROM url('http://127.0.0.1/', CSV)", /Table functions are not allowed: url/],
    ["s3()", "SELECT * FROM s3('https://b.s3.amazonaws.com/x.csv')", /Table functions are not allowed: s3/],
    ["remote()", "SELECT * FROM remote('127.0.0.1', system.one)", /Table functions are not allowed: remote/],
    ["numbers()", "SELECT * FROM numbers(1000000000)", /Table functions are not allowed: numbers/],
    ["system.tables", "SELECT name FROM system.tables", /Unknown table "system.tables"/],
    ["another database", "SELECT * FROM default.events", /Unknown table "default.events"/],
    ["a table outside HogQL", "SELECT * FROM cohortpeople", /Unknown table "cohortpeople"/],
    ["file() as a function", "SELECT file('/etc/passwd')", /Unsupported function call 'file\(\.\.\.\)'/],
    ["currentDatabase()", "SELECT currentDatabase()", /Unsupported function call 'currentDatabase/],
    ["getSetting()", "SELECT getSetting('max_memory_usage')", /Unsupported function call 'getSetting/],
    ["dictGet()", "SELECT dictGet('d', 'x', 1)", /Unsupported function call 'dictGet/],
    ["joinGet()", "SELECT joinGet('t', 'x', 1)", /Unsupported function call 'joinGet/],
    ["arrayReduce (takes a function name as text)", "SELECT arrayReduce('sum', [1, 2])", /Unsupported function call 'arrayReduce/],
    ["FINAL", "SELECT * FROM events FINAL", /FINAL is not supported/],
    ["an unknown field", "SELECT secret FROM events", /Unable to resolve field: secret/],
    ["team_id as an alias (reserved by HogQL's grammar)", "SELECT 8 AS team_id FROM events", /reserved keyword/],
    ["% in an identifier", "SELECT 1 AS `a%s`", /contains the "%" character/],
  ];
  it.each(refused)("refuses %s", (_name, sql, message) => {
    expect(refusal(() => print(sql))).toMatch(message);
  });

  it.each([
    ["SETTINGS", "SELECT 1 FROM events SETTINGS max_threads = 1000"],
    ["INSERT", "INSERT INTO events VALUES (1)"],
    ["DROP", "DROP TABLE events"],
    ["ALTER", "ALTER TABLE events DELETE WHERE 1"],
    ["two statements", "SELECT 1; DROP TABLE events"],
  ])("the parser yields nothing but SELECTs: %s is a syntax error", (_name, sql) => {
    expect(refusal(() => parseHogqlSelect(sql, "query"))).toMatch(/HogQL syntax error/);
  });

  it("prints no keyword from the tree it has not checked", () => {
    const from = (join_type: string) => ({ node: "JoinExpr", table: { node: "Field", chain: ["events"] }, alias: null, next_join: { node: "JoinExpr", table: { node: "Field", chain: ["persons"] }, alias: null, join_type, next_join: null, table_final: null, sample: null }, table_final: null, sample: null });
    const query = (join_type: string) => ({ node: "SelectQuery", select: [{ node: "Constant", value: 1 }], select_from: from(join_type), where: null, prewhere: null, group_by: null, having: null, distinct: null, ctes: null });
    expect(printSelect(query("LEFT JOIN"), baseCtx).clickhouse).toContain(" LEFT JOIN (SELECT * FROM persons WHERE equals(team_id, 7)) AS persons");
    expect(refusal(() => printSelect(query("JOIN system.tables, events JOIN"), baseCtx))).toMatch(/Unsupported clause/);
    expect(refusal(() => printSelect({ ...query("JOIN"), array_join_op: "ARRAY JOIN file('x') AS y, [1]", array_join_list: [] }, baseCtx))).toMatch(/Unsupported clause/);
  });

  it("refuses any tree that is not a SELECT, even one built by hand", () => {
    expect(refusal(() => printSelect({ node: "InsertQuery" }, baseCtx))).toMatch(/Only SELECT queries are supported/);
    expect(refusal(() => printSelect({ node: "SelectQuery", select: [{ node: "Constant", value: 1 }], select_from: null, where: null, prewhere: null, group_by: null, having: null, distinct: null, ctes: null, settings: { max_threads: 1 } }, baseCtx))).toMatch(/SETTINGS are not allowed/);
  });
});

describe("printer safety: another project's rows are never reachable", () => {
  const TABLE_READ = /FROM (\w+) WHERE equals\(team_id, (\d+)\)\)/g;
  const BARE_TABLE = /FROM (events|persons|person_distinct_ids|groups|sessions)\b(?! WHERE equals\(team_id, 7\)\))/;

  /** Every construct that reads a table, with the rows it must give when only team 7's rows are visible. */
  const constructs: Array<[string, string, unknown[][]]> = [
    ["FROM", "SELECT count() FROM events", [[6]]],
    ["explicit JOIN", "SELECT count() FROM events e JOIN persons p ON p.id = e.person_id", [[6]]],
    ["LEFT JOIN of another table", "SELECT p.properties.plan FROM person_distinct_ids d LEFT JOIN persons p ON p.id = d.person_id ORDER BY 1", [["free"], ["pro"], ["pro"]]],
    ["comma join", "SELECT count() FROM persons, groups", [[4]]],
    ["subquery in FROM", "SELECT count() FROM (SELECT * FROM persons)", [[2]]],
    ["CTE", "WITH p AS (SELECT id FROM persons) SELECT count() FROM p", [[2]]],
    ["IN (SELECT …)", "SELECT count() FROM person_distinct_ids WHERE person_id IN (SELECT id FROM persons)", [[3]]],
    ["NOT IN (SELECT …) over all projects' ids", "SELECT count() FROM persons WHERE id NOT IN (SELECT person_id FROM events)", [[0]]],
    ["scalar subquery", "SELECT (SELECT count() FROM groups)", [[2]]],
    ["UNION ALL branch", "SELECT d FROM (SELECT distinct_id AS d FROM person_distinct_ids UNION ALL SELECT key AS d FROM groups) ORDER BY d", [["a1"], ["a2"], ["acme"], ["acme"], ["b1"]]],
    ["lazy person join", "SELECT person.properties.plan FROM events WHERE distinct_id = 'b1' LIMIT 1", [["free"]]],
    ["lazy pdi join", "SELECT count() FROM events WHERE pdi.person_id IS NOT NULL AND pdi.distinct_id != ''", [[6]]],
    ["lazy session join", "SELECT sum(session.$session_duration) FROM events", [[7200]]],
  ];

  it.each(constructs)("%s: every table is read through team 7's filter", (_name, sql, want) => {
    const { clickhouse } = print(sql);
    expect(clickhouse).not.toMatch(BARE_TABLE);
    const reads = [...clickhouse.matchAll(TABLE_READ)];
    expect(reads.length).toBeGreaterThan(0);
    for (const [, , team] of reads) expect(Number(team)).toBe(TEAM);
    expect(runHogql(sql)).toEqual(want);
  });

  it("a bare name on IN's right side is never a table: subquery columns print qualified", () => {
    const { clickhouse } = print("SELECT 1 FROM (SELECT 'secret' AS persons) WHERE 'secret' IN persons");
    expect(clickhouse).toContain("in('secret', __hogql_subquery_0.persons)");
    expect(runHogql("SELECT 1 FROM (SELECT 'secret' AS persons) WHERE 'secret' IN persons")).toEqual([[1]]);
    expect(() => print("SELECT 1 FROM events WHERE distinct_id IN persons")).toThrow("Unable to resolve field: persons");
  });

  it("a user's WHERE on team_id cannot widen the filter", () => {
    expect(runHogql("SELECT count() FROM events WHERE team_id = 8 OR 1 = 1")).toEqual([[6]]);
    expect(runHogql("SELECT count() FROM events WHERE team_id = 8")).toEqual([[0]]);
  });
});

describe("printer safety: text is escaped", () => {
  it("escapes string constants so they cannot end the literal", () => {
    const { clickhouse } = print("SELECT 'a\\' OR 1 = 1 --'");
    expect(clickhouse).toBe("SELECT 'a\\' OR 1 = 1 --' LIMIT 101");
    expect(runHogql("SELECT 'it''s', 'back\\\\slash', 'new\\nline'")).toEqual([["it's", "back\\slash", "new\nline"]]);
  });

  it("escapes property keys as string literals", () => {
    const { clickhouse } = print("SELECT properties.`x'), (SELECT 1` FROM events");
    expect(clickhouse).toContain("JSONExtractRaw(events.properties, 'x\\'), (SELECT 1')");
    expect(runHogql("SELECT properties.`x'), (SELECT 1` FROM events LIMIT 1")).toEqual([[null]]);
  });

  it("puts identifiers that are not plain in backticks, escaping backticks", () => {
    expect(print("SELECT 1 AS `a``b`").clickhouse).toBe("SELECT 1 AS `a\\`b` LIMIT 101");
    expect(runHogql("SELECT 1 AS `a``b`")).toEqual([[1]]);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { HOGQL_LIMITS, hogqlShape } from "../../../src/hogql/bounds.ts";
import { hogqlLoaded, loadHogql, parseHogqlExpr, parseHogqlSelect, setHogqlLimits, setParseTimeLimit } from "../../../src/hogql/parse.ts";

const UNBOUNDED = { length: Infinity, depth: Infinity, tokens: Infinity, operators: Infinity };
const nestedCalls = (n: number) => `SELECT ${"concat(".repeat(n)}'a'${", 'b')".repeat(n)}`;

afterEach(() => {
  setHogqlLimits(HOGQL_LIMITS);
  setParseTimeLimit(2_000);
});

function refusal(parse: () => unknown): AnalysisInputError {
  try {
    parse();
  } catch (e) {
    if (e instanceof AnalysisInputError) return e;
    throw e;
  }
  throw new Error("parsed without a refusal");
}

describe("what reaches PostHog's HogQL parser", () => {
  it("measures nesting, terms and operators outside literals and comments", () => {
    expect(hogqlShape("f(g(x), [1, (2)])")).toEqual({ depth: 3, tokens: 15, operators: 0 });
    expect(hogqlShape("a = '(((' AND b != \"x))\" -- (((\n OR c + 1 > 2 /* ( */")).toEqual({ depth: 0, tokens: 13, operators: 6 });
    expect(hogqlShape("'it''s (' || 'a\\'(' ").operators).toBe(1);
  });

  it("refuses, naming the limit and the field, what would break the parser or hold it for long", async () => {
    await loadHogql();
    const cases: [string, string, RegExp][] = [
      ["400-term sum", `SELECT ${Array(400).fill("1").join("+")}`, /more than 128 operators/],
      ["2,000-term OR chain", `SELECT 1 FROM events WHERE ${Array.from({ length: 2000 }, (_, i) => `event = 'e${i}'`).join(" OR ")}`, /more than 2,048 terms/],
      ["300 nested parentheses", `SELECT ${"(".repeat(300)}1${")".repeat(300)}`, /nested deeper than 16/],
      ["200 nested concat(", nestedCalls(200), /nested deeper than 16/],
      ["IN list of 50,000 strings", `SELECT 1 FROM events WHERE event IN (${Array.from({ length: 50_000 }, (_, i) => `'s${i}'`).join(",")})`, /longer than 65,536 characters/],
      ["concat() of 20,000 columns", `SELECT concat(${Array(20_000).fill("event").join(",")}) FROM events`, /longer than 65,536 characters/],
    ];
    for (const [label, sql, message] of cases) {
      const e = refusal(() => parseHogqlSelect(sql, "query__query"));
      expect(e.attr, label).toBe("query__query");
      expect(e.message, label).toMatch(message);
    }
  });

  it("stops waiting for a parse past its time limit, then parses the next query on a fresh parser", async () => {
    await loadHogql();
    setParseTimeLimit(5);
    const e = refusal(() => parseHogqlSelect(nestedCalls(16), "query"));
    expect(e.message).toMatch(/took longer than 5 ms/);
    setParseTimeLimit(2_000);
    expect(hogqlLoaded()).toBe(false);
    await loadHogql();
    expect(parseHogqlExpr("event = 'after'", "where")).toMatchObject({ node: "CompareOperation" });
  });

  it("recovers from the WebAssembly failures unbounded input causes: the next query parses normally", { timeout: 60_000 }, async () => {
    setHogqlLimits(UNBOUNDED);
    setParseTimeLimit(30_000);
    await loadHogql();
    // The 400-term sum overflows the parser's stack; the 1,000-term OR chain returns, and breaks the next parse.
    const poisons = [`SELECT ${Array(400).fill("1").join("+")}`, `SELECT 1 FROM events WHERE ${Array.from({ length: 1000 }, (_, i) => `event = 'e${i}'`).join(" OR ")}`];
    for (const sql of poisons) {
      try {
        parseHogqlSelect(sql, "query");
      } catch (e) {
        expect(e).toBeInstanceOf(AnalysisInputError);
      }
      expect(parseHogqlSelect("SELECT event, count() FROM events GROUP BY event", "query")).toMatchObject({ node: "SelectQuery" });
    }
  });
});

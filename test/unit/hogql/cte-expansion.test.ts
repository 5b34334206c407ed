import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { MAX_CTE_EXPANSIONS } from "../../../src/hogql/printer/cte-expansions.ts";
import { loadHogql, setParseTimeLimit } from "../../../src/hogql/parse.ts";
import { doublingCtes } from "../../support/hostile-probes.ts";
import { closeEngine, print, runHogql } from "./printer-support.ts";

beforeAll(async () => {
  setParseTimeLimit(20_000);
  await loadHogql();
});
afterAll(closeEngine);

/** `levels` subquery CTEs above c0, each naming the one below twice (issue 38's attack had 19). */
const doublingTables = doublingCtes;

/** The same with column CTEs: `a1 = a0 + a0`, `a2 = a1 + a1`, … */
function doublingColumns(levels: number): string {
  const ctes = ["1 AS a0"];
  for (let k = 1; k <= levels; k++) ctes.push(`a${k - 1} + a${k - 1} AS a${k}`);
  return `WITH ${ctes.join(", ")} SELECT a${levels}`;
}

const refusal = (sql: string): AnalysisInputError => {
  try {
    print(sql);
  } catch (e) {
    return e as AnalysisInputError;
  }
  throw new Error("printed");
};

describe("CTE expansion is counted and bounded before anything runs", () => {
  // The top SELECT names c_k once, c_k names c_(k-1) twice, …: 1 + 2 + 4 + … + 2^k = 2^(k+1) - 1 copies.
  // The limit is 256: 7 levels are 255 copies, 8 levels 511.
  it("runs 7 doubling levels (255 copies): ClickHouse counts 2^7 = 128 rows of the base", () => {
    expect(MAX_CTE_EXPANSIONS).toBe(256);
    const printed = print(doublingTables(7));
    // Every copy is written out in the SQL ClickHouse receives: 128 copies of c0's body at the bottom.
    expect(printed.clickhouse.split("SELECT 1 AS x").length - 1).toBe(128);
    expect(runHogql(doublingTables(7))).toEqual([[128]]);
  });

  it.each([
    ["8 doubling subquery CTEs (511 copies)", doublingTables(8)],
    ["the 19 levels of issue 38 (2^20 - 1 copies)", doublingTables(19)],
    ["8 doubling column CTEs", doublingColumns(8)],
    ["40 doubling column CTEs", doublingColumns(40)],
  ])("refuses %s with a 400 naming the limit", (_name, sql) => {
    const e = refusal(sql);
    expect(e).toBeInstanceOf(AnalysisInputError);
    expect(e.attr).toBe("query");
    expect(e.message).toContain("more than 256 copies (the limit of CTE expansions");
  });

  it("runs 7 doubling column CTEs: a7 = 2^7", () => {
    expect(runHogql(doublingColumns(7))).toEqual([[128]]);
  });

  it("counts each print afresh: a refused query leaves nothing behind for the next", () => {
    const ctx = { teamId: 7, timezone: "UTC", now: 0, defaultLimit: 100, maxLimit: 50_000 };
    expect(() => print(doublingTables(8), ctx)).toThrow("limit of CTE expansions");
    expect(print(doublingTables(7), ctx).clickhouse).toContain("UNION ALL");
  });
});

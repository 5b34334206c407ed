import { afterEach, describe, expect, it } from "vitest";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { QueryBudget } from "../../../src/hogql/budget.ts";

afterEach(() => {
  QueryBudget.defaultMs = 1_000;
});

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe("the time a HogQL evaluation may hold the event loop", () => {
  it("lets rows through until the deadline, then stops with a 400 naming the field, the limit and the rows read", () => {
    QueryBudget.defaultMs = 30;
    const budget = new QueryBudget("query__query");
    for (let i = 0; i < 5_000; i++) budget.tick();
    busy(40);
    let stopped: unknown;
    try {
      for (let i = 0; i < 5_000; i++) budget.tick();
    } catch (e) {
      stopped = e;
    }
    expect(stopped).toBeInstanceOf(AnalysisInputError);
    const e = stopped as AnalysisInputError;
    expect(e.attr).toBe("query__query");
    expect(e.code).toBe("timeout_exceeded");
    expect(e.message).toMatch(/time limit of 30 ms \(after 5,120 rows\)/);
  });

  it("looks at the clock once per 1,024 rows, not per row", () => {
    const budget = new QueryBudget("where", 1);
    busy(5);
    for (let i = 0; i < 1_023; i++) budget.tick();
    expect(() => budget.tick()).toThrow(AnalysisInputError);
  });
});

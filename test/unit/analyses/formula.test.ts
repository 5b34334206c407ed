import { describe, expect, it } from "vitest";
import { applyFormula, compileFormula } from "../../../src/analyses/shared/formula.ts";

describe("formula (reference §2.6, §11 item 6)", () => {
  const cases: [string, number[], number][] = [
    ["A+B", [2, 3], 5],
    ["a+b", [2, 3], 5],
    ["A-B*2", [10, 3], 4],
    ["(A-B)/B", [10, 4], 1.5],
    ["A/B", [1, 0], 0],
    ["A%B", [7, 0], 0],
    ["A%B", [7, 3], 1],
    ["A%B", [-7, 3], 2],
    ["A**2", [3, 0], 9],
    ["2**3**2", [0, 0], 512],
    ["-A+10", [4, 0], 6],
    ["A/2.5", [5, 0], 2],
  ];
  it.each(cases)("%s of %j = %d", (text, values, want) => {
    expect(compileFormula(text, 2)(values)).toBe(want);
  });

  it("is evaluated bucket by bucket: A/B of [1,1,0] and [3,1,1]", () => {
    expect(applyFormula(compileFormula("A/B", 2), [[1, 1, 0], [3, 1, 1]], 3)).toEqual([1 / 3, 1, 0]);
  });

  const invalid = ["A+", "C", "abs(A)", "A & B", "A > B", "'x'", "A.b", "AB", "A ? B : 1", ""];
  it.each(invalid)("rejects %j with a 400 on formula", (text) => {
    expect(() => compileFormula(text, 2)).toThrow(expect.objectContaining({ name: "AnalysisInputError", attr: "formula" }));
  });
});

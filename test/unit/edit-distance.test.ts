import { describe, expect, it } from "vitest";
import { closestNames, editDistance } from "../../src/core/edit-distance.ts";

// Distances worked by hand: insertions, deletions and substitutions of one character each cost 1.
const distances: Array<[string, string, number]> = [
  ["", "", 0],
  ["", "abc", 3],
  ["insight_list", "insights_list", 1],
  ["kitten", "sitting", 3],
  ["flaw", "lawn", 2],
];

describe("editDistance", () => {
  it.each(distances)("%j → %j is %i", (a, b, want) => {
    expect(editDistance(a, b)).toBe(want);
    expect(editDistance(b, a)).toBe(want);
  });
});

describe("closestNames", () => {
  it("names the closest few, nearest first, ties alphabetically, case aside", () => {
    const known = ["insights_list", "insights_create", "actions_list", "cohorts_list", "INSIGHTS_LISTS"];
    // insights_list 1, INSIGHTS_LISTS 2 (case aside), actions_list and cohorts_list farther.
    expect(closestNames("insight_list", known, 2)).toEqual(["insights_list", "INSIGHTS_LISTS"]);
    expect(closestNames("x", [], 3)).toEqual([]);
  });
});

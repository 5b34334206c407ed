import { describe, expect, it } from "vitest";
import { findCohortCycle } from "../../../src/store/cohorts.ts";

/** The one loop rule every door cohorts enter by applies (API, fixture files, PUT /_mock/state/). */
const refersTo = (...ids: number[]) => ({ properties: { type: "AND", values: ids.map((id) => ({ key: "id", type: "cohort", value: id })) } });
const cohort = (id: number, ...refs: number[]) => ({ id, filters: refersTo(...refs) });

type Case = [name: string, cohorts: { id: number; filters?: object }[], from: number | undefined, want: number[] | null];

const cases: Case[] = [
  ["no references", [cohort(1), cohort(2)], undefined, null],
  ["a chain is no loop", [cohort(1, 2), cohort(2, 3), cohort(3)], undefined, null],
  ["a diamond is no loop", [cohort(1, 2, 3), cohort(2, 4), cohort(3, 4), cohort(4)], undefined, null],
  ["a cohort naming itself", [cohort(7, 7)], undefined, [7, 7]],
  ["two naming each other", [cohort(3, 4), cohort(4, 3)], undefined, [3, 4, 3]],
  ["a loop behind a chain, named from where it closes", [cohort(1, 2), cohort(2, 3), cohort(3, 2)], undefined, [2, 3, 2]],
  ["a reference inside a nested OR group", [{ id: 1, filters: { properties: { type: "OR", values: [refersTo(2).properties] } } }, cohort(2, 1)], undefined, [1, 2, 1]],
  ["an unknown cohort is no loop", [cohort(1, 99)], undefined, null],
  ["static cohorts (no filters) end a path", [cohort(1, 2), { id: 2 }], undefined, null],
  ["from a cohort: a loop it cannot reach is not its", [cohort(1), cohort(2, 3), cohort(3, 2)], 1, null],
  ["from a cohort: a loop it reaches", [cohort(1, 2), cohort(2, 3), cohort(3, 2)], 1, [2, 3, 2]],
];

describe("findCohortCycle", () => {
  for (const [name, cohorts, from, want] of cases) it(name, () => expect(findCohortCycle(cohorts as never, from)).toEqual(want));

  it("follows a chain of 20,000 cohorts without overflowing the stack", () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => cohort(i, i + 1));
    expect(findCohortCycle(chain)).toBeNull();
    chain.push(cohort(20_000, 0));
    expect(findCohortCycle(chain)).toHaveLength(20_002);
  });
});

import { AnalysisInputError } from "../../core/analysis-errors.ts";

/**
 * Copies of CTE bodies one printed query may hold. The printer writes a CTE out in place at each reference (as
 * ClickHouse itself does with a WITH subquery), so CTEs that each name the one below twice double the query at
 * every level: 19 levels are 2^19 copies, seconds of printing and then of ClickHouse's work. Counted while
 * printing, so a query is refused after at most this many copies, before anything runs. Real queries name a CTE
 * a few times.
 */
export const MAX_CTE_EXPANSIONS = 256;

const cteExpansions = new WeakMap<object, number>();

/** Starts the count for one print (keyed by its print context, which every part of the printer shares). */
export function startCteCount(printing: object): void {
  cteExpansions.set(printing, 0);
}

/** Counts one CTE written out in place; past the limit, the 400 that names it. */
export function countCteExpansion(printing: object, name: string): void {
  const count = (cteExpansions.get(printing) ?? 0) + 1;
  cteExpansions.set(printing, count);
  if (count > MAX_CTE_EXPANSIONS) {
    throw new AnalysisInputError(
      "query",
      `The query's CTEs expand to more than ${MAX_CTE_EXPANSIONS} copies (the limit of CTE expansions; "${name}" was the ${count.toLocaleString("en")}th): each reference to a CTE writes its whole body out again, including the CTEs it references. Reference each CTE fewer times, or compute a shared part once in a subquery.`,
    );
  }
}

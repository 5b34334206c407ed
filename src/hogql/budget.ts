import { AnalysisInputError } from "../core/analysis-errors.ts";

/** Rows between two looks at the clock: reading it per row would cost more than the rows. */
const ROWS_PER_CHECK = 1_024;

/**
 * The time a HogQL evaluation may hold the main thread. Checked while rows are read, so a query over every
 * event with a costly expression (a regular expression built per row, a huge string) stops with a 400 instead
 * of keeping every other request waiting; the real service's ClickHouse stops it by `max_execution_time`.
 */
export class QueryBudget {
  #deadline: number;
  #rows = 0;

  constructor(
    private readonly attr: string,
    private readonly limitMs: number = QueryBudget.defaultMs,
  ) {
    this.#deadline = performance.now() + limitMs;
  }

  /** The limit every new budget gets (tests shorten it to reach the refusal on a small dataset). */
  static defaultMs = 1_000;

  /** Counts one row; past the deadline, throws the 400 that names the limit. */
  tick(): void {
    if (++this.#rows % ROWS_PER_CHECK === 0) this.check();
  }

  check(): void {
    if (performance.now() > this.#deadline) {
      throw new AnalysisInputError(this.attr, `Query exceeded the time limit of ${this.limitMs} ms (after ${this.#rows.toLocaleString("en")} rows). Narrow the date range, filter on event names first, or simplify per-row expressions.`, "timeout_exceeded");
    }
  }
}

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

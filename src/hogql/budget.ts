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

import { reject } from "../../core/analysis-errors.ts";
import { startCteCount } from "./cte-expansions.ts";
import { replaceDateRangePlaceholders } from "./date-range-placeholders.ts";
import { constant, isQuery, isSelect, type Node } from "./ast.ts";
import { printHogql } from "./hogql-print.ts";
import { printQuery, topLimit } from "./select.ts";
import type { PrintContext, Printed } from "./types.ts";

export { HOGQL_CLICKHOUSE_SETTINGS } from "./settings.ts";
export type { PrintContext, Printed, HogqlFilters, PropertyFilter } from "./types.ts";

/**
 * Prints a parsed HogQL SELECT (from `parseHogqlSelect`) as ClickHouse SQL with HogQL's rules: only the HogQL
 * database's tables, each read through this project's filter; allow-listed functions; HogQL's null handling,
 * property reads and column names; the row cap printed as limit + 1 so the caller can tell hasMore.
 */
export function printSelect(ast: Node, ctx: PrintContext): Printed {
  if (!isQuery(ast)) throw reject.invalid("query", "Only SELECT queries are supported");
  const limit = topLimit(ast, ctx);
  startCteCount(ctx);
  const resolved = replaceDateRangePlaceholders(ast, ctx.filters, { now: ctx.now, timezone: ctx.timezone, weekStartDay: 0 }, "query");
  const printed = printQuery(resolved, undefined, ctx, limit);
  // The HogQL print-back shows the limit the query ran with, as the real service's `hogql` does.
  const hogql = printHogql(isSelect(ast) ? { ...ast, limit: constant(limit) } : ast);
  return { clickhouse: printed.sql, hogql, columns: printed.columns.map(([name]) => name), limit };
}

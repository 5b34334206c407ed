import { reject } from "../../analyses/errors.ts";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import { parseHogqlExpr, parseHogqlOrder, parseHogqlSelect, type HogqlNode } from "../../hogql/parse.ts";
import { runSelect, type SqlResult } from "../../hogql/sql/run.ts";
import type { SqlSource } from "../../hogql/sql/tables.ts";
import { aggregateCalls } from "../../hogql/sql/grouping.ts";

/** The real service's row limits: 100 rows without LIMIT, never more than 50,000 (its MAX_SELECT_RETURNED_ROWS). */
export const DEFAULT_ROWS = 100;
export const MAX_ROWS = 50_000;

export interface SqlContext {
  source: SqlSource;
  now: number;
  timezone: string;
}

/** A HogQLQuery: its SQL run by the SQL engine; `types` pairs each column with its type, as the real service's. */
export function runHogqlQuery(node: Loose, attr: string, ctx: SqlContext) {
  if (typeof node.query !== "string" || node.query.trim() === "") throw reject.required(`${attr}__query`);
  const result = runSql(node.query, `${attr}__query`, ctx);
  return {
    columns: result.columns,
    types: result.columns.map((c, i) => [c, result.types[i]!]),
    results: result.results,
    hogql: node.query,
    hasMore: result.hasMore,
    limit: result.limit,
    offset: result.offset,
  };
}

export function runSql(sql: string, attr: string, ctx: SqlContext): SqlResult {
  return runSelect(parseHogqlSelect(sql, attr), ctx.source, { attr, now: ctx.now, timezone: ctx.timezone, defaultLimit: DEFAULT_ROWS, maxLimit: MAX_ROWS });
}

const strings = (value: unknown, attr: string): string[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw reject.invalid(attr, "Expected a list of HogQL expression strings.");
  return value as string[];
};

const constant = (value: unknown): HogqlNode => ({ node: "Constant", value });
const compare = (field: string, op: string, value: unknown): HogqlNode => ({ node: "CompareOperation", op, left: { node: "Field", chain: [field] }, right: constant(value) });

/**
 * An EventsQuery as one SELECT over events: `select` expressions (aggregates group by the others, as the real
 * service's runner does), `where` expressions, `event`, `after`/`before` (the real default: the last 24 hours;
 * `all` for no bound), `orderBy`, `limit`/`offset`. `types` are plain type names here, as the real service's.
 */
export function runEventsQuery(node: Loose, attr: string, ctx: SqlContext) {
  const select = strings(node.select, `${attr}__select`);
  if (select.length === 0) throw reject.required(`${attr}__select`);
  const items = select.map((text, i) => selectItem(text, `${attr}__select__${i}`));
  const conditions = strings(node.where, `${attr}__where`).map((text, i) => parseHogqlExpr(text, `${attr}__where__${i}`));
  if (typeof node.event === "string") conditions.push(compare("event", "==", node.event));
  if (node.after !== "all") conditions.push(compare("timestamp", ">", instant(node.after ?? "-24h", `${attr}__after`, ctx.now)));
  if (node.before !== undefined && node.before !== null) conditions.push(compare("timestamp", "<", instant(node.before, `${attr}__before`, ctx.now)));
  const isAggregate = (n: HogqlNode) => aggregateCalls(n, attr).length > 0;
  const aggregated = items.some(isAggregate);
  const orderBy = strings(node.orderBy, `${attr}__orderBy`).map((text, i) => parseHogqlOrder(text, `${attr}__orderBy__${i}`));
  const ast: HogqlNode = {
    node: "SelectQuery",
    select: items,
    select_from: { node: "JoinExpr", table: { node: "Field", chain: ["events"] } },
    where: conditions.length ? { node: "And", exprs: conditions } : null,
    group_by: aggregated ? items.filter((n) => !isAggregate(n)) : null,
    order_by: orderBy.length ? orderBy : aggregated ? null : [{ node: "OrderExpr", expr: { node: "Field", chain: ["timestamp"] }, order: "DESC" }],
    limit: constant(Math.min(Number(node.limit ?? DEFAULT_ROWS), MAX_ROWS)),
    offset: constant(Number(node.offset ?? 0)),
  };
  if (ast.group_by && (ast.group_by as HogqlNode[]).length === 0) ast.group_by = null;
  const result = runSelect(ast, ctx.source, { attr, now: ctx.now, timezone: ctx.timezone, defaultLimit: DEFAULT_ROWS, maxLimit: MAX_ROWS });
  return { columns: select, types: result.types, results: result.results, hasMore: result.hasMore, limit: result.limit, offset: result.offset };
}

/**
 * One EventsQuery column: a HogQL expression, its ` -- Label` comment dropped. Choice: `*` and `person` (whole
 * event and person objects in the real service) are refused; name the columns instead.
 */
function selectItem(text: string, attr: string): HogqlNode {
  const expr = text.replace(/\s+--.*$/, "").trim();
  if (expr === "*" || expr === "person") throw reject.invalid(attr, `"${expr}" (a whole event or person object) is not supported in EventsQuery; select columns such as event, timestamp, distinct_id, properties.$browser.`);
  return parseHogqlExpr(expr, attr);
}

const RELATIVE = /^-(\d+)([hdwmy])$/;
const UNIT_MS: Readonly<Record<string, number>> = { h: 3.6e6, d: 8.64e7, w: 6.048e8, m: 2.592e9, y: 3.1536e10 };

/** `after`/`before`: an ISO date(-time) or a relative `-24h`, `-7d`, … (months and years as 30 and 365 days). */
function instant(value: unknown, attr: string, now: number): string {
  const text = String(value);
  const relative = RELATIVE.exec(text);
  if (relative) return new Date(now - Number(relative[1]) * UNIT_MS[relative[2]!]!).toISOString();
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) || text.length <= 10 ? text : `${text}Z`);
  if (Number.isNaN(ms)) throw reject.invalid(attr, `"${text}" is not an ISO 8601 date-time nor a relative date such as -24h or -7d.`);
  return new Date(ms).toISOString();
}

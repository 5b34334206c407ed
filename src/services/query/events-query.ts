import { reject } from "../../core/analysis-errors.ts";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import { parseHogqlExpr, parseHogqlOrder } from "../../hogql/parse.ts";
import { and, call, compare, constant, field, type HogqlNode } from "../../hogql/printer/ast.ts";
import { lookupFunction } from "../../hogql/printer/functions.ts";
import { DEFAULT_ROWS, MAX_ROWS, runAst, type SqlContext } from "./sql-query.ts";

const strings = (value: unknown, attr: string): string[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw reject.invalid(attr, "Expected a list of HogQL expression strings.");
  return value as string[];
};

/**
 * An EventsQuery as the real service's runner builds it: one HogQL SELECT over events of the `select`
 * expressions (aggregates group by the others), the `where` expressions, `event`, `after`/`before` (by default
 * the last 24 hours; `all` for no bound), `orderBy` (by default the newest first), `limit`/`offset`; run on the
 * SQL engine. `types` are plain type names here, as the real service's.
 */
export async function runEventsQuery(node: Loose, attr: string, ctx: SqlContext) {
  const select = strings(node.select, `${attr}__select`);
  if (select.length === 0) throw reject.required(`${attr}__select`);
  const items = select.map((text, i) => selectItem(text, `${attr}__select__${i}`));
  const conditions = strings(node.where, `${attr}__where`).map((text, i) => parseHogqlExpr(text, `${attr}__where__${i}`));
  if (typeof node.event === "string") conditions.push(compare("==", field("event"), constant(node.event)));
  if (node.after !== "all") conditions.push(compare(">", field("timestamp"), instant(node.after ?? "-24h", `${attr}__after`, ctx.now)));
  if (node.before !== undefined && node.before !== null) conditions.push(compare("<", field("timestamp"), instant(node.before, `${attr}__before`, ctx.now)));
  const aggregated = items.some(hasAggregate);
  const orderBy = strings(node.orderBy, `${attr}__orderBy`).map((text, i) => parseHogqlOrder(text, `${attr}__orderBy__${i}`));
  const groupBy = aggregated ? items.filter((n) => !hasAggregate(n)) : [];
  const ast: HogqlNode = {
    node: "SelectQuery",
    select: items,
    select_from: { node: "JoinExpr", table: field("events"), alias: null, next_join: null, table_final: null, sample: null },
    where: conditions.length ? and(...conditions) : null,
    prewhere: null,
    group_by: groupBy.length ? groupBy : null,
    having: null,
    distinct: null,
    ctes: null,
    order_by: orderBy.length ? orderBy : aggregated ? null : [{ node: "OrderExpr", expr: field("timestamp"), order: "DESC" }],
    limit: constant(Math.min(integer(node.limit, DEFAULT_ROWS, `${attr}__limit`), MAX_ROWS)),
    offset: constant(integer(node.offset, 0, `${attr}__offset`)),
  };
  const answer = await runAst(ast, attr, ctx);
  return { columns: select, types: answer.types, results: answer.results, hasMore: answer.hasMore, limit: answer.limit, offset: answer.offset };
}

/** True when an expression calls an aggregate function (outside a subquery). */
function hasAggregate(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(hasAggregate);
  if (n === null || typeof n !== "object") return false;
  const node = n as HogqlNode;
  if (node.node === "SelectQuery" || node.node === "SelectSetQuery") return false;
  if (node.node === "Call" && lookupFunction(String(node.name))?.aggregate) return true;
  return Object.values(node).some(hasAggregate);
}

/** `limit`/`offset`: a non-negative integer, or the fallback when absent. */
export function integer(value: unknown, fallback: number, attr: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw reject.invalid(attr, "Expected a non-negative integer.");
  return value;
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
function instant(value: unknown, attr: string, now: number): HogqlNode {
  const text = String(value);
  const relative = RELATIVE.exec(text);
  const ms = relative ? now - Number(relative[1]) * UNIT_MS[relative[2]!]! : Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) || text.length <= 10 ? text : `${text}Z`);
  if (Number.isNaN(ms) || Math.abs(ms) > 8.64e15) throw reject.invalid(attr, `"${text}" is not an ISO 8601 date-time nor a relative date such as -24h or -7d.`);
  // With its zone marker, the text is read as UTC, not in the project's zone.
  return call("toDateTime", constant(new Date(ms).toISOString()));
}

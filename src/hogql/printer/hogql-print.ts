import { reject } from "../../core/analysis-errors.ts";
import { COMPARE_OPS } from "./compare.ts";
import { chainOf, isQuery, isSelect, type JoinNode, type Node, type SelectNode, type SelectSetNode } from "./ast.ts";
import { escapeHogqlIdentifier, printConstant } from "./escape.ts";

/**
 * Prints the parsed tree back as HogQL (the answer's `hogql`, and the name of an unaliased column, as the real
 * service names `count()` "count()"). No resolution happens here: it is the query as the user wrote it, normalised.
 */
export function printHogql(n: Node): string {
  const p = ex;
  const list = (xs: Node[] | null | undefined) => (xs ?? []).map(p).join(", ");
  switch (n.node) {
    case "SelectQuery":
      return printSelectHogql(n as SelectNode);
    case "SelectSetQuery": {
      const s = n as SelectSetNode;
      return [printHogql(s.initial_select_query), ...s.subsequent_select_queries.map((q) => `${q.set_operator} ${printHogql(q.select_query)}`)].join(" ");
    }
    case "Field":
      return chainOf(n).map((c) => (c === "*" ? "*" : escapeHogqlIdentifier(c))).join(".");
    case "Constant":
      return printConstant(n.value, null);
    case "Alias":
      return `${p(n.expr as Node)} AS ${escapeHogqlIdentifier(n.alias as string)}`;
    case "Call": {
      const params = n.params ? `(${list(n.params as Node[])})` : "";
      return `${n.name as string}${params}(${n.distinct ? "DISTINCT " : ""}${list(n.args as Node[])})`;
    }
    case "CompareOperation": {
      // HogQL prints comparisons and arithmetic as the functions they are (printer.py, hogql dialect)
      const rule = COMPARE_OPS[n.op as string];
      if (!rule) throw reject.invalid("query", `Unsupported comparison operator: ${String(n.op)}`);
      return rule.print(p(n.left as Node), p(n.right as Node));
    }
    case "ArithmeticOperation":
      return `${ARITHMETIC[n.op as string] ?? "unknown"}(${p(n.left as Node)}, ${p(n.right as Node)})`;
    case "And":
    case "Or":
      return `${(n.node as string).toLowerCase()}(${list(n.exprs as Node[])})`;
    case "Not":
      return `not(${p(n.expr as Node)})`;
    case "Array":
      return `[${list(n.exprs as Node[])}]`;
    case "Tuple":
      return `tuple(${list(n.exprs as Node[])})`;
    case "ArrayAccess":
      return `${p(n.array as Node)}[${p(n.property as Node)}]`;
    case "TupleAccess":
      return `${p(n.tuple as Node)}.${n.index as number}`;
    case "Lambda": {
      const args = (n.args as string[]).map(escapeHogqlIdentifier);
      return `${args.length === 1 ? args[0] : `(${args.join(", ")})`} -> ${p(n.expr as Node)}`;
    }
    case "BetweenExpr":
      return `${p(n.expr as Node)} ${n.negated ? "NOT " : ""}BETWEEN ${p(n.low as Node)} AND ${p(n.high as Node)}`;
    case "OrderExpr":
      return `${p(n.expr as Node)} ${n.order as string}`;
    case "Placeholder":
      return `{${p(n.expr as Node)}}`;
    case "WindowFunction":
      return `${n.name as string}(${list(n.exprs as Node[])}) OVER ${n.over_expr ? `(${printWindowHogql(n.over_expr as Node)})` : escapeHogqlIdentifier(n.over_identifier as string)}`;
    default:
      throw reject.invalid("query", `Unsupported node: ${n.node}`);
  }
}

const ARITHMETIC: Record<string, string> = { "+": "plus", "-": "minus", "*": "multiply", "/": "divide", "%": "modulo" };

/** An expression; a query inside one (scalar subquery, `IN (SELECT …)`) goes in parentheses. */
const ex = (n: Node): string => (isQuery(n) ? `(${printHogql(n)})` : printHogql(n));

export function printWindowHogql(w: Node): string {
  const parts: string[] = [];
  if (w.partition_by) parts.push(`PARTITION BY ${(w.partition_by as Node[]).map(ex).join(", ")}`);
  if (w.order_by) parts.push(`ORDER BY ${(w.order_by as Node[]).map(ex).join(", ")}`);
  return parts.join(" ");
}

function printJoinHogql(j: JoinNode | null): string[] {
  const out: string[] = [];
  for (let cur = j; cur; cur = cur.next_join) {
    const table = isSelect(cur.table) || cur.table.node === "SelectSetQuery" ? `(${printHogql(cur.table)})` : printHogql(cur.table);
    const parts = [cur.join_type ?? "", table, cur.alias ? `AS ${escapeHogqlIdentifier(cur.alias)}` : ""];
    if (cur.constraint) parts.push(`${cur.constraint.constraint_type} ${printHogql(cur.constraint.expr)}`);
    out.push(parts.filter(Boolean).join(" "));
  }
  return out;
}

function printSelectHogql(s: SelectNode): string {
  const parts: string[] = [];
  if (s.ctes?.length) parts.push(`WITH ${s.ctes.map((c) => (c.cte_type === "column" ? `${ex(c.expr)} AS ${escapeHogqlIdentifier(c.name)}` : `${escapeHogqlIdentifier(c.name)} AS (${printHogql(c.expr)})`)).join(", ")}`);
  parts.push(`SELECT ${s.distinct ? "DISTINCT " : ""}${s.select.map(ex).join(", ")}`);
  if (s.select_from) parts.push(`FROM ${printJoinHogql(s.select_from).join(" ")}`);
  if (s.array_join_op) parts.push(`${s.array_join_op} ${(s.array_join_list ?? []).map(ex).join(", ")}`);
  if (s.where) parts.push(`WHERE ${ex(s.where)}`);
  if (s.group_by?.length) parts.push(`GROUP BY ${s.group_by.map(ex).join(", ")}`);
  if (s.having) parts.push(`HAVING ${ex(s.having)}`);
  if (s.order_by?.length) parts.push(`ORDER BY ${s.order_by.map(ex).join(", ")}`);
  if (s.limit_by) parts.push(`LIMIT ${ex(s.limit_by.n)} BY ${s.limit_by.exprs.map(ex).join(", ")}`);
  if (s.limit) parts.push(`LIMIT ${ex(s.limit)}`);
  if (s.offset) parts.push(`OFFSET ${ex(s.offset)}`);
  return parts.join(" ");
}

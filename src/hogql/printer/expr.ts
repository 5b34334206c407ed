import { reject } from "../../core/analysis-errors.ts";
import { countCteExpansion } from "./cte-expansions.ts";
import { chainOf, type Node } from "./ast.ts";
import { COMPARE_FUNCTIONS, printCompare, type Side } from "./compare.ts";
import { escapeIdentifier, printConstant } from "./escape.ts";
import { printCall } from "./calls.ts";
import { resolveChain, type ResolveContext, type Resolved, type Scope } from "./scope.ts";
import { printPlaceholder } from "./placeholders.ts";
import { atNode } from "./spans.ts";
import type { PrintContext } from "./types.ts";

/** What expression printing needs from the query printer (subqueries recurse into it). */
export interface Env {
  ctx: PrintContext;
  printSubquery: (node: Node, parent: Scope) => string;
}

const ARITHMETIC: Record<string, string> = { "+": "plus", "-": "minus", "*": "multiply", "/": "divide", "%": "modulo" };

/** Resolves a field; a select alias, lambda argument or column CTE prints as its name. */
export const resolveField = (n: Node, scope: Scope, env: Env): Resolved => atNode(n, () => resolveFieldAt(n, scope, env));

function resolveFieldAt(n: Node, scope: Scope, env: Env): Resolved {
  const chain = chainOf(n);
  if (chain.includes("*")) throw reject.invalid("query", `Cannot use "*" here: ${chain.join(".")}`);
  const cte = scope.ctes.get(String(chain[0]));
  if (cte && cte.cte_type === "column" && chain.length === 1) {
    countCteExpansion(env.ctx, cte.name);
    // Not visible inside its own expression (`WITH x + 1 AS x` would otherwise expand forever).
    scope.ctes.delete(cte.name);
    try {
      return { sql: `(${printExpr(cte.expr, scope, env)})`, nullable: true, name: cte.name };
    } finally {
      scope.ctes.set(cte.name, cte);
    }
  }
  const found = resolveChain(chain, scope, env.ctx as ResolveContext);
  if ("alias" in found) return { sql: escapeIdentifier(found.alias), nullable: true, name: found.alias };
  return found;
}

/** One side of a comparison: its SQL and the nullability HogQL's rules need. */
function side(n: Node, scope: Scope, env: Env): Side {
  if (n.node === "Constant") return { sql: printExpr(n, scope, env), nullable: n.value === null, constant: { value: n.value } };
  if (n.node === "Field") {
    const r = resolveField(n, scope, env);
    return { sql: r.sql, nullable: r.nullable };
  }
  return { sql: printExpr(n, scope, env), nullable: true };
}

export function printComparison(op: string, left: Node, right: Node, scope: Scope, env: Env): string {
  return printCompare(op, side(left, scope, env), side(right, scope, env), scope.inJoinConstraint);
}

/** Prints one expression as ClickHouse SQL; anything not listed is refused (an error carries the node's span). */
export const printExpr = (n: Node, scope: Scope, env: Env): string => atNode(n, () => printExprAt(n, scope, env));

function printExprAt(n: Node, scope: Scope, env: Env): string {
  const p = (x: Node) => printExpr(x, scope, env);
  switch (n.node) {
    case "Constant":
      return printConstant(n.value, "query");
    case "Field":
      return resolveField(n, scope, env).sql;
    case "Alias":
      return `${n.expr && (n.expr as Node).node === "Alias" ? `(${p(n.expr as Node)})` : p(n.expr as Node)} AS ${escapeIdentifier(n.alias as string, "query")}`;
    case "ArithmeticOperation": {
      const fn = ARITHMETIC[n.op as string];
      if (!fn) throw reject.invalid("query", `Unknown ArithmeticOperationOp ${String(n.op)}`);
      return `${fn}(${p(n.left as Node)}, ${p(n.right as Node)})`;
    }
    case "CompareOperation":
      return printComparison(n.op as string, n.left as Node, n.right as Node, scope, env);
    case "And":
    case "Or": {
      const exprs = (n.exprs as Node[]).map(p);
      return exprs.length === 1 ? exprs[0]! : `${n.node === "And" ? "and" : "or"}(${exprs.join(", ")})`;
    }
    case "Not":
      return `not(${p(n.expr as Node)})`;
    case "BetweenExpr":
      return `${n.negated ? "not(" : "("}${p(n.expr as Node)} BETWEEN ${p(n.low as Node)} AND ${p(n.high as Node)})`;
    case "Array":
      return `[${(n.exprs as Node[]).map(p).join(", ")}]`;
    case "Tuple":
      return `tuple(${(n.exprs as Node[]).map(p).join(", ")})`;
    case "ArrayAccess":
    case "TupleAccess": {
      const path = propertyPath(n);
      if (path) return p(path);
      return n.node === "ArrayAccess" ? `${p(n.array as Node)}[${p(n.property as Node)}]` : printTupleAccess(n, p);
    }
    case "Lambda":
      return printLambda(n, scope, env);
    case "Call":
      return COMPARE_FUNCTIONS[n.name as string] && (n.args as Node[]).length === 2
        ? printComparison(COMPARE_FUNCTIONS[n.name as string]!, (n.args as Node[])[0]!, (n.args as Node[])[1]!, scope, env)
        : printCall(n, scope, env);
    case "WindowFunction":
      return printWindowFunction(n, scope, env);
    case "OrderExpr":
      if (n.order !== "ASC" && n.order !== "DESC") throw reject.invalid("query", `Invalid order ${String(n.order)}`);
      return `${p(n.expr as Node)} ${n.order}`;
    case "Placeholder":
      return p(printPlaceholder(n, env.ctx, scope.tables.flatMap((t) => (t.table && !t.root ? [t.table] : []))));
    case "SelectQuery":
    case "SelectSetQuery":
      return env.printSubquery(n, scope);
    default:
      throw reject.invalid("query", `Unsupported HogQL node: ${n.node}`);
  }
}

/**
 * `properties.tags[1]`, `properties.tags.2`, `properties['$browser']`: an index or key on a property is one
 * more step of its JSON path (HogQL reads `JSONExtractRaw(properties, 'tags', 1)`), not an access to the text
 * extracted. Null when the access is not on a property with a constant.
 */
function propertyPath(n: Node): Node | null {
  const base = n.node === "ArrayAccess" ? (n.array as Node) : (n.tuple as Node);
  const key = n.node === "ArrayAccess" ? (n.property as Node).node === "Constant" ? (n.property as Node).value : undefined : n.index;
  if (!(typeof key === "string" || (typeof key === "number" && Number.isInteger(key)))) return null;
  const field = base.node === "Field" ? base : base.node === "ArrayAccess" || base.node === "TupleAccess" ? propertyPath(base) : null;
  if (!field || !chainOf(field).includes("properties")) return null;
  return { node: "Field", chain: [...chainOf(field), key] };
}

function printTupleAccess(n: Node, p: (x: Node) => string): string {
  const index = Number(n.index);
  if (!Number.isInteger(index)) throw reject.invalid("query", "Tuple index must be an integer");
  const tuple = n.tuple as Node;
  return tuple.node === "Field" ? `${p(tuple)}.${index}` : `(${p(tuple)}).${index}`;
}

/** A lambda's arguments shadow fields inside its body only. */
function printLambda(n: Node, scope: Scope, env: Env): string {
  const args = n.args as string[];
  if (args.length === 0) throw reject.invalid("query", "Lambdas require at least one argument");
  const added = args.filter((a) => !scope.lambdaArgs.has(a));
  added.forEach((a) => scope.lambdaArgs.add(a));
  try {
    const ids = args.map((a) => escapeIdentifier(a, "query"));
    return `${ids.length === 1 ? ids[0] : `(${ids.join(", ")})`} -> ${printExpr(n.expr as Node, scope, env)}`;
  } finally {
    added.forEach((a) => scope.lambdaArgs.delete(a));
  }
}

function printWindowFunction(n: Node, scope: Scope, env: Env): string {
  const call = printCall({ node: "Call", name: n.name, args: n.exprs ?? [], params: (n.args as Node[] | null)?.length ? n.args : null, distinct: false }, scope, env, true);
  const over = n.over_expr ? `(${printWindow(n.over_expr as Node, scope, env)})` : escapeIdentifier(n.over_identifier as string, "query");
  return `${call} OVER ${over}`;
}

/** `PARTITION BY … ORDER BY … ROWS BETWEEN …` of a window (printer.py `visit_window_expr`). */
export function printWindow(w: Node, scope: Scope, env: Env): string {
  const parts: string[] = [];
  const list = (xs: Node[]) => xs.map((x) => printExpr(x, scope, env)).join(", ");
  if (w.partition_by) parts.push(`PARTITION BY ${list(w.partition_by as Node[])}`);
  if (w.order_by) parts.push(`ORDER BY ${list(w.order_by as Node[])}`);
  if (w.frame_method) {
    if (w.frame_method !== "ROWS" && w.frame_method !== "RANGE") throw reject.invalid("query", `Invalid frame method ${String(w.frame_method)}`);
    const start = printFrame(w.frame_start as Node | null);
    const end = w.frame_end ? printFrame(w.frame_end as Node) : undefined;
    parts.push(end ? `${w.frame_method} BETWEEN ${start} AND ${end}` : `${w.frame_method} ${start}`);
  }
  return parts.join(" ");
}

function printFrame(f: Node | null): string {
  if (!f) throw reject.invalid("query", "Frame start and end must be specified together");
  if (f.frame_type === "CURRENT ROW") return "CURRENT ROW";
  if (f.frame_type !== "PRECEDING" && f.frame_type !== "FOLLOWING") throw reject.invalid("query", `Invalid frame type ${String(f.frame_type)}`);
  const value = f.frame_value === null || f.frame_value === undefined ? "UNBOUNDED" : String(Math.trunc(Number(f.frame_value)));
  if (value === "NaN") throw reject.invalid("query", "Invalid frame value");
  return `${value} ${f.frame_type}`;
}


import { reject } from "../../analyses/errors.ts";
import type { HogqlNode } from "../parse.ts";
import { noTable, TABLES, type Table } from "./tables.ts";

/** SELECT clauses the engine computes. */
const KNOWN = new Set(["node", "select", "select_from", "where", "group_by", "having", "order_by", "limit", "offset", "distinct"]);

/** Clauses refused with a name the user recognises; any other unknown clause is refused by its key. */
const REFUSED: Readonly<Record<string, string>> = {
  ctes: "WITH (common table expressions)",
  prewhere: "PREWHERE",
  qualify: "QUALIFY",
  window_exprs: "WINDOW",
  limit_by: "LIMIT … BY",
  limit_with_ties: "LIMIT … WITH TIES",
  array_join_op: "ARRAY JOIN",
  array_join_list: "ARRAY JOIN",
  settings: "SETTINGS",
  view_name: "views",
};

export interface CheckedSelect {
  table: Table<never> | Table<null>;
  /** The query with table-alias prefixes removed from field chains and BETWEEN rewritten as comparisons. */
  ast: HogqlNode;
}

/**
 * Refuses what the engine does not compute (a 400 naming the construct, never a wrong answer): set operations,
 * joins, subqueries in FROM, unknown tables, sampling, and the clauses of REFUSED.
 */
export function checkSelect(ast: HogqlNode, attr: string): CheckedSelect {
  if (ast.node === "SelectSetQuery") throw reject.invalid(attr, "UNION / INTERSECT / EXCEPT (set operations) are not supported.");
  if (ast.node !== "SelectQuery") throw reject.invalid(attr, `Expected a SELECT query, got ${ast.node}.`);
  for (const [key, value] of Object.entries(ast)) {
    if (value === null || value === undefined || value === false || KNOWN.has(key)) continue;
    throw reject.invalid(attr, `${REFUSED[key] ?? `The ${key} clause`} is not supported.`);
  }
  const { table, alias } = fromClause(ast.select_from as HogqlNode | null, attr);
  const prefixes = new Set([table.name, ...(alias ? [alias] : [])]);
  return { table, ast: normalize(ast, prefixes) as HogqlNode };
}

function fromClause(from: HogqlNode | null, attr: string): { table: Table<never> | Table<null>; alias: string | null } {
  if (!from) return { table: noTable, alias: null };
  if (from.next_join) throw reject.invalid(attr, "JOIN is not supported (query one table: events, persons or groups).");
  if (from.sample) throw reject.invalid(attr, "SAMPLE is not supported.");
  if (from.table_final) throw reject.invalid(attr, "FINAL is not supported.");
  const source = from.table as HogqlNode;
  if (source.node !== "Field") throw reject.invalid(attr, `Subqueries and table functions in FROM are not supported (${String(source.node)}).`);
  const name = (source.chain as string[]).join(".");
  const table = TABLES.get(name);
  if (!table) throw reject.invalid(attr, `Unknown table "${name}" (tables: ${[...TABLES.keys()].join(", ")}).`);
  return { table, alias: typeof from.alias === "string" ? from.alias : null };
}

/** Drops `e.` / `events.` prefixes and rewrites `x BETWEEN a AND b` into `x >= a AND x <= b`, recursively. */
function normalize(value: unknown, prefixes: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v, prefixes));
  if (value === null || typeof value !== "object" || typeof (value as HogqlNode).node !== "string") return value;
  const node = value as HogqlNode;
  if (node.node === "Field") {
    const chain = node.chain as string[];
    return chain.length > 1 && prefixes.has(chain[0]!) ? { ...node, chain: chain.slice(1) } : node;
  }
  if (node.node === "BetweenExpr") {
    const expr = normalize(node.expr, prefixes);
    const range = {
      node: "And",
      exprs: [
        { node: "CompareOperation", op: ">=", left: expr, right: normalize(node.low, prefixes) },
        { node: "CompareOperation", op: "<=", left: expr, right: normalize(node.high, prefixes) },
      ],
    };
    return node.negated ? { node: "Not", expr: range } : range;
  }
  if (node.node === "JoinExpr") return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, normalize(v, prefixes)]));
}

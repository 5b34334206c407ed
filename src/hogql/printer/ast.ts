/** A HogQL AST node as PostHog's parser emits it (internal mode: no positions). */
export interface HogqlNode {
  node: string;
  [key: string]: unknown;
}

/** Typed views of the parser's JSON nodes (PostHog `posthog/hogql/ast.py`), only the fields the printer reads. */
export type Node = HogqlNode;

export interface SelectNode extends Node {
  node: "SelectQuery";
  select: Node[];
  select_from: JoinNode | null;
  where: Node | null;
  prewhere: Node | null;
  group_by: Node[] | null;
  having: Node | null;
  order_by?: Node[] | null;
  limit?: Node | null;
  offset?: Node | null;
  limit_by?: { n: Node; offset_value: Node | null; exprs: Node[] } | null;
  limit_with_ties?: boolean | null;
  distinct: boolean | null;
  ctes: CteNode[] | null;
  array_join_op?: string | null;
  array_join_list?: Node[] | null;
  window_exprs?: Record<string, Node> | null;
  settings?: unknown;
  qualify?: Node | null;
}

export interface SelectSetNode extends Node {
  node: "SelectSetQuery";
  initial_select_query: Node;
  subsequent_select_queries: Array<{ set_operator: string; select_query: Node }>;
}

export interface JoinNode extends Node {
  node: "JoinExpr";
  table: Node;
  table_args?: Node[] | null;
  alias: string | null;
  join_type?: string | null;
  constraint?: { constraint_type: "ON" | "USING"; expr: Node } | null;
  next_join: JoinNode | null;
  table_final: boolean | null;
  sample: Node | null;
}

export interface CteNode extends Node {
  node: "CTE";
  name: string;
  expr: Node;
  cte_type: "subquery" | "column";
}

export const isSelect = (n: Node | null | undefined): n is SelectNode => n?.node === "SelectQuery";
export const isSelectSet = (n: Node | null | undefined): n is SelectSetNode => n?.node === "SelectSetQuery";
export const isQuery = (n: Node | null | undefined): n is SelectNode | SelectSetNode => isSelect(n) || isSelectSet(n);

export const chainOf = (n: Node): Array<string | number> => n.chain as Array<string | number>;
export const field = (...chain: string[]): Node => ({ node: "Field", chain });
export const constant = (value: unknown): Node => ({ node: "Constant", value });
export const call = (name: string, ...args: Node[]): Node => ({ node: "Call", name, args, params: null, distinct: false });
export const compare = (op: string, left: Node, right: Node): Node => ({ node: "CompareOperation", op, left, right });
export const and = (...exprs: Node[]): Node => (exprs.length === 1 ? exprs[0]! : { node: "And", exprs });

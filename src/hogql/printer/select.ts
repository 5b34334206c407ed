import { reject } from "../../core/analysis-errors.ts";
import { atNode } from "./spans.ts";
import { countCteExpansion } from "./cte-expansions.ts";
import { chainOf, isQuery, isSelect, isSelectSet, type JoinNode, type Node, type SelectNode } from "./ast.ts";
import { escapeIdentifier } from "./escape.ts";
import { printExpr, printWindow, resolveField, type Env } from "./expr.ts";
import { printHogql } from "./hogql-print.ts";
import { isTableName, SCHEMA, type FieldType } from "./schema.ts";
import { lazyJoinSql, newScope, scopedTableSql, type Scope, type TableRef } from "./scope.ts";
import type { PrintContext } from "./types.ts";

/** A printed query and its output columns (names as HogQL gives them, types when known), for the FROM that reads it. */
export interface PrintedQuery {
  sql: string;
  columns: Column[];
}

/** One output column: HogQL's name for it and, for a plain field, its type (a JSON column keeps its property access). */
export type Column = [name: string, type: FieldType | undefined];

/** A subquery's columns by name, for the query that reads it (the first of a repeated name wins, as in ClickHouse). */
function byName(columns: Column[]): Map<string, FieldType | undefined> {
  const out = new Map<string, FieldType | undefined>();
  for (const [name, type] of columns) if (!out.has(name)) out.set(name, type);
  return out;
}

/** Keywords printed from the parser's strings are checked against the grammar's own words, never passed through. */
const JOIN_TYPE = /^((GLOBAL|ANY|ALL|ASOF|SEMI|ANTI|LEFT|RIGHT|FULL|INNER|OUTER|CROSS|PASTE) )*JOIN$/;
const ARRAY_JOIN_OPS = new Set(["ARRAY JOIN", "LEFT ARRAY JOIN", "INNER ARRAY JOIN"]);

function checkedKeyword(value: string, ok: boolean): string {
  if (!ok) throw reject.invalid("query", `Unsupported clause: ${value}`);
  return value;
}

const SET_OPERATORS = new Set(["UNION ALL", "UNION DISTINCT", "INTERSECT", "INTERSECT DISTINCT", "EXCEPT", "EXCEPT DISTINCT"]);

/** `limit`: the top query's row cap (printed +1 for hasMore); undefined inside subqueries, which keep their own LIMIT. */
export function printQuery(node: Node, parent: Scope | undefined, ctx: PrintContext, limit?: number): PrintedQuery {
  if (isSelectSet(node)) {
    const parts = [printQuery(node.initial_select_query, parent, ctx, limit)];
    const sql = [parts[0]!.sql];
    for (const next of node.subsequent_select_queries) {
      if (!SET_OPERATORS.has(next.set_operator)) throw reject.invalid("query", `Unsupported set operator: ${next.set_operator}`);
      sql.push(next.set_operator, printQuery(next.select_query, parent, ctx, limit).sql);
    }
    return { sql: sql.join(" "), columns: parts[0]!.columns };
  }
  if (!isSelect(node)) throw reject.invalid("query", `Only SELECT queries are supported, not ${String(node.node)}`);
  return printSelectQuery(node, parent, ctx, limit);
}

function envFor(ctx: PrintContext): Env {
  return { ctx, printSubquery: (n, scope) => `(${printQuery(n, scope, ctx).sql})` };
}

function printSelectQuery(s: SelectNode, parent: Scope | undefined, ctx: PrintContext, limit?: number): PrintedQuery {
  refuseUnsupported(s);
  const scope = newScope(parent);
  const env = envFor(ctx);
  for (const cte of s.ctes ?? []) scope.ctes.set(cte.name, cte);
  const from = s.select_from ? printJoins(s.select_from, scope, env) : [];
  // Select and ARRAY JOIN aliases are visible in every clause, as in ClickHouse (and HogQL's resolver).
  // An alias given inside an expression (`(sumMap(a, b) AS x).1, x.2`) is as visible as a top-level one.
  for (const item of [...s.select, ...(s.array_join_list ?? [])]) for (const alias of aliasesIn(item)) scope.selectAliases.set(alias.alias as string, alias.expr as Node);
  const columns: Column[] = [];
  const select = s.select.flatMap((item) => printSelectItem(item, scope, env, columns));
  const p = (x: Node) => printExpr(x, scope, env);
  const arrayJoin = s.array_join_op ? `${checkedKeyword(s.array_join_op, ARRAY_JOIN_OPS.has(s.array_join_op))} ${(s.array_join_list ?? []).map(p).join(", ")}` : undefined;
  // PREWHERE cannot apply to the project-filtered subquery a table is read through; as a WHERE conjunct it means the same.
  const where = s.prewhere && s.where ? { node: "And", exprs: [s.prewhere, s.where] } : (s.prewhere ?? s.where);
  const windows = Object.entries(s.window_exprs ?? {});
  const tail = [
    where ? `WHERE ${p(where)}` : undefined,
    s.group_by?.length ? `GROUP BY ${s.group_by.map(p).join(", ")}` : undefined,
    s.having ? `HAVING ${p(s.having)}` : undefined,
    windows.length ? `WINDOW ${windows.map(([name, w]) => `${escapeIdentifier(name, "query")} AS (${printWindow(w, scope, env)})`).join(", ")}` : undefined,
    s.order_by?.length ? `ORDER BY ${s.order_by.map(p).join(", ")}` : undefined,
    s.limit_by ? `LIMIT ${p(s.limit_by.n)}${s.limit_by.offset_value ? ` OFFSET ${p(s.limit_by.offset_value)}` : ""} BY ${s.limit_by.exprs.map(p).join(", ")}` : undefined,
    ...printLimit(s, p, limit),
  ];
  // FROM is assembled last: lazy joins are found while printing every other clause.
  const clauses = [`SELECT ${s.distinct ? "DISTINCT " : ""}${select.join(", ")}`, from.length ? `FROM ${withLazyJoins(from, scope, ctx.teamId).join(" ")}` : undefined, arrayJoin, ...tail];
  return { sql: clauses.filter(Boolean).join(" "), columns };
}

/** Every Alias node of an expression, outside its subqueries and lambdas (which have their own scope). */
function aliasesIn(n: unknown, out: Node[] = []): Node[] {
  if (Array.isArray(n)) for (const x of n) aliasesIn(x, out);
  else if (n !== null && typeof n === "object") {
    const node = n as Node;
    if (isQuery(node) || node.node === "Lambda") return out;
    if (node.node === "Alias") out.push(node);
    for (const value of Object.values(node)) aliasesIn(value, out);
  }
  return out;
}

/** The top query's LIMIT: the query's own (a constant), else the default; at most the maximum; printed +1. */
function printLimit(s: SelectNode, p: (x: Node) => string, limit: number | undefined): string[] {
  const out: string[] = [];
  if (limit !== undefined) out.push(`LIMIT ${limit + 1}`);
  else if (s.limit) out.push(`LIMIT ${p(s.limit)}`);
  if (s.offset) out.push(`OFFSET ${p(s.offset)}`);
  if (s.limit_with_ties) throw reject.invalid("query", "LIMIT … WITH TIES is not supported");
  return out;
}

/** The row cap of the top query: its constant LIMIT (or the default), clamped to the maximum (constants.py). */
export function topLimit(s: Node, ctx: PrintContext): number {
  const first = isSelectSet(s) ? s.initial_select_query : s;
  const node = isSelect(first) ? first.limit : undefined;
  if (!node) return ctx.defaultLimit;
  if (node.node !== "Constant" || typeof node.value !== "number" || !Number.isInteger(node.value) || node.value < 0) throw reject.invalid("query", "LIMIT must be a non-negative integer constant");
  return Math.min(node.value, ctx.maxLimit);
}

/** Clauses HogQL does not pass to ClickHouse. */
function refuseUnsupported(s: SelectNode): void {
  if (s.settings) throw reject.invalid("query", "SETTINGS are not allowed in HogQL queries");
  if (s.qualify) throw reject.invalid("query", "QUALIFY is not supported");
}

/** A select item: `*` expands to the tables' fields; a field gets HogQL's name (`properties.$browser` is `$browser`). */
function printSelectItem(item: Node, scope: Scope, env: Env, columns: Column[]): string[] {
  if (item.node === "Field" && chainOf(item).at(-1) === "*") return expandStar(chainOf(item).slice(0, -1).map(String), scope, env, columns);
  if (item.node === "Field") {
    const r = resolveField(item, scope, env);
    // The implicit alias names a subquery's column for the query around it; a second one of the same name would clash.
    const alias = r.implicitAlias && !columns.some(([name]) => name === r.name) && !scope.selectAliases.has(r.name);
    columns.push([r.name, r.type]);
    return [alias ? `${r.sql} AS ${escapeIdentifier(r.name, "query")}` : r.sql];
  }
  if (item.node === "Alias") {
    const inner = item.expr as Node;
    columns.push([item.alias as string, inner.node === "Field" ? resolveField(inner, scope, env).type : undefined]);
  } else columns.push([printHogql(item), undefined]);
  return [printExpr(item, scope, env)];
}

function expandStar(prefix: string[], scope: Scope, env: Env, columns: Column[]): string[] {
  const refs = prefix.length ? scope.tables.filter((t) => t.alias === prefix.join(".")) : scope.tables;
  if (refs.length === 0) throw reject.invalid("query", prefix.length ? `Unable to resolve field: ${prefix.join(".")}` : "Cannot select * without a FROM clause");
  return refs.flatMap((ref) => {
    const names = ref.table ? SCHEMA[ref.table].asterisk : [...(ref.columns?.keys() ?? [])];
    return names.map((name) => printSelectItem({ node: "Field", chain: [ref.alias, name] }, scope, env, columns)[0]!);
  });
}

/** FROM and its joins: tables of the HogQL database (read only through the project filter), subqueries, CTEs. */
/** Each lazy join right after the FROM entry it hangs from, so a later explicit JOIN's ON can use its fields. */
function withLazyJoins(from: Array<[alias: string, sql: string]>, scope: Scope, teamId: number): string[] {
  const lazy = [...scope.lazyJoins];
  return from.flatMap(([alias, sql]) => [sql, ...lazy.filter(([, j]) => j.root === alias).map(([joinAlias, j]) => lazyJoinSql(joinAlias, j, teamId))]);
}

function printJoins(first: JoinNode, scope: Scope, env: Env): Array<[alias: string, sql: string]> {
  const out: Array<[string, string]> = [];
  for (let j: JoinNode | null = first; j; j = j.next_join) {
    const { sql, ref } = atNode(j.table, () => printFromItem(j, scope, env));
    if (scope.tables.some((t) => t.alias === ref.alias)) throw reject.invalid("query", `Table alias ${ref.alias} already exists in this query`);
    scope.tables.push(ref);
    const parts = [j.join_type ? checkedKeyword(j.join_type, JOIN_TYPE.test(j.join_type)) : out.length ? "CROSS JOIN" : "", sql];
    if (j.constraint) parts.push(printConstraint(j, scope, env));
    out.push([ref.alias, parts.filter(Boolean).join(" ")]);
  }
  return out;
}

function printConstraint(j: JoinNode, scope: Scope, env: Env): string {
  scope.inJoinConstraint = true;
  try {
    const c = j.constraint!;
    if (c.constraint_type === "USING") return `USING ${(c.expr.node === "Tuple" ? (c.expr.exprs as Node[]) : [c.expr]).map((e) => escapeIdentifier(String(chainOf(e)[0]), "query")).join(", ")}`;
    return `ON ${printExpr(c.expr, scope, env)}`;
  } finally {
    scope.inJoinConstraint = false;
  }
}

function printFromItem(j: JoinNode, scope: Scope, env: Env): { sql: string; ref: TableRef } {
  if (j.sample) throw reject.invalid("query", "SAMPLE is not supported");
  if (j.table_final) throw reject.invalid("query", "FINAL is not supported");
  if (isQuery(j.table)) {
    const q = printQuery(j.table, scope, env.ctx);
    // Every subquery gets a name, so its columns print qualified: a bare name could be read by ClickHouse as a table
    // (`x IN persons` reads the table `persons`, unfiltered, when nothing else is called `persons`).
    const alias = j.alias ?? `__hogql_subquery_${scope.tables.length}`;
    return { sql: `(${q.sql}) AS ${escapeIdentifier(alias, "query")}`, ref: { alias, columns: byName(q.columns) } };
  }
  if (j.table.node !== "Field") throw reject.invalid("query", `Only selecting from a table or a subquery is supported, not ${String(j.table.node)}`);
  const name = chainOf(j.table).map(String).join(".");
  if (j.table_args) throw reject.invalid("query", `Table functions are not allowed: ${name}(...)`);
  const cte = scope.ctes.get(name);
  if (cte && cte.cte_type !== "column") {
    countCteExpansion(env.ctx, name);
    // Inside its own body a CTE's name is not itself: `WITH a AS (SELECT * FROM a)` is an unknown table, not a loop.
    const outer = { ...scope, ctes: new Map(scope.ctes) };
    outer.ctes.delete(name);
    const q = printQuery(cte.expr, outer, env.ctx);
    const alias = j.alias ?? name;
    return { sql: `(${q.sql}) AS ${escapeIdentifier(alias, "query")}`, ref: { alias, columns: byName(q.columns) } };
  }
  if (!isTableName(name)) throw reject.invalid("query", `Unknown table "${name}".`);
  const alias = j.alias ?? name;
  return { sql: `${scopedTableSql(name, env.ctx.teamId)} AS ${escapeIdentifier(alias, "query")}`, ref: { alias, table: name } };
}

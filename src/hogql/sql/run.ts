import { reject } from "../../analyses/errors.ts";
import { QueryBudget } from "../budget.ts";
import { compileHogql, truthy, type Compiled, type FieldResolver, type Value } from "../evaluate.ts";
import type { HogqlNode } from "../parse.ts";
import { aggregateType, reducerFactory, type Reducer } from "./aggregates.ts";
import { checkSelect } from "./check.ts";
import { sqlFunctions } from "./functions.ts";
import { aggregateCalls, columnName, notAggregated, overGroups, shapeOf } from "./grouping.ts";
import type { SqlSource, Table } from "./tables.ts";
import { cellOf, FUNCTION_TYPES, typeOfValues } from "./values.ts";

export interface SqlOptions {
  /** The request field holding the SQL, for 400s. */
  attr: string;
  now: number;
  timezone: string;
  /** Rows returned without a LIMIT (the real service's default is 100). */
  defaultLimit: number;
  /** The most rows any LIMIT returns. */
  maxLimit: number;
}

export interface SqlResult {
  columns: string[];
  /** ClickHouse type names, one per column. */
  types: string[];
  results: unknown[][];
  hasMore: boolean;
  limit: number;
  offset: number;
}

interface Item {
  name: string;
  expr: HogqlNode;
}

/**
 * Runs one HogQL SELECT over the project's events, persons or groups: WHERE, GROUP BY (by expression, alias or
 * position), aggregates, HAVING, ORDER BY (nulls last), DISTINCT, LIMIT/OFFSET. Every construct it does not
 * compute is refused by checkSelect or the evaluator with a 400 naming it.
 */
export function runSelect(ast: HogqlNode, source: SqlSource, opts: SqlOptions): SqlResult {
  const { attr } = opts;
  const { table, ast: query } = checkSelect(ast, attr);
  const items = selectItems(query.select as HogqlNode[], table, attr);
  const resolveRef = references(items, attr);
  const where = query.where ? resolveRef(query.where as HogqlNode) : null;
  const groupBy = ((query.group_by as HogqlNode[] | null) ?? []).map((n) => resolveRef(n, true));
  const having = query.having ? resolveRef(query.having as HogqlNode) : null;
  const orderBy = ((query.order_by as HogqlNode[] | null) ?? []).map((o) => ({ expr: resolveRef(o.expr as HogqlNode, true), desc: o.order === "DESC" }));
  if (where && aggregateCalls(where, attr).length) throw reject.invalid(attr, "Aggregate functions are not allowed in WHERE (use HAVING).");
  const outputs = [...items.map((i) => i.expr), ...(having ? [having] : []), ...orderBy.map((o) => o.expr)];
  const calls = aggregateCalls(outputs, attr);
  const compile = compiler(table, opts);
  const budget = new QueryBudget(attr);
  const { limit, offset } = window(query, opts);
  const rowFilter = where ? compile(where) : null;
  const rows = filterRows<unknown>(table.rows(source) as Iterable<unknown>, rowFilter as Compiled<unknown> | null, budget);
  const grouped = calls.length > 0 || groupBy.length > 0;
  const frame = grouped ? groupFrame(rows, calls, groupBy, compile, opts, budget) : { rows, compile: compile as (n: HogqlNode) => Compiled<unknown> };
  const columns = items.map((i) => frame.compile(i.expr));
  const keep = having ? frame.compile(having) : null;
  const sortKeys = orderBy.map((o) => ({ read: frame.compile(o.expr), desc: o.desc }));
  const selected = sortRows(keep ? filterRows(frame.rows, keep, budget) : frame.rows, sortKeys, budget);
  // One row past the page tells hasMore; nothing beyond it is projected.
  const values = project(selected, columns, query.distinct === true, offset + limit + 1, budget);
  const page = values.slice(offset, offset + limit);
  return {
    columns: items.map((i) => i.name),
    types: items.map((item, i) => staticType(item.expr, table) ?? typeOfValues(page.map((row) => row[i] ?? null))),
    results: page.map((row) => row.map((v) => cellOf(v, opts.timezone))),
    hasMore: values.length > offset + limit,
    limit,
    offset,
  };
}

/** The rows a predicate keeps, read one at a time within the budget (the source is never copied whole). */
function filterRows<R>(rows: Iterable<R>, keep: Compiled<R> | null, budget: QueryBudget): R[] {
  const out: R[] = [];
  for (const row of rows) {
    budget.tick();
    if (!keep || truthy(keep(row))) out.push(row);
  }
  return out;
}

/** The first `count` output rows (distinct ones with DISTINCT), in order. */
function project<R>(rows: readonly R[], columns: Compiled<R>[], distinct: boolean, count: number, budget: QueryBudget): Value[][] {
  const out: Value[][] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    if (out.length >= count) break;
    budget.tick();
    const values = columns.map((c) => c(row));
    if (distinct) {
      const id = JSON.stringify(values.map((v) => (v instanceof Date ? v.getTime() : v)));
      if (seen.has(id)) continue;
      seen.add(id);
    }
    out.push(values);
  }
  return out;
}

/** The SELECT list with `*` expanded to the table's columns; names are aliases or the printed expression. */
function selectItems(select: HogqlNode[], table: Table<never> | Table<null>, attr: string): Item[] {
  return select.flatMap((node): Item[] => {
    if (node.node === "Field" && (node.chain as string[]).at(-1) === "*") {
      if (table.star.length === 0) throw reject.invalid(attr, "SELECT * needs a FROM table.");
      return table.star.map((name) => ({ name, expr: { node: "Field", chain: [name] } }));
    }
    return [{ name: columnName(node), expr: node.node === "Alias" ? (node.expr as HogqlNode) : node }];
  });
}

/**
 * Alias references are replaced by the aliased expression (ClickHouse lets WHERE, GROUP BY, HAVING and ORDER
 * BY use SELECT aliases); with `positional`, an integer constant n is the n-th SELECT expression.
 */
function references(items: readonly Item[], attr: string) {
  const aliases = new Map(items.filter((i) => !/[(. ]/.test(i.name)).map((i) => [i.name, i.expr]));
  const substitute = (node: HogqlNode): HogqlNode => {
    if (node.node === "Field" && (node.chain as string[]).length === 1) {
      const target = aliases.get((node.chain as string[])[0]!);
      if (target && shapeOf(target) !== shapeOf(node)) return target;
      return node;
    }
    const out: HogqlNode = { node: node.node };
    for (const [k, v] of Object.entries(node)) {
      if (k !== "node") out[k] = Array.isArray(v) ? v.map((x) => (isNode(x) ? substitute(x) : x)) : isNode(v) ? substitute(v) : v;
    }
    return out;
  };
  return (node: HogqlNode, positional = false): HogqlNode => {
    if (positional && node.node === "Constant" && Number.isInteger(node.value)) {
      const item = items[(node.value as number) - 1];
      if (!item) throw reject.invalid(attr, `Position ${String(node.value)} is outside the SELECT list (1–${items.length}).`);
      return item.expr;
    }
    return substitute(node);
  };
}

const isNode = (v: unknown): v is HogqlNode => v !== null && typeof v === "object" && typeof (v as HogqlNode).node === "string";

function compiler(table: Table<never> | Table<null>, opts: SqlOptions) {
  const functions = sqlFunctions(opts.timezone);
  return (node: HogqlNode): Compiled<never> => compileHogql<never>(node, opts.attr, opts.now, { fields: table.field as FieldResolver<never>, functions });
}

interface GroupRow {
  keys: Value[];
  aggs: Value[];
}

/** Groups the rows by the GROUP BY keys and reduces each aggregate call per group. */
function groupFrame(rows: unknown[], calls: HogqlNode[], groupBy: HogqlNode[], compile: (n: HogqlNode) => Compiled<never>, opts: SqlOptions, budget: QueryBudget) {
  const slotIndex = new Map<string, number>();
  const slots: { create: () => Reducer; args: Compiled<never>[] }[] = [];
  for (const call of calls) {
    const shape = shapeOf(call);
    if (slotIndex.has(shape)) continue;
    slotIndex.set(shape, slots.length);
    slots.push({ create: reducerFactory(call, opts.attr), args: (call.args as HogqlNode[]).map(compile) });
  }
  const keyReaders = groupBy.map(compile);
  const groups = new Map<string, { keys: Value[]; reducers: Reducer[] }>();
  if (groupBy.length === 0) groups.set("[]", { keys: [], reducers: slots.map((s) => s.create()) });
  for (const row of rows) {
    budget.tick();
    const keys = keyReaders.map((read) => read(row as never));
    const id = JSON.stringify(keys.map((k) => (k instanceof Date ? k.getTime() : k)));
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { keys, reducers: slots.map((s) => s.create()) }));
    group.reducers.forEach((r, i) => r.add(slots[i]!.args.map((a) => a(row as never))));
  }
  const keyIndex = new Map(groupBy.map((g, i) => [shapeOf(g), i]));
  const fields: FieldResolver<GroupRow> = (chain, attr) => {
    const [head, index] = chain;
    if (head === "__agg") return (g) => g.aggs[Number(index)] ?? null;
    if (head === "__key") return (g) => g.keys[Number(index)] ?? null;
    throw notAggregated(chain, attr);
  };
  const functions = sqlFunctions(opts.timezone);
  return {
    rows: [...groups.values()].map((g): GroupRow => ({ keys: g.keys, aggs: g.reducers.map((r) => r.value()) })) as unknown[],
    compile: (node: HogqlNode) => compileHogql<GroupRow>(overGroups(node, slotIndex, keyIndex), opts.attr, opts.now, { fields, functions }) as Compiled<unknown>,
  };
}

const rank = (v: Value): number | string | null => (v === null || v === undefined ? null : v instanceof Date ? v.getTime() : typeof v === "number" ? v : typeof v === "boolean" ? Number(v) : typeof v === "object" ? JSON.stringify(v) : String(v));

/** ORDER BY: a stable sort, nulls last in both directions (ClickHouse's default). */
function sortRows<R>(rows: R[], keys: { read: Compiled<R>; desc: boolean }[], budget: QueryBudget): R[] {
  if (keys.length === 0) return rows;
  const decorated = rows.map((row) => {
    budget.tick();
    return { row, ranks: keys.map((k) => rank(k.read(row))) };
  });
  decorated.sort((a, b) => {
    for (const [i, key] of keys.entries()) {
      const [x, y] = [a.ranks[i] ?? null, b.ranks[i] ?? null];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const order = typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : 1;
      return key.desc ? -order : order;
    }
    return 0;
  });
  return decorated.map((d) => d.row);
}

/** LIMIT/OFFSET must be non-negative integer constants; no LIMIT is the default limit, any LIMIT is capped. */
function window(query: HogqlNode, opts: SqlOptions): { limit: number; offset: number } {
  const constant = (node: unknown, what: string): number | null => {
    if (node === null || node === undefined) return null;
    const n = node as HogqlNode;
    if (n.node !== "Constant" || !Number.isInteger(n.value) || (n.value as number) < 0) throw reject.invalid(opts.attr, `${what} must be a non-negative integer constant.`);
    return n.value as number;
  };
  const limit = constant(query.limit, "LIMIT");
  return { limit: Math.min(limit ?? opts.defaultLimit, opts.maxLimit), offset: constant(query.offset, "OFFSET") ?? 0 };
}

/** The type an expression always has (a table column, an aggregate, a typed function), else undefined. */
function staticType(node: HogqlNode, table: Table<never> | Table<null>): string | undefined {
  if (node.node === "Field") return table.typeOf(node.chain as string[]);
  if (node.node === "Call") return aggregateType(node) ?? FUNCTION_TYPES[String(node.name)];
  return undefined;
}

import { reject } from "../../core/analysis-errors.ts";
import { chainOf, type Node } from "./ast.ts";
import { escapeString } from "./escape.ts";
import { actionExpr, findPrintedAction } from "./action-expr.ts";
import { printExpr, resolveField, type Env } from "./expr.ts";
import { closestFunction, lookupFunction, type FunctionMeta } from "./functions.ts";
import type { Scope } from "./scope.ts";

/** HogQL's argument-count check and its messages (mapping.py `validate_function_args`). */
export function checkArity(count: number, min: number, max: number | null, name: string, term: "function" | "aggregation", what = "argument"): void {
  const s = (n: number) => (n !== 1 ? "s" : "");
  const Term = term[0]!.toUpperCase() + term.slice(1);
  if (min === max && count !== min) throw reject.invalid("query", `${Term} '${name}' expects ${min} ${what}${s(min)}, found ${count}`);
  if (count < min) throw reject.invalid("query", `${Term} '${name}' expects at least ${min} ${what}${s(min)}, found ${count}`);
  if (max !== null && count > max) throw reject.invalid("query", `${Term} '${name}' expects at most ${max} ${what}${s(max)}, found ${count}`);
}

function unknownFunction(name: string): never {
  const close = closestFunction(name);
  throw reject.invalid("query", close ? `Unsupported function call '${name}(...)'. Perhaps you meant '${close}(...)'?` : `Unsupported function call '${name}(...)'`);
}

const isStar = (n: Node) => n.node === "Field" && chainOf(n).length === 1 && chainOf(n)[0] === "*";

/**
 * Whether an argument is text to parse (a string literal or a property read that its definition leaves text), which
 * picks the `…OrNull` parser; a property typed DateTime is converted as the date-time it is (HogQL's overloads by
 * argument type), where parsing it as text was a ClickHouse type error.
 */
function isStringish(n: Node, scope: Scope, env: Env): boolean {
  if (n.node === "Constant") return typeof n.value === "string";
  return n.node === "Field" && chainOf(n).some((c) => c === "properties") && resolveField(n, scope, env).type === "string";
}

/**
 * `now()` is the injected clock in the project's zone, so a query's answer depends on the clock the server was
 * given: the instant written in UTC, then shown in that zone (a UTC wall time read in another zone was hours off;
 * a local wall time would be ambiguous in the hour a clock goes back).
 */
function nowSql(env: Env): string {
  const iso = new Date(env.ctx.now).toISOString().replace("T", " ").replace("Z", "");
  return `toTimeZone(toDateTime64(${escapeString(iso)}, 6, 'UTC'), ${escapeString(env.ctx.timezone)})`;
}

/** Calls HogQL prints in its own way rather than by the table's name mapping. */
function printSpecial(n: Node, args: Node[], scope: Scope, env: Env): string | undefined {
  const p = (x: Node) => printExpr(x, scope, env);
  const tz = escapeString(env.ctx.timezone);
  switch (n.name) {
    case "now":
    case "NOW":
      return nowSql(env);
    case "today":
      return `toDate(${nowSql(env)})`;
    case "yesterday":
      return `subtractDays(toDate(${nowSql(env)}), 1)`;
    case "toDateTime":
      return isStringish(args[0]!, scope, env) ? `parseDateTime64BestEffortOrNull(${p(args[0]!)}, 6, ${tz})` : `toDateTime(${p(args[0]!)}, ${tz})`;
    case "toDate":
    case "to_date":
      return isStringish(args[0]!, scope, env) ? `toDateOrNull(${p(args[0]!)})` : `toDate(${p(args[0]!)})`;
    case "matchesAction":
      return `(${p(actionExpr(findPrintedAction(env.ctx.actions, args[0])))})`;
    case "concat":
      // concat ignores NULLs as empty text in HogQL, not NULL for the whole (printer.py visit_call)
      return `concat(${args.map((a) => (a.node === "Constant" ? (a.value === null ? "''" : typeof a.value === "string" ? p(a) : `toString(${p(a)})`) : `ifNull(toString(${p(a)}), '')`)).join(", ")})`;
    default:
      return undefined;
  }
}

/** A function or aggregate call: allow-listed, argument counts checked, printed with its ClickHouse name. */
export function printCall(n: Node, scope: Scope, env: Env, overWindow = false): string {
  if (n.filter_expr) return printCall(filterToIf(n), scope, env, overWindow);
  if ((n.order_by as Node[] | null)?.length) throw reject.invalid("query", `ORDER BY inside ${String(n.name)}(...) is not supported`);
  const name = n.name as string;
  const meta = lookupFunction(name);
  if (!meta) unknownFunction(name);
  const args = (n.args as Node[] | null) ?? [];
  const params = (n.params as Node[] | null) ?? null;
  const term = meta.aggregate ? "aggregation" : "function";
  const starCount = meta.clickhouse === "count" && args.length === 1 && isStar(args[0]!);
  checkArity(starCount ? 0 : args.length, meta.minArgs, meta.maxArgs, name, term);
  checkParams(meta, params, name, term);
  const special = printSpecial(n, args, scope, env);
  if (special !== undefined) return special;
  if (!meta.aggregate && n.distinct) throw reject.invalid("query", `DISTINCT is only allowed in aggregations, not in ${name}(...)`);
  if (!meta.aggregate) return `${meta.clickhouse}${printParams(params, scope, env)}(${printArgs(meta, args, scope, env)})`;
  if (scope.aggregate && !overWindow) throw reject.invalid("query", `Aggregation '${name}' cannot be nested inside another aggregation '${scope.aggregate}'.`);
  const outer = scope.aggregate;
  scope.aggregate = overWindow ? outer : name;
  try {
    const printedArgs = starCount ? "" : printArgs(meta, args, scope, env);
    return `${meta.clickhouse}${printParams(params, scope, env)}(${n.distinct ? "DISTINCT " : ""}${printedArgs})`;
  } finally {
    scope.aggregate = outer;
  }
}

/** `agg(x) FILTER (WHERE c)` is `aggIf(x, c)`, as HogQL prints it (ClickHouse has no FILTER clause). */
function filterToIf(n: Node): Node {
  const name = `${String(n.name)}If`;
  const meta = lookupFunction(name);
  if (!meta?.aggregate) throw reject.invalid("query", `FILTER (WHERE …) is only supported on aggregations with an -If form, not ${String(n.name)}(...)`);
  const args = ((n.args as Node[] | null) ?? []).filter((a) => !isStar(a));
  return { ...n, name, args: [...args, n.filter_expr as Node], filter_expr: null };
}

function checkParams(meta: FunctionMeta, params: Node[] | null, name: string, term: "function" | "aggregation"): void {
  if (meta.minParams > 0 && params === null) throw reject.invalid("query", `${term === "aggregation" ? "Aggregation" : "Function"} '${name}' requires parameters in addition to arguments`);
  if (params !== null) {
    if (meta.maxParams === 0) throw reject.invalid("query", `${term === "aggregation" ? "Aggregation" : "Function"} '${name}' does not take parameters`);
    checkArity(params.length, meta.minParams, meta.maxParams, name, term, "parameter");
  }
}

function printParams(params: Node[] | null, scope: Scope, env: Env): string {
  return params === null ? "" : `(${params.map((x) => printExpr(x, scope, env)).join(", ")})`;
}

function printArgs(meta: FunctionMeta, args: Node[], scope: Scope, env: Env): string {
  if (args.some(isStar)) throw reject.invalid("query", `Cannot use "*" as an argument of ${meta.clickhouse}`);
  const printed = args.map((a) => printExpr(a, scope, env));
  printed.push(...meta.suffix);
  if (meta.tzAware) printed.push(escapeString(env.ctx.timezone));
  return printed.join(", ");
}

import { reject } from "../../core/analysis-errors.ts";
import { readDateField } from "../../analyses/shared/date-range.ts";
import { and, call, chainOf, compare, constant, field, type Node } from "./ast.ts";
import type { TableName } from "./schema.ts";
import type { PrintContext, PropertyFilter } from "./types.ts";

/**
 * `{filters}` and `{variables.x}` become ordinary HogQL nodes before printing, so they go through the same
 * resolution, escaping and project filter as the query's own text (PostHog `hogql/filters.py`, `variables`).
 */
export function printPlaceholder(n: Node, ctx: PrintContext, table?: TableName): Node {
  const chain = chainOf(n.expr as Node).map(String);
  if (chain.length === 1 && chain[0] === "filters") return filtersExpr(ctx, table === "sessions");
  if (chain.length === 2 && chain[0] === "variables") return variableExpr(chain[1]!, ctx);
  throw reject.invalid("query", `Placeholders, such as {${chain.join(".")}}, are not supported in this context`);
}

function variableExpr(name: string, ctx: PrintContext): Node {
  if (!ctx.variables || !Object.hasOwn(ctx.variables, name)) throw reject.invalid("query", `Variable ${name} is missing from the query's variables`);
  const value = ctx.variables[name];
  const scalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
  if (!(scalar(value) || (Array.isArray(value) && value.every(scalar)))) throw reject.invalid("query", `Variable ${name} must be a string, number, boolean or a list of them`);
  return Array.isArray(value) ? { node: "Array", exprs: value.map(constant) } : constant(value);
}

/**
 * The date range and the property filters, as one condition; `true` when there are none. Over `sessions` (as
 * HogQL's filters do) the range is on `$start_timestamp` and session properties are the table's own fields.
 */
function filtersExpr(ctx: PrintContext, overSessions: boolean): Node {
  const exprs: Node[] = [];
  const time = { now: ctx.now, timezone: ctx.timezone, weekStartDay: 0 as const };
  const range = (ctx.filters?.dateRange ?? {}) as Record<string, unknown>;
  const from = readDateField(range, "date_from", time);
  const to = readDateField(range, "date_to", time);
  const at = field(overSessions ? "$start_timestamp" : "timestamp");
  if (from) exprs.push(compare(">=", at, instant(from.ms)));
  if (to) exprs.push(compare("<=", at, instant(to.ms)));
  (ctx.filters?.properties ?? []).forEach((f, i) => exprs.push(propertyExpr(f, `filters__properties__${i}`, overSessions)));
  if (ctx.filters?.filterTestAccounts) (ctx.testAccountFilters ?? []).forEach((f, i) => exprs.push(propertyExpr(f, `filters__properties__${i}`, overSessions)));
  return exprs.length ? and(...exprs) : constant(true);
}

/** An instant as HogQL's `toDateTime('…Z')`: the zone marker keeps it UTC where a bare text is read in the project's zone. */
const instant = (ms: number): Node => call("toDateTime", constant(new Date(ms).toISOString()));

/** One property filter as HogQL (PostHog `property_to_expr`): exact/is_not over lists, contains, regex, ranges, is_set. */
export function propertyExpr(f: PropertyFilter, attr: string, overSessions = false): Node {
  if (typeof f?.key !== "string" || f.key === "") throw reject.invalid(`${attr}__key`, "A property filter needs a key.");
  const path = f.type === "person" ? ["person", "properties", f.key] : f.type === "session" ? (overSessions ? [f.key] : ["session", f.key]) : ["properties", f.key];
  const prop = field(...path);
  const values = (Array.isArray(f.value) ? f.value : [f.value]).map((v) => constant(v === null || typeof v === "object" ? null : String(v)));
  const op = f.operator ?? "exact";
  const one = values[0] ?? constant(null);
  switch (op) {
    case "exact":
      return values.length === 1 ? compare("==", prop, one) : { node: "Or", exprs: values.map((v) => compare("==", prop, v)) };
    case "is_not":
      return and(...values.map((v) => compare("!=", prop, v)));
    case "icontains":
      return compare("ilike", call("toString", prop), constant(`%${String(one.value)}%`));
    case "not_icontains":
      return compare("not ilike", call("toString", prop), constant(`%${String(one.value)}%`));
    case "regex":
      return compare("=~", call("toString", prop), one);
    case "not_regex":
      return compare("!~", call("toString", prop), one);
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return compare({ gt: ">", gte: ">=", lt: "<", lte: "<=" }[op], call("toFloat", prop), constant(Number(one.value)));
    case "is_set":
      return compare("!=", prop, constant(null));
    case "is_not_set":
      return compare("==", prop, constant(null));
    default:
      throw reject.invalid(`${attr}__operator`, `Unsupported property filter operator: ${op}`);
  }
}

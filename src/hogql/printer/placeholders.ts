import { reject } from "../../core/analysis-errors.ts";
import { and, call, chainOf, compare, constant, field, type Node } from "./ast.ts";
import { dateRangeBounds, instantNode } from "./date-range-placeholders.ts";
import type { TableName } from "./schema.ts";
import type { PrintContext, PropertyFilter } from "./types.ts";

/**
 * `{filters}` and `{variables.x}` become ordinary HogQL nodes before printing, so they go through the same
 * resolution, escaping and project filter as the query's own text (PostHog `hogql/filters.py`, `variables`).
 * `tables` are the tables the SELECT reads (its FROM and JOINs; subqueries have none).
 */
export function printPlaceholder(n: Node, ctx: PrintContext, tables: readonly TableName[]): Node {
  const chain = chainOf(n.expr as Node).map(String);
  if (chain.length === 1 && chain[0] === "filters") return filtersExpr(ctx, filtersScopeOf(tables));
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

/** Which table `{filters}` filters: its time field and how its property filters read. */
type FiltersScope = "events" | "sessions" | "groups";

/**
 * filters.py picks the table from the SELECT's FROM and JOINs: groups first, then events, then sessions; any other
 * table is refused, even when the filters are empty (its words, less the logs and traces tables we do not serve).
 */
function filtersScopeOf(tables: readonly TableName[]): FiltersScope {
  const scope = (["groups", "events", "sessions"] as const).find((t) => tables.includes(t));
  if (!scope) throw reject.invalid("query", "Cannot use 'filters' placeholder in a SELECT clause that does not select from the events, sessions or groups table.");
  return scope;
}

const TIME_FIELD: Record<FiltersScope, string> = { events: "timestamp", sessions: "$start_timestamp", groups: "created_at" };

/**
 * The property filters, the date range and the test-account filters, as one condition; `true` when there are
 * none (PostHog `hogql/filters.py`, ReplaceFilters: `{filters}`).
 */
function filtersExpr(ctx: PrintContext, scope: FiltersScope): Node {
  const exprs: Node[] = [];
  (ctx.filters?.properties ?? []).forEach((f, i) => exprs.push(propertyExpr(f, `filters__properties__${i}`, scope)));
  exprs.push(...dateRangeExprs(field(TIME_FIELD[scope]), ctx));
  if (ctx.filters?.filterTestAccounts) (ctx.testAccountFilters ?? []).forEach((f, i) => exprs.push(propertyExpr(f, `filters__properties__${i}`, scope)));
  return exprs.length ? and(...exprs) : constant(true);
}

/** The date range on `at`: from inclusive, to exclusive (filters.py compares `less(timestamp, date_to)`). */
function dateRangeExprs(at: Node, ctx: PrintContext): Node[] {
  const bounds = dateRangeBounds(ctx.filters, { now: ctx.now, timezone: ctx.timezone, weekStartDay: 0 });
  return [...(bounds.to === undefined ? [] : [compare("<", at, instantNode(bounds.to))]), ...(bounds.from === undefined ? [] : [compare(">=", at, instantNode(bounds.from))])];
}

/** One property filter as HogQL (PostHog `property_to_expr`): exact/is_not over lists, contains, regex, ranges, is_set. */
export function propertyExpr(f: PropertyFilter, attr: string, scope: FiltersScope = "events"): Node {
  if (typeof f?.key !== "string" || f.key === "") throw reject.invalid(`${attr}__key`, "A property filter needs a key.");
  const prop = field(...propertyPath(f, f.key, scope, attr));
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

/**
 * Where a filter's property is read: over sessions only session properties exist (filters.py refuses the rest);
 * over groups a filter reads the group's own properties (property_to_expr's group scope).
 */
function propertyPath(f: PropertyFilter, key: string, scope: FiltersScope, attr: string): string[] {
  if (scope === "sessions" && f.type !== "session") throw reject.invalid(`${attr}__type`, "Can only use session properties in a filter when selecting from only the sessions table.");
  if (f.type === "person") return ["person", "properties", key];
  if (f.type === "session") return scope === "sessions" ? [key] : ["session", key];
  return ["properties", key];
}

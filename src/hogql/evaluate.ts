import { compileLikePattern, compileUserRegex } from "../core/regex.ts";
import { parseAbsolute } from "../core/date-parse.ts";
import { reject } from "../core/analysis-errors.ts";
import type { EventRecord, PersonRecord } from "../store/schema.ts";
import { COMPARE_OPS } from "./printer/compare.ts";
import { tableName } from "./printer/functions.ts";
import { FUNCTIONS, toNumber, type Fn } from "./evaluate-functions.ts";
import { zoned } from "../core/time-zones.ts";
import { eventFields } from "./event-fields.ts";
import type { HogqlNode } from "./printer/ast.ts";
import { replaceDateRangePlaceholders } from "./printer/date-range-placeholders.ts";
import { Interval, type Value } from "./values.ts";

export { Day, Interval, shownValue, truthy, type Value } from "./values.ts";
export type { Fn } from "./evaluate-functions.ts";

/** One row of the events table, with the person its distinct id belongs to now. */
export interface EventRow {
  event: EventRecord;
  person: PersonRecord | undefined;
}

/** Property definitions' types by kind (`event`, `person`, `group`), as the printer reads them. */
export type HogqlPropertyTypes = Partial<Record<string, Record<string, string>>>;

/**
 * What an in-process expression is evaluated against besides the row: the injected clock, the project's zone
 * (date functions and date-time text), and its property types (a property read is text unless its definition
 * types it, as in HogQL). Without types every property reads as text.
 */
export interface HogqlEnv {
  now: number;
  timezone?: string;
  propertyTypes?: HogqlPropertyTypes;
  /** The longest one evaluation may run (the server's --query-time-limit); absent, QueryBudget's default. */
  timeLimitMs?: number;
}

/** An expression compiled over one row (an event row unless a caller resolves fields over another table). */
export type Compiled<R = EventRow> = (row: R) => Value;

/** Resolves a field chain to a reader of the row. */
export type FieldResolver<R> = (chain: string[], attr: string) => Compiled<R>;

/** Extra or overriding functions. */
export type FunctionTable = ReadonlyMap<string, Fn>;

export interface CompileOptions<R> {
  fields?: FieldResolver<R>;
  functions?: FunctionTable;
}

const UNIT_MS: Record<string, number> = { Second: 1e3, Minute: 6e4, Hour: 3.6e6, Day: 8.64e7, Week: 6.048e8 };
const UNIT_MONTHS: Record<string, number> = { Month: 1, Quarter: 3, Year: 12 };

interface Scope<R> {
  attr: string;
  env: Required<Pick<HogqlEnv, "now" | "timezone">>;
  compile: (n: HogqlNode) => Compiled<R>;
  resolve: FieldResolver<R>;
  functions: FunctionTable | undefined;
}

/**
 * Evaluates a HogQL expression in-process over one event row, with HogQL's rules (issue 22; a test holds each
 * kind of expression against the SQL engine): property reads are text typed by the project's property
 * definitions, comparisons answer 1/0 and are null-safe as the printer makes them (`x = NULL` is isNull(x),
 * `x != 'a'` holds where x is NULL), `and`/`or`/`not` are three-valued. Fields: `event`, `timestamp`,
 * `distinct_id`, `uuid`, `elements_chain`, `person_id`, `properties.<key>`, `person.properties.<key>`,
 * `person.created_at`; the functions of FUNCTIONS. Anything else is a 400 naming `attr`.
 */
export function compileHogql<R = EventRow>(node: HogqlNode, attr: string, env: HogqlEnv, options: CompileOptions<R> = {}): Compiled<R> {
  const scope: Scope<R> = {
    attr,
    env: { now: env.now, timezone: env.timezone ?? "UTC" },
    compile: (n) => compileNode(n, scope),
    resolve: options.fields ?? (eventFields(env) as unknown as FieldResolver<R>),
    functions: options.functions,
  };
  // No HogQLFilters reach an in-process expression: a date-range placeholder is unset, its comparison a no-op.
  return scope.compile(replaceDateRangePlaceholders(node, undefined, { ...scope.env, weekStartDay: 0 }, attr));
}

function compileNode<R>(n: HogqlNode, scope: Scope<R>): Compiled<R> {
  const { compile, attr } = scope;
  const kids = (key: string) => (n[key] as HogqlNode[]).map(compile);
  switch (n.node) {
    case "Constant": {
      const value = n.value as Value;
      return () => value;
    }
    case "Field":
      return scope.resolve(n.chain as string[], attr);
    case "Alias":
      return compile(n.expr as HogqlNode);
    case "And":
      return callOf("and", kids("exprs"), scope);
    case "Or":
      return callOf("or", kids("exprs"), scope);
    case "Not":
      return callOf("not", [compile(n.expr as HogqlNode)], scope);
    case "Tuple":
    case "Array": {
      const parts = kids("exprs");
      return (row) => parts.map((p) => p(row));
    }
    case "CompareOperation":
      return comparison(String(n.op), compile(n.left as HogqlNode), compile(n.right as HogqlNode), scope, constantOf(n.left as HogqlNode), constantOf(n.right as HogqlNode));
    case "ArithmeticOperation":
      return arithmetic(String(n.op), compile(n.left as HogqlNode), compile(n.right as HogqlNode), attr, scope.env.timezone);
    case "Call":
      return call(String(n.name), n.args as HogqlNode[], scope);
    default:
      throw reject.invalid(attr, `${NODE_NAMES[n.node] ?? `HogQL ${n.node} expressions`} are not supported.`);
  }
}

/** Readable names for the AST nodes refused inside expressions. */
const NODE_NAMES: Readonly<Record<string, string>> = {
  SelectQuery: "Subqueries (SELECT inside an expression)",
  SelectSetQuery: "Subqueries (UNION inside an expression)",
  WindowFunction: "Window functions (OVER …)",
  Lambda: "Lambdas (x -> …)",
  Placeholder: "Placeholders ({…})",
  ArrayAccess: "Array subscripts (x[i])",
  TupleAccess: "Tuple subscripts (x.1)",
};

const constantOf = (n: HogqlNode): { value: unknown } | undefined => (n.node === "Constant" ? { value: n.value } : undefined);

const likeToRegex = (pattern: string, flags: string) => compileLikePattern(pattern, { anchored: true, caseInsensitive: flags.includes("i") });

/** Comparable forms: dates as epoch ms (text compared with a date is parsed in the project's zone), numbers as numbers. */
function comparable(a: Value, b: Value, timezone: string): [unknown, unknown] {
  if (a instanceof Date || b instanceof Date) return [toMs(a, timezone), toMs(b, timezone)];
  if (typeof a === "number" || typeof b === "number") return [toNumber(a), toNumber(b)];
  // A Bool compared with text reads the text as a Bool (ClickHouse: `flag = 'true'`).
  if (typeof a === "boolean" && typeof b === "string") return [a, boolText(b)];
  if (typeof b === "boolean" && typeof a === "string") return [boolText(a), b];
  if (typeof a === "object" || typeof b === "object") return [JSON.stringify(a), JSON.stringify(b)];
  return [a, b];
}

const boolText = (text: string): boolean | null => (/^(true|1)$/i.test(text) ? true : /^(false|0)$/i.test(text) ? false : null);

const toMs = (v: Value, timezone: string) => (v instanceof Date ? v.getTime() : typeof v === "string" ? (parseAbsolute(v, timezone)?.ms ?? Number.NaN) : Number(v));

type Test = (a: Value, b: Value) => boolean;

/**
 * A comparison as the printer makes it (compare.ts `printCompare`, after printer.py): 1 or 0, never NULL; where a
 * side is NULL the operator's null rule answers (`=` holds when both are, `!=` and `NOT LIKE` when one is).
 */
function comparison<R>(op: string, left: Compiled<R>, right: Compiled<R>, scope: Scope<R>, leftConstant?: { value: unknown }, rightConstant?: { value: unknown }): Compiled<R> {
  const rule = COMPARE_OPS[op];
  const test = testOf(op, scope);
  if (!rule || !test) throw reject.invalid(scope.attr, `HogQL operator "${op}" is not supported.`);
  const nullRule = (a: Value, b: Value) => (a == null && b == null ? rule.bothNull : rule.oneNull);
  // `x = NULL` / `x != NULL` print as isNull / isNotNull (and `NULL = NULL` folds to 1).
  const constantNull = (op === "==" || op === "!=") && (leftConstant?.value === null || rightConstant?.value === null);
  return (row) => {
    const a = left(row);
    const b = right(row);
    if (constantNull) return (a == null && b == null) === (op === "==") ? 1 : 0;
    // NULL IN (…) is 0 and NULL NOT IN (…) is 1 (ClickHouse without transform_null_in; the printer wraps in ifNull(…, 0)).
    if (a == null && (op === "in" || op === "not in")) return op === "in" ? 0 : 1;
    if (a == null || b == null) return nullRule(a ?? null, b ?? null) ? 1 : 0;
    return test(a, b) ? 1 : 0;
  };
}

function testOf<R>(op: string, scope: Scope<R>): Test | undefined {
  const tz = scope.env.timezone;
  const cmp = (f: (x: unknown, y: unknown) => boolean): Test => (a, b) => {
    const [x, y] = comparable(a, b, tz);
    return x !== null && y !== null && f(x, y);
  };
  const like = (flags: string, negate: boolean): Test => (a, b) => likeToRegex(String(b), flags).test(String(a)) !== negate;
  const member = (negate: boolean): Test => (a, list) => {
    const items = Array.isArray(list) ? list : [list];
    return items.some((item) => item != null && cmp((x, y) => x === y)(a, item)) !== negate;
  };
  const regex = (negate: boolean, flags = ""): Test => (a, b) => compileUserRegex(`${flags}${String(b)}`, scope.attr).test(String(a)) !== negate;
  const tests: Record<string, Test> = {
    "==": cmp((x, y) => x === y),
    "!=": cmp((x, y) => x !== y),
    "<": cmp((x, y) => (x as number) < (y as number)),
    "<=": cmp((x, y) => (x as number) <= (y as number)),
    ">": cmp((x, y) => (x as number) > (y as number)),
    ">=": cmp((x, y) => (x as number) >= (y as number)),
    like: like("", false),
    ilike: like("i", false),
    "not like": like("", true),
    "not ilike": like("i", true),
    in: member(false),
    "not in": member(true),
    "=~": regex(false),
    "!~": regex(true),
  };
  return Object.hasOwn(tests, op) ? tests[op] : undefined;
}

/** Arithmetic over numbers (Bool as 0/1) and date ± interval; NULL in, NULL out; text is a type error, as in ClickHouse. */
/** date ± interval: the date keeps its kind (Day, DateTime, DateTime64); months move on the calendar of the zone. */
function shifted(date: Date, interval: Interval, op: string, timezone: string): Date | null {
  if (op !== "+" && op !== "-") return null;
  const sign = op === "-" ? -1 : 1;
  const ms = interval.months === 0 ? date.getTime() : zoned(date.getTime(), timezone).plus({ months: sign * interval.months }).toMillis();
  return new (date.constructor as DateConstructor)(ms + sign * interval.ms);
}

function arithmetic<R>(op: string, left: Compiled<R>, right: Compiled<R>, attr: string, tz: string): Compiled<R> {
  if (!["+", "-", "*", "/", "%"].includes(op)) throw reject.invalid(attr, `HogQL operator "${op}" is not supported.`);
  return (row) => {
    const a = left(row);
    const b = right(row);
    if (a == null || b == null) return null;
    if (a instanceof Date && b instanceof Interval) return shifted(a, b, op, tz);
    if (typeof a === "string" || typeof b === "string") {
      throw reject.invalid(attr, `Arithmetic (${op}) on text is not allowed: HogQL reads a property as text unless its property definition is Numeric (use toFloat(…)).`);
    }
    const [x, y] = [toNumber(a) ?? Number.NaN, toNumber(b) ?? Number.NaN];
    const result = op === "+" ? x + y : op === "-" ? x - y : op === "*" ? x * y : op === "/" ? x / y : x % y;
    return Number.isFinite(result) ? result : null;
  };
}

const COMPARE_CALLS: Readonly<Record<string, string>> = { equals: "==", notEquals: "!=", less: "<", greater: ">", lessOrEquals: "<=", greaterOrEquals: ">=", like: "like", ilike: "ilike", notLike: "not like", notILike: "not ilike" };

function call<R>(written: string, argNodes: HogqlNode[], scope: Scope<R>): Compiled<R> {
  // `IF(…)` is `if(…)`: the printer's rule for the names ClickHouse reads case-insensitively.
  const name = tableName(written);
  const args = argNodes.map(scope.compile);
  const interval = /^toInterval(Second|Minute|Hour|Day|Week|Month|Quarter|Year)$/.exec(name);
  if (interval) {
    const [ms, months] = [UNIT_MS[interval[1]!] ?? 0, UNIT_MONTHS[interval[1]!] ?? 0];
    return (row) => {
      const n = Number(args[0]?.(row) ?? 0);
      return new Interval(n * ms, n * months);
    };
  }
  // match() prints as itself, not as `=~`: NULL in, NULL out.
  if (name === "match") {
    if (args.length !== 2) throw reject.invalid(scope.attr, "match() takes two arguments.");
    const [text, pattern] = args as [Compiled<R>, Compiled<R>];
    return (row) => {
      const [t, p] = [text(row), pattern(row)];
      return t == null || p == null ? null : compileUserRegex(String(p), scope.attr).test(String(t)) ? 1 : 0;
    };
  }
  const op = Object.hasOwn(COMPARE_CALLS, name) ? COMPARE_CALLS[name] : undefined;
  if (op) {
    if (args.length !== 2) throw reject.invalid(scope.attr, `${name}() takes two arguments.`);
    return comparison(op, args[0]!, args[1]!, scope, constantOf(argNodes[0]!), constantOf(argNodes[1]!));
  }
  return callOf(name, args, scope);
}

function callOf<R>(name: string, args: Compiled<R>[], scope: Scope<R>): Compiled<R> {
  const fn = scope.functions?.get(name) ?? FUNCTIONS.get(name);
  if (!fn) {
    const known = [...FUNCTIONS.keys(), ...(scope.functions?.keys() ?? []), ...Object.keys(COMPARE_CALLS), "match", "toInterval*"];
    throw reject.invalid(scope.attr, `HogQL function ${name}() is not supported in-process (supported: ${known.join(", ")}).`);
  }
  const env = { ...scope.env, attr: scope.attr };
  return (row) => fn(args.map((a) => a(row)), env);
}

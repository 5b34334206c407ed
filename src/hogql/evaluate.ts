import { compileLikePattern, compileUserRegex } from "../analyses/shared/regex.ts";
import { eventProperty } from "../analyses/shared/event-read.ts";
import { reject } from "../analyses/errors.ts";
import type { EventRecord, PersonRecord } from "../store/schema.ts";
import type { HogqlNode } from "./parse.ts";

/** One row of the events table, with the person its distinct id belongs to now. */
export interface EventRow {
  event: EventRecord;
  person: PersonRecord | undefined;
}

/** A length of time (`interval 1 day`), kept apart from numbers so that date ± interval works. */
export class Interval {
  constructor(readonly ms: number) {}
}

export type Value = null | boolean | number | string | Date | Interval | Value[] | Record<string, unknown> | undefined;
/** An expression compiled over one row (an event row unless a caller resolves fields over another table). */
export type Compiled<R = EventRow> = (row: R) => Value;

/** Resolves a field chain to a reader of the row (the SQL engine's tables and grouped rows bring their own). */
export type FieldResolver<R> = (chain: string[], attr: string) => Compiled<R>;

/** Extra or overriding functions (the SQL engine's date functions, which need the project's time zone). */
export type FunctionTable = ReadonlyMap<string, Fn>;

export interface CompileOptions<R> {
  fields?: FieldResolver<R>;
  functions?: FunctionTable;
}

const UNIT_MS: Record<string, number> = { Second: 1e3, Minute: 6e4, Hour: 3.6e6, Day: 8.64e7, Week: 6.048e8, Month: 2.592e9, Year: 3.1536e10 };

/**
 * Evaluates the HogQL expressions the events API accepts in `select`/`where`, over one event row:
 * fields `event`, `timestamp`, `distinct_id`, `uuid`, `elements_chain`, `person_id`, `properties.<key>`,
 * `person.properties.<key>`, `person.created_at`; comparisons, `and`/`or`/`not`, `like`/`ilike`, `in`,
 * arithmetic, and the functions of FUNCTIONS. Anything else is a 400 naming `attr`.
 */
export function compileHogql<R = EventRow>(node: HogqlNode, attr: string, now: number, options: CompileOptions<R> = {}): Compiled<R> {
  const resolve = (options.fields ?? (eventField as unknown as FieldResolver<R>));
  const compile = (n: HogqlNode): Compiled<R> => compileNode(n, attr, now, compile, resolve, options.functions);
  return compile(node);
}

function compileNode<R>(n: HogqlNode, attr: string, now: number, compile: (n: HogqlNode) => Compiled<R>, resolve: FieldResolver<R>, functions: FunctionTable | undefined): Compiled<R> {
  const kids = (key: string) => (n[key] as HogqlNode[]).map(compile);
  switch (n.node) {
    case "Constant": {
      const value = n.value as Value;
      return () => value;
    }
    case "Field":
      return resolve(n.chain as string[], attr);
    case "Alias":
      return compile(n.expr as HogqlNode);
    case "And": {
      const parts = kids("exprs");
      return (row) => parts.every((p) => truthy(p(row)));
    }
    case "Or": {
      const parts = kids("exprs");
      return (row) => parts.some((p) => truthy(p(row)));
    }
    case "Not": {
      const inner = compile(n.expr as HogqlNode);
      return (row) => !truthy(inner(row));
    }
    case "Tuple":
    case "Array": {
      const parts = kids("exprs");
      return (row) => parts.map((p) => p(row));
    }
    case "CompareOperation":
      return comparison(String(n.op), compile(n.left as HogqlNode), compile(n.right as HogqlNode), n.is_null_comparison_style === true, attr);
    case "ArithmeticOperation":
      return arithmetic(String(n.op), compile(n.left as HogqlNode), compile(n.right as HogqlNode), attr);
    case "Call":
      return call(String(n.name), kids("args"), attr, now, functions);
    default:
      throw reject.invalid(attr, `${NODE_NAMES[n.node] ?? `HogQL ${n.node} expressions`} are not supported.`);
  }
}

/** The events table's fields. */
export function eventField(chain: string[], attr: string): Compiled {
  const [head, ...rest] = chain;
  const dig = (value: unknown, path: string[]): Value => {
    let v = value;
    for (const key of path) v = v !== null && typeof v === "object" && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : null;
    return (v ?? null) as Value;
  };
  switch (head) {
    case "event":
    case "distinct_id":
    case "uuid":
    case "elements_chain":
      return ({ event }) => event[head];
    case "timestamp":
      return ({ event }) => new Date(event.timestamp);
    case "properties":
      if (rest.length === 0) return ({ event }) => dig(event.properties, rest);
      return ({ event }) => dig(eventProperty(event, rest[0]!), rest.slice(1));
    case "person_id":
      return ({ person }) => person?.uuid ?? null;
    case "person":
      if (rest[0] === "properties") return ({ person }) => dig(person?.properties ?? null, rest.slice(1));
      if (rest[0] === "created_at" && rest.length === 1) return ({ person }) => (person ? new Date(person.created_at) : null);
      if (rest[0] === "id" && rest.length === 1) return ({ person }) => person?.uuid ?? null;
      break;
  }
  throw reject.invalid(attr, `Unknown HogQL field "${chain.join(".")}" for events.`);
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

export const truthy = (v: Value) => v !== null && v !== undefined && v !== false && v !== 0 && v !== "";

const likeToRegex = (pattern: string, flags: string) =>
  compileLikePattern(pattern, { anchored: true, caseInsensitive: flags.includes("i") });

/** Comparable forms: dates as epoch ms (a string compared with a date is parsed), numbers as numbers. */
function comparable(a: Value, b: Value): [unknown, unknown] {
  if (a instanceof Date || b instanceof Date) return [toMs(a), toMs(b)];
  if (typeof a === "number" || typeof b === "number") return [Number(a), Number(b)];
  if (typeof a === "object" || typeof b === "object") return [JSON.stringify(a), JSON.stringify(b)];
  return [a, b];
}

const toMs = (v: Value) => (v instanceof Date ? v.getTime() : typeof v === "string" ? Date.parse(v.includes("T") || v.length <= 10 ? v : v.replace(" ", "T")) : Number(v));

function comparison<R>(op: string, left: Compiled<R>, right: Compiled<R>, nullStyle: boolean, attr: string): Compiled<R> {
  if (nullStyle) return op === "==" ? (row) => left(row) == null : (row) => left(row) != null;
  const cmp = (test: (a: unknown, b: unknown) => boolean): Compiled<R> => (row) => {
    const a = left(row);
    const b = right(row);
    if (a == null || b == null) return null;
    const [x, y] = comparable(a, b);
    return test(x, y);
  };
  const like = (flags: string, negate: boolean): Compiled<R> => (row) => {
    const a = left(row);
    const b = right(row);
    if (a == null || b == null) return null;
    return likeToRegex(String(b), flags).test(String(a)) !== negate;
  };
  const member = (negate: boolean): Compiled<R> => (row) => {
    const a = left(row);
    const list = right(row);
    if (a == null) return null;
    const items = Array.isArray(list) ? list : [list];
    return items.some((item) => item != null && (comparable(a, item) as unknown[]).every((v, i, arr) => i === 0 || v === arr[0])) !== negate;
  };
  switch (op) {
    case "==": return cmp((x, y) => x === y);
    case "!=": return cmp((x, y) => x !== y);
    case "<": return cmp((x, y) => (x as number) < (y as number));
    case "<=": return cmp((x, y) => (x as number) <= (y as number));
    case ">": return cmp((x, y) => (x as number) > (y as number));
    case ">=": return cmp((x, y) => (x as number) >= (y as number));
    case "like": return like("", false);
    case "ilike": return like("i", false);
    case "not like": return like("", true);
    case "not ilike": return like("i", true);
    case "in": return member(false);
    case "not in": return member(true);
    default: throw reject.invalid(attr, `HogQL operator "${op}" is not supported.`);
  }
}

function arithmetic<R>(op: string, left: Compiled<R>, right: Compiled<R>, attr: string): Compiled<R> {
  if (!["+", "-", "*", "/", "%"].includes(op)) throw reject.invalid(attr, `HogQL operator "${op}" is not supported.`);
  return (row) => {
    const a = left(row);
    const b = right(row);
    if (a == null || b == null) return null;
    if (a instanceof Date && b instanceof Interval) return new Date(a.getTime() + (op === "-" ? -b.ms : op === "+" ? b.ms : NaN));
    const [x, y] = [Number(a), Number(b)];
    const result = op === "+" ? x + y : op === "-" ? x - y : op === "*" ? x * y : op === "/" ? x / y : x % y;
    return Number.isFinite(result) ? result : null;
  };
}

const num = (v: Value) => (v == null || v === "" || Number.isNaN(Number(v)) ? null : Number(v));

export type Fn = (args: Value[], now: number) => Value;

/** The functions the events API evaluates (a documented subset of HogQL's); a Map, so no prototype name resolves. */
const FUNCTIONS = new Map<string, Fn>([
  ["now", (_a, now) => new Date(now)],
  ["today", (_a, now) => new Date(new Date(now).toISOString().slice(0, 10))],
  ["toDateTime", ([v]) => (v == null ? null : Number.isNaN(toMs(v)) ? null : new Date(toMs(v)))],
  ["toDate", ([v]) => (v == null || Number.isNaN(toMs(v)) ? null : new Date(new Date(toMs(v)).toISOString().slice(0, 10)))],
  ["toInt", ([v]) => (num(v) === null ? null : Math.trunc(num(v)!))],
  ["toFloat", ([v]) => num(v)],
  ["toString", ([v]) => (v == null ? null : v instanceof Date ? v.toISOString() : typeof v === "object" ? JSON.stringify(v) : String(v))],
  ["lower", ([v]) => (v == null ? null : String(v).toLowerCase())],
  ["upper", ([v]) => (v == null ? null : String(v).toUpperCase())],
  ["length", ([v]) => (v == null ? null : Array.isArray(v) ? v.length : String(v).length)],
  ["concat", (args) => args.map((a) => (a == null ? "" : String(a))).join("")],
  ["coalesce", (args) => args.find((a) => a != null) ?? null],
  ["ifNull", ([a, b]) => a ?? b ?? null],
  ["if", ([c, a, b]) => (truthy(c ?? null) ? (a ?? null) : (b ?? null))],
  ["not", ([v]) => !truthy(v ?? null)],
  ["and", (args) => args.every((a) => truthy(a ?? null))],
  ["or", (args) => args.some((a) => truthy(a ?? null))],
]);

function call<R>(name: string, args: Compiled<R>[], attr: string, now: number, functions: FunctionTable | undefined): Compiled<R> {
  const interval = /^toInterval(Second|Minute|Hour|Day|Week|Month|Year)$/.exec(name);
  if (interval) return (row) => new Interval(Number(args[0]?.(row) ?? 0) * UNIT_MS[interval[1]!]!);
  if (name === "match") {
    const pattern = args[1];
    return (row) => {
      const text = args[0]?.(row);
      const p = pattern?.(row);
      return text == null || p == null ? null : compileUserRegex(String(p), attr).test(String(text));
    };
  }
  if (name === "like" || name === "ilike") {
    const compiled = comparison(name, args[0] ?? (() => null), args[1] ?? (() => null), false, attr);
    return compiled;
  }
  const fn = functions?.get(name) ?? FUNCTIONS.get(name);
  if (!fn) throw reject.invalid(attr, `HogQL function ${name}() is not supported (supported: ${[...FUNCTIONS.keys(), ...(functions?.keys() ?? []), "match", "like", "ilike", "toInterval*"].join(", ")}).`);
  return (row) => fn(args.map((a) => a(row)), now);
}

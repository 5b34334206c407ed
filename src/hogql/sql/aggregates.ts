import { reject } from "../../analyses/errors.ts";
import { truthy, type Value } from "../evaluate.ts";
import type { HogqlNode } from "../parse.ts";

/** One aggregate's running state over the rows of a group. */
export interface Reducer {
  add(args: Value[]): void;
  value(): Value;
}

const numeric = (v: Value): number | null => {
  if (v === null || v === undefined || v === "" || typeof v === "boolean") return null;
  if (v instanceof Date) return v.getTime() / 1000;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

const keyOf = (v: Value): string => (v instanceof Date ? `d${v.getTime()}` : typeof v === "object" ? JSON.stringify(v) : `${typeof v}:${String(v)}`);

function numbers(fold: (values: number[]) => number, conditional = false): Reducer {
  const values: number[] = [];
  return {
    add([x, cond]) {
      if (conditional && !truthy(cond ?? null)) return;
      const n = numeric(x ?? null);
      if (n !== null) values.push(n);
    },
    value: () => (values.length === 0 ? null : fold(values)),
  };
}

function counting(conditional: boolean, countArg: boolean): Reducer {
  let n = 0;
  return {
    add([x, cond]) {
      if (conditional ? truthy((countArg ? cond : x) ?? null) : !countArg || x != null) n++;
    },
    value: () => n,
  };
}

function distinct(conditional = false): Reducer {
  const seen = new Set<string>();
  return {
    add([x, cond]) {
      if ((conditional && !truthy(cond ?? null)) || x == null) return;
      seen.add(keyOf(x));
    },
    value: () => seen.size,
  };
}

/** min/max keep the type of their values (dates stay dates, strings compare as strings). */
function extreme(pick: 1 | -1): Reducer {
  let best: Value = null;
  return {
    add([x]) {
      if (x == null) return;
      if (best === null || compare(x, best) * pick > 0) best = x;
    },
    value: () => best,
  };
}

const compare = (a: Value, b: Value): number => {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (typeof x === "number" && typeof y === "number") return x - y;
  return String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
};

function anyValue(): Reducer {
  let first: Value = null;
  return { add: ([x]) => void (first === null && x != null ? (first = x) : 0), value: () => first };
}

const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
};

interface AggregateSpec {
  /** Numbers of arguments accepted. */
  arity: readonly number[];
  create(argCount: number): Reducer;
  /** ClickHouse's result type when it does not depend on the values. */
  type?: string;
}

/**
 * The aggregate functions the SQL engine computes. Nulls are skipped as ClickHouse skips them; sums over no
 * rows are 0, averages and extremes over no rows are null. `-If` forms take the condition last.
 */
export const AGGREGATES: ReadonlyMap<string, AggregateSpec> = new Map<string, AggregateSpec>([
  ["count", { arity: [0, 1], create: (n) => counting(false, n === 1), type: "UInt64" }],
  ["countIf", { arity: [1, 2], create: (n) => counting(true, n === 2), type: "UInt64" }],
  ["sum", { arity: [1], create: () => sumReducer(false) }],
  ["sumIf", { arity: [2], create: () => sumReducer(true) }],
  ["avg", { arity: [1], create: () => numbers((v) => sum(v) / v.length), type: "Float64" }],
  ["avgIf", { arity: [2], create: () => numbers((v) => sum(v) / v.length, true), type: "Float64" }],
  ["min", { arity: [1], create: () => extreme(-1) }],
  ["max", { arity: [1], create: () => extreme(1) }],
  ["median", { arity: [1], create: () => numbers(median), type: "Float64" }],
  ["uniq", { arity: [1], create: () => distinct(), type: "UInt64" }],
  ["uniqExact", { arity: [1], create: () => distinct(), type: "UInt64" }],
  ["uniqIf", { arity: [2], create: () => distinct(true), type: "UInt64" }],
  ["any", { arity: [1], create: () => anyValue() }],
]);

function sumReducer(conditional: boolean): Reducer {
  const inner = numbers(sum, conditional);
  return { add: inner.add, value: () => inner.value() ?? 0 };
}

export const isAggregateCall = (node: HogqlNode): boolean => node.node === "Call" && AGGREGATES.has(String(node.name));

/** The reducer of one aggregate call; `count(distinct x)` counts distinct values. Wrong arity is a 400. */
export function reducerFactory(node: HogqlNode, attr: string): () => Reducer {
  const name = String(node.name);
  const spec = AGGREGATES.get(name)!;
  const argCount = (node.args as HogqlNode[]).length;
  if (!spec.arity.includes(argCount)) throw reject.invalid(attr, `${name}() takes ${spec.arity.join(" or ")} argument(s), not ${argCount}.`);
  if (node.params) throw reject.invalid(attr, `Parametric aggregates such as ${name}(…)(…) are not supported.`);
  if (node.distinct === true) {
    if (name !== "count" || argCount !== 1) throw reject.invalid(attr, `DISTINCT is supported in count(DISTINCT x) only, not in ${name}().`);
    return () => distinct();
  }
  return () => spec.create(argCount);
}

export const aggregateType = (node: HogqlNode): string | undefined =>
  node.distinct === true ? "UInt64" : AGGREGATES.get(String(node.name))?.type;

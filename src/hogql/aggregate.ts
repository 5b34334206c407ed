import { reject } from "../core/analysis-errors.ts";
import { compileHogql, Interval, type Compiled, type EventRow, type HogqlEnv, type Value } from "./evaluate.ts";
import { QueryBudget } from "./budget.ts";
import type { HogqlNode } from "./printer/ast.ts";

/**
 * `math: "hogql"` (reference: analytics §2.3): an aggregate HogQL expression such as `sum(properties.amount)`,
 * `avg(...)`, `count()`, `uniq(person_id)`, `min/max`, or arithmetic over aggregates (`sum(x) / count()`),
 * computed per bucket. Rows whose argument is null are skipped, as ClickHouse's aggregates skip NULLs; an
 * aggregate over no rows is 0 (the trends query fills empty buckets with zeros).
 */
export interface AggregatePlan {
  /** A fresh per-bucket state: feed rows, then read the value. */
  create(): { add(row: EventRow): void; value(): number };
}

interface Slot {
  init(): SlotState;
}
interface SlotState {
  add(row: EventRow): void;
  value(): number;
}

const numeric = (v: Value): number | null => {
  if (v === null || v === undefined || v === "" || typeof v === "object") return v instanceof Date ? v.getTime() / 1000 : v instanceof Interval ? v.seconds : null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

const keyOf = (v: Value): string | null => (v === null || v === undefined ? null : typeof v === "object" ? JSON.stringify(v) : String(v));

type Reducer = (arg: Compiled | undefined) => SlotState;

function numbers(arg: Compiled | undefined, fold: (values: number[]) => number): SlotState {
  const values: number[] = [];
  return {
    add(row) {
      const n = arg ? numeric(arg(row)) : null;
      if (n !== null) values.push(n);
    },
    value: () => (values.length === 0 ? 0 : fold(values)),
  };
}

function distinct(arg: Compiled | undefined): SlotState {
  const seen = new Set<string>();
  return {
    add(row) {
      const key = arg ? keyOf(arg(row)) : null;
      if (key !== null) seen.add(key);
    },
    value: () => seen.size,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
};

/** The aggregates understood; anything else in aggregate position is a 400. */
const REDUCERS = new Map<string, Reducer>([
  ["count", (arg) => {
    let n = 0;
    return { add: (row) => void (arg === undefined || arg(row) != null ? n++ : 0), value: () => n };
  }],
  ["sum", (arg) => numbers(arg, (v) => v.reduce((a, b) => a + b, 0))],
  ["avg", (arg) => numbers(arg, (v) => v.reduce((a, b) => a + b, 0) / v.length)],
  ["min", (arg) => numbers(arg, (v) => Math.min(...v))],
  ["max", (arg) => numbers(arg, (v) => Math.max(...v))],
  ["median", (arg) => numbers(arg, median)],
  ["uniq", distinct],
  ["uniqExact", distinct],
]);

/** Compiles the expression: aggregate calls become slots, the arithmetic around them combines their values. */
export function compileAggregate(node: HogqlNode, attr: string, env: HogqlEnv): AggregatePlan {
  const slots: Slot[] = [];
  const combine = compileOuter(node, attr, env, slots);
  if (slots.length === 0) throw reject.invalid(attr, "math_hogql must be an aggregate expression, such as count(), sum(properties.amount) or uniq(person_id).");
  const budget = new QueryBudget(attr, env.timeLimitMs);
  return {
    create() {
      const states = slots.map((s) => s.init());
      return {
        add: (row) => {
          budget.tick();
          states.forEach((s) => s.add(row));
        },
        value: () => {
          const result = combine(states.map((s) => s.value()));
          return Number.isFinite(result) ? result : 0;
        },
      };
    },
  };
}

type Combine = (values: readonly number[]) => number;

const ARITHMETIC: Readonly<Record<string, (a: number, b: number) => number>> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => a / b,
  "%": (a, b) => a % b,
};

function compileOuter(node: HogqlNode, attr: string, env: HogqlEnv, slots: Slot[]): Combine {
  switch (node.node) {
    case "Alias":
      return compileOuter(node.expr as HogqlNode, attr, env, slots);
    case "Constant": {
      const value = Number(node.value);
      if (!Number.isFinite(value)) break;
      return () => value;
    }
    case "ArithmeticOperation": {
      const op = ARITHMETIC[String(node.op)];
      if (!op) break;
      const left = compileOuter(node.left as HogqlNode, attr, env, slots);
      const right = compileOuter(node.right as HogqlNode, attr, env, slots);
      return (values) => op(left(values), right(values));
    }
    case "Call": {
      const name = String(node.name);
      const reducer = REDUCERS.get(name);
      if (!reducer) break;
      const args = node.args as HogqlNode[];
      if (node.distinct === true && name === "count") return slotOf(distinct, args[0], attr, env, slots);
      if (args.length > 1 || (args.length === 0 && name !== "count")) throw reject.invalid(attr, `${name}() takes one argument in math_hogql.`);
      return slotOf(reducer, args[0], attr, env, slots);
    }
  }
  const what = `${String(node.node)}${node.name ? ` ${String(node.name)}()` : ""}`;
  throw reject.invalid(attr, `math_hogql must be an aggregate expression; ${what} is not supported here (use count(), sum, avg, min, max, median, uniq, count(distinct …) and arithmetic over them).`);
}

function slotOf(reducer: Reducer, argNode: HogqlNode | undefined, attr: string, env: HogqlEnv, slots: Slot[]): Combine {
  const arg = argNode ? compileHogql(argNode, attr, env) : undefined;
  const index = slots.push({ init: () => reducer(arg) }) - 1;
  return (values) => values[index]!;
}

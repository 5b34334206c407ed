import { reject } from "../../core/analysis-errors.ts";

/** One side of a comparison, printed, with what HogQL's null rules need to know about it. */
export interface Side {
  sql: string;
  nullable: boolean;
  /** Present when the side is a literal constant (`null` included). */
  constant?: { value: unknown };
}

interface OpRule {
  print: (l: string, r: string) => string;
  /** What the comparison answers when exactly one side is NULL, and when both are (printer.py `visit_compare_operation`). */
  oneNull: boolean;
  bothNull: boolean;
  fold?: (l: unknown, r: unknown) => boolean;
}

const ordered = (f: (a: never, b: never) => boolean) => (l: unknown, r: unknown) => l !== null && r !== null && f(l as never, r as never);

/** HogQL's comparison operators as the parser spells them, and the ClickHouse each prints as. */
export const COMPARE_OPS: Record<string, OpRule> = {
  "==": { print: (l, r) => `equals(${l}, ${r})`, oneNull: false, bothNull: true, fold: (l, r) => l === r },
  "!=": { print: (l, r) => `notEquals(${l}, ${r})`, oneNull: true, bothNull: false, fold: (l, r) => l !== r },
  like: { print: (l, r) => `like(${l}, ${r})`, oneNull: false, bothNull: true },
  "not like": { print: (l, r) => `notLike(${l}, ${r})`, oneNull: true, bothNull: false },
  ilike: { print: (l, r) => `ilike(${l}, ${r})`, oneNull: false, bothNull: true },
  "not ilike": { print: (l, r) => `notILike(${l}, ${r})`, oneNull: true, bothNull: false },
  in: { print: (l, r) => `in(${l}, ${r})`, oneNull: false, bothNull: false },
  "not in": { print: (l, r) => `notIn(${l}, ${r})`, oneNull: false, bothNull: false },
  "=~": { print: (l, r) => `match(${l}, ${r})`, oneNull: false, bothNull: true },
  "!~": { print: (l, r) => `not(match(${l}, ${r}))`, oneNull: true, bothNull: false },
  "=~*": { print: (l, r) => `match(${l}, concat('(?i)', ${r}))`, oneNull: false, bothNull: true },
  "!~*": { print: (l, r) => `not(match(${l}, concat('(?i)', ${r})))`, oneNull: true, bothNull: false },
  ">": { print: (l, r) => `greater(${l}, ${r})`, oneNull: false, bothNull: false, fold: ordered((a, b) => a > b) },
  ">=": { print: (l, r) => `greaterOrEquals(${l}, ${r})`, oneNull: false, bothNull: false, fold: ordered((a, b) => a >= b) },
  "<": { print: (l, r) => `less(${l}, ${r})`, oneNull: false, bothNull: false, fold: ordered((a, b) => a < b) },
  "<=": { print: (l, r) => `lessOrEquals(${l}, ${r})`, oneNull: false, bothNull: false, fold: ordered((a, b) => a <= b) },
};

/** The comparison a function name stands for: `equals(a, b)` gets the same null rules as `a = b` (mapping.py). */
export const COMPARE_FUNCTIONS: Record<string, string> = {
  equals: "==", notEquals: "!=", less: "<", greater: ">", lessOrEquals: "<=", greaterOrEquals: ">=",
  like: "like", ilike: "ilike", notLike: "not like", notILike: "not ilike", in: "in", notIn: "not in",
};

const isNullConstant = (s: Side) => s.constant !== undefined && s.constant.value === null;

/**
 * A comparison with HogQL's null handling: `x = NULL` is `isNull(x)`, `x != 'a'` holds where x is NULL,
 * `NOT LIKE` likewise; both sides non-nullable or inside a JOIN's ON: printed plain.
 */
export function printCompare(op: string, left: Side, right: Side, inJoinConstraint: boolean): string {
  const rule = COMPARE_OPS[op];
  if (!rule) throw reject.invalid("query", `Unsupported comparison operator: ${op}`);
  const plain = rule.print(left.sql, right.sql);
  if (left.constant && right.constant && rule.fold) return rule.fold(left.constant.value, right.constant.value) ? "1" : "0";
  if (inJoinConstraint || (!left.nullable && !right.nullable)) return plain;
  if (op === "==" || op === "!=") return printEquality(op, plain, left, right);
  if (isNullConstant(right) || isNullConstant(left)) {
    if (isNullConstant(right) && isNullConstant(left)) return rule.bothNull ? "1" : "0";
    if (rule.bothNull === rule.oneNull) return rule.oneNull ? "1" : "0";
  }
  if ((op === "in" || op === "not in") && (!left.nullable || (left.constant && left.constant.value !== null))) return plain;
  return wrapNulls(plain, rule, left.sql, right.sql);
}

function printEquality(op: "==" | "!=", plain: string, left: Side, right: Side): string {
  const eq = op === "==";
  const constantSide = right.constant ? right : left.constant ? left : undefined;
  const other = constantSide === right ? left : right;
  if (constantSide) {
    if (constantSide.constant!.value === null) return eq ? `isNull(${other.sql})` : `isNotNull(${other.sql})`;
    return `ifNull(${plain}, ${eq ? 0 : 1})`;
  }
  return eq ? `ifNull(${plain}, and(isNull(${left.sql}), isNull(${right.sql})))` : `ifNull(${plain}, or(isNotNull(${left.sql}), isNotNull(${right.sql})))`;
}

function wrapNulls(plain: string, rule: OpRule, l: string, r: string): string {
  if (rule.oneNull && rule.bothNull) return `ifNull(${plain}, 1)`;
  if (rule.oneNull) return `ifNull(${plain}, or(isNotNull(${l}), isNotNull(${r})))`;
  if (rule.bothNull) return `ifNull(${plain}, and(isNull(${l}), isNull(${r})))`;
  return `ifNull(${plain}, 0)`;
}

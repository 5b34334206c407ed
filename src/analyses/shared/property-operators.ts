import { reject } from "../../core/analysis-errors.ts";
import type { FilterContext } from "./context.ts";
import { parseAbsolute, parseDateExpression } from "../../core/date-parse.ts";
import { startOf } from "../../core/time-zones.ts";
import { compileLikePattern, compileUserRegex } from "../../core/regex.ts";

/** Property operators of reference: analytics §1.4, one closed vocabulary. */
export const PROPERTY_OPERATORS = [
  "exact", "is_not", "icontains", "not_icontains", "regex", "not_regex", "gt", "gte", "lt", "lte",
  "between", "not_between", "min", "max", "is_set", "is_not_set", "is_date_exact", "is_date_before",
  "is_date_after", "in", "not_in",
] as const;
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];

/** A compiled operator: `test` sees present (non-null) values only; `missing` is the answer for absent ones. */
export interface ValueTest {
  test: (value: unknown) => boolean;
  missing: boolean;
}

/** The string form a property is compared by: numbers, booleans and strings compare as text (§1.4). */
export function stringForm(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

/** A number, or NaN when the value is not numeric (numeric operators then do not match). */
export function numericForm(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "") return Number(value);
  return Number.NaN;
}

const isOperator = (op: string): op is PropertyOperator => (PROPERTY_OPERATORS as readonly string[]).includes(op);

/** Compiles operator + value once; undefined means "no filter" (e.g. an empty list value). */
export function compileOperator(operator: string, value: unknown, ctx: FilterContext, attr: string): ValueTest | undefined {
  if (!isOperator(operator)) throw reject.invalid(attr, `Unknown property operator "${operator}".`);
  if (operator === "is_set") return { test: () => true, missing: false };
  if (operator === "is_not_set") return { test: () => false, missing: true };
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0) return undefined;
  return compileWithValues(operator, values, ctx, attr);
}

function compileWithValues(op: PropertyOperator, values: unknown[], ctx: FilterContext, attr: string): ValueTest | undefined {
  switch (op) {
    case "exact": case "in": return textIn(values, false);
    case "is_not": case "not_in": return textIn(values, true);
    case "icontains": return anyPattern(values.map(likePattern), false);
    case "not_icontains": return anyPattern(values.map(likePattern), true);
    case "regex": return anyPattern(values.map((v) => compileUserRegex(stringForm(v), attr)), false);
    case "not_regex": return anyPattern(values.map((v) => compileUserRegex(stringForm(v), attr)), true);
    case "between": case "not_between": return range(values, op === "not_between");
    case "is_date_exact": case "is_date_before": case "is_date_after": return dateTest(op, values[0], ctx);
    default: return numeric(op, numericForm(values[0]));
  }
}

function textIn(values: unknown[], negate: boolean): ValueTest {
  const set = new Set(values.map(stringForm));
  return negate ? { test: (p) => !set.has(stringForm(p)), missing: true } : { test: (p) => set.has(stringForm(p)), missing: false };
}

/** SQL ILIKE '%v%': case-insensitive substring where % and _ in v are wildcards (§1.4). */
const likePattern = (value: unknown): RegExp => compileLikePattern(stringForm(value));

function anyPattern(patterns: RegExp[], negate: boolean): ValueTest {
  const any = (p: unknown): boolean => {
    const text = stringForm(p);
    for (const re of patterns) if (re.test(text)) return true;
    return false;
  };
  return negate ? { test: (p) => !any(p), missing: true } : { test: any, missing: false };
}

function numeric(op: PropertyOperator, v: number): ValueTest | undefined {
  if (Number.isNaN(v)) return { test: () => false, missing: false };
  const compare: Partial<Record<PropertyOperator, (p: number) => boolean>> = {
    gt: (p) => p > v, gte: (p) => p >= v, min: (p) => p >= v, lt: (p) => p < v, lte: (p) => p <= v, max: (p) => p <= v,
  };
  const fn = compare[op];
  return fn ? { test: (p) => fn(numericForm(p)), missing: false } : undefined;
}

/** between: inclusive inside; not_between: strictly outside; both need a numeric property (§1.4). */
function range(values: unknown[], outside: boolean): ValueTest | undefined {
  const [lo, hi] = [numericForm(values[0]), numericForm(values[1])];
  if (Number.isNaN(lo) || Number.isNaN(hi)) return undefined;
  return {
    test: (p) => {
      const n = numericForm(p);
      if (Number.isNaN(n)) return false;
      return outside ? n < lo || n > hi : n >= lo && n <= hi;
    },
    missing: false,
  };
}

/** A property value as an instant: ISO strings (project zone when no offset) or epoch seconds/ms. */
export function instantOf(value: unknown, timezone: string): number {
  if (typeof value === "number") return value < 1e11 ? value * 1000 : value;
  if (typeof value !== "string") return Number.NaN;
  return parseAbsolute(value, timezone)?.ms ?? Date.parse(value);
}

function dateTest(op: PropertyOperator, raw: unknown, ctx: FilterContext): ValueTest {
  const target = parseDateExpression(stringForm(raw), ctx.now, ctx.timezone);
  const byDay = op === "is_date_exact" && target.kind === "date";
  const test = (p: unknown): boolean => {
    const t = instantOf(p, ctx.timezone);
    if (Number.isNaN(t)) return false;
    if (op === "is_date_before") return t < target.ms;
    if (op === "is_date_after") return t > target.ms;
    return byDay ? startOf(t, "day", ctx.timezone) === target.ms : t === target.ms;
  };
  return { test, missing: false };
}

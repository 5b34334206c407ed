import jsep from "jsep";
import { reject } from "../../core/analysis-errors.ts";

/**
 * Trend formulas (reference: analytics §2.6): letters A–Z (case-insensitive) name the series in merged
 * order; + - * / % **, unary minus, numbers and parentheses. jsep only parses; the AST is checked against
 * this whitelist and compiled into closures, never evaluated as code. x/0 and x%0 are 0.
 */
export type Formula = (values: readonly number[]) => number;

type Node = jsep.Expression;

const BINARY: Readonly<Record<string, (a: number, b: number) => number>> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => (b === 0 ? 0 : a / b),
  // Python's modulo (the sign follows the divisor), as PostHog evaluates formulas in Python.
  "%": (a, b) => (b === 0 ? 0 : ((a % b) + b) % b),
  "**": (a, b) => a ** b,
};

/** Parses and checks `text` for `seriesCount` series; any error is a 400 on `attr`. */
export function compileFormula(text: string, seriesCount: number, attr = "formula"): Formula {
  let ast: Node;
  try {
    ast = jsep(text);
  } catch (err) {
    throw reject.invalid(attr, `Invalid formula "${text}": ${(err as Error).message}.`);
  }
  const compiled = compileNode(ast, seriesCount, text, attr);
  return (values) => {
    const result = compiled(values);
    return Number.isFinite(result) ? result : 0;
  };
}

function compileNode(node: Node, seriesCount: number, text: string, attr: string): Formula {
  const invalid = (why: string) => reject.invalid(attr, `Invalid formula "${text}": ${why}.`);
  if (node.type === "Literal") {
    const value = (node as jsep.Literal).value;
    if (typeof value !== "number") throw invalid(`unexpected constant ${(node as jsep.Literal).raw}`);
    return () => value;
  }
  if (node.type === "Identifier") {
    const name = (node as jsep.Identifier).name;
    const index = /^[a-z]$/i.test(name) ? name.toUpperCase().charCodeAt(0) - 65 : -1;
    if (index < 0 || index >= seriesCount) throw invalid(`unknown series "${name}"`);
    return (values) => values[index] ?? 0;
  }
  if (node.type === "UnaryExpression") {
    const { operator, argument } = node as jsep.UnaryExpression;
    const inner = compileNode(argument, seriesCount, text, attr);
    if (operator === "-") return (values) => -inner(values);
    if (operator === "+") return inner;
    throw invalid(`operator "${operator}" is not allowed`);
  }
  if (node.type === "BinaryExpression") {
    const { operator, left, right } = node as jsep.BinaryExpression;
    const op = BINARY[operator];
    if (!op) throw invalid(`operator "${operator}" is not allowed`);
    const l = compileNode(left, seriesCount, text, attr);
    const r = compileNode(right, seriesCount, text, attr);
    return (values) => op(l(values), r(values));
  }
  throw invalid(`${node.type} is not allowed`);
}

/** The formula applied bucket by bucket; a missing value counts as 0. */
export function applyFormula(formula: Formula, series: readonly (readonly number[])[], length: number): number[] {
  const out = new Array<number>(length);
  const row = new Array<number>(series.length);
  for (let i = 0; i < length; i++) {
    for (let s = 0; s < series.length; s++) row[s] = series[s]![i] ?? 0;
    out[i] = formula(row);
  }
  return out;
}

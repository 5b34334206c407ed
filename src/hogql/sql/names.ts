import type { HogqlNode } from "../parse.ts";

const literal = (v: unknown): string => (v === null ? "NULL" : typeof v === "string" ? `'${v.replace(/'/g, "\\'")}'` : typeof v === "boolean" ? String(v) : String(v));

/**
 * The column name ClickHouse gives an unaliased expression: its text, printed back from the AST
 * (`count()`, `toStartOfDay(timestamp)`, `properties.$browser`, `plus(a, b)` for `a + b`).
 */
export function columnName(node: HogqlNode): string {
  switch (node.node) {
    case "Alias":
      return String(node.alias);
    case "Field":
      return (node.chain as string[]).join(".");
    case "Constant":
      return literal(node.value);
    case "Call": {
      const args = (node.args as HogqlNode[]).map(columnName).join(", ");
      return `${String(node.name)}(${node.distinct === true ? "DISTINCT " : ""}${args})`;
    }
    case "ArithmeticOperation":
      return `${ARITHMETIC[String(node.op)] ?? String(node.op)}(${columnName(node.left as HogqlNode)}, ${columnName(node.right as HogqlNode)})`;
    case "CompareOperation":
      return `${columnName(node.left as HogqlNode)} ${String(node.op)} ${columnName(node.right as HogqlNode)}`;
    case "And":
    case "Or":
      return (node.exprs as HogqlNode[]).map(columnName).join(` ${node.node.toLowerCase()} `);
    case "Not":
      return `not(${columnName(node.expr as HogqlNode)})`;
    case "Tuple":
    case "Array":
      return `${node.node === "Array" ? "[" : "("}${(node.exprs as HogqlNode[]).map(columnName).join(", ")}${node.node === "Array" ? "]" : ")"}`;
    default:
      return node.node;
  }
}

const ARITHMETIC: Readonly<Record<string, string>> = { "+": "plus", "-": "minus", "*": "multiply", "/": "divide", "%": "modulo" };

import { reject } from "../core/analysis-errors.ts";

/**
 * What PostHog's WebAssembly parser is given at most. Its ANTLR grammar takes time exponential in nesting
 * (bench/NOTES.md) and its C++ recursion overflows the WebAssembly stack on
 * long operator chains (~400 terms), so a query is measured before it is parsed and refused with a 400 naming
 * the limit. Real queries stay far below them.
 */
export interface HogqlLimits {
  length: number;
  depth: number;
  tokens: number;
  operators: number;
}

export const HOGQL_LIMITS: Readonly<HogqlLimits> = {
  /** Characters (ClickHouse's own max_query_size is 256 KiB; HogQL typed by people is far shorter). */
  length: 65_536,
  /** Parentheses, brackets and braces open at once. */
  depth: 16,
  /** Tokens: identifiers, literals, operators and separators (an IN list of ~1,000 values fits). */
  tokens: 2_048,
  /** Binary operators (`+`, `=`, `AND`, `||`…): each one deepens the parser's recursion. */
  operators: 128,
};

export interface HogqlShape {
  depth: number;
  tokens: number;
  operators: number;
}

const WORD_OPERATORS = new Set(["and", "or", "like", "ilike", "in", "is", "between"]);
const SYMBOL_OPERATORS = ["||", "==", "!=", "<>", "<=", ">=", "=~", "!~", "+", "-", "*", "/", "%", "=", "<", ">"];
const isWordChar = (c: string) => {
  const code = c.charCodeAt(0);
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36 || code > 127;
};

/** End of a quoted literal or identifier starting at `start` (backslash escapes and doubled quotes). */
function skipQuoted(text: string, start: number): number {
  const quote = text[start]!;
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\\") i += 2;
    else if (c === quote && text[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return i;
}

/** One pass over the text: nesting depth, tokens and binary operators, skipping literals and comments. */
export function hogqlShape(text: string): HogqlShape {
  let depth = 0;
  let maxDepth = 0;
  let tokens = 0;
  let operators = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\n" || c === "\t" || c === "\r") {
      i++;
    } else if (c === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      i = end === -1 ? text.length : end;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
    } else if (c === "'" || c === '"' || c === "`") {
      tokens++;
      i = skipQuoted(text, i);
    } else if (c === "(" || c === "[" || c === "{") {
      tokens++;
      maxDepth = Math.max(maxDepth, ++depth);
      i++;
    } else if (c === ")" || c === "]" || c === "}") {
      tokens++;
      depth = Math.max(0, depth - 1);
      i++;
    } else if (isWordChar(c)) {
      let end = i + 1;
      while (end < text.length && isWordChar(text[end]!)) end++;
      tokens++;
      if (WORD_OPERATORS.has(text.slice(i, end).toLowerCase())) operators++;
      i = end;
    } else {
      const symbol = SYMBOL_OPERATORS.find((op) => text.startsWith(op, i));
      tokens++;
      if (symbol) operators++;
      i += symbol?.length ?? 1;
    }
  }
  return { depth: maxDepth, tokens, operators };
}

/** Refuses, with a 400 naming `attr` and the limit, a text the parser must not be given. */
export function assertParsable(text: string, attr: string, limits: Readonly<HogqlLimits> = HOGQL_LIMITS): void {
  if (text.length > limits.length) {
    throw reject.invalid(attr, `HogQL longer than ${limits.length.toLocaleString("en")} characters is not accepted (${text.length.toLocaleString("en")} given).`);
  }
  const shape = hogqlShape(text);
  if (shape.depth > limits.depth) {
    throw reject.invalid(attr, `HogQL nested deeper than ${limits.depth} parentheses or brackets is not accepted (${shape.depth} given).`);
  }
  if (shape.tokens > limits.tokens) {
    throw reject.invalid(attr, `HogQL with more than ${limits.tokens.toLocaleString("en")} terms is not accepted (${shape.tokens.toLocaleString("en")} given); an IN list of constants this long belongs in a cohort or an action.`);
  }
  if (shape.operators > limits.operators) {
    throw reject.invalid(attr, `HogQL with more than ${limits.operators} operators is not accepted (${shape.operators} given); use IN (…) instead of long OR chains.`);
  }
}

import { reject } from "../../core/analysis-errors.ts";

/**
 * The only two ways text from a query reaches the SQL: as an escaped identifier or an escaped string literal
 * (reference: PostHog `posthog/hogql/escape_sql.py`, whose rules these follow: `%` is refused everywhere because
 * the real service's drivers treat it as a parameter marker).
 */
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const STRING_ESCAPES: Record<string, string> = {
  "\b": "\\b",
  "\f": "\\f",
  "\r": "\\r",
  "\n": "\\n",
  "\t": "\\t",
  "\0": "\\0",
  "\x07": "\\a",
  "\v": "\\v",
  "\\": "\\\\",
  "'": "\\'",
};

/** Words ClickHouse's grammar gives a meaning to: quoted even when plain, so an alias never reads as a keyword. */
const KEYWORDS = new Set(
  "all and any array as asc by case cast desc distinct else end except false from global group having if ilike in inner interval intersect is join left like limit not null offset on or order over prewhere right select settings then true union using when where window with".split(" "),
);

function refusePercent(text: string, attr: string | null): void {
  if (text.includes("%")) throw reject.invalid(attr, `The HogQL identifier "${text}" is not permitted as it contains the "%" character`);
}

/** A ClickHouse identifier: bare when plain, else in backticks with backslash escapes. */
export function escapeIdentifier(name: string, attr: string | null = null): string {
  refusePercent(name, attr);
  if (PLAIN_IDENTIFIER.test(name) && !KEYWORDS.has(name.toLowerCase())) return name;
  return "`" + name.replace(/[\\`\b\f\r\n\t\0\x07\v]/g, (c) => (c === "`" ? "\\`" : STRING_ESCAPES[c]!)) + "`";
}

/** A HogQL identifier as HogQL prints it back: bare when plain (`$` allowed, as HogQL's grammar takes it), else backticks. */
export function escapeHogqlIdentifier(name: string | number): string {
  if (typeof name === "number") return String(name);
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) return name;
  return "`" + name.replace(/[\\`]/g, (c) => "\\" + c) + "`";
}

/** A single-quoted string literal; every character that could end it or change its meaning is escaped. */
export function escapeString(value: string): string {
  return "'" + value.replace(/[\\'\b\f\r\n\t\0\x07\v]/g, (c) => STRING_ESCAPES[c]!) + "'";
}

/** Any constant the parser can emit, as a ClickHouse (and HogQL) literal. */
export function printConstant(value: unknown, attr: string | null): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
    return String(value);
  }
  if (typeof value === "string") return escapeString(value);
  if (Array.isArray(value)) return `[${value.map((v) => printConstant(v, attr)).join(", ")}]`;
  throw reject.invalid(attr, `Unsupported constant type: ${typeof value}`);
}

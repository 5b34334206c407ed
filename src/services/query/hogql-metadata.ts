import { AnalysisInputError, reject } from "../../core/analysis-errors.ts";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import { parseHogqlOutcome, parseHogqlSelect, type ParseKind } from "../../hogql/parse.ts";
import type { HogqlNode } from "../../hogql/printer/ast.ts";
import { printSelect, type HogqlFilters } from "../../hogql/printer/print.ts";
import { isTableName } from "../../hogql/printer/schema.ts";
import { noteSpan, spanOfError, type Span } from "../../hogql/printer/spans.ts";
import { printContextOf, type SqlContext } from "./sql-query.ts";

/** The languages HogQLMetadata checks (PostHog's HogLanguage). */
export const HOG_LANGUAGES = ["hog", "hogQL", "hogQLExpr", "hogTemplate"] as const;
type HogLanguage = (typeof HOG_LANGUAGES)[number];

/** One error, warning or notice, as PostHog's HogQLNotice: character offsets in `query`, end excluded. */
export interface HogqlNotice {
  message: string;
  start: number | null;
  end: number | null;
  fix: string | null;
}

/** PostHog's HogQLMetadataResponse, as the query API answers it (no cache envelope). */
export interface HogqlMetadataResponse {
  query: string;
  isValid: boolean;
  errors: HogqlNotice[];
  warnings: HogqlNotice[];
  notices: HogqlNotice[];
  table_names: string[];
  ch_table_names: string[] | null;
  isUsingIndices: null;
}

/**
 * HogQLMetadata (PostHog `posthog/hogql/metadata.py`, what the SQL editor sends as one types): parses the text in
 * its language and, for HogQL, resolves and prints it without running it. An error is not a 400 but the answer's
 * one `errors` entry with where it is; `table_names` are the HogQL tables the SELECT reads (CTEs left out),
 * `ch_table_names` the engine's tables its printed SQL reads. Hog programs and templates are parsed only.
 */
export function hogqlMetadata(node: Loose, attr: string, ctx: Omit<SqlContext, "db">): HogqlMetadataResponse {
  if (typeof node.query !== "string") throw reject.required(`${attr}__query`);
  const language = (node.language ?? "hogQL") as HogLanguage;
  if (!HOG_LANGUAGES.includes(language)) throw reject.invalid(`${attr}__language`, `language must be one of ${HOG_LANGUAGES.join(", ")}.`);
  const response: HogqlMetadataResponse = { query: node.query, isValid: true, errors: [], warnings: [], notices: [], table_names: [], ch_table_names: null, isUsingIndices: null };
  try {
    checkIn(language, node, attr, ctx, response);
  } catch (e) {
    if (!(e instanceof AnalysisInputError)) throw e;
    response.errors.push(noticeOf(messageOf(e), spanOfError(e)));
  }
  response.isValid = response.errors.length === 0;
  if (language === "hogTemplate") response.errors = response.errors.map(withoutTemplatePrefix);
  return response;
}

function checkIn(language: HogLanguage, node: Loose, attr: string, ctx: Omit<SqlContext, "db">, response: HogqlMetadataResponse): void {
  const text = node.query as string;
  if (language === "hog" || language === "hogTemplate") {
    parsed(language === "hog" ? "program" : "template", text, attr);
    return;
  }
  if (language === "hogQLExpr") {
    printSelect(exprQuery(parsed("exprAt", text, attr), node.sourceQuery as Loose | undefined, attr), printContextOf(ctx));
    return;
  }
  const ast = parsed("selectAt", text, attr);
  response.table_names = tableNames(ast);
  const printed = printSelect(ast, printContextOf(ctx, { filters: (node.filters ?? undefined) as HogqlFilters | undefined }));
  response.ch_table_names = engineTables(printed.clickhouse);
}

/** A parse whose syntax error is thrown as an input error carrying the parser's own message and span. */
function parsed(kind: ParseKind, text: string, attr: string): HogqlNode {
  const outcome = parseHogqlOutcome(kind, text, `${attr}__query`);
  if (outcome.ast) return outcome.ast;
  const e = reject.invalid(`${attr}__query`, outcome.error.message);
  noteSpan(e, outcome.error.span);
  throw e;
}

/** The error's message as HogQL words it (an unexpected end of input reads as such, as the real service puts it). */
function messageOf(e: AnalysisInputError): string {
  return /mismatched input '<EOF>' expecting/.test(e.message) ? "Unexpected end of query" : e.message;
}

function noticeOf(message: string, span: Span | undefined): HogqlNotice {
  if (!span) return { message, start: null, end: null, fix: null };
  return { message, start: Math.min(span.start, span.end), end: Math.max(span.start, span.end), fix: null };
}

/** The template parser's offsets count the "F'" put in front of the text. */
const withoutTemplatePrefix = (n: HogqlNotice): HogqlNotice => (n.start !== null && n.end !== null && n.start > 0 ? { ...n, start: n.start - 2, end: n.end - 2 } : n);

/**
 * The SELECT an expression is checked in: the source query's (a HogQLQuery's SQL) with the expression added to its
 * columns, else `SELECT <expr> FROM events` (metadata.py `process_expr_on_table`).
 */
function exprQuery(expr: HogqlNode, source: Loose | undefined, attr: string): HogqlNode {
  if (source?.kind === "HogQLQuery" && typeof source.query === "string") {
    const select = parseHogqlSelect(source.query, `${attr}__sourceQuery__query`);
    if (select.node === "SelectQuery") return { ...select, select: [...(select.select as HogqlNode[]), expr] };
  }
  const from = { node: "JoinExpr", table: { node: "Field", chain: ["events"] }, alias: null, next_join: null, table_final: null, sample: null };
  return { node: "SelectQuery", select: [expr], select_from: from, where: null, prewhere: null, group_by: null, having: null, distinct: null, ctes: null };
}

/** The tables a SELECT reads by name, CTEs left out, in the order they appear (metadata.py `get_table_names`). */
export function tableNames(ast: HogqlNode): string[] {
  const tables = new Set<string>();
  const ctes = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== "object") return;
    const n = value as HogqlNode;
    if (n.node === "CTE" && typeof n.name === "string") ctes.add(n.name);
    const table = n.node === "JoinExpr" ? (n.table as HogqlNode | undefined) : undefined;
    if (table?.node === "Field") tables.add((table.chain as unknown[]).map(String).join("."));
    Object.values(n).forEach(visit);
  };
  visit(ast);
  return [...tables].filter((t) => !ctes.has(t));
}

/** The engine's tables the printed SQL reads (the mirror names them as HogQL does). */
function engineTables(sql: string): string[] {
  const names = [...sql.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)\b/gi)].map((m) => m[1]!).filter((name) => isTableName(name));
  return [...new Set(names)];
}

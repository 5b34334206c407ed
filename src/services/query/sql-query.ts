import { AnalysisInputError, reject } from "../../core/analysis-errors.ts";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import { parseHogqlSelect, parseHogqlSelectAt } from "../../hogql/parse.ts";
import { noteSpan, spanOfError, whereInText, type Span } from "../../hogql/printer/spans.ts";
import type { HogqlNode } from "../../hogql/printer/ast.ts";
import { HOGQL_CLICKHOUSE_SETTINGS, printSelect, type HogqlFilters, type PrintContext, type PropertyFilter } from "../../hogql/printer/print.ts";
import { SqlEngineError, type SqlErrorKind } from "../../core/sql-errors.ts";
import type { SqlDatabase } from "../../sql-engine/sql-database.ts";
import { teamIdOf } from "../../sql-engine/mirror/schema.ts";
import { MATERIALIZED_PROPERTIES } from "../../core/property-text.ts";
import type { ActionRecord, ProjectRecord } from "../../store/schema.ts";
import { cellReader } from "./cells.ts";

/** The real service's row limits: 100 rows without LIMIT, never more than 50,000 (its MAX_SELECT_RETURNED_ROWS). */
export const DEFAULT_ROWS = 100;
export const MAX_ROWS = 50_000;

/** Where a HogQL query runs: the project's rows in the SQL engine, at the injected clock's time. */
export interface SqlContext {
  db: SqlDatabase;
  project: ProjectRecord;
  now: number;
  /** Property definitions' types by kind (`event`, `person`, `group`), read only when a query names a property. */
  propertyTypes: () => PrintContext["propertyTypes"];
  testAccountFilters: PropertyFilter[];
  /** The project's actions, for `matchesAction`. */
  actions?: readonly ActionRecord[];
  signal?: AbortSignal;
  /** Wall time a query may run (ClickHouse's `max_execution_time`). */
  timeoutMs?: number;
}

/** A HogQL answer as the real service gives it. */
export interface SqlAnswer {
  columns: string[];
  /** ClickHouse type names, one per column. */
  types: string[];
  results: unknown[][];
  hogql: string;
  clickhouse: string;
  hasMore: boolean;
  limit: number;
  offset: number;
}

/** The materialised columns of the mirror, as the printer reads them (`properties.$browser` → `mat_$browser`). */
const MATERIALIZED = { events: Object.fromEntries(MATERIALIZED_PROPERTIES.map((key) => [`properties.${key}`, `mat_${key}`])) };

/**
 * Settings every HogQL query runs under besides HogQL's own: date-times written as ISO 8601 in UTC (converted to
 * the column's zone here), the session in UTC whatever the machine's zone, and `SELECT *` of a project's scoped
 * table keeping the materialised and alias columns the printer reads.
 */
const RUN_SETTINGS = {
  ...HOGQL_CLICKHOUSE_SETTINGS,
  date_time_output_format: "iso",
  session_timezone: "UTC",
  asterisk_include_materialized_columns: 1,
  asterisk_include_alias_columns: 1,
} as const;

export interface SqlExtras {
  filters?: HogqlFilters;
  variables?: Record<string, unknown>;
}

/** A HogQLQuery node: its SQL, `filters` and `variables` run by the SQL engine; `types` as [column, type] pairs. */
export async function runHogqlQuery(node: Loose, attr: string, ctx: SqlContext) {
  if (typeof node.query !== "string" || node.query.trim() === "") throw reject.required(`${attr}__query`);
  const answer = await runSql(node.query, `${attr}__query`, ctx, { filters: (node.filters ?? undefined) as HogqlFilters | undefined, variables: variablesOf(node.variables) });
  return { ...answer, types: answer.columns.map((c, i) => [c, answer.types[i]!]) };
}

/** Parses and runs one HogQL SELECT; HogQL's refusal of a field, table or function says where it is in the text. */
export async function runSql(text: string, attr: string, ctx: SqlContext, extras: SqlExtras = {}): Promise<SqlAnswer> {
  return runAst(parseHogqlSelect(text, attr), attr, ctx, extras, text);
}

/** What the printer needs for this project, clock and request. */
export function printContextOf(ctx: Omit<SqlContext, "db">, extras: SqlExtras = {}): PrintContext {
  return {
    teamId: teamIdOf(ctx.project.id),
    timezone: ctx.project.timezone,
    now: ctx.now,
    defaultLimit: DEFAULT_ROWS,
    maxLimit: MAX_ROWS,
    get propertyTypes() {
      return ctx.propertyTypes();
    },
    materializedProperties: MATERIALIZED,
    testAccountFilters: ctx.testAccountFilters,
    actions: ctx.actions,
    ...extras,
  };
}

/**
 * Prints a parsed SELECT for this project and runs it; `hasMore` from the one extra row the printer asks for.
 * Given the `text` it was parsed from, a printer error is located in it (see `located`).
 */
export async function runAst(ast: HogqlNode, attr: string, ctx: SqlContext, extras: SqlExtras = {}, text?: string): Promise<SqlAnswer> {
  const printCtx = printContextOf(ctx, extras);
  const printed = renamed(attr, () => {
    try {
      return printSelect(ast, printCtx);
    } catch (e) {
      throw text === undefined ? e : located(e, text, printCtx);
    }
  });
  const options = { settings: RUN_SETTINGS, signal: ctx.signal, timeoutMs: ctx.timeoutMs, maxResultRows: MAX_ROWS + 1, fairKey: ctx.project.id };
  const result = await ctx.db.query(printed.clickhouse, options).catch((e: unknown) => {
    throw inputErrorOf(e, attr);
  });
  const readers = result.types.map((type) => cellReader(type));
  const rows = result.rows.slice(0, printed.limit).map((row) => row.map((v, i) => readers[i]!(v)));
  return {
    columns: printed.columns,
    types: result.types,
    results: rows,
    hogql: printed.hogql,
    clickhouse: printed.clickhouse,
    hasMore: result.rows.length > printed.limit,
    limit: printed.limit,
    offset: offsetOf(ast),
  };
}

/** The engine's refusals of a query (ClickHouse's own, its limits, a cancel) as a 400 naming the query's field. */
const INPUT_CODES: Partial<Record<SqlErrorKind, AnalysisInputError["code"]>> = { query: "invalid_input", timeout: "timeout_exceeded", memory: "memory_limit_exceeded", too_many_rows: "too_many_rows", cancelled: "query_cancelled" };
function inputErrorOf(e: unknown, attr: string): unknown {
  const code = e instanceof SqlEngineError ? INPUT_CODES[e.kind] : undefined;
  return code ? new AnalysisInputError(attr, e instanceof SqlEngineError && e.kind === "query" ? `ClickHouse refused the query: ${e.message}` : (e as Error).message, code) : e;
}

/**
 * A printer error with where it is in the text: the query is parsed again with positions (the usual parse has
 * none, and is cached) and printed again, and the innermost node the error passed through gives the span.
 * Only refusals pay for it.
 */
function located(e: unknown, text: string, printCtx: PrintContext): unknown {
  if (!(e instanceof AnalysisInputError) || spanOfError(e)) return e;
  let span: Span | undefined;
  try {
    printSelect(parseHogqlSelectAt(text, "query"), printCtx);
  } catch (again) {
    if (again instanceof AnalysisInputError && again.message === e.message) span = spanOfError(again);
  }
  if (!span) return e;
  const out = new AnalysisInputError(e.attr, `${e.message}${whereInText(text, span)}`, e.code);
  noteSpan(out, span);
  return out;
}

/** The printer names its errors' field `query`; the caller's field is the one the client sent. */
function renamed<T>(attr: string, print: () => T): T {
  try {
    return print();
  } catch (e) {
    if (e instanceof AnalysisInputError && e.attr === "query") {
      const out = new AnalysisInputError(attr, e.message, e.code);
      noteSpan(out, spanOfError(e));
      throw out;
    }
    throw e;
  }
}

function offsetOf(ast: HogqlNode): number {
  const first = (ast.node === "SelectSetQuery" ? ast.initial_select_query : ast) as HogqlNode;
  const offset = first.offset as HogqlNode | null | undefined;
  return offset?.node === "Constant" && typeof offset.value === "number" ? offset.value : 0;
}

/** The real service's HogQLQuery `variables`: `{id: {code_name, value}}`, read by `{variables.<code_name>}`. */
function variablesOf(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const out: Record<string, unknown> = {};
  for (const v of Object.values(value as Record<string, Loose>)) {
    if (v && typeof v === "object" && typeof v.code_name === "string") out[v.code_name] = v.value;
  }
  return out;
}

import { AnalysisInputError } from "../../core/analysis-errors.ts";
import { SqlEngineError } from "../../core/sql-errors.ts";
import { runSql, type SqlContext } from "./sql-query.ts";

export interface McpToolResult {
  success: boolean;
  content: string;
  error_type?: string;
}

const cell = (v: unknown): string => (v === null || v === undefined ? "null" : typeof v === "object" ? JSON.stringify(v) : String(v));

/** Rows as the real tool's text: a header line of column names, then one line per row, cells joined by `|`. */
export function formatRows(columns: readonly string[], rows: readonly unknown[][]): string {
  return [columns.join("|"), ...rows.map((row) => row.map(cell).join("|"))].join("\n");
}

/**
 * The MCP tool `execute_sql` (the real service's ExecuteSQLMCPTool): runs the SQL with the same engine as the
 * query API's HogQLQuery. As there, a query the engine refuses is not an HTTP error but `success: false` with
 * the reason in `content` (the tool's retryable error), so an agent can correct its SQL.
 */
export async function executeSql(query: string, ctx: SqlContext): Promise<McpToolResult> {
  try {
    const result = await runSql(query.trim().replace(/;\s*$/, ""), "args__query", ctx);
    return { success: true, content: formatRows(result.columns, result.results) };
  } catch (e) {
    if (e instanceof AnalysisInputError) return { success: false, content: `Tool failed: Query validation failed: ${e.message}`, error_type: "retryable" };
    // No engine on this platform (or its process failed): the agent cannot fix that by rewriting its SQL.
    if (e instanceof SqlEngineError) return { success: false, content: `Tool failed: ${e.message}`, error_type: "fatal" };
    throw e;
  }
}

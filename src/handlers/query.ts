import { loadHogql } from "../hogql/parse.ts";
import { reply, type Handler, type HandlerArgs } from "../http/types.ts";
import { executeSql } from "../services/query/execute-sql.ts";
import { needsHogqlParser, runQuery, sqlContext, type QueryDeps, type QueryRequest } from "../services/query/index.ts";
import { personName } from "./person-json.ts";

const depsOf = (args: HandlerArgs): QueryDeps => ({ ...args.deps, personName });

/** The query API: projects/… and environments/… are the same door (an environment is its project here). */
async function query(args: HandlerArgs) {
  const body = args.c.request.requestBody as QueryRequest;
  if (needsHogqlParser(body)) await loadHogql();
  return reply(200, await runQuery(depsOf(args), args.project, body));
}

interface ExecuteSqlBody {
  args: { query: string; connectionId?: string };
}

/** The MCP tool execute_sql over the query API's SQL engine; a connection id names a warehouse we do not have. */
async function executeSqlTool(args: HandlerArgs) {
  const { args: toolArgs } = args.c.request.requestBody as ExecuteSqlBody;
  if (toolArgs.connectionId !== undefined) {
    return reply(200, { success: false, content: `Tool failed: there is no data warehouse connection "${toolArgs.connectionId}" here; omit connectionId to query events and persons.`, error_type: "retryable" });
  }
  await loadHogql();
  return reply(200, await executeSql(toolArgs.query, sqlContext(args.deps, args.project)));
}

export const queryHandlers = {
  query_create: query,
  environments_query_create: query,
  environments_mcp_tools_execute_sql_create: executeSqlTool,
} satisfies Record<string, Handler>;

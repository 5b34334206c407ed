import { loadHogql } from "../hogql/parse.ts";
import { fail } from "../core/errors.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { executeSql } from "../services/query/execute-sql.ts";
import { needsHogqlParser, sqlContext, type QueryRequest } from "../services/query/index.ts";
import { answerQuery, type QueryApiDeps } from "../services/query/query-api.ts";
import type { QueryStatus } from "../services/query/query-statuses.ts";
import { personName } from "./person-json.ts";

const depsOf = (args: HandlerArgs): QueryApiDeps => ({ ...args.deps, personName });

/** The query API: projects/… and environments/… are the same door (an environment is its project here). */
async function query(args: HandlerArgs) {
  const body = args.c.request.requestBody as QueryRequest;
  if (needsHogqlParser(body)) await loadHogql();
  const answer = await answerQuery(depsOf(args), args.project, body);
  return { ...reply(answer.status, answer.body), notes: answer.notes };
}

const queryIdOf = (args: HandlerArgs) => String((args.c.request.params as { query_id: string }).query_id);

/** The real service's codes for a status: 202 running, 200 complete, 400 failed with a message, 500 without one. */
const httpStatusOf = (status: QueryStatus) => (status.error ? (status.error_message ? 400 : 500) : status.complete ? 200 : 202);

/** A background query's status; another project's query id is unknown here. */
function queryStatus(args: HandlerArgs) {
  const status = args.deps.queries.statuses.get(args.project.id, queryIdOf(args));
  if (!status) throw fail.notFound();
  return reply(httpStatusOf(status), { query_status: status });
}

/** Cancels a running query (its ClickHouse query is killed); answers the real service's message, as it does. */
function cancelQuery(args: HandlerArgs) {
  return reply(200, { message: args.deps.queries.statuses.cancel(args.project.id, queryIdOf(args)) });
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
  /** The web app names the kind in the path (`…/query/TrendsQuery/`); the body decides what runs. */
  environments_query_kind_create: query,
  query_retrieve: queryStatus,
  environments_query_retrieve: queryStatus,
  query_destroy: cancelQuery,
  environments_query_destroy: cancelQuery,
  environments_mcp_tools_execute_sql_create: executeSqlTool,
} satisfies Record<string, Handler>;

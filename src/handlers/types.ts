import type { SqlDatabase } from "../sql-engine/sql-database.ts";
import type { Context } from "openapi-backend";
import type { Clock } from "../core/clock.ts";
import type { HandlerResult } from "../pipeline/result.ts";
import type { Caller } from "../pipeline/authenticate.ts";
import type { Store } from "../store/store.ts";
import type { ProjectRecord } from "../store/schema.ts";
import type { AnalysisService } from "../services/analysis-service.ts";
import type { SchemaValidator } from "../pipeline/schemas.ts";
import type { BodyCache } from "../pipeline/serialized-body.ts";
import type { ForcedFlags } from "../services/forced-flags.ts";
import type { QueryStatuses } from "../services/query/query-statuses.ts";
import type { ResultCache } from "../services/query/result-cache.ts";

export interface Deps {
  store: Store;
  clock: Clock;
  /** The options handlers read (a slice of the server's config). */
  config: { queryTimeLimitMs: number; sessionRecording?: boolean };
  analyses: AnalysisService;
  /** The embedded ClickHouse HogQL runs on, over a mirror of the store (started at its first query). */
  sql: SqlDatabase;
  /** Validates decoded inputs against the document's component schemas. */
  schemas: SchemaValidator;
  /** Serialized bodies of reads, reused while the state and the analysis cache are unchanged. */
  bodies: BodyCache;
  /** The query API's background queries and its cache of SQL, events and actors answers. */
  queries: { statuses: QueryStatuses; results: ResultCache };
  /** Flag values forced by tests (`/_mock/feature_flags/`). */
  forced: ForcedFlags;
}

export interface HandlerArgs {
  c: Context;
  caller: Caller;
  project: ProjectRecord;
  deps: Deps;
  /** The absolute URL of this request (for next/previous links). */
  url: URL;
  /** Host, path and query as received, unparsed: what a cache of answers keys on. */
  href: string;
}

export type Handler = (args: HandlerArgs) => HandlerResult | Promise<HandlerResult>;
export type ProjectlessHandler = (args: Omit<HandlerArgs, "project">) => HandlerResult | Promise<HandlerResult>;

export type { Body, OperationId, Query, Reply, Schema } from "../pipeline/api-types.ts";
export { reply, type HandlerResult } from "../pipeline/result.ts";
export type { Caller } from "../pipeline/authenticate.ts";

import type { SqlDatabase } from "../sql-engine/sql-database.ts";
import type { Context } from "openapi-backend";
import type { Clock } from "../core/clock.ts";
import type { Config } from "../config.ts";
import type { components, operations } from "../generated/openapi.ts";
import type { Store } from "../store/store.ts";
import type { ProjectRecord, UserRecord } from "../store/schema.ts";
import type { AnalysisService } from "../services/analysis-service.ts";
import type { SchemaValidator } from "./schemas.ts";
import type { BodyCache } from "./serialized-body.ts";
import type { Overrides } from "../control/overrides.ts";
import type { RateLimits } from "./rate-limits.ts";
import type { ForcedFlags } from "../control/forced-flags.ts";
import type { QueryStatuses } from "../services/query/query-statuses.ts";
import type { ResultCache } from "../services/query/result-cache.ts";

export type OperationId = keyof operations;
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

type JsonContent<R> = R extends { content: { "application/json": infer B } } ? B : undefined;
type ResponsesOf<Op extends OperationId> = operations[Op]["responses"];
type SuccessStatus<Op extends OperationId> = Extract<keyof ResponsesOf<Op>, 200 | 201 | 204 | 405>;

/** The JSON body an operation answers with a given success status. */
export type Reply<Op extends OperationId, S extends SuccessStatus<Op> = SuccessStatus<Op>> = JsonContent<ResponsesOf<Op>[S]>;
/** The JSON request body of an operation. */
export type Body<Op extends OperationId> = operations[Op] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
/** The query parameters of an operation (after coercion). */
export type Query<Op extends OperationId> = operations[Op]["parameters"] extends { query?: infer Q } ? NonNullable<Q> : never;

/** Who is calling, resolved by the security handler. */
export interface Caller {
  user: UserRecord;
  /** The project addressed by the path, when there is one. */
  project: ProjectRecord | null;
}

export interface Deps {
  store: Store;
  clock: Clock;
  config: Config;
  analyses: AnalysisService;
  /** The embedded ClickHouse HogQL runs on, over a mirror of the store (started at its first query). */
  sql: SqlDatabase;
  /** Validates decoded inputs against the document's component schemas. */
  schemas: SchemaValidator;
  /** Serialized bodies of reads, reused while the state and the analysis cache are unchanged. */
  bodies: BodyCache;
  /** One-off answers set through the control API (`POST /_mock/overrides/`). */
  overrides?: Overrides;
  /** The query API's background queries and its cache of SQL, events and actors answers. */
  queries: { statuses: QueryStatuses; results: ResultCache };
  /** Flag values forced by tests (`/_mock/feature_flags/`). */
  forced: ForcedFlags;
  /** `--rate-limits`: the real service's throttles per personal API key; absent when off. */
  rateLimits?: RateLimits;
}

/** What a handler returns; `respond.ts` writes it. */
export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * The body follows from the state, the analysis cache, the URL and the caller alone (never the clock): the
   * same request may be answered again with it until the next write (http/answered-reads.ts).
   */
  repeatable?: boolean;
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

export const reply = (status: number, body?: unknown, headers?: Record<string, string>): HandlerResult => ({ status, body, headers });

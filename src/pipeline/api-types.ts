import type { components, operations } from "../generated/openapi.ts";

/** The product API's operations by id (openapi/openapi.yaml), reached through short aliases instead of index chains. */
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

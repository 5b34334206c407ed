import type { Operation } from "openapi-backend";
import type { Config } from "../config.ts";
import type { Backend } from "../http/api.ts";
import { overrideAnswer, type Overrides } from "../control/overrides.ts";
import { latencyDelay, parsePrefer, steeredResponse } from "../http/steering.ts";
import type { HandlerResult } from "../http/types.ts";

/** A capture-door request as steering sees it. */
export interface SteerableRequest {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  header(name: string): string | undefined;
}

/** What steering decided: an answer to write instead of the route's, "reset" to close the connection, or null to let the route answer. */
export type DoorSteer = (req: SteerableRequest) => Promise<HandlerResult | "reset" | null>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The door routes `/e` and `/e/` alike; the document writes each path one way. */
function operationOf(api: Backend, method: string, path: string): Operation | undefined {
  const verb = method === "HEAD" ? "get" : method.toLowerCase();
  const other = path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
  return api.router.matchOperation({ method: verb, path, headers: {} }) ?? api.router.matchOperation({ method: verb, path: other, headers: {} });
}

const definedQuery = (query: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));

/**
 * `--latency`, overrides and `Prefer` for capture and flags (openapi/capture.yaml), as the product API applies
 * them: the server's latency, the oldest matching override (its delay, then its answer), then `Prefer`. Requests
 * without any pay one check: SDKs call these paths at load-test rates.
 */
export function doorSteering(api: Backend, overrides: Overrides, latency: Config["latency"] = null): DoorSteer {
  const mock = (id: string, opts: { code?: number; example?: string }) => api.mockResponseForOperation(id, opts);
  return async (req) => {
    // "Delay every answer": an SDK waits for its flags and its capture calls as a page waits for the API.
    if (latency) await sleep(latencyDelay(latency));
    const prefer = req.header("prefer");
    if (overrides.isEmpty() && prefer === undefined) return null;
    const operation = operationOf(api, req.method, req.path);
    if (!operation) return null;
    const steering = parsePrefer(prefer);
    const operationId = operation.operationId!;
    const override = overrides.take(operationId, () => ({ method: req.method, path: req.path, operation_id: operationId, query: definedQuery(req.query), body: undefined }));
    if (override?.fault === "reset") return "reset";
    if (override?.delay_ms) await sleep(override.delay_ms);
    const status = override?.fault === undefined ? override?.status : Number(override.fault);
    if (override && status !== undefined) return overrideAnswer({ ...override, status }, operation, mock);
    if (steering.delay) await sleep(steering.delay);
    if (steering.code === undefined && steering.example === undefined) return null;
    return steeredResponse(operation, steering, mock).result;
  };
}

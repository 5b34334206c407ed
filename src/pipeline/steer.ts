import type { Operation } from "openapi-backend";
import type { Backend } from "./documents.ts";
import { parsePrefer, preferredAnswer, ResetConnection, throttledAnswer, type Mocker, type Steering } from "./prefer.ts";
import { overrideAnswer, type Overrides } from "./overrides.ts";
import { Throttled, type RateLimits } from "./rate-limits.ts";
import type { HandlerResult } from "./result.ts";
import { queryFields, type MatchableRequest } from "./request-matcher.ts";

/** `--latency`: every answer waits a delay drawn uniformly within this range (ms). */
export interface LatencyRange {
  min: number;
  max: number;
}

/** What may steer a surface's answers; a surface without one of them (the control API) passes it absent. */
export interface SteeringDeps {
  overrides?: Overrides;
  rateLimits?: RateLimits;
  latency?: LatencyRange | null;
  /** Person-event deletions whose (possibly frozen) clock slot has passed: run before any answer reads events. */
  dueDeletions?: () => Promise<unknown> | null;
  /** False where `Prefer` is not read (the control API answers as it is, at once). */
  prefer?: boolean;
}

/** A request as steering sees it: the override patterns read its method, path, query and body. */
export interface SteerableRequest {
  method: string;
  path: string;
  /** The query string with its `?` ("" when none): parsed only when an override of the operation has to match it. */
  search: string;
  body: unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What `--latency` adds to one answer: drawn uniformly within its range; 0 without one. */
export const latencyDelay = (latency: LatencyRange | null | undefined): number => (latency ? latency.min + Math.random() * (latency.max - latency.min) : 0);

const headerOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(", ") : value);

const NO_STEERING: Steering = Object.freeze({});

/**
 * The waits of steering, taken before the request is matched so that every answer is delayed, refusals
 * included ("delay every answer"): the server's `--latency`, then the `Prefer: delay=` the request asks for.
 * Returns the parsed `Prefer` (a malformed one is a 400).
 */
export async function steeringDelay(deps: SteeringDeps, headers: Record<string, string | string[] | undefined>): Promise<Steering> {
  const prefer = deps.prefer === false ? undefined : headerOf(headers.prefer);
  const steering = prefer === undefined ? NO_STEERING : parsePrefer(prefer);
  const delay = latencyDelay(deps.latency) + (steering.delay ?? 0);
  if (delay > 0) await sleep(delay);
  return steering;
}

/**
 * Steering after authentication and validation: the caller's rate limits (`rateKey`, the key it authenticated
 * with), then the oldest matching override (a fault rate's reset, its delay, its answer), then `Prefer: code=`
 * / `example=`; last, due deletions run so that the handler reads the state as the clock says. Resolves to
 * the answer that replaces the handler's, or null to let the handler answer; throws ResetConnection.
 */
export async function steer(deps: SteeringDeps, api: Backend, operation: Operation, req: SteerableRequest, steering: Steering, rateKey: string | undefined): Promise<HandlerResult | null> {
  const operationId = operation.operationId!;
  if (deps.rateLimits && rateKey !== undefined) {
    const throttled = throttle(deps.rateLimits, operationId, rateKey);
    if (throttled) return { ...throttled, notes: ["steered: rate limit (429)"] };
  }
  // Most requests have nothing to match: no closure is made for them (SDKs call capture at load-test rates).
  const override = deps.overrides && !deps.overrides.isEmpty() ? deps.overrides.take(operationId, () => matchable(req, operationId)) : null;
  if (override) {
    const mock = mockerOf(api);
    if (override.fault === "reset") throw new ResetConnection();
    if (override.delay_ms) await sleep(override.delay_ms);
    const status = override.fault === undefined ? override.status : Number(override.fault);
    if (status !== undefined) return { ...overrideAnswer({ ...override, status }, operation, mock), notes: [`steered: override ${override.id}${override.fault === undefined ? "" : ` (fault ${override.fault})`}`] };
  }
  if (steering.code !== undefined || steering.example !== undefined) return { ...preferredAnswer(operation, steering, mockerOf(api)), notes: [`steered: Prefer${steering.code === undefined ? "" : ` code=${steering.code}`}${steering.example === undefined ? "" : ` example=${steering.example}`}`] };
  await deps.dueDeletions?.();
  return null;
}

const mockers = new WeakMap<Backend, Mocker>();

/** The document's own responses (named examples, else built from the schema), one mocker per document. */
function mockerOf(api: Backend): Mocker {
  let mock = mockers.get(api);
  if (!mock) mockers.set(api, (mock = (id, opts) => api.mockResponseForOperation(id, opts)));
  return mock;
}

const matchable = (req: SteerableRequest, operationId: string): MatchableRequest => ({ method: req.method, path: req.path, operation_id: operationId, query: queryFields(req.search), body: req.body });

/** Counts a request against its rate limits; a full bucket answers the throttled 429. */
function throttle(limits: RateLimits, operationId: string, key: string): HandlerResult | null {
  try {
    limits.check(operationId, key);
    return null;
  } catch (e) {
    if (e instanceof Throttled) return throttledAnswer(e.seconds);
    throw e;
  }
}

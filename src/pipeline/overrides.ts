import type { Operation } from "openapi-backend";
import type { Backend } from "./documents.ts";
import { fail } from "../core/errors.ts";
import { closestNames } from "../core/edit-distance.ts";
import { assertDocumentedStatus, DEFAULT_RETRY_AFTER_S, preferredAnswer, retryAfterOf, throttledAnswer, type Mocker } from "./prefer.ts";
import { assertFaultRequest, faultDraws, type Fault } from "./faults.ts";
import type { HandlerResult } from "./result.ts";
import { compilePattern, type MatchableRequest, type RequestPattern } from "./request-matcher.ts";

/** What a test asks: the next `times` valid calls of an operation (matching `when`) answer otherwise. */
export interface OverrideRequest {
  operation_id: string;
  when?: Pick<RequestPattern, "query" | "body">;
  status?: number;
  example?: string;
  body?: unknown;
  delay_ms?: number;
  /** With status 429: the `Retry-After` seconds (and the wait the body announces). */
  retry_after?: number;
  /** Fails this share of the matching calls with one of `faults` (see control/faults.ts). */
  fault_rate?: number;
  faults?: Fault[];
  seed?: number;
  times?: number;
}

export interface Override extends Omit<OverrideRequest, "times"> {
  id: number;
  /** null: a fault rate without a limit. */
  times: number | null;
  remaining: number | null;
}

/** An override taken for one call; a fault rate's says how this call fails. */
export type TakenOverride = Override & { fault?: Fault };

/** Bounded like the request log: a test that forgets to clean up cannot grow memory without end. */
export const MAX_OVERRIDES = 100;

interface Entry {
  override: Override;
  matches: (req: MatchableRequest) => boolean;
  /** A fault rate's draws: whether (and how) this call fails. */
  draw?: () => Fault | null;
}

/** The documents whose operations can be overridden: the product API's and capture's (capture and flags). */
type Contracts = () => Backend[];

/** The operation of that id in one of the documents, with the document that holds it. */
function findOperation(apis: Backend[], operationId: string): { api: Backend; operation: Operation } | undefined {
  for (const api of apis) {
    const operation = api.router.getOperation(operationId);
    if (operation) return { api, operation };
  }
  return undefined;
}

/** An unknown id is answered with the few closest ids (listing all of them was 3,275 characters, issue 41). */
function unknownOperation(apis: Backend[], operationId: string) {
  const ids = apis.flatMap((api) => api.router.getOperations().map((op) => op.operationId!));
  const near = closestNames(operationId, ids).map((id) => `\`${id}\``);
  return fail.invalid("operation_id", `Unknown operationId "${operationId}": did you mean ${near.join(", or ")}? (the OpenAPI documents list every operationId)`);
}

const examplesOf = (operation: Operation, status: number): Record<string, unknown> => {
  const response = operation.responses?.[String(status)] as { content?: Record<string, { examples?: Record<string, unknown> }> } | undefined;
  return response?.content?.["application/json"]?.examples ?? {};
};

/**
 * The override is checked against the document of its operation before it is kept, as `Prefer: code=` is:
 * a known operation, a documented status, an existing example, a body that conforms to that response.
 */
function assertOverridable(apis: Backend[], req: OverrideRequest): Operation {
  const found = findOperation(apis, req.operation_id);
  if (!found) throw unknownOperation(apis, req.operation_id);
  const { api, operation } = found;
  // Capture reads its body after steering (it may be gzip or a form): only the query can be matched.
  if (req.when?.body !== undefined && api !== apis[0]) throw fail.invalid("when__body", `${req.operation_id} is answered before its body is read: match it by when.query only.`);
  if (req.fault_rate !== undefined) {
    assertFaultRequest(operation, req);
    return operation;
  }
  if (req.faults !== undefined || req.seed !== undefined) throw fail.required("fault_rate");
  if (req.retry_after !== undefined && req.status !== 429) throw fail.invalid("retry_after", "retry_after goes with status 429.");
  if (req.status === undefined) {
    if (req.example !== undefined || req.body !== undefined) throw fail.required("status");
    if (req.delay_ms === undefined) throw fail.invalid(null, "An override needs a status, a delay_ms or a fault_rate.");
    return operation;
  }
  assertDocumentedStatus(operation, req.status, "status");
  if (req.example !== undefined && req.body !== undefined) throw fail.invalid("body", "Give an example or a body, not both.");
  if (req.example !== undefined) {
    const names = Object.keys(examplesOf(operation, req.status));
    if (!names.includes(req.example)) throw fail.invalid("example", `No example "${req.example}" for ${req.operation_id} ${req.status}; examples: ${names.join(", ") || "none"}.`);
  }
  if (req.body !== undefined) {
    const content = (operation.responses![String(req.status)] as { content?: unknown }).content;
    if (!content) throw fail.invalid("body", `The ${req.status} response of ${req.operation_id} has no body.`);
    const errors = api.validateResponse(req.body, operation, req.status).errors;
    if (errors?.length) throw fail.invalid(`body${errors[0]!.instancePath.replaceAll("/", "__")}`, `body does not conform to the ${req.status} response of ${req.operation_id}: ${errors[0]!.message ?? "invalid"}.`);
  }
  return operation;
}

/** The one-off overrides of a running server, in the order they were made. */
export function createOverrides(contracts: Contracts) {
  let entries: Entry[] = [];
  let nextId = 1;
  return {
    add(req: OverrideRequest): Override {
      assertOverridable(contracts(), req);
      if (entries.length >= MAX_OVERRIDES) throw fail.invalid(null, `At most ${MAX_OVERRIDES} overrides are kept; delete some first.`, "too_many_overrides");
      const times = req.times ?? (req.fault_rate === undefined ? 1 : null);
      const override: Override = { ...req, id: nextId++, times, remaining: times };
      const draw = req.fault_rate === undefined ? undefined : faultDraws(req.fault_rate, req.faults ?? ["500"], req.seed ?? 1);
      entries.push({ override, matches: compilePattern({ operation_id: req.operation_id, ...req.when }), draw });
      return { ...override };
    },
    list: (): Override[] => entries.map((e) => ({ ...e.override })),
    /** Whether any override is kept: capture's hot path asks this before it works out its operation. */
    isEmpty: () => entries.length === 0,
    remove(id: number): boolean {
      const before = entries.length;
      entries = entries.filter((e) => e.override.id !== id);
      return entries.length < before;
    },
    clear() {
      entries = [];
    },
    /**
     * The oldest override matching this request, counted down (and dropped when used up). The request is
     * built only when the operation has overrides: most requests pay one scan of a short list.
     */
    take(operationId: string, request: () => MatchableRequest): TakenOverride | null {
      if (!entries.some((e) => e.override.operation_id === operationId)) return null;
      const req = request();
      for (const entry of entries) {
        if (!entry.matches(req)) continue;
        // A fault rate that spares this call lets a later override (or the handler) answer it.
        const fault = entry.draw?.();
        if (fault === null) continue;
        const { override } = entry;
        if (override.remaining !== null && --override.remaining === 0) entries = entries.filter((e) => e !== entry);
        return fault === undefined ? { ...override } : { ...override, fault };
      }
      return null;
    },
  };
}

export type Overrides = ReturnType<typeof createOverrides>;

/** The answer an override with a status gives: its body, else its example, else (429) the throttled error. */
export function overrideAnswer(override: Override & { status: number }, operation: Operation, mock: Mocker): HandlerResult {
  const headers: Record<string, string> = { "x-mock-override": String(override.id) };
  if (override.status === 429 && override.body === undefined && override.example === undefined) return throttledAnswer(override.retry_after ?? DEFAULT_RETRY_AFTER_S, headers);
  const { status, body } = override.body !== undefined ? { status: override.status, body: override.body } : preferredAnswer(operation, { code: override.status, example: override.example }, mock);
  if (status === 429) headers["retry-after"] = String(override.retry_after ?? retryAfterOf(body));
  return { status, body, headers };
}

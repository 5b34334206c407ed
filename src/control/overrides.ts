import type { Operation } from "openapi-backend";
import type { Backend } from "../http/api.ts";
import { fail } from "../http/errors.ts";
import { assertDocumentedStatus, SteeredResponse, steeredResponse } from "../http/steering.ts";
import { compilePattern, type MatchableRequest, type RequestPattern } from "./request-matcher.ts";

/** What a test asks: the next `times` valid calls of an operation (matching `when`) answer otherwise. */
export interface OverrideRequest {
  operation_id: string;
  when?: Pick<RequestPattern, "query" | "body">;
  status?: number;
  example?: string;
  body?: unknown;
  delay_ms?: number;
  times?: number;
}

export interface Override extends OverrideRequest {
  id: number;
  times: number;
  remaining: number;
}

/** Bounded like the request log: a test that forgets to clean up cannot grow memory without end. */
export const MAX_OVERRIDES = 100;

interface Entry {
  override: Override;
  matches: (req: MatchableRequest) => boolean;
}

type Contract = () => Backend;

const examplesOf = (operation: Operation, status: number): Record<string, unknown> => {
  const response = operation.responses?.[String(status)] as { content?: Record<string, { examples?: Record<string, unknown> }> } | undefined;
  return response?.content?.["application/json"]?.examples ?? {};
};

/**
 * The override is checked against the product API's document before it is kept, as `Prefer: code=` is:
 * a known operation, a documented status, an existing example, a body that conforms to that response.
 */
function assertOverridable(api: Backend, req: OverrideRequest): Operation {
  const operation = api.router.getOperation(req.operation_id);
  if (!operation) throw fail.invalid("operation_id", `Unknown operationId "${req.operation_id}".`);
  if (req.status === undefined) {
    if (req.example !== undefined || req.body !== undefined) throw fail.required("status");
    if (req.delay_ms === undefined) throw fail.invalid(null, "An override needs a status, a delay_ms, or both.");
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
export function createOverrides(contract: Contract) {
  let entries: Entry[] = [];
  let nextId = 1;
  return {
    add(req: OverrideRequest): Override {
      assertOverridable(contract(), req);
      if (entries.length >= MAX_OVERRIDES) throw fail.invalid(null, `At most ${MAX_OVERRIDES} overrides are kept; delete some first.`, "too_many_overrides");
      const times = req.times ?? 1;
      const override: Override = { ...req, id: nextId++, times, remaining: times };
      entries.push({ override, matches: compilePattern({ operation_id: req.operation_id, ...req.when }) });
      return override;
    },
    list: (): Override[] => entries.map((e) => ({ ...e.override })),
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
    take(operationId: string, request: () => MatchableRequest): Override | null {
      if (!entries.some((e) => e.override.operation_id === operationId)) return null;
      const req = request();
      const entry = entries.find((e) => e.matches(req));
      if (!entry) return null;
      entry.override.remaining--;
      if (entry.override.remaining === 0) entries = entries.filter((e) => e !== entry);
      return { ...entry.override };
    },
  };
}

export type Overrides = ReturnType<typeof createOverrides>;

type Mocker = Parameters<typeof steeredResponse>[2];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Applies an override to the request being handled: waits its delay, then, with a status, throws the
 * answer past the handler (the given body, else the documented example). Without a status the handler runs.
 */
export async function applyOverride(override: Override, operation: Operation, mock: Mocker): Promise<void> {
  if (override.delay_ms) await sleep(override.delay_ms);
  if (override.status === undefined) return;
  const headers = { "x-mock-override": String(override.id) };
  if (override.body !== undefined) throw new SteeredResponse({ status: override.status, body: override.body, headers });
  const steered = steeredResponse(operation, { code: override.status, example: override.example }, mock);
  throw new SteeredResponse({ ...steered.result, headers });
}

import type { Operation } from "openapi-backend";
import { fail } from "../core/errors.ts";
import type { HandlerResult } from "./result.ts";

/** `Prefer: code=404, example=name, delay=250` (Prism's header, plus a delay), parsed. */
export interface Steering {
  code?: number;
  example?: string;
  delay?: number;
}

/** Longest delay a client may ask for: enough to show spinners, short of tying up the server. */
export const MAX_DELAY_MS = 30_000;

export function parsePrefer(header: string | undefined): Steering {
  const steering: Steering = {};
  if (!header) return steering;
  for (const part of header.split(/[,;]/)) {
    const [rawKey, rawValue = ""] = part.split("=", 2).map((s) => s.trim());
    const value = rawValue.replace(/^"|"$/g, "");
    if (rawKey === "code") {
      if (!/^[1-5]\d\d$/.test(value)) throw fail.invalid("Prefer", `Prefer code must be an HTTP status, got "${value}".`);
      steering.code = Number(value);
    } else if (rawKey === "delay") {
      if (!/^\d+$/.test(value) || Number(value) > MAX_DELAY_MS) throw fail.invalid("Prefer", `Prefer delay must be 0–${MAX_DELAY_MS} ms, got "${value}".`);
      steering.delay = Number(value);
    } else if (rawKey === "example") {
      steering.example = value;
    }
  }
  return steering;
}

/** A steered status must be one the operation documents: else a 400 naming `attr` and listing the documented ones. */
export function assertDocumentedStatus(operation: Operation, code: number, attr: string): void {
  const responses = operation.responses ?? {};
  if (String(code) in responses) return;
  throw fail.invalid(attr, `Status ${code} is not documented for ${operation.operationId}; documented: ${Object.keys(responses).join(", ")}.`);
}

/** What a steered 429 waits for when nothing says otherwise: short, so a client's retry comes soon in a test. */
export const DEFAULT_RETRY_AFTER_S = 1;

/** A 429 as the real service answers it: the throttled error body and `Retry-After` in whole seconds. */
export function throttledAnswer(seconds: number, headers: Record<string, string> = {}): HandlerResult {
  return { status: 429, body: fail.throttled(seconds).body, headers: { ...headers, "retry-after": String(seconds) } };
}

/** The wait a 429 body announces ("Expected available in 12 seconds."), so its `Retry-After` says the same. */
export function retryAfterOf(body: unknown): number {
  const detail = (body as { detail?: unknown } | null)?.detail;
  const seconds = typeof detail === "string" ? /available in (\d+) seconds?/.exec(detail)?.[1] : undefined;
  return seconds === undefined ? DEFAULT_RETRY_AFTER_S : Number(seconds);
}

/** Thrown past the handler when a fault rate chose to close the connection without an answer. */
export class ResetConnection {}

export type Mocker = (operationId: string, opts: { code?: number; example?: string }) => { status: number; mock: unknown };

type DocumentedResponse = { content?: Record<string, { examples?: Record<string, unknown> }> };

/** The status `Prefer: example=` alone answers with, as Prism picks it: the operation's first documented 2xx. */
function successCode(operation: Operation): number | undefined {
  const codes = Object.keys(operation.responses ?? {}).filter((c) => /^2\d\d$/.test(c));
  return codes.length ? Number(codes.sort()[0]) : undefined;
}

/** An asked example must be one of the response's named examples: a 400 listing them otherwise (never a silent fallback). */
function requireExample(operation: Operation, code: number, response: DocumentedResponse, example: string | undefined): void {
  if (example === undefined) return;
  const names = Object.keys(response.content?.["application/json"]?.examples ?? {});
  if (names.includes(example)) return;
  const listed = names.length ? `named examples: ${names.join(", ")}` : "it has no named examples";
  throw fail.invalid("Prefer", `Example "${example}" is not documented for ${operation.operationId} ${code}; ${listed}.`);
}

/**
 * The documented response of `operation` for the asked status (its named example, else its first, else one built
 * from the schema); `example=` without `code=` picks that example of the success response.
 */
export function preferredAnswer(operation: Operation, steering: Steering, mock: Mocker): HandlerResult {
  const code = steering.code ?? successCode(operation);
  if (code === undefined) throw fail.invalid("Prefer", `${operation.operationId} documents no success status to take example "${steering.example}" from.`);
  assertDocumentedStatus(operation, code, "Prefer");
  const response = (operation.responses as Record<string, DocumentedResponse>)[String(code)]!;
  requireExample(operation, code, response, steering.example);
  if (!response.content || !response.content["application/json"]) return { status: code };
  const applied = [steering.code === undefined ? "" : `code=${code}`, steering.example === undefined ? "" : `example=${steering.example}`];
  const headers = { "preference-applied": applied.filter(Boolean).join(", ") };
  if (code === 429 && steering.example === undefined) return throttledAnswer(DEFAULT_RETRY_AFTER_S, headers);
  const { mock: body } = mock(operation.operationId!, { code, example: steering.example });
  return { status: code, body, headers: code === 429 ? { ...headers, "retry-after": String(retryAfterOf(body)) } : headers };
}

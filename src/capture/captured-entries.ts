import type { CapturedEvent, CapturedLog, CapturedRequest } from "./captured-log.ts";
import type { NormalisedEvent } from "./normalise.ts";
import type { FlagsOutcome } from "./remote-config.ts";
import type { FlagsRequest } from "../services/feature-flags.ts";
import type { CaptureRequest } from "./request.ts";
import { isoUtc } from "../core/iso-time.ts";

/** An event as the captured log keeps it, for waiting and the tracking plan. */
export const capturedEvent = (e: NormalisedEvent, capturedAt: string): CapturedEvent => ({
  uuid: e.uuid,
  event: e.event,
  distinct_id: e.distinct_id,
  properties: e.properties,
  timestamp: isoUtc(e.timestamp),
  captured_at: capturedAt,
});

/** A request as the captured log keeps it. */
export function capturedEntry(req: CaptureRequest, status: number, decoded: unknown, error: string | null): CapturedRequest {
  return {
    at: new Date().toISOString(),
    method: req.method,
    path: req.path,
    query: req.query,
    content_type: req.header("content-type") ?? null,
    content_encoding: req.header("content-encoding") ?? null,
    body_bytes: req.body.length,
    status,
    decoded,
    error,
  };
}

/** What a flags request came to: the flags outcome, who was evaluated, and the decoded body. */
export type EvaluatedFlags = FlagsOutcome & { request?: FlagsRequest; body: unknown };

/** A flags request in the captured log, with who was evaluated and what each flag came out as. */
export function logFlags(req: CaptureRequest, captured: CapturedLog, outcome: EvaluatedFlags | null, status: number, error: string | null): void {
  const request = outcome?.request;
  const values: Record<string, string | boolean> = {};
  for (const v of outcome?.values ?? []) values[v.key] = v.variant ?? v.enabled;
  captured.push({
    ...capturedEntry(req, status, outcome?.body ?? null, error),
    ...(request ? { flags: { distinct_id: request.distinctId, groups: request.groups, values } } : {}),
  });
}

import type { Operation } from "openapi-backend";
import { createRng } from "../util/rng.ts";
import { fail } from "../core/errors.ts";
import { assertDocumentedStatus } from "./prefer.ts";

/** How a call chosen to fail fails: a documented 500 or 503, or the connection closed without an answer. */
export const FAULT_KINDS = ["500", "503", "reset"] as const;
export type Fault = (typeof FAULT_KINDS)[number];

/** What an override asks for a fault rate (see OverrideRequest in openapi/control.yaml). */
export interface FaultRequest {
  fault_rate?: number;
  faults?: Fault[];
  seed?: number;
  status?: number;
  example?: string;
  body?: unknown;
  delay_ms?: number;
  retry_after?: number;
}

/** A fault rate goes alone, and its statuses must be ones the operation documents (as an override's status). */
export function assertFaultRequest(operation: Operation, req: FaultRequest): void {
  for (const field of ["status", "example", "body", "delay_ms", "retry_after"] as const) {
    if (req[field] !== undefined) throw fail.invalid(field, `${field} does not go with fault_rate: the failing calls answer one of faults, the others as usual.`);
  }
  for (const fault of req.faults ?? ["500"]) if (fault !== "reset") assertDocumentedStatus(operation, Number(fault), "faults");
}

/**
 * The fault draws of one override: for each matching call, whether it fails (with probability `rate`) and how.
 * Seeded, so the same sequence of calls fails the same way in every run.
 */
export function faultDraws(rate: number, faults: readonly Fault[], seed: number): () => Fault | null {
  const rng = createRng(seed, "faults");
  return () => (rng.next() < rate ? rng.pick(faults) : null);
}

import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepMessage } from "../util/json-depth.ts";
import { fail } from "../core/errors.ts";

/** 400 naming `attr` (or, for an object body, the top-level field holding the deep value). */
export function assertJsonDepth(value: unknown, attr: string | null): void {
  if (!nestsDeeperThan(value)) return;
  const field =
    attr ?? (value && typeof value === "object" && !Array.isArray(value)
      ? Object.keys(value).find((key) => nestsDeeperThan((value as Record<string, unknown>)[key], MAX_JSON_DEPTH - 1)) ?? null
      : null);
  throw fail.invalid(field, tooDeepMessage);
}

/** JSON.parse for caller-supplied text: a syntax error propagates as it is, a too-deep value is a 400 on `attr`. */
export function parseCallerJson(text: string, attr: string | null): unknown {
  const value: unknown = JSON.parse(text);
  assertJsonDepth(value, attr);
  return value;
}

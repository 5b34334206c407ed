import { ApiError } from "../../src/core/errors.ts";

/** "ok", or the status and code of the ApiError the call threw (any other error is rethrown). */
export function statusOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return `${e.status} ${e.body.code}`;
    throw e;
  }
  return "ok";
}

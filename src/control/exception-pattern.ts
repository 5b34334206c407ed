/**
 * The captured-event pattern of an exception: posthog-js (`captureException`, and exception autocapture once
 * the project's `autocapture_exceptions_opt_in` is on) sends `$exception` with `$exception_list`, one entry per
 * error of the chain, the thrown one first: `{type: "TypeError", value: "<message>", mechanism, stacktrace}`.
 */
import type { EventPattern } from "./observe.ts";

export interface ExceptionPattern {
  /** The error's class name as posthog-js reports it (`TypeError`, `Error`). */
  type?: string;
  /** The error's message (`$exception_list[0].value`), exactly. */
  message?: string;
  distinct_id?: string;
}

/** The wait pattern for an `$exception` whose thrown error has this type and message (dotted paths read the list). */
export function exceptionPattern({ type, message, distinct_id }: ExceptionPattern = {}): EventPattern {
  const properties: Record<string, unknown> = {};
  if (type !== undefined) properties["$exception_list.0.type"] = type;
  if (message !== undefined) properties["$exception_list.0.value"] = message;
  return { event: "$exception", ...(distinct_id !== undefined && { distinct_id }), ...(Object.keys(properties).length > 0 && { properties }) };
}

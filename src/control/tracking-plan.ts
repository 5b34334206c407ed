import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import RE2 from "re2";
import { fail } from "../core/errors.ts";
import type { CapturedEvent } from "../capture/captured-log.ts";
import { requirePlanWithinBounds } from "./plan-bounds.ts";

export const ADDITIONAL_EVENTS = ["allow", "deny"] as const;

/**
 * What an app promises to send (Snowplow Micro's schemas, per event name): a JSON Schema of each event's
 * `properties`. Events the plan does not name are valid under `allow` (the default: SDKs send `$pageview`,
 * `$autocapture` and more on their own) and invalid under `deny`.
 */
export interface TrackingPlan {
  events: Record<string, Record<string, unknown> | boolean>;
  additional_events?: (typeof ADDITIONAL_EVENTS)[number];
}

/** Why an event is invalid: the property concerned (a dotted path; null for the event itself) and what is wrong. */
export interface PlanViolation {
  property: string | null;
  message: string;
}

export interface Verdict {
  /** null while no plan is set. */
  valid: boolean | null;
  errors: PlanViolation[];
}

/** The property an ajv error concerns, as a dotted path into `properties`. */
function propertyOf(err: ErrorObject): string | null {
  const segments = err.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const params = err.params as Record<string, unknown>;
  const leaf = params.missingProperty ?? params.additionalProperty;
  if (typeof leaf === "string") segments.push(leaf);
  return segments.length ? segments.join(".") : null;
}

function violationOf(err: ErrorObject): PlanViolation {
  const property = propertyOf(err);
  const allowed = err.keyword === "enum" ? `: ${(err.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` : "";
  const what = err.keyword === "required" || err.keyword === "additionalProperties" ? "" : `${property ?? "properties"} `;
  const message = err.keyword === "additionalProperties" ? `${property} is not in the plan` : `${what}${err.message ?? "is invalid"}${allowed}`;
  return { property, message };
}

export type CompiledPlan = ReturnType<typeof compileTrackingPlan>;

/** Compiles every schema once; a schema that does not compile is a 400 naming its event (`events__<name>`). */
export function compileTrackingPlan(plan: TrackingPlan) {
  requirePlanWithinBounds(plan.events);
  // A plan's `pattern` runs on RE2 (linear time): a backtracking RegExp would let one schema and one property hang the server.
  // An enum past a few values is checked in a loop over the schema's list, not compiled into one comparison per value;
  // ajv's optimising pass over the generated code doubles the compile time (PLAN_LIMITS keeps that under a second).
  const ajv = new Ajv.default({ strict: false, allErrors: true, logger: false, loopEnum: 16, code: { regExp: RE2 as never, optimize: false } });
  addFormats.default(ajv, ["date-time", "date", "email", "uuid", "uri"]);
  const validators = new Map<string, ValidateFunction>();
  for (const [name, schema] of Object.entries(plan.events)) {
    try {
      validators.set(name, ajv.compile(schema));
    } catch (e) {
      throw fail.invalid(`events__${name}`, `The schema of "${name}" is not a JSON Schema this server can compile: ${(e as Error).message}.`);
    }
  }
  const additional = plan.additional_events ?? "allow";
  return {
    plan,
    judge(event: CapturedEvent): Verdict {
      const validate = validators.get(event.event);
      if (!validate) {
        return additional === "allow" ? { valid: true, errors: [] } : { valid: false, errors: [{ property: null, message: `event "${event.event}" is not in the tracking plan` }] };
      }
      return judgeWith(validate, event.properties);
    },
  };
}

/**
 * A judge never throws: it runs inside capture and inside open waits, where an exception would answer a 500 or
 * end the process. The bounds make a throw unexpected; one that happens anyway is the event's verdict.
 */
function judgeWith(validate: ValidateFunction, properties: Record<string, unknown>): Verdict {
  try {
    if (validate(properties)) return { valid: true, errors: [] };
    return { valid: false, errors: (validate.errors ?? []).map(violationOf) };
  } catch (e) {
    return { valid: false, errors: [{ property: null, message: `the tracking plan could not judge this event: ${(e as Error).message}` }] };
  }
}

/** No plan: every event is neither valid nor invalid. */
export const NO_VERDICT: Verdict = { valid: null, errors: [] };

/** A tracking plan from a file or a fixture compiled, or what is wrong with it: checked as the control API checks one. */
export function compilePlanDocument(value: unknown): CompiledPlan | string {
  const problem = trackingPlanProblem(value);
  if (problem) return problem;
  try {
    return compileTrackingPlan(value as TrackingPlan);
  } catch (e) {
    return (e as { body?: { detail?: string } }).body?.detail ?? (e as Error).message;
  }
}

/**
 * The shape check of a plan read from a file (`--tracking-plan`): the control API validates a PUT body against
 * control.yaml's TrackingPlan, a file has no such gate. Returns why it is not a plan, or null.
 */
export function trackingPlanProblem(value: unknown): string | null {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(value)) return "a tracking plan is a JSON object";
  const unknown = Object.keys(value).find((k) => k !== "events" && k !== "additional_events");
  if (unknown !== undefined) return `unknown field "${unknown}" (a plan has "events" and "additional_events")`;
  if (!isObject(value.events)) return '"events" must be an object of JSON Schemas by event name';
  const bad = Object.entries(value.events).find(([, schema]) => !isObject(schema) && typeof schema !== "boolean");
  if (bad) return `events["${bad[0]}"] must be a JSON Schema (an object or a boolean)`;
  const additional = value.additional_events;
  if (additional !== undefined && !ADDITIONAL_EVENTS.includes(additional as never)) return `"additional_events" must be ${ADDITIONAL_EVENTS.join(" or ")}`;
  return null;
}

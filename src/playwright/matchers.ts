import type { ExpectMatcherState } from "@playwright/test";
import type { EventPattern, JudgedEvent } from "../control/observe.ts";
import { WAIT_MAX_MS } from "../control/waiting.ts";
import type { Analytics } from "./analytics.ts";
import type { RecordingWaitRequest } from "../control/recordings-wait.ts";
import { exceptionPattern, type ExceptionPattern } from "../control/exception-pattern.ts";
import { surveyResponsePattern, type SurveyResponsePattern } from "../control/survey-forcing.ts";

type Options = { timeout?: number };
type Result = { pass: boolean; message: () => string; name: string; expected?: unknown; actual?: unknown };

const describe = (p: EventPattern) => JSON.stringify(p);
/** The app's own properties: the SDK's (`$…`, token, distinct_id) would bury them in a failure message. */
const ownProperties = (e: JudgedEvent) => Object.fromEntries(Object.entries(e.properties).filter(([k]) => !k.startsWith("$") && k !== "token" && k !== "distinct_id"));
const listed = (events: JudgedEvent[]) => events.map((e) => `  ${e.event} (${e.distinct_id}) ${JSON.stringify(ownProperties(e))}`).join("\n") || "  (none)";
/** SDKs retry a refused batch: the first few refusals say why, the rest are counted. */
const REFUSALS_SHOWN = 5;
/**
 * What was captured, and above it the requests the server refused: a wrong token stores nothing, and
 * "captured: (none)" alone would hide why.
 */
function capturedReport(analytics: Analytics): string {
  const refused = analytics.refused();
  const shown = refused.slice(0, REFUSALS_SHOWN).map((r) => `  ${r.method} ${r.path} answered ${r.status}: ${r.error}`);
  const why = [...shown, ...(refused.length > REFUSALS_SHOWN ? [`  …and ${refused.length - REFUSALS_SHOWN} more`] : [])].join("\n");
  const refusal = refused.length === 0 ? "" : `the server refused ${refused.length} request(s), storing nothing from them:\n${why}\n`;
  return `${refusal}captured:\n${listed(analytics.captured())}`;
}
const timeoutOf = (state: ExpectMatcherState, options?: Options) => Math.min(options?.timeout ?? state.timeout, WAIT_MAX_MS);

/**
 * Waits for a captured event matching the pattern (name, distinct id, partial properties). Negated, it checks
 * at once that none has arrived: waiting for something never to come would always last the whole timeout.
 */
async function toHaveCaptured(this: ExpectMatcherState, analytics: Analytics, pattern: EventPattern, options?: Options): Promise<Result> {
  const name = "toHaveCaptured";
  const found = this.isNot ? analytics.captured(pattern) : (await analytics.waitFor({ ...pattern, count: 1, timeout_ms: timeoutOf(this, options) })).events;
  const pass = found.length > 0;
  const message = pass
    ? () => `expected no captured event matching ${describe(pattern)}, found:\n${listed(found)}`
    : () => `expected a captured event matching ${describe(pattern)} within ${timeoutOf(this, options)} ms; ${capturedReport(analytics)}`;
  return { pass, message, name, expected: pattern, actual: found };
}

/** Waits until `times` events match, then passes when exactly that many did (one more is a failure). */
async function toHaveCapturedTimes(this: ExpectMatcherState, analytics: Analytics, pattern: EventPattern, times: number, options?: Options): Promise<Result> {
  const name = "toHaveCapturedTimes";
  const answer = await analytics.waitFor({ ...pattern, count: Math.max(times, 1), timeout_ms: times === 0 ? 0 : timeoutOf(this, options) });
  const pass = answer.count === times;
  const message = () => `expected ${this.isNot ? "not " : ""}${times} captured event(s) matching ${describe(pattern)}, got ${answer.count}:\n${listed(answer.events)}${answer.count < times ? `\n${capturedReport(analytics)}` : ""}`;
  return { pass, message, name, expected: times, actual: answer.count };
}

/** Fails when a captured event breaks the tracking plan, naming each event, property and reason. */
async function toHaveOnlyValidEvents(this: ExpectMatcherState, analytics: Analytics): Promise<Result> {
  const invalid = analytics.captured({ valid: false });
  const reasons = invalid.map((e) => `  ${e.event} (${e.distinct_id}): ${e.errors.map((x) => x.message).join("; ")}`).join("\n");
  const pass = invalid.length === 0;
  const message = pass ? () => "expected an event the tracking plan refuses; every captured event is valid" : () => `expected every captured event to follow the tracking plan; invalid:\n${reasons}`;
  return { pass, message, name: "toHaveOnlyValidEvents", actual: invalid };
}

/** Waits for a session recording (of `session_id`, with at least `snapshots` rrweb events) to arrive through `/s/`. */
async function toHaveRecorded(this: ExpectMatcherState, analytics: Analytics, request: Omit<RecordingWaitRequest, "timeout_ms"> = {}, options?: Options): Promise<Result> {
  const answer = await analytics.waitForRecording({ ...request, timeout_ms: this.isNot ? 0 : timeoutOf(this, options) });
  const pass = answer.status === "matched";
  const got = answer.recordings.map((r) => `  ${r.session_id} (${r.distinct_id}): ${r.snapshot_count} snapshot(s)`).join("\n") || "  (none)";
  const message = () => `expected ${this.isNot ? "no " : ""}session recording matching ${JSON.stringify(request)}; recordings matching:\n${got}`;
  return { pass, message, name: "toHaveRecorded", expected: request, actual: answer.recordings };
}

/** Waits for an `$exception` whose thrown error has this type and message (`$exception_list[0]`), as toHaveCaptured. */
async function toHaveCapturedException(this: ExpectMatcherState, analytics: Analytics, exception: ExceptionPattern = {}, options?: Options): Promise<Result> {
  const result = await toHaveCaptured.call(this, analytics, exceptionPattern(exception), options);
  const thrown = (e: JudgedEvent) => JSON.stringify((e.properties.$exception_list as { type?: unknown; value?: unknown }[] | undefined)?.map((x) => ({ type: x.type, value: x.value })) ?? null);
  const caught = () => analytics.captured({ event: "$exception" }).map((e) => `  ${e.distinct_id}: ${thrown(e)}`).join("\n") || "  (none)";
  const message = result.pass ? result.message : () => `expected an $exception matching ${JSON.stringify(exception)}; exceptions captured:\n${caught()}`;
  return { ...result, message, name: "toHaveCapturedException", expected: exception };
}

/** Waits for a response to the survey (`survey sent` with its `$survey_id`, of `distinct_id` when given), as toHaveCaptured. */
async function toHaveSurveyResponse(this: ExpectMatcherState, analytics: Analytics, response: SurveyResponsePattern, options?: Options): Promise<Result> {
  const result = await toHaveCaptured.call(this, analytics, surveyResponsePattern(response), options);
  return { ...result, name: "toHaveSurveyResponse", expected: response };
}

export const analyticsMatchers = { toHaveCaptured, toHaveCapturedTimes, toHaveOnlyValidEvents, toHaveRecorded, toHaveCapturedException, toHaveSurveyResponse };

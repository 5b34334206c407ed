/**
 * Observing what apps send: the captured log's requests and events filtered, a wait for events to arrive
 * (`POST /_mock/captured/wait/`), and the tracking plan that judges them.
 */
import { EventEmitter } from "node:events";
import type { Context } from "openapi-backend";
import type { CapturedEvent, CapturedLog } from "../capture/captured-log.ts";
import { fail } from "../core/errors.ts";
import { matchesValue } from "../pipeline/request-matcher.ts";
import { compileTrackingPlan, NO_VERDICT, type CompiledPlan, type PlanViolation, type TrackingPlan } from "./tracking-plan.ts";
import { WAIT_DEFAULT_MS, waitFor, type Wakeup, type WaitStatus } from "./waiting.ts";
import type { Control } from "./service.ts";

/** Which captured events a caller means; every condition given must hold. */
export interface EventPattern {
  event?: string;
  distinct_id?: string;
  /** A partial deep match of the event's properties (as `body` in request patterns). */
  properties?: Record<string, unknown>;
  /** Only events the tracking plan passes (true) or fails (false). */
  valid?: boolean;
}

/** A captured event with the tracking plan's verdict. */
export type JudgedEvent = CapturedEvent & { valid: boolean | null; errors: PlanViolation[] };

export interface WaitRequest extends EventPattern {
  /** At least this many matching events (default 1). */
  count?: number;
  timeout_ms?: number;
  /** Only events captured after the one with this uuid (a live view's newest). */
  after?: string;
}

export interface WaitAnswer {
  status: WaitStatus;
  count: number;
  events: JudgedEvent[];
}

const matchesShape = (p: EventPattern) => (e: CapturedEvent) =>
  (p.event === undefined || e.event === p.event) &&
  (p.distinct_id === undefined || e.distinct_id === p.distinct_id) &&
  (p.properties === undefined || matchesValue(p.properties, e.properties));

/**
 * The events captured after the one with uuid `after`, searched from the newest (a live view asks for what
 * follows its newest); all of them when that one is no longer kept, so a full ring still wakes a live view.
 */
export function eventsAfter(events: readonly CapturedEvent[], after: string | undefined): readonly CapturedEvent[] {
  if (after === undefined) return events;
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.uuid === after) return events.slice(i + 1);
  return events;
}

/** The captured log seen through a pattern and the tracking plan (set with `setPlan`). */
export function createObservation(captured: CapturedLog) {
  let plan: CompiledPlan | null = null;
  /** Announces "judged" when the plan changes: waits that filter on `valid` count again. */
  const verdicts: EventEmitter = new EventEmitter().setMaxListeners(0);
  /** Aborted when the server closes: open waits answer at once instead of holding the close up to a minute. */
  const closing = new AbortController();
  const install = (compiled: CompiledPlan) => {
    plan = compiled;
    verdicts.emit("judged");
  };
  const judge = (e: CapturedEvent): JudgedEvent => ({ ...e, ...(plan ? plan.judge(e) : NO_VERDICT) });
  /**
   * The events among `among` that match, oldest first, as stored (a wait holds them, and judges them when it
   * answers); the plan judges only those the pattern's shape keeps.
   */
  const matching = (pattern: EventPattern, among: readonly CapturedEvent[]): CapturedEvent[] => {
    const shaped = among.filter(matchesShape(pattern));
    return pattern.valid === undefined ? shaped : shaped.filter((e) => judge(e).valid === pattern.valid);
  };
  /** Matching stored events, oldest first, with the plan's verdict. */
  const events = (pattern: EventPattern = {}): JudgedEvent[] => matching(pattern, captured.events()).map(judge);
  /** What wakes a wait: each append, matched on its new events alone; a clear, and a new plan when it filters on `valid`. */
  const wakeupFor = (pattern: EventPattern): Wakeup<CapturedEvent, CapturedEvent[]> => ({
    emitter: captured.appended,
    event: "events",
    matchIn: (batch) => matching(pattern, batch),
    stillHeld: (e) => captured.holds(e),
    resync: [{ emitter: captured.appended, event: "cleared" }, ...(pattern.valid === undefined ? [] : [{ emitter: verdicts, event: "judged" }])],
  });
  return {
    events,
    /** Logged requests (newest first) that stored at least one event matching the pattern; every request without one. */
    requests(limit: number, pattern: EventPattern = {}) {
      const filtered = Object.keys(pattern).length > 0;
      const matches = matchesShape(pattern);
      const entries = captured.list().filter((r) => !filtered || captured.eventsOf(r).some((e) => matches(e) && (pattern.valid === undefined || judge(e).valid === pattern.valid)));
      return { total: captured.total, results: entries.slice(0, limit) };
    },
    clear: () => captured.clear(),
    /** Ends every open wait (the server is closing). */
    close: () => closing.abort(),
    /** Waits still open (each holds one listener). */
    waiting: () => captured.appended.listenerCount("events"),
    async wait(request: WaitRequest, signal?: AbortSignal): Promise<WaitAnswer> {
      const { count = 1, timeout_ms = WAIT_DEFAULT_MS, after, ...pattern } = request;
      const stop = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      // A wake-up's batch is new by construction: only the first look (and a resync) skips up to `after`.
      const { status, found } = await waitFor(() => matching(pattern, eventsAfter(captured.events(), after)), count, timeout_ms, wakeupFor(pattern), stop);
      return { status, count: found.length, events: found.map(judge) };
    },
    plan: {
      get: (): TrackingPlan | null => plan?.plan ?? null,
      set(next: TrackingPlan): TrackingPlan {
        install(compileTrackingPlan(next));
        return next;
      },
      /** A plan compiled beforehand (a fixture's, checked before its state replaced the old one). */
      install,
      clear: () => {
        plan = null;
        verdicts.emit("judged");
      },
    },
  };
}

export type Observation = ReturnType<typeof createObservation>;

type Query = { limit?: number; event?: string; distinct_id?: string; properties?: string; valid?: boolean };

/** The `properties` query parameter: a JSON object, or a 400 naming it. */
function propertiesOf(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw fail.invalid("properties", 'properties must be a JSON object, such as {"plan":"pro"}.');
  return value as Record<string, unknown>;
}

const patternOf = ({ event, distinct_id, properties, valid }: Query): EventPattern =>
  Object.fromEntries(Object.entries({ event, distinct_id, properties: propertiesOf(properties), valid }).filter(([, v]) => v !== undefined));

/** The control API's observing operations (openapi/control.yaml), spread into the control router's handlers. */
export const observeHandlers = {
  control_captured_list: (c: Context, control: Control) => {
    const query = c.request.query as Query;
    return control.observation.requests(query.limit ?? 20, patternOf(query));
  },
  control_captured_clear: (_c: Context, control: Control) => {
    control.observation.clear();
    return undefined;
  },
  control_captured_events_list: (c: Context, control: Control) => {
    const query = c.request.query as Query;
    const found = control.observation.events(patternOf(query));
    return { total: found.length, results: found.slice(-(query.limit ?? 100)).reverse() };
  },
  control_captured_wait: (c: Context, control: Control) =>
    control.observation.wait(c.request.requestBody as WaitRequest, (c.request as { signal?: AbortSignal }).signal),
  control_tracking_plan_retrieve: (_c: Context, control: Control) => ({ plan: control.observation.plan.get() }),
  control_tracking_plan_update: (c: Context, control: Control) => ({ plan: control.observation.plan.set(c.request.requestBody as TrackingPlan) }),
  control_tracking_plan_destroy: (_c: Context, control: Control) => {
    control.observation.plan.clear();
    return undefined;
  },
};

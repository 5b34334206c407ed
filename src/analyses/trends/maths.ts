import type { AggregatePlan } from "../../hogql/aggregate.ts";
import type { EventRecord, PersonRecord } from "../../store/schema.ts";
import { upperBound, type Buckets } from "../shared/buckets.ts";
import { plus, startOf } from "../../core/time-zones.ts";
import { AGGREGATES } from "../shared/math.ts";
import { numericForm } from "../shared/property-operators.ts";
import { eventProperty } from "../../core/event-read.ts";

/**
 * Per-series maths (reference: analytics §2.3): accumulators that take matching events in timestamp order
 * and give one value per bucket. Unique counts use the sorted order: an actor's windows only move
 * forward, so remembering the last window counted per actor replaces a Set per bucket.
 */
export type ActorKey = number | string;

export interface Accumulator {
  add(event: EventRecord, key: ActorKey): void;
  values(): number[];
  /** Per bucket, the actors behind the value and how many of their events count there (actors endpoints). */
  actors?(): BucketActors;
}

export type BucketActors = Map<ActorKey, number>[];

type MathKind = "count" | "unique" | "weekly" | "monthly" | "session" | "property" | "perActor" | "firstTime" | "firstMatching" | "hogql";

export const MATHS: Readonly<Record<string, { kind: MathKind; needsProperty?: true; aggregate?: string }>> = {
  total: { kind: "count" },
  dau: { kind: "unique" },
  unique_group: { kind: "unique" },
  weekly_active: { kind: "weekly" },
  monthly_active: { kind: "monthly" },
  unique_session: { kind: "session" },
  first_time_for_user: { kind: "firstTime" },
  first_matching_event_for_user: { kind: "firstMatching" },
  hogql: { kind: "hogql" },
  ...Object.fromEntries(Object.keys(AGGREGATES).map((a) => [a, { kind: "property" as const, needsProperty: true as const, aggregate: a }])),
  ...Object.fromEntries(
    ["avg", "min", "max", "median", "p75", "p90", "p95", "p99"].map((a) => [`${a}_count_per_actor`, { kind: "perActor" as const, aggregate: a }]),
  ),
};

export interface MathPlan {
  /** Earliest instant whose events the math needs (look-back windows, first-ever occurrences). */
  scanFrom: number;
  /** first_time_for_user / first_matching_event_for_user pick one event per actor before accumulating. */
  firstTime: "event" | "matching" | undefined;
  create(): Accumulator;
  /** The buckets [first, last] an event at `ts` counts in (empty when first > last): who is behind a value. */
  reach(ts: number): [number, number];
  /** weekly_active / monthly_active: each bucket's trailing window, whose distinct actors it counts. */
  windows?: Windows;
}

export interface MathOptions {
  math: string | undefined;
  mathProperty: string | undefined;
  cumulative: boolean;
  totalValue: boolean;
  timezone: string;
  /** What the property maths read instead of the event's `mathProperty` (the person's property, a session's). */
  readProperty?: (event: EventRecord) => unknown;
  /** A session's property counts once per session and bucket, not once per event: the session id of an event. */
  onceBy?: (event: EventRecord) => string;
  /** math "hogql": the compiled `math_hogql` aggregate, and the person each event's row sees. */
  hogql?: { plan: AggregatePlan; personOf: (distinctId: string) => PersonRecord | undefined };
}

export function planMath(buckets: Buckets, o: MathOptions): MathPlan {
  const spec = MATHS[o.math ?? "total"] ?? { kind: "count" as const };
  const own = (ts: number): [number, number] => {
    const i = buckets.indexOf(ts);
    return [i, i];
  };
  const plan = (create: () => Accumulator, scanFrom = buckets.from, reach = own): MathPlan => ({ scanFrom, firstTime: undefined, create, reach });
  switch (spec.kind) {
    case "unique":
      // Cumulative unique users count each actor once, in its first bucket (PostHog trends_query_builder).
      return plan(o.cumulative ? () => firstSeen(buckets) : () => windowedUnique(ownWindows(buckets), keyOfActor));
    case "session":
      return plan(() => windowedUnique(ownWindows(buckets), sessionKey));
    case "weekly":
    case "monthly": {
      const windows = activeWindows(buckets, spec.kind === "weekly" ? 7 : 30, spec.kind, o);
      const reach = (ts: number): [number, number] => [upperBound(windows.ends, ts), upperBound(windows.starts, ts) - 1];
      return { ...plan(() => windowedUnique(windows, keyOfActor), windows.starts[0] ?? buckets.from, reach), windows };
    }
    case "property":
      return plan(() => propertyValues(buckets, o.readProperty ?? ((event) => eventProperty(event, o.mathProperty ?? "")), AGGREGATES[spec.aggregate!]!, o.onceBy));
    case "perActor":
      return plan(() => perActor(buckets, AGGREGATES[spec.aggregate!]!));
    case "hogql":
      return plan(() => hogqlAggregate(buckets, o.hogql!));
    case "firstTime":
    case "firstMatching":
      return { scanFrom: -Infinity, firstTime: spec.kind === "firstTime" ? "event" : "matching", create: () => counter(buckets), reach: own };
    default:
      return plan(() => counter(buckets));
  }
}

function counter(buckets: Buckets): Accumulator {
  const counts = new Array<number>(buckets.length).fill(0);
  return {
    add(event) {
      const i = buckets.indexOf(event.timestamp);
      if (i >= 0) counts[i]!++;
    },
    values: () => counts,
  };
}

function firstSeen(buckets: Buckets): Accumulator {
  const seen = new Set<ActorKey>();
  const inner = counter(buckets);
  return {
    add(event, key) {
      if (seen.has(key) || buckets.indexOf(event.timestamp) < 0) return;
      seen.add(key);
      inner.add(event, key);
    },
    values: inner.values,
  };
}

export interface Windows {
  /** Window of bucket b is [starts[b], ends[b]); both arrays are non-decreasing. */
  starts: number[];
  ends: number[];
}

const keyOfActor = (_event: EventRecord, key: ActorKey): ActorKey => key;
/** unique_session's key of a `$session_id` value: its text, "" for an event without one. */
export const sessionText = (id: unknown): string => (id === undefined || id === null ? "" : String(id));
export const SESSION_PROPERTY = "$session_id";
const sessionKey = (event: EventRecord): ActorKey => sessionText(eventProperty(event, SESSION_PROPERTY));

function ownWindows(buckets: Buckets): Windows {
  const starts: number[] = [];
  const ends: number[] = [];
  for (let b = 0; b < buckets.length; b++) {
    starts.push(Math.max(buckets.edges[b]!, buckets.from));
    ends.push(Math.min(buckets.edges[b + 1]!, buckets.to + 1));
  }
  return { starts, ends };
}

/**
 * weekly_active/monthly_active: actors active on the bucket's (last) day and the 6 (29) before — trailing
 * windows, not calendar weeks (§11 item 7). With week/month intervals weekly_active is plain uniques, and
 * monthly_active is with month intervals. A total value counts the window ending on the range's last day.
 */
function activeWindows(buckets: Buckets, days: number, kind: "weekly" | "monthly", o: MathOptions): Windows {
  const plain = buckets.interval === "month" || (kind === "weekly" && buckets.interval === "week");
  if (plain && !o.totalValue) return ownWindows(buckets);
  const starts: number[] = [];
  const ends: number[] = [];
  for (let b = 0; b < buckets.length; b++) {
    // Hours (minutes) trail from the bucket's end to the same instant 7 (30) days before (PostHog
    // test_trends.py::test_weekly_active_users_hourly_full_week).
    if (!o.totalValue && (buckets.interval === "hour" || buckets.interval === "minute")) {
      const end = Math.min(buckets.to + 1, buckets.edges[b + 1]!);
      starts.push(plus(buckets.edges[b + 1]!, -days, "day", o.timezone));
      ends.push(end);
      continue;
    }
    // A total value is the window of the range's last day (PostHog test_weekly_active_users_aggregated_range_wider_than_week).
    const firstDay = startOf(o.totalValue ? buckets.to : Math.min(buckets.edges[b + 1]! - 1, buckets.to), "day", o.timezone);
    starts.push(plus(firstDay, -(days - 1), "day", o.timezone));
    ends.push(o.totalValue ? buckets.to + 1 : Math.min(buckets.to + 1, plus(firstDay, 1, "day", o.timezone)));
  }
  return { starts, ends };
}

function windowedUnique(windows: Windows, keyOf: (event: EventRecord, key: ActorKey) => ActorKey): Accumulator {
  const counts = new Array<number>(windows.starts.length).fill(0);
  const lastCounted = new Map<ActorKey, number>();
  const { starts, ends } = windows;
  // Events arrive in time order: the two searches' answers hold over an interval of instants, kept here.
  let first = 0;
  let firstValid: [number, number] = [Infinity, -Infinity];
  let last = -1;
  let lastValid: [number, number] = [Infinity, -Infinity];
  return {
    add(event, actorKey) {
      const ts = event.timestamp;
      if (ts < firstValid[0] || ts >= firstValid[1]) {
        first = upperBound(ends, ts);
        firstValid = [first > 0 ? ends[first - 1]! : -Infinity, first < ends.length ? ends[first]! : Infinity];
      }
      if (ts < lastValid[0] || ts >= lastValid[1]) {
        last = upperBound(starts, ts) - 1;
        lastValid = [last >= 0 ? starts[last]! : -Infinity, last + 1 < starts.length ? starts[last + 1]! : Infinity];
      }
      if (first > last) return;
      const key = keyOf(event, actorKey);
      const previous = lastCounted.get(key) ?? -1;
      for (let b = Math.max(first, previous + 1); b <= last; b++) counts[b]!++;
      if (last > previous) lastCounted.set(key, last);
    },
    values: () => counts,
  };
}

/** sum/avg/min/max/median/pNN of a numeric property; events lacking it are ignored, empty buckets are 0. */
function propertyValues(buckets: Buckets, read: (event: EventRecord) => unknown, aggregate: (values: readonly number[]) => number, onceBy?: (event: EventRecord) => string): Accumulator {
  const perBucket: number[][] = Array.from({ length: buckets.length }, () => []);
  const seen: Set<string>[] = onceBy ? Array.from({ length: buckets.length }, () => new Set()) : [];
  return {
    add(event) {
      const i = buckets.indexOf(event.timestamp);
      if (onceBy && i >= 0) {
        const key = onceBy(event);
        if (seen[i]!.has(key)) return;
        seen[i]!.add(key);
      }
      const value = numericForm(read(event));
      if (i >= 0 && !Number.isNaN(value)) perBucket[i]!.push(value);
    },
    values: () => perBucket.map((values) => aggregate(values)),
  };
}

/** *_count_per_actor: events per actor within the bucket, aggregated over the actors. */
function perActor(buckets: Buckets, aggregate: (values: readonly number[]) => number): Accumulator {
  const perBucket: Map<ActorKey, number>[] = Array.from({ length: buckets.length }, () => new Map());
  return {
    add(event, key) {
      const i = buckets.indexOf(event.timestamp);
      if (i < 0) return;
      const counts = perBucket[i]!;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    },
    values: () => perBucket.map((counts) => aggregate([...counts.values()])),
  };
}

/** math "hogql": the `math_hogql` aggregate over each bucket's events (an empty bucket is 0). */
function hogqlAggregate(buckets: Buckets, hogql: NonNullable<MathOptions["hogql"]>): Accumulator {
  const states = Array.from({ length: buckets.length }, () => hogql.plan.create());
  const touched = new Array<boolean>(buckets.length).fill(false);
  return {
    add(event) {
      const i = buckets.indexOf(event.timestamp);
      if (i < 0) return;
      states[i]!.add({ event, person: hogql.personOf(event.distinct_id) });
      touched[i] = true;
    },
    values: () => states.map((state, i) => (touched[i] ? state.value() : 0)),
  };
}

/**
 * `--rate-limits`: the real service's throttles on requests made with a personal API key (or, for flag definitions, a project secret key) (reference:
 * ingestion-persons-events §6.4, and the public API docs' rate-limit page), counted per key and bucket on the
 * server's clock, so a frozen clock holds the counts and `POST /_mock/clock/advance/` lets them drain. The
 * counting is Django REST framework's SimpleRateThrottle, which the real service's throttles extend.
 */
import { fail } from "../core/errors.ts";

interface Bucket {
  scope: string;
  limit: number;
  periodMs: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/**
 * The documented buckets by kind of endpoint. Capture and flag evaluation (`/batch/`, `/flags/`, …) are not
 * throttled; the flag definitions local evaluation polls are, in a bucket of their own.
 */
export const RATE_LIMITS = {
  /** ClickHouse-backed reads: insights and their analyses, events, persons. */
  analytics: [
    { scope: "clickhouse_burst", limit: 240, periodMs: MINUTE },
    { scope: "clickhouse_sustained", limit: 1200, periodMs: HOUR },
  ],
  /** The query API (and the MCP tool that runs SQL). */
  query: [{ scope: "api_queries_sustained", limit: 2400, periodMs: HOUR }],
  /**
   * Flag definitions for local evaluation (`/flags/definitions`, `/api/feature_flag/local_evaluation`, the
   * project's `feature_flags/local_evaluation/`): independent of the other buckets (PostHog/posthog
   * `posthog/api/feature_flag.py`, LocalEvaluationThrottle: scope `feature_flag_evaluations`, 600/minute).
   */
  flag_definitions: [{ scope: "feature_flag_evaluations", limit: 600, periodMs: MINUTE }],
  /** Every other endpoint a personal API key calls. */
  crud: [
    { scope: "burst", limit: 480, periodMs: MINUTE },
    { scope: "sustained", limit: 4800, periodMs: HOUR },
  ],
} as const satisfies Record<string, readonly Bucket[]>;

export type RateLimitKind = keyof typeof RATE_LIMITS;

const ANALYTICS_PREFIXES = ["insights_", "events_", "persons_"];

/** The operations local evaluation polls, in the product API and in capture's document. */
const FLAG_DEFINITIONS = new Set(["feature_flags_local_evaluation_retrieve", "flags_definitions", "flags_local_evaluation_legacy"]);

/** Which buckets an operation counts against. */
export function rateLimitKindOf(operationId: string): RateLimitKind {
  if (FLAG_DEFINITIONS.has(operationId)) return "flag_definitions";
  if (/(^|_)query_|execute_sql/.test(operationId)) return "query";
  if (ANALYTICS_PREFIXES.some((prefix) => operationId.startsWith(prefix))) return "analytics";
  return "crud";
}

/**
 * How long until a full bucket takes a request again, as DRF's `wait()` says it: the time until the oldest
 * counted request leaves the window.
 */
const waitMs = (history: number[], bucket: Bucket, now: number) => bucket.periodMs - (now - history[history.length - 1]!);

/** The counts of a running server: one history of request times per key and bucket, newest first. */
export function createRateLimits(now: () => number) {
  const histories = new Map<string, number[]>();
  /** DRF's allow_request: drop what left the window, refuse when full, else count this request. */
  const allow = (key: string, bucket: Bucket, at: number): number | null => {
    const id = `${bucket.scope}\u0000${key}`;
    const history = histories.get(id) ?? [];
    while (history.length && history[history.length - 1]! <= at - bucket.periodMs) history.pop();
    if (history.length >= bucket.limit) return waitMs(history, bucket, at);
    history.unshift(at);
    histories.set(id, history);
    return null;
  };
  return {
    /**
     * Counts a request of `key` against the buckets of its operation; throws the throttled error (429) when one
     * is full, saying the longest wait in whole seconds (every bucket is asked, as DRF asks every throttle).
     */
    check(operationId: string, key: string): void {
      const at = now();
      const waits = RATE_LIMITS[rateLimitKindOf(operationId)].map((bucket) => allow(key, bucket, at)).filter((w) => w !== null);
      if (waits.length) throw new Throttled(Math.ceil(Math.max(...waits) / 1000));
    },
    clear: () => histories.clear(),
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;

/** A refused request: the API's throttled error, with the seconds that go into `Retry-After`. */
export class Throttled extends Error {
  constructor(readonly seconds: number) {
    super(fail.throttled(seconds).body.detail);
  }
}

import { describe, expect, it } from "vitest";
import { createRateLimits, rateLimitKindOf, Throttled } from "../../src/pipeline/rate-limits.ts";

/** Calls until the first refusal; the number allowed and the refusal's wait in seconds. */
function fill(limits: ReturnType<typeof createRateLimits>, operationId: string, key: string, max: number): { allowed: number; wait: number | null } {
  for (let i = 0; i < max; i++) {
    try {
      limits.check(operationId, key);
    } catch (e) {
      if (!(e instanceof Throttled)) throw e;
      return { allowed: i, wait: e.seconds };
    }
  }
  return { allowed: max, wait: null };
}

describe("rate limits", () => {
  const cases: [string, string][] = [
    ["insights_trend_create", "analytics"],
    ["insights_list", "analytics"],
    ["events_list", "analytics"],
    ["persons_values_retrieve", "analytics"],
    ["query_create", "query"],
    ["environments_query_create", "query"],
    ["environments_mcp_tools_execute_sql_create", "query"],
    ["feature_flags_list", "crud"],
    ["users_me", "crud"],
    // PostHog/posthog posthog/api/feature_flag.py, LocalEvaluationThrottle: its own scope, 600/minute.
    ["feature_flags_local_evaluation_retrieve", "flag_definitions"],
    ["flags_definitions", "flag_definitions"],
    ["flags_local_evaluation_legacy", "flag_definitions"],
  ];
  it.each(cases)("%s counts against the %s buckets", (operationId, kind) => expect(rateLimitKindOf(operationId)).toBe(kind));

  it("each kind allows its documented burst on a frozen clock, per key, and says the wait", () => {
    const at = 1_700_000_000_000;
    const limits = createRateLimits(() => at);
    expect(fill(limits, "events_list", "phx_a", 1000)).toEqual({ allowed: 240, wait: 60 });
    expect(fill(limits, "feature_flags_list", "phx_a", 1000)).toEqual({ allowed: 480, wait: 60 });
    expect(fill(limits, "flags_definitions", "phx_a", 1000)).toEqual({ allowed: 600, wait: 60 });
    expect(fill(limits, "query_create", "phx_a", 3000)).toEqual({ allowed: 2400, wait: 3600 });
    expect(fill(limits, "events_list", "phx_b", 1000)).toEqual({ allowed: 240, wait: 60 });
    limits.clear();
    expect(fill(limits, "events_list", "phx_a", 1)).toEqual({ allowed: 1, wait: null });
  });

  it("the burst drains after a minute; the hourly bucket holds 1200 analytics calls, then waits for its oldest", () => {
    let at = 0;
    const limits = createRateLimits(() => at);
    // Exactly 240 a minute: a refused call would still count against the hourly bucket (DRF asks every throttle).
    for (let minute = 0; minute < 5; minute++) {
      expect(fill(limits, "insights_list", "phx_a", 240)).toEqual({ allowed: 240, wait: null });
      at += 60_000;
    }
    // 1200 counted in the last 5 minutes: the oldest (at 0) leaves the hour window at 3600 s.
    expect(fill(limits, "insights_list", "phx_a", 10)).toEqual({ allowed: 0, wait: 3600 - 300 });
    at = 3_600_000 + 1;
    expect(fill(limits, "insights_list", "phx_a", 1000).allowed).toBe(240);
  });
});

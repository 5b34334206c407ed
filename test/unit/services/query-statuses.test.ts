import { describe, expect, it } from "vitest";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { createClock } from "../../../src/core/clock.ts";
import { executionModeOf } from "../../../src/services/query/query-api.ts";
import type { Loose } from "../../../src/analyses/shared/filter-read.ts";
import type { ApiError } from "../../../src/core/errors.ts";
import { createQueryStatuses, STATUS_TTL_MS } from "../../../src/services/query/query-statuses.ts";

const NOW = Date.parse("2024-03-05T12:00:00Z");
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("executionModeOf", () => {
  const cases: [string, unknown, unknown, string][] = [
    ["absent is blocking", undefined, undefined, "blocking"],
    ["false is blocking (force_cache, which the query endpoint computes when stale)", false, undefined, "blocking"],
    ["force_cache is blocking at the query endpoint", "force_cache", undefined, "blocking"],
    ["an unknown string is blocking", "sometimes", undefined, "blocking"],
    ["true is force_blocking", true, undefined, "force_blocking"],
    ["\"true\" is force_blocking", "true", undefined, "force_blocking"],
    ["async", "async", undefined, "async"],
    ["lazy_async", "lazy_async", undefined, "lazy_async"],
    ["force_async", "force_async", undefined, "force_async"],
    ["the legacy async flag wins over refresh", "force_blocking", true, "async"],
    ["async: false leaves refresh alone", "force_async", false, "force_async"],
  ];
  it.each(cases)("%s", (_name, refresh, legacyAsync, want) => {
    expect(executionModeOf(refresh, legacyAsync)).toBe(want);
  });
});

describe("query statuses", () => {
  const setup = () => {
    const clock = createClock(NOW);
    const logged: unknown[] = [];
    return { clock, logged, statuses: createQueryStatuses(clock, (_m, err) => logged.push(err)) };
  };

  it("runs in the background: running, then complete with the results", async () => {
    const { statuses } = setup();
    let finish!: (v: { results: number[] }) => void;
    const status = statuses.start("1", "q", () => new Promise((resolve) => (finish = resolve)), false);
    expect(status).toMatchObject({ id: "q", team_id: 1, complete: false, error: false, start_time: "2024-03-05T12:00:00.000Z", expiration_time: "2024-03-05T12:20:00.000Z" });
    await tick();
    finish({ results: [1] });
    await tick();
    expect(statuses.get("1", "q")).toMatchObject({ complete: true, error: false, results: { results: [1] }, end_time: "2024-03-05T12:00:00.000Z" });
    expect(statuses.get("2", "q")).toBeUndefined();
  });

  it("a client error shows its detail; anything else shows no message and is logged; neither rejects", async () => {
    const { statuses, logged } = setup();
    statuses.start("1", "bad", async () => Promise.reject(new AnalysisInputError("query__query", "Unknown column nope.")), false);
    statuses.start("1", "bug", () => {
      throw new TypeError("boom");
    }, false);
    await tick();
    expect(statuses.get("1", "bad")).toMatchObject({ complete: true, error: true, error_message: "Unknown column nope.", results: null });
    expect(statuses.get("1", "bug")).toMatchObject({ complete: true, error: true, error_message: null });
    expect(logged).toHaveLength(1);
  });

  it("cancel aborts the run and marks it cancelled; a complete one is left alone", async () => {
    const { statuses } = setup();
    let signal!: AbortSignal;
    statuses.start("1", "slow", (s) => new Promise((_resolve, reject) => {
      signal = s;
      s.addEventListener("abort", () => reject(new AnalysisInputError("query", "The query was cancelled.", "query_cancelled")));
    }), false);
    await tick();
    expect(statuses.cancel("1", "slow")).toBe("Cancelled query on clickhouse");
    expect(signal.aborted).toBe(true);
    await tick();
    expect(statuses.get("1", "slow")).toMatchObject({ complete: true, error: true, error_message: "The query was cancelled." });
    expect(statuses.cancel("1", "slow")).toBe("Query already complete");
    expect(statuses.cancel("1", "unknown")).toBe("Cancelled query on clickhouse");
  });

  it("an id already known is answered as it stands unless restarted; statuses expire by the clock", async () => {
    const { statuses, clock } = setup();
    let runs = 0;
    const run = async () => ({ results: [++runs] });
    statuses.start("1", "q", run, false);
    await tick();
    statuses.start("1", "q", run, false);
    await tick();
    expect(runs).toBe(1);
    statuses.start("1", "q", run, true);
    await tick();
    expect(statuses.get("1", "q")?.results).toEqual({ results: [2] });
    clock.advance(STATUS_TTL_MS);
    expect(statuses.get("1", "q")).toBeUndefined();
  });

  it("keeps at most 1,000 statuses, forgetting the least recently used", () => {
    const { statuses } = setup();
    for (let i = 0; i <= 1000; i++) statuses.completed("1", `q${i}`, { results: [] });
    expect(statuses.get("1", "q0")).toBeUndefined();
    expect(statuses.get("1", "q1000")).toMatchObject({ complete: true });
  });
});

describe("each project's share of queries", () => {
  const setup = (share: number) => createQueryStatuses(createClock(NOW), () => undefined, share);
  /** A run that waits until the test ends it. */
  const held = () => {
    let end!: () => void;
    const run = () => new Promise<Loose>((resolve) => (end = () => resolve({ results: [] })));
    return { run, end: () => end() };
  };
  const refusal = (act: () => unknown): ApiError => {
    try {
      act();
    } catch (e) {
      return e as ApiError;
    }
    throw new Error("accepted");
  };

  it("refuses one query past the share with a 429, counting background and blocking queries together, per project", async () => {
    const statuses = setup(2);
    const first = held();
    const second = held();
    statuses.start("1", "a", first.run, false);
    const blocking = statuses.runBlocking("1", "b", second.run);
    const refused = refusal(() => statuses.start("1", "c", held().run, false));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ type: "throttled_error", code: "throttled", detail: "Exceeded maximum concurrency limit: 2 for key: project 1 (SQL queries running or waiting at once). Expected available in 1 second.", attr: null });
    await expect(statuses.runBlocking("1", "d", held().run)).rejects.toMatchObject({ status: 429 });
    // The refused id was never started; another project has a share of its own.
    expect(statuses.get("1", "c")).toBeUndefined();
    expect(statuses.start("2", "e", async () => ({ results: [] }), false)).toMatchObject({ id: "e" });
    // One ends: its place is free again.
    second.end();
    await blocking;
    expect(statuses.start("1", "c", held().run, false)).toMatchObject({ id: "c", complete: false });
    first.end();
  });

  it("an id answered as it stands takes no place; a failed or cancelled query gives its place back", async () => {
    const statuses = setup(1);
    const first = held();
    statuses.start("1", "a", first.run, false);
    await tick();
    expect(statuses.start("1", "a", first.run, false)).toMatchObject({ id: "a", complete: false });
    statuses.cancel("1", "a");
    first.end();
    await tick();
    statuses.start("1", "f", async () => Promise.reject(new Error("boom")), false);
    await tick();
    expect(statuses.get("1", "f")).toMatchObject({ complete: true, error: true });
    expect(statuses.start("1", "g", async () => ({ results: [1] }), false)).toMatchObject({ id: "g" });
  });
});

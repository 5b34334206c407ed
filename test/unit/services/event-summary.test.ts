/**
 * The taxonomy's summary over row chunks (the scan workers' "summary" task, merged) is exactly the one pass on the
 * main thread, whatever the thread count, off the main thread or beside it; and that pass says what the events
 * themselves say (a reference over the rows as records, with no shapes or value ids).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { offMainThread } from "../../../src/analyses/parallel/off-main-thread.ts";
import { parallelScanStats } from "../../../src/analyses/parallel/scan-settings.ts";
import { withThreads } from "../../../src/analyses/parallel/thread-count.ts";
import { parallelScanReady, setParallelScan } from "../../../src/analyses/parallel/worker-pool.ts";
import { createClock } from "../../../src/core/clock.ts";
import { generatedState } from "../../../src/fixtures/generated-state.ts";
import { eventSummary, eventSummaryOnMain, kindOf } from "../../../src/services/definitions.ts";
import { mergeSummaryTallies, newSummaryTally, summaryOf, summaryRows, type EventSummary } from "../../../src/store/columns/event-summary.ts";
import { EventTable } from "../../../src/store/event-table.ts";
import { createStore, type Store } from "../../../src/store/store.ts";

const NOW = Date.parse("2025-06-01T00:00:00Z");
const SINCE = NOW - 30 * 86_400_000;
const THREADS = [1, 2, 3, 8];
let store: Store;

beforeAll(async () => {
  setParallelScan({ minRows: 0, workers: 2, maxLoad: Infinity });
  expect(await parallelScanReady()).toBe(2);
  store = await createStore(generatedState({ seed: 5, now: new Date(NOW), events: 30_000 }, NOW), createClock(NOW), null, { persist: false });
});

afterAll(() => setParallelScan({ minRows: 200_000, workers: 0, maxLoad: 2, mainCounts: true }));

const table = () => store.analysisData.events("1") as EventTable;

it.each(THREADS)("off the main thread on %i threads: every chunk on the workers, the main thread's summary", async (threads) => {
  const before = parallelScanStats();
  const summary = await offMainThread(() => eventSummary(table(), SINCE, NOW), () => true, threads);
  const after = parallelScanStats();
  expect(after.workerChunks - before.workerChunks).toBe(threads * 4);
  expect(after.mainChunks).toBe(before.mainChunks);
  expect(summary).toEqual(eventSummaryOnMain(table(), SINCE, NOW));
});

it.each(THREADS)("beside the main thread on %i threads: the main thread's summary", (threads) => {
  const before = parallelScanStats();
  const summary = withThreads(threads, () => eventSummary(table(), SINCE, NOW));
  expect(parallelScanStats().partitioned).toBe(before.partitioned + 1);
  expect(summary).toEqual(eventSummaryOnMain(table(), SINCE, NOW));
});

/** A summary as plain facts: per name and per key, by name (what a reference over records can give too). */
function factsOf(s: EventSummary) {
  const names = s.names.flatMap((name, n) => (s.nameCount[n]! > 0 ? [[name, [s.nameCount[n], s.nameRecent[n], s.nameFirst[n], s.nameLast[n]]]] : []));
  const keys = s.keys.flatMap((key, k) =>
    s.keyCount[k]! > 0 ? [[key, [s.keyCount[k], Array.from(s.keyKinds.subarray(4 * k, 4 * k + 4)), [...s.keyNames[k]!].map((n) => s.names[n]).sort()]]] : [],
  );
  return { names: Object.fromEntries(names), keys: Object.fromEntries(keys) };
}

it("the main thread's summary counts what the events say", () => {
  const names: Record<string, number[]> = {};
  const keys: Record<string, [number, number[], Set<string>]> = {};
  for (const row of table()) {
    const { event, timestamp: t, properties } = row.toJSON();
    const n = (names[event] ??= [0, 0, Infinity, -Infinity]);
    names[event] = [n[0]! + 1, n[1]! + (t >= SINCE && t <= NOW ? 1 : 0), Math.min(n[2]!, t), Math.max(n[3]!, t)];
    for (const [key, value] of Object.entries(properties)) {
      const k = (keys[key] ??= [0, [0, 0, 0, 0], new Set()]);
      k[0]++;
      if (kindOf(value) >= 0) k[1][kindOf(value)]!++;
      k[2].add(event);
    }
  }
  const facts = factsOf(eventSummaryOnMain(table(), SINCE, NOW));
  expect(Object.keys(facts.keys).length).toBeGreaterThan(10);
  expect(facts).toEqual({ names, keys: Object.fromEntries(Object.entries(keys).map(([key, [count, kinds, seen]]) => [key, [count, kinds, [...seen].sort()]])) });
});

it("merges a tally of an earlier scan, made before the shared dictionaries grew, into a later scan's", () => {
  const own = table();
  const valueKinds = () => Int8Array.from({ length: own.valueCount() }, (_, id) => kindOf(own.valueOfId(id)));
  const early = own.summaryScan(valueKinds(), 4, SINCE, NOW);
  const tally = newSummaryTally(early.job);
  summaryRows(early.cols, early.job, 0, early.rows, tally);
  // Another table of the store adds a name, a key and a shape: ids past the early scan's sizes.
  const other = new EventTable("2", own.dict);
  other.add({ uuid: "0190bbbb-0000-7000-8000-000000000001", project_id: "2", event: "brand_new_event", distinct_id: "x", timestamp: NOW, properties: { brand_new_key: 1 }, elements_chain: "" });
  const late = own.summaryScan(valueKinds(), 4, SINCE, NOW);
  expect(late.job.names).toBeGreaterThan(early.job.names);
  expect(late.job.shapes).toBeGreaterThan(early.job.shapes);
  expect(summaryOf(late, mergeSummaryTallies([tally], late.job))).toEqual(own.summarize(valueKinds(), 4, SINCE, NOW));
});

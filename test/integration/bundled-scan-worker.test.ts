/**
 * The built package runs its scan workers from dist/scan-worker.mjs (the source tree loads the TypeScript file
 * through tsx): that bundle must answer the pool's protocol with the answers the main thread's code gives.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { afterAll, expect, it } from "vitest";
import { countRows, type CountJob, type CountResult, type KernelFilter } from "../../src/analyses/parallel/count-kernel.ts";
import { funnelChunkRows, funnelPart, type FunnelColumns, type FunnelPartJob, type FunnelRowsJob, type PartBest } from "../../src/analyses/funnels/partition.ts";
import { correlateRows, type CorrelationColumns, type CorrelationJob } from "../../src/analyses/correlation/partition.ts";
import { firstSeenRows, type FirstSeenColumns, type FirstSeenJob } from "../../src/analyses/shared/first-seen-rows.ts";
import { newItemCodes, pathsChunkRows, pathsItemRows, pathsPart, type PathsChunkRows, type PathsColumns, type PathsItemsJob, type PathsPartJob, type PathsRowsJob } from "../../src/analyses/paths/partition.ts";
import { newSummaryTally, summaryRows, type SummaryColumns, type SummaryJob } from "../../src/store/columns/event-summary.ts";
import { projectFile } from "../../src/util/project-files.ts";

const { port1, port2 } = new MessageChannel();
const signal = new Int32Array(new SharedArrayBuffer(8));
const worker = new Worker(projectFile("dist/scan-worker.mjs"), { workerData: { port: port2, signal }, transferList: [port2] });
afterAll(() => worker.terminate());

const shared = <T extends Float64Array | Uint32Array | Int32Array | Uint8Array>(make: (b: SharedArrayBuffer) => T, values: number[]): T => {
  const a = make(new SharedArrayBuffer(values.length * 8));
  a.set(values);
  return a;
};
// Four actors (distinct id i mod 5 at row i, ids 3 and 4 one person), names (row mod 3) 0 = a, 1 = b, 2 = other, a minute apart.
const ROWS = 40;
const cols = {
  ts: shared((b) => new Float64Array(b), Array.from({ length: ROWS }, (_, i) => i * 60_000)),
  name: shared((b) => new Uint32Array(b), Array.from({ length: ROWS }, (_, i) => (i * 7) % 3)),
  did: shared((b) => new Uint32Array(b), Array.from({ length: ROWS }, (_, i) => i % 5)),
  shape: shared((b) => new Uint32Array(b), new Array(ROWS).fill(0)),
  valueStart: shared((b) => new Uint32Array(b), new Array(ROWS).fill(0)),
  vals: shared((b) => new Uint32Array(b), [0]),
};
const slotOfDid = shared((b) => new Int32Array(b), [0, 1, 2, 3, 3]);
// Two parts: actor slot mod 2.
const partOfDid = shared((b) => new Uint8Array(b), [0, 1, 0, 1, 1]);

/** Posts one task to the worker as the pool does, and reads its answer and its claim's state. */
async function run(task: string, colsOf: object, job: object, parts: number) {
  const claim = { chunks: Float64Array.from([0, ROWS / 2, ROWS / 2, ROWS]), state: new Int32Array(new SharedArrayBuffer(12)) };
  port1.postMessage({ seq: 1, task, cols: colsOf, job, claim, slot: 0 });
  while (Atomics.load(claim.state, 1) < parts) await new Promise((r) => setTimeout(r, 5));
  for (;;) {
    const reply = receiveMessageOnPort(port1)?.message as { result?: unknown; crash?: string } | undefined;
    if (reply) return { reply, taken: Atomics.load(claim.state, 2) };
    await new Promise((r) => setTimeout(r, 5));
  }
}

it("counts rows as the main thread does", { timeout: 30_000 }, async () => {
  while (Atomics.load(signal, 1) !== 1) await new Promise((r) => setTimeout(r, 10));
  const job: CountJob = { start: 0, end: ROWS, wanted: Uint8Array.from([1, 0, 1]), edges: Float64Array.from([0, 20 * 60_000, ROWS * 60_000]), mode: "count", keyPos: null, words: 1, didCode: null, filter: null, mathPos: null, num: null, sessionOf: null, noSession: 0, groupOf: null };
  const { reply, taken } = await run("count", cols, job, 2);
  expect(taken).toBe(2);
  expect(reply.crash).toBeUndefined();
  expect(reply.result).toEqual(countRows(cols, job));
});

// The same rows, each with one property (shape 0 has one key) whose value id is the row number mod 4.
const valueCols = { ...cols, valueStart: shared((b) => new Uint32Array(b), Array.from({ length: ROWS }, (_, i) => i)), vals: shared((b) => new Uint32Array(b), Array.from({ length: ROWS }, (_, i) => i % 4)) };
const filtered: KernelFilter = {
  kind: "or",
  of: [
    { kind: "value", keyPos: Int32Array.from([0]), accept: shared((b) => new Uint8Array(b), [1, 0, 1, 0]), absent: 0 },
    { kind: "did", accept: shared((b) => new Uint8Array(b), [0, 0, 0, 1, 1]) },
  ],
};

/** A values result's numbers per bucket, chunks in order. */
const valuesPerBucket = (result: CountResult, buckets: number): number[][] => {
  if (result.mode !== "values") throw new Error("values expected");
  return Array.from({ length: buckets }, (_, b) => result.parts.flatMap((p) => Array.from(p.values.subarray(p.starts[b], p.ends[b]))));
};

it("counts filtered rows and gathers a property's numbers as the main thread does", { timeout: 30_000 }, async () => {
  while (Atomics.load(signal, 1) !== 1) await new Promise((r) => setTimeout(r, 10));
  const base = { start: 0, end: ROWS, wanted: null, edges: Float64Array.from([0, 15 * 60_000, ROWS * 60_000]), keyPos: null, words: 1, didCode: null, filter: filtered, sessionOf: null, noSession: 0, groupOf: null };
  const count: CountJob = { ...base, mode: "count", mathPos: null, num: null };
  const counted = await run("count", valueCols, count, 2);
  expect(counted.reply.crash).toBeUndefined();
  expect(counted.reply.result).toEqual(countRows(valueCols, count));
  // Value ids 0 and 2 pass (the even rows, numbers 1.5 and 4), and distinct ids 3 and 4 (rows 3 and 4 mod 5):
  // minutes 0–14 hold 8 even rows and rows 3, 9, 13; minutes 15–39, 12 even rows and rows 19, 23, 29, 33, 39.
  expect((countRows(valueCols, count) as { counts: Float64Array }).counts).toEqual(Float64Array.from([11, 17]));
  const values: CountJob = { ...base, mode: "values", mathPos: Int32Array.from([0]), num: shared((b) => new Float64Array(b), [1.5, 2.25, 4, NaN]) };
  const gathered = await run("count", valueCols, values, 2);
  expect(gathered.reply.crash).toBeUndefined();
  expect(valuesPerBucket(gathered.reply.result as CountResult, 2)).toEqual(valuesPerBucket(countRows(valueCols, values), 2));
  // Row 3 (value id 3) has no number; rows 9 and 13 (value id 1) hold 2.25.
  expect(valuesPerBucket(countRows(valueCols, values), 2)[0]).toEqual([1.5, 4, 1.5, 4, 1.5, 2.25, 4, 1.5, 2.25, 4]);
  // Sessions: value ids 0 and 2 are one session (code 0), 1 and 3 another (code 1). The filter keeps ids 0 and 2,
  // and distinct ids 3 and 4 whatever their value: both sessions in each bucket (rows 3, 9, 13; 19, 23, …).
  const sessions: CountJob = { ...base, mode: "unique", keyPos: Int32Array.from([0]), mathPos: null, num: null, sessionOf: shared((b) => new Int32Array(b), [0, 1, 0, 1]), noSession: 2 };
  const unique = await run("count", valueCols, sessions, 2);
  expect(unique.reply.crash).toBeUndefined();
  expect(unique.reply.result).toEqual(countRows(valueCols, sessions));
  expect(Array.from((countRows(valueCols, sessions) as { bits: Int32Array }).bits)).toEqual([3, 3]);
  // Groups: rows 0 mod 3 in group 0, 1 mod 3 in group 1, the others in none (not counted).
  const groupOf = shared((b) => new Int32Array(b), Array.from({ length: ROWS }, (_, i) => [0, 1, -1][i % 3]!));
  const inGroups: CountJob = { ...base, filter: null, mode: "count", mathPos: null, num: null, groupOf };
  const grouped = await run("count", valueCols, inGroups, 2);
  expect(grouped.reply.result).toEqual(countRows(valueCols, inGroups));
  // Minutes 0–14: rows 0–14, 10 of them in a group; minutes 15–39: 17 of 25.
  expect((countRows(valueCols, inGroups) as { counts: Float64Array }).counts).toEqual(Float64Array.from([10, 17]));
  const groupsSeen: CountJob = { ...inGroups, mode: "unique" };
  const seen = await run("count", valueCols, groupsSeen, 2);
  expect(seen.reply.result).toEqual(countRows(valueCols, groupsSeen));
  expect(Array.from((countRows(valueCols, groupsSeen) as { bits: Int32Array }).bits)).toEqual([3, 3]);
});

it("keeps a funnel's rows by part, then counts its attempts and tallies its trends, as the main thread does", { timeout: 30_000 }, async () => {
  while (Atomics.load(signal, 1) !== 1) await new Promise((r) => setTimeout(r, 10));
  const funnelCols: FunnelColumns = { ...valueCols, slotOfDid, partOfDid, groupOf: null };
  const names = { stepBits: Int32Array.from([1, 2, 0]), exclusionBits: Int32Array.from([0, 0, 0]), keepAll: false };
  const rowsJob: FunnelRowsJob = { ...names, conditions: [], global: null, parts: 2 };
  const rows = await run("funnelRows", funnelCols, rowsJob, 2);
  expect(rows.taken).toBe(2);
  const chunks = [funnelChunkRows(funnelCols, rowsJob, 0, ROWS / 2, 0), funnelChunkRows(funnelCols, rowsJob, ROWS / 2, ROWS, 1)];
  expect(rows.reply.result).toEqual(chunks);
  // Conditions read the rows' values: step 2 only on name "other" rows passing `filtered`, and the funnel's own
  // filter keeps the rows of even value ids alone.
  const conditioned: FunnelRowsJob = { ...rowsJob, stepBits: Int32Array.from([1, 0, 0]), conditions: [{ bit: 2, exclusion: false, names: Uint8Array.from([0, 0, 1]), filter: filtered }], global: filtered.of[0]! };
  const conditionedRows = await run("funnelRows", funnelCols, conditioned, 2);
  const conditionedChunks = [funnelChunkRows(funnelCols, conditioned, 0, ROWS / 2, 0), funnelChunkRows(funnelCols, conditioned, ROWS / 2, ROWS, 1)];
  expect(conditionedRows.reply.result).toEqual(conditionedChunks);
  // Even rows: name a (rows 0 mod 6) sets step 1, name other (rows 2 mod 6) step 2; name b rows set nothing.
  const kept = conditionedChunks.flatMap((c) => Array.from(c.rows.subarray(0, c.offsets[2]!)).map((row, k) => [row, c.steps![k]!]));
  expect(kept.sort((x, y) => x[0]! - y[0]!)).toEqual(Array.from({ length: 14 }, (_, k) => [[0, 1], [2, 2]][k % 2]!.map((v, j) => (j === 0 ? v + 6 * Math.floor(k / 2) : v))));
  // Groups as actors: rows 2 mod 3 are in none and drop out, whatever their name.
  const byGroup: FunnelColumns = { ...funnelCols, groupOf: shared((b) => new Int32Array(b), Array.from({ length: ROWS }, (_, i) => [0, 1, -1][i % 3]!)) };
  const groupRows = await run("funnelRows", byGroup, { ...rowsJob, keepAll: true }, 2);
  const groupChunks = [funnelChunkRows(byGroup, { ...rowsJob, keepAll: true }, 0, ROWS / 2, 0), funnelChunkRows(byGroup, { ...rowsJob, keepAll: true }, ROWS / 2, ROWS, 1)];
  expect(groupRows.reply.result).toEqual(groupChunks);
  // Group 0 (part 0) holds rows 0 mod 3, group 1 (part 1) rows 1 mod 3.
  expect(groupChunks.flatMap((c) => Array.from(c.rows.subarray(0, c.offsets[1]!)))).toEqual(Array.from({ length: 14 }, (_, k) => 3 * k));
  expect(groupChunks.flatMap((c) => Array.from(c.rows.subarray(c.offsets[1]!, c.offsets[2]!)))).toEqual(Array.from({ length: 13 }, (_, k) => 3 * k + 1));
  // Rows of names a and b, each in the part of its actor.
  expect(chunks.reduce((n, c) => n + c.offsets[2]!, 0)).toBe(27);

  const rules = { stepCount: 2, windowMs: 3_600_000, orderType: "ordered" as const, exclusions: [] };
  const periods = { interval: "hour" as const, edges: [0, 3_600_000, 7_200_000, ROWS * 60_000], from: 0, to: ROWS * 60_000 - 1, fromStep: 0, toStep: 1 };
  for (const want of ["best", periods] as const) {
    const job: FunnelPartJob = { chunks, stepBits: names.stepBits, exclusionBits: names.exclusionBits, rules, parts: 2, actors: 4, want, breakdown: null };
    const { reply, taken } = await run("funnel", funnelCols, job, 2);
    expect(taken).toBe(2);
    expect(reply.result).toEqual([funnelPart(funnelCols, job, 0), funnelPart(funnelCols, job, 1)]);
  }
  const best = funnelPart(funnelCols, { chunks, stepBits: names.stepBits, exclusionBits: names.exclusionBits, rules, parts: 2, actors: 4, want: "best", breakdown: null }, 1) as PartBest;
  // Actors 1 and 3 (ids 1, 3 and 4) both reach step 2; actor 1 first at minutes 6 (a) and 16 (b), actor 3 at 3 and 4.
  expect(Array.from(best.slots)).toEqual([1, 3]);
  expect(Array.from(best.levels)).toEqual([2, 2]);
  expect(Array.from(best.times)).toEqual([6, 16, 3, 4].map((m) => m * 60_000));
});

it("marks correlated events as the main thread does", { timeout: 30_000 }, async () => {
  while (Atomics.load(signal, 1) !== 1) await new Promise((r) => setTimeout(r, 10));
  // Only actor 1 is an entrant, with the span (minute 5, minute 20); name a is a step's (never correlated).
  const span = (m: number) => shared((b) => new Float64Array(b), [NaN, m * 60_000, NaN, NaN]);
  const job: CorrelationJob = { skipped: Uint8Array.from([1, 0, 0]), from: span(5), to: span(20), names: 3, words: 1 };
  const correlationCols: CorrelationColumns = { ts: cols.ts, name: cols.name, did: cols.did, slotOfDid };
  const { reply, taken } = await run("correlate", correlationCols, job, 2);
  expect(taken).toBe(2);
  const expected = new Int32Array(3);
  correlateRows(correlationCols, job, 0, ROWS, expected);
  expect(reply.result).toEqual(expected);
  // Its rows inside the span: minutes 6 (a), 11 (other) and 16 (b): bit 1 set for names b and other.
  expect(Array.from(expected)).toEqual([0, 2, 2]);
});

it("finds when each distinct id first did an event as the main thread does", { timeout: 30_000 }, async () => {
  while (Atomics.load(signal, 1) !== 1) await new Promise((r) => setTimeout(r, 10));
  const job: FirstSeenJob = { wanted: Uint8Array.from([0, 1, 0]), filter: null, distinctIds: 5 };
  const firstSeenCols: FirstSeenColumns = valueCols;
  const { reply, taken } = await run("firstSeen", firstSeenCols, job, 2);
  expect(taken).toBe(2);
  const expected = new Float64Array(5).fill(Infinity);
  firstSeenRows(firstSeenCols, job, 0, ROWS, expected);
  expect(reply.result).toEqual(expected);
  // Name b is at rows 1, 4, 7, 10, 13…: distinct ids 1, 4, 2, 0, 3 first.
  expect(Array.from(expected)).toEqual([10, 1, 7, 13, 4].map((m) => m * 60_000));
});

it("tallies path edges as the main thread does", { timeout: 30_000 }, async () => {
  while (Atomics.load(signal, 1) !== 1) await new Promise((r) => setTimeout(r, 10));
  // Pass 0 on the worker: name a's item is its URL (value 0 at position 0 of shape 0), name b's its name, others none.
  const itemsJob: PathsItemsJob = { detailOf: shared((b) => new Uint8Array(b), [1, 0, 0]), urlPos: shared((b) => new Int32Array(b), [0]), screenPos: shared((b) => new Int32Array(b), [-1]), itemOfName: shared((b) => new Int32Array(b), [-1, 1, -1]), filter: null, slots: 2 };
  const coded = await run("pathsItems", cols, itemsJob, 2);
  const expectedCodes = newItemCodes(itemsJob);
  pathsItemRows(cols, itemsJob, 0, ROWS / 2, expectedCodes);
  pathsItemRows(cols, itemsJob, ROWS / 2, ROWS, expectedCodes);
  expect(coded.reply.result).toEqual(expectedCodes);
  expect(expectedCodes.slots).toEqual([0]);
  // Pass 1 on the worker: the rows with an item, by part, as the main thread finds them (the URL's item is 0).
  const pathCols: PathsColumns = { ts: cols.ts, did: cols.did, slotOfDid, partOfDid };
  const rowsJob: PathsRowsJob = { parts: 2, codes: expectedCodes.chunks.map((c) => c.codes), itemOfDetail: shared((b) => new Int32Array(b), [0, -1]) };
  const found = await run("pathsRows", pathCols, rowsJob, 2);
  const chunks = found.reply.result as PathsChunkRows[];
  expect(chunks).toEqual([pathsChunkRows(pathCols, rowsJob, 0, ROWS / 2, 0), pathsChunkRows(pathCols, rowsJob, ROWS / 2, ROWS, 1)]);
  expect(new Set(chunks.flatMap((c) => Array.from(c.items)))).toEqual(new Set([0, 1]));
  const job: PathsPartJob = { chunks, parts: 2, actors: 4, sessionGapMs: 30 * 60_000, cut: { start: undefined, end: undefined, stepLimit: 5, ellipsis: 3 } };
  const { reply, taken } = await run("paths", pathCols, job, 2);
  expect(taken).toBe(2);
  const expected = [pathsPart(pathCols, job, 0), pathsPart(pathCols, job, 1)];
  expect(reply.result).toEqual(expected);
  expect(expected.flatMap((p) => Array.from(p.values))).not.toHaveLength(0);
});

it("summarizes the taxonomy's rows as the main thread does", { timeout: 30_000 }, async () => {
  while (Atomics.load(signal, 1) !== 1) await new Promise((r) => setTimeout(r, 10));
  // Shape 0 holds key 0; value ids 0–3 are of kinds 0, 1, none and 2.
  const summaryCols: SummaryColumns = { ...valueCols, shapeStart: shared((b) => new Int32Array(b), [0, 1]), shapeKeys: shared((b) => new Int32Array(b), [0]), valueKinds: Int8Array.from([0, 1, -1, 2]) };
  const job: SummaryJob = { names: 3, keys: 1, shapes: 1, kinds: 4, since: 10 * 60_000, until: 29 * 60_000 };
  const { reply, taken } = await run("summary", summaryCols, job, 2);
  expect(taken).toBe(2);
  const expected = newSummaryTally(job);
  summaryRows(summaryCols, job, 0, ROWS, expected);
  expect(reply.result).toEqual(expected);
  // Name i mod 3 at minute i: 14, 13 and 13 rows; minutes 10–29 hold 6 of name 0 and 7 each of names 1 and 2.
  expect([Array.from(expected.nameCount), Array.from(expected.nameRecent), Array.from(expected.nameFirst)]).toEqual([[14, 13, 13], [6, 7, 7], [0, 1, 2].map((m) => m * 60_000)]);
  // Every row sets key 0; value i mod 4 gives kinds 0, 1, none and 2, ten rows each; shape 0 was seen with all three names.
  expect([Array.from(expected.keyCount), Array.from(expected.keyKinds), Array.from(expected.shapeNames)]).toEqual([[40], [10, 10, 10, 0], [0b111]]);
});

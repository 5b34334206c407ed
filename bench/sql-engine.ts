/**
 * The embedded ClickHouse (issue 22, step 1): the mirror's first load of the generated dataset, a restart over
 * the mirror on disk, and the issue's four questions through SQL beside the same questions through the trend
 * analyses (in process: the two doors over one store, in one run). Runnable alone:
 * `npx tsx bench/sql-engine.ts [events] [--folder DIR]` (default 1,000,000 events; a temporary folder).
 *
 * Memory: the server's process (store + mirror encoding) and the engine's process are measured apart, each its
 * peak RSS (VmHWM); their sum bounds the whole server's peak. CPU seconds are both processes' user + system.
 */
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadHogql } from "../src/hogql/parse.ts";
import { runSql, type SqlContext } from "../src/services/query/sql-query.ts";
import { createSqlDatabase, type SqlDatabase } from "../src/sql-engine/sql-database.ts";
import { inProcessAnalyses, median, medianTrendMs } from "./in-process.ts";

const NOW = "2024-06-01T12:00:00Z";
const RUNS = 7;
/**
 * The questions as HogQL, run as the query API runs them (printed by the HogQL printer, run by the
 * engine, cells converted): what a user's SQL costs, minus HTTP.
 */
export const SQL_QUESTIONS: Record<string, string> = {
  "$pageview count by day, 30 days": "SELECT toStartOfDay(timestamp) AS day, count() FROM events WHERE event = '$pageview' AND timestamp > now() - INTERVAL 30 DAY GROUP BY day ORDER BY day",
  "unique persons by day, 30 days": "SELECT toStartOfDay(timestamp) AS day, count(DISTINCT person_id) FROM events WHERE event = '$pageview' AND timestamp > now() - INTERVAL 30 DAY GROUP BY day ORDER BY day",
  "count by properties.$browser": "SELECT properties.$browser AS browser, count() FROM events GROUP BY browser ORDER BY count() DESC",
  "events × persons by person.properties.plan": "SELECT person.properties.plan AS plan, count() FROM events GROUP BY plan ORDER BY count() DESC",
};

const base = { insight: "TRENDS", date_from: "-30d", interval: "day" };
/** The same questions through the trend analyses (none for the unfiltered JSON-text form). */
export const TREND_QUESTIONS: Record<string, Record<string, unknown>> = {
  "$pageview count by day, 30 days": { ...base, events: [{ id: "$pageview", math: "total" }] },
  "unique persons by day, 30 days": { ...base, events: [{ id: "$pageview", math: "dau" }] },
  "count by properties.$browser": { ...base, date_from: "all", interval: "month", events: [{ id: "$pageview", math: "total" }], breakdown: "$browser", breakdown_type: "event" },
  "events × persons by person.properties.plan": { ...base, date_from: "all", interval: "month", events: [{ id: "$pageview", math: "total" }], breakdown: "plan", breakdown_type: "person" },
};

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Peak and current RSS of a process (Linux /proc), bytes. */
function rssOf(pid: number | "self"): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { peak: kb("VmHWM"), now: kb("VmRSS") };
}

/** user + system CPU seconds of a process (Linux /proc/<pid>/stat). */
function cpuOf(pid: number | "self"): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function timeQuery(ctx: SqlContext, hogql: string): Promise<number> {
  for (let i = 0; i < 2; i++) await runSql(hogql, "query", ctx);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await runSql(hogql, "query", ctx);
    times.push(performance.now() - started);
  }
  return median(times);
}

type BenchStore = Awaited<ReturnType<typeof inProcessAnalyses>>["store"];

/** What keeping the mirror current costs: the sync before the next query after each kind of write. */
async function benchWrites(db: SqlDatabase, store: BenchStore) {
  const timed = async () => Math.round((await db.sync()).ms);
  const events = store.analysisData.events("1");
  const newest = events.timestampAt(events.length - 1);
  const batch = (n: number, at: number) =>
    Array.from({ length: n }, (_, i) => ({ uuid: crypto.randomUUID(), project_id: "1", event: "$pageview", distinct_id: `bench-${i % 50}`, timestamp: at + i, properties: { $browser: "Chrome" }, elements_chain: "" }));
  await store.events.append("1", batch(10_000, newest + 1));
  const append10k = await timed();
  const person = store.persons.list("1")[0]!;
  await store.persons.update(person, { ...person.properties, plan: "bench" }, person.is_identified);
  const personEdit = await timed();
  // A late event an hour older than the newest: inserted alone, by its log number.
  await store.events.append("1", batch(1, events.timestampAt(events.length - 1) - 3_600_000));
  const lateEvent = await timed();
  return { append10k, personEdit, lateEventHourOld: lateEvent };
}

export async function benchSqlEngine(events = 1_000_000, folderArg?: string) {
  const generatedAt = performance.now();
  const { store, service, project, total } = await inProcessAnalyses(events, NOW);
  const generateS = (performance.now() - generatedAt) / 1000;
  const storeRss = rssOf("self").now;
  const folder = folderArg ?? mkdtempSync(path.join(tmpdir(), "bench-sql-engine-"));

  const db = createSqlDatabase({ store, folder });
  const cpu0 = cpuOf("self");
  let mainPeakDuringLoad = 0;
  const sampler = setInterval(() => (mainPeakDuringLoad = Math.max(mainPeakDuringLoad, rssOf("self").now)), 100);
  const loadStarted = performance.now();
  const report = await db.sync();
  const firstLoadS = (performance.now() - loadStarted) / 1000;
  clearInterval(sampler);
  const enginePid = db.engineProcessId()!;
  const engineAfterLoad = rssOf(enginePid);
  const loadCpuS = cpuOf("self") - cpu0 + cpuOf(enginePid);

  const sqlMs: Record<string, number> = {};
  await loadHogql();
  const ctx: SqlContext = { db, project: store.projects.get("1")!, now: Date.parse(NOW), propertyTypes: () => ({}), testAccountFilters: [] };
  for (const [name, sql] of Object.entries(SQL_QUESTIONS)) sqlMs[name] = await timeQuery(ctx, sql);
  const trendMs: Record<string, number> = {};
  for (const [name, filter] of Object.entries(TREND_QUESTIONS)) trendMs[name] = medianTrendMs({ service, project }, filter, RUNS);
  const engineAfterQueries = rssOf(enginePid);
  const writes = await benchWrites(db, store);
  await db.close();

  const restartStarted = performance.now();
  const again = createSqlDatabase({ store, folder });
  const first = await again.query("SELECT count() FROM events");
  const restartToFirstAnswerMs = performance.now() - restartStarted;
  await again.close();
  if (!folderArg) rmSync(folder, { recursive: true, force: true });

  return {
    events: total,
    generateS: +generateS.toFixed(1),
    firstLoad: { seconds: +firstLoadS.toFixed(1), cpuSeconds: +loadCpuS.toFixed(1), report },
    rssMiB: {
      storeBeforeLoad: mib(storeRss),
      serverPeakDuringLoad: mib(mainPeakDuringLoad),
      enginePeak: mib(engineAfterQueries.peak),
      engineAfterLoad: mib(engineAfterLoad.now),
      peakSum: mib(mainPeakDuringLoad + engineAfterQueries.peak),
    },
    syncAfterWriteMs: writes,
    restart: { toFirstAnswerMs: Math.round(restartToFirstAnswerMs), countAnswered: first.rows[0]![0] },
    medianMs: Object.fromEntries(Object.keys(SQL_QUESTIONS).map((k) => [k, { sql: +sqlMs[k]!.toFixed(1), trend: trendMs[k] === undefined ? null : +trendMs[k]!.toFixed(1) }])),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const folderAt = args.indexOf("--folder");
  const folder = folderAt >= 0 ? args[folderAt + 1] : undefined;
  const events = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== "--folder") ?? 1_000_000);
  console.log(JSON.stringify(await benchSqlEngine(events, folder), null, 2));
}

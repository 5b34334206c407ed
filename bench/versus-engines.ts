/**
 * Issue 26: our analyses beside two column engines on the same rows. The generated dataset is loaded into our
 * store (in process, no HTTP), into embedded ClickHouse (chdb: a MergeTree ordered by project and timestamp,
 * properties as a JSON string, the person id resolved at load) and into DuckDB (the same table, read from a
 * Parquet file ClickHouse writes). The same four questions run on each, over five fresh date ranges (60 to 56
 * days back; nothing can answer from a cache), median of the five; every engine's answers are compared with ours
 * and a difference is reported beside the figure.
 *
 * `npx tsx bench/versus-engines.ts [events] [--skip-duckdb]` (default 1,000,000 events). ClickHouse and DuckDB use
 * every core; the load average is printed at the start and at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DuckDBInstance } from "@duckdb/node-api";
import { createSqlDatabase } from "../src/sql-engine/sql-database.ts";
import { inProcessAnalyses, median } from "./in-process.ts";

const NOW = "2024-06-01T12:00:00Z";
const DAY = 86_400_000;
const FRESH_DAYS = [60, 59, 58, 57, 56];
const FUNNEL_STEPS = ["$pageview", "signed_up", "purchase"];
const FUNNEL_WINDOW_DAYS = 14;

/** One question's answer in a form every engine can give: sorted `key → number` pairs. */
type Answer = Record<string, number>;

interface Question {
  /** Ours: the analysis kind and filter over the range starting at `from` (ISO date). */
  ours: (from: string) => { kind: "TRENDS" | "FUNNELS"; filter: Record<string, unknown> };
  oursAnswer: (result: unknown) => Answer;
  clickhouse: (fromIso: string, toIso: string) => string;
  duckdb: (fromIso: string, toIso: string) => string;
}

type TrendSeries = { breakdown_value?: string; days: string[]; data: number[] }[];
const byDay = (result: unknown): Answer => {
  const [series] = result as TrendSeries;
  return Object.fromEntries(series!.days.map((d, i) => [d, series!.data[i]!]).filter(([, n]) => n !== 0));
};
const byBreakdown = (result: unknown): Answer =>
  Object.fromEntries((result as TrendSeries).map((s) => [String(s.breakdown_value), s.data.reduce((a, b) => a + b, 0)]));
const bySteps = (result: unknown): Answer => Object.fromEntries((result as { count: number }[]).map((s, i) => [String(i + 1), s.count]));

const range = (from: string) => ({ date_from: from, date_to: NOW, interval: "day" });
const chRange = (from: string, to: string) => `team_id = 1 AND timestamp >= toDateTime64('${from}', 6, 'UTC') AND timestamp <= toDateTime64('${to}', 6, 'UTC')`;
const duckRange = (from: string, to: string) => `team_id = 1 AND timestamp >= TIMESTAMPTZ '${from}' AND timestamp <= TIMESTAMPTZ '${to}'`;
/** Grouped by day, the day written as text only for the result rows (formatting every row would slow the engines down). */
const chByDay = (aggregate: string, where: string) => `SELECT formatDateTime(d, '%F') AS k, n FROM (SELECT toDate(timestamp) AS d, ${aggregate} AS n FROM bench_events WHERE ${where} GROUP BY d)`;
const duckByDay = (aggregate: string, where: string) => `SELECT strftime(d, '%Y-%m-%d') AS k, n FROM (SELECT date_trunc('day', timestamp) AS d, ${aggregate} AS n FROM events WHERE ${where} GROUP BY d)`;

const QUESTIONS: Record<string, Question> = {
  "trend, total count by day": {
    ours: (from) => ({ kind: "TRENDS", filter: { ...range(from), events: [{ id: "$pageview" }] } }),
    oursAnswer: byDay,
    clickhouse: (f, t) => chByDay("count()", `${chRange(f, t)} AND event = '$pageview'`),
    duckdb: (f, t) => duckByDay("count(*)", `${duckRange(f, t)} AND event = '$pageview'`),
  },
  "trend, daily active users": {
    ours: (from) => ({ kind: "TRENDS", filter: { ...range(from), events: [{ id: "$pageview", math: "dau" }] } }),
    oursAnswer: byDay,
    clickhouse: (f, t) => chByDay("uniqExact(person_id)", `${chRange(f, t)} AND event = '$pageview'`),
    duckdb: (f, t) => duckByDay("count(DISTINCT person_id)", `${duckRange(f, t)} AND event = '$pageview'`),
  },
  "trend, breakdown by $browser": {
    ours: (from) => ({ kind: "TRENDS", filter: { ...range(from), events: [{ id: "$pageview" }], breakdown: "$browser", breakdown_type: "event" } }),
    oursAnswer: byBreakdown,
    // By value and day, as the trend answers it; the comparison sums the days.
    clickhouse: (f, t) =>
      `SELECT k, sum(n) FROM (SELECT JSONExtractString(properties, '$browser') AS k, toDate(timestamp) AS d, count() AS n FROM bench_events WHERE ${chRange(f, t)} AND event = '$pageview' GROUP BY k, d) GROUP BY k`,
    duckdb: (f, t) =>
      `SELECT k, sum(n) FROM (SELECT coalesce(json_extract_string(properties, '$."$browser"'), '') AS k, date_trunc('day', timestamp) AS d, count(*) AS n FROM events WHERE ${duckRange(f, t)} AND event = '$pageview' GROUP BY k, d) GROUP BY k`,
  },
  "funnel, 3 steps": {
    ours: (from) => ({ kind: "FUNNELS", filter: { insight: "FUNNELS", ...range(from), events: FUNNEL_STEPS.map((id, order) => ({ id, order })) } }),
    oursAnswer: bySteps,
    clickhouse: (f, t) =>
      `SELECT toString(level) AS k, count() FROM (SELECT person_id, windowFunnel(${FUNNEL_WINDOW_DAYS * 86400})(toDateTime(timestamp), ${FUNNEL_STEPS.map((s) => `event = '${s}'`).join(", ")}) AS reached
       FROM bench_events WHERE ${chRange(f, t)} AND event IN (${FUNNEL_STEPS.map((s) => `'${s}'`).join(", ")}) GROUP BY person_id)
       ARRAY JOIN range(1, reached + 1) AS level GROUP BY k`,
    // Per start (each first-step event), the earliest next step is the one that leaves the most room for the rest.
    duckdb: (f, t) => `WITH e AS (SELECT person_id, timestamp AS t, event FROM events WHERE ${duckRange(f, t)} AND event IN (${FUNNEL_STEPS.map((s) => `'${s}'`).join(", ")})),
       s1 AS (SELECT person_id, t AS t1 FROM e WHERE event = '${FUNNEL_STEPS[0]}'),
       s2 AS (SELECT s1.person_id, s1.t1, min(e.t) AS t2 FROM s1 JOIN e ON e.person_id = s1.person_id AND e.event = '${FUNNEL_STEPS[1]}' AND e.t > s1.t1 AND e.t <= s1.t1 + INTERVAL ${FUNNEL_WINDOW_DAYS} DAY GROUP BY ALL),
       s3 AS (SELECT DISTINCT s2.person_id FROM s2 JOIN e ON e.person_id = s2.person_id AND e.event = '${FUNNEL_STEPS[2]}' AND e.t > s2.t2 AND e.t <= s2.t1 + INTERVAL ${FUNNEL_WINDOW_DAYS} DAY)
       SELECT '1', count(DISTINCT person_id) FROM s1 UNION ALL SELECT '2', count(DISTINCT person_id) FROM s2 UNION ALL SELECT '3', count(*) FROM s3`,
  },
};

const startOfDayIso = (daysBack: number) => new Date(Math.floor((Date.parse(NOW) - daysBack * DAY) / DAY) * DAY).toISOString();

function sameAnswer(a: Answer, b: Answer): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? 0) === (b[k] ?? 0));
}

const toAnswer = (rows: unknown[][]): Answer => Object.fromEntries(rows.map(([k, n]) => [String(k), Number(n)]));

async function timed(run: () => unknown | Promise<unknown>): Promise<{ ms: number; value: unknown }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

export async function benchVersusEngines(events: number, withDuckdb: boolean) {
  const loadAtStart = loadavg().map((l) => +l.toFixed(2));
  const { store, service, project, total } = await inProcessAnalyses(events, NOW);

  // ClickHouse: the mirror's first load writes the rows into a data folder; the bench table is built from it.
  const folder = mkdtempSync(path.join(tmpdir(), "bench-versus-"));
  const mirror = createSqlDatabase({ store, folder });
  await mirror.sync();
  await mirror.close();
  const { Session } = createRequire(import.meta.url)("chdb") as { Session: new (folder: string) => { query(sql: string, format: string): string; cleanup(): void } };
  const ch = new Session(folder);
  ch.query(
    `CREATE TABLE bench_events ENGINE = MergeTree ORDER BY (team_id, timestamp) AS
     SELECT team_id, uuid, event, properties, timestamp, distinct_id, person_id FROM events`,
    "CSV",
  );
  const chRows = (sql: string) => ch.query(sql, "JSONCompact");

  let duck: Awaited<ReturnType<DuckDBInstance["connect"]>> | undefined;
  if (withDuckdb) {
    const parquet = path.join(folder, "events.parquet");
    ch.query(`SELECT team_id, toString(uuid) AS uuid, event, properties, timestamp, distinct_id, toString(person_id) AS person_id FROM bench_events INTO OUTFILE '${parquet}' FORMAT Parquet`, "CSV");
    duck = await (await DuckDBInstance.create(":memory:")).connect();
    await duck.run(`CREATE TABLE events AS SELECT * FROM read_parquet('${parquet}') ORDER BY team_id, timestamp`);
  }

  const table: Record<string, { ours: number; clickhouse: number; duckdb: number | null; differs: string[] }> = {};
  for (const [name, q] of Object.entries(QUESTIONS)) {
    const times = { ours: [] as number[], clickhouse: [] as number[], duckdb: [] as number[] };
    const differs = new Set<string>();
    // One warm-up per engine, then the fresh ranges.
    for (const daysBack of [FRESH_DAYS[0]! + 1, ...FRESH_DAYS]) {
      const from = startOfDayIso(daysBack);
      const { kind, filter } = q.ours(from.slice(0, 10));
      const ours = await timed(() => service.run(project, kind, filter, { refresh: true }).result);
      const chAnswer = await timed(() => toAnswer((JSON.parse(chRows(q.clickhouse(from, NOW))) as { data: unknown[][] }).data));
      const duckAnswer = duck ? await timed(async () => toAnswer((await duck!.runAndReadAll(q.duckdb(from, NOW))).getRows() as unknown[][])) : undefined;
      const expected = q.oursAnswer(ours.value);
      if (!sameAnswer(expected, chAnswer.value as Answer)) differs.add("clickhouse");
      if (duckAnswer && !sameAnswer(expected, duckAnswer.value as Answer)) differs.add("duckdb");
      if (daysBack > FRESH_DAYS[0]!) continue;
      times.ours.push(ours.ms);
      times.clickhouse.push(chAnswer.ms);
      if (duckAnswer) times.duckdb.push(duckAnswer.ms);
    }
    table[name] = {
      ours: +median(times.ours).toFixed(1),
      clickhouse: +median(times.clickhouse).toFixed(1),
      duckdb: duck ? +median(times.duckdb).toFixed(1) : null,
      differs: [...differs],
    };
  }
  ch.cleanup();
  rmSync(folder, { recursive: true, force: true });
  return { events: total, loadAverage: { start: loadAtStart, end: loadavg().map((l) => +l.toFixed(2)) }, medianMs: table };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const events = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
  const result = await benchVersusEngines(events, !args.includes("--skip-duckdb"));
  console.log(JSON.stringify(result, null, 2));
  const rows = Object.entries(result.medianMs).map(([name, r]) => {
    const best = Math.min(r.clickhouse, r.duckdb ?? Infinity);
    return `| ${name} | ${r.ours} | ${r.clickhouse} | ${r.duckdb ?? "–"} | ${(r.ours / best).toFixed(2)}× |${r.differs.length ? ` answers differ: ${r.differs.join(", ")}` : ""}`;
  });
  console.log(["| question | ours (ms) | ClickHouse | DuckDB | ours / best |", "|---|--:|--:|--:|--:|", ...rows].join("\n"));
}

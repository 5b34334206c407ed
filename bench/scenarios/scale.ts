/**
 * Scenario "scale" (issue 16): the column store at 1 M and 10 M generated events (and more with --scale), as a
 * user starts it (no heap flag): start-up, RSS, and the four analyses of the issue through HTTP at c=1, each
 * call over a fresh date range (no cache can answer it), median of five; the 10 M data file written and read
 * back; and the events list with an event and a property filter on the default dataset at c=10.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { bench, flags, JSON_AUTH, log, median, request, rssMb, startOurs, stopProc, type Endpoint, type Proc } from "../harness.ts";
import { notes, scaleRuns, type ScaleAnalysis } from "../results.ts";

export const SCALE_EVENTS = (flags.scale ?? "1000000,10000000").split(",").map(Number);

/** The issue's four analyses, over the range ending `days` days before the dataset's newest day. */
const SCALE_ANALYSES: Record<ScaleAnalysis, (from: string) => { path: string; body: object }> = {
  "trend total": (from) => ({ path: "insights/trend/", body: { events: [{ id: "$pageview" }], date_from: from } }),
  "trend dau": (from) => ({ path: "insights/trend/", body: { events: [{ id: "$pageview", math: "dau" }], date_from: from } }),
  "trend $browser breakdown": (from) => ({ path: "insights/trend/", body: { events: [{ id: "$pageview" }], breakdown: "$browser", date_from: from } }),
  "funnel 3 steps": (from) => ({
    path: "insights/funnel/",
    body: { insight: "FUNNELS", events: ["$pageview", "signed_up", "purchase"].map((id, order) => ({ id, order })), date_from: from },
  }),
};

/** Five fresh ranges: 60 to 56 days back, so that every call scans about two thirds of the 90 days. */
const FRESH_FROMS = [-60, -59, -58, -57, -56].map((d) => `${d}d`);

async function timeAnalyses(p: Proc): Promise<Record<ScaleAnalysis, number>> {
  const out = {} as Record<ScaleAnalysis, number>;
  for (const [name, make] of Object.entries(SCALE_ANALYSES) as [ScaleAnalysis, (from: string) => { path: string; body: object }][]) {
    const times: number[] = [];
    for (const from of FRESH_FROMS) {
      const { path: rel, body } = make(from);
      const t = performance.now();
      const r = await request(`${p.base}/api/projects/1/${rel}?refresh=true`, "POST", JSON_AUTH, JSON.stringify(body));
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.body.slice(0, 200)}`);
      if ((JSON.parse(r.body) as { is_cached: boolean }).is_cached) throw new Error(`${name}: answered from the cache`);
    }
    out[name] = median(times);
  }
  return out;
}

export async function phaseScale() {
  for (const events of SCALE_EVENTS) {
    let p: Proc;
    try {
      p = await startOurs(`ours ${events} generated`, `scale-${events}`, ["--in-memory", "--events", String(events)]);
    } catch (e) {
      // A dataset the machine cannot hold must be refused up front with a message, never a V8 abort.
      const message = (e as Error).message.split("\n").find((l) => l.includes("--events")) ?? (e as Error).message.slice(0, 300);
      scaleRuns.push({ events, source: "generated", startupMs: NaN, rssMb: NaN, p50: null, note: `refused at start: ${message}` });
      continue;
    }
    const rss = p.rssAfterStartMb;
    const p50 = await timeAnalyses(p);
    scaleRuns.push({ events, source: "generated", startupMs: p.startupMs, rssMb: rss, p50, note: `RSS after the analyses ${rssMb(p.serverPid).toFixed(0)} MiB` });
    log(`scale ${events}: ${Object.entries(p50).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(", ")}`);
    await stopProc(p);
  }
  await dataFile(Math.max(...SCALE_EVENTS.filter((n) => n <= 10_000_000)));
  await eventsList();
}

/** The largest size written to a data file by a first start, then read back by a second. */
async function dataFile(events: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "analytics-mock-scale-"));
  try {
    const data = path.join(dir, "db.json");
    const first = await startOurs(`ours ${events} --data (first start)`, "scale-data-first", ["--data", data, "--events", String(events)]);
    scaleRuns.push({ events, source: "generated, written to --data", startupMs: first.startupMs, rssMb: first.rssAfterStartMb, p50: null });
    await stopProc(first);
    const second = await startOurs(`ours ${events} --data (second start)`, "scale-data-second", ["--data", data]);
    scaleRuns.push({ events, source: "read from the --data file", startupMs: second.startupMs, rssMb: second.rssAfterStartMb, p50: await timeAnalyses(second) });
    await stopProc(second);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function eventsList() {
  const p = await startOurs("ours default (events list)", "scale-events-list", ["--in-memory"]);
  const properties = encodeURIComponent(JSON.stringify([{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]));
  const ep: Endpoint = { name: "GET /events/ event + property filter", method: "GET", path: `/api/projects/1/events/?event=%24pageview&properties=${properties}`, expect: 200 };
  const r = await bench("ours default", p.base, ep, 10);
  notes.push(`Events list with an event and a property filter on the default dataset, c=10: ${r.rps.toFixed(0)} req/s (p50 ${r.p50} ms).`);
  await stopProc(p);
}

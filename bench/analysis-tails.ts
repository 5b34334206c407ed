/**
 * Issue 36: the analyses' tails, from outside. A server in this process holds the generated dataset; every kind of
 * bench/analysis-kinds.ts is asked over HTTP `runs` times, one request at a time, each over a fresh date range with
 * `refresh=true` (no cache answers), after one warm-up request. Prints p50 and max per kind, and the max / p50
 * ratio: no request may take more than 3× its kind's median (a table growing, an index rehashed or built lazily
 * stalled one request in five at 10 M events).
 *
 * `npx tsx bench/analysis-tails.ts [events] [--runs 10] [--only name,name]` (default 1,000,000 events).
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parallelScanReady } from "../src/analyses/parallel/worker-pool.ts";
import { startServer } from "../src/index.ts";
import { KINDS } from "./analysis-kinds.ts";
import { median } from "./in-process.ts";

const NOW = "2024-06-01T12:00:00Z";

/** The legacy endpoint of each kind: the filter is the body (retention has a query form only: its parameters). */
const ENDPOINT: Record<string, string> = {
  TRENDS: "insights/trend",
  STICKINESS: "insights/trend",
  LIFECYCLE: "insights/trend",
  FUNNELS: "insights/funnel",
  FUNNEL_CORRELATION: "insights/funnel/correlation",
  RETENTION: "insights/retention",
  PATHS: "insights/path",
};

export async function benchAnalysisTails(events: number, runs: number, only?: string[]) {
  const loadAtStart = loadavg().map((l) => +l.toFixed(2));
  const server = await startServer({ events, now: NOW, logLevel: "silent", port: 0 });
  const { project_id, api_key } = server.credentials();
  // A server's scan workers start with its first large scan and stay: time them started, as every later request finds them.
  await parallelScanReady();
  const ask = async (kind: string, filter: Record<string, unknown>): Promise<number> => {
    const body = { ...filter, insight: kind === "FUNNEL_CORRELATION" ? "FUNNELS" : kind };
    const asQuery = kind === "RETENTION";
    const query = asQuery ? Object.entries(body).map(([k, v]) => `&${k}=${encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v))}`).join("") : "";
    const started = performance.now();
    const res = await fetch(`${server.url}/api/projects/${project_id}/${ENDPOINT[kind]}/?refresh=true${query}`, {
      method: asQuery ? "GET" : "POST",
      headers: { authorization: `Bearer ${api_key}`, ...(asQuery ? {} : { "content-type": "application/json" }) },
      body: asQuery ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${kind}: ${res.status}`);
    return performance.now() - started;
  };
  const byKind: Record<string, { p50: number; max: number; ratio: number; ms: number[] }> = {};
  try {
    for (const [name, make] of Object.entries(KINDS)) {
      if (only && !only.includes(name)) continue;
      const times: number[] = [];
      for (let k = 0; k <= runs; k++) {
        const daysBack = 61 - k;
        const { kind, filter } = make(`-${daysBack}d`, daysBack);
        const ms = await ask(kind, filter);
        if (k > 0) times.push(ms);
      }
      const [p50, max] = [median(times), Math.max(...times)];
      byKind[name] = { p50: +p50.toFixed(1), max: +max.toFixed(1), ratio: +(max / p50).toFixed(2), ms: times.map(Math.round) };
    }
  } finally {
    await server.close();
  }
  return { events, runs, loadAverage: { start: loadAtStart, end: loadavg().map((l) => +l.toFixed(2)) }, byKind };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const events = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const result = await benchAnalysisTails(events, Number(option("--runs") ?? 10), option("--only")?.split(","));
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}

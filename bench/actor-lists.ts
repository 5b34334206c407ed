/**
 * Issue 36: actor lists keep the event loop free. A server in this process holds the generated dataset; each actor
 * list is asked over HTTP `runs` times (fresh data points, no cache answers) while a timer measures the longest
 * stall of the event loop. Prints per list the median answer time and the longest stall.
 *
 * `npx tsx bench/actor-lists.ts [events] [--runs 5]` (default 1,000,000 events).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parallelScanReady } from "../src/analyses/parallel/worker-pool.ts";
import { startServer } from "../src/index.ts";
import { median } from "./in-process.ts";

const NOW = "2024-06-01T12:00:00Z";
const pageview = [{ id: "$pageview", type: "events", order: 0 }];

/** Per list: its path and query for the k-th run (each a new data point, so nothing is cached). */
const LISTS: Record<string, (k: number) => [string, Record<string, unknown>]> = {
  "trend total, 60 days": (k) => ["persons/trends", { events: pageview, date_from: `-${60 - k}d`, entity_id: "$pageview", entity_type: "events" }],
  "trend dau, one day": (k) => ["persons/trends", { events: [{ ...pageview[0], math: "dau" }], date_from: `2024-05-${10 + k}`, date_to: `2024-05-${10 + k}`, entity_id: "$pageview", entity_math: "dau" }],
  "trend breakdown value": (k) => ["persons/trends", { events: pageview, breakdown: "$browser", date_from: `-${60 - k}d`, entity_order: 0, breakdown_value: "Chrome" }],
  stickiness: (k) => ["persons/stickiness", { events: pageview, insight: "STICKINESS", date_from: `-${30 - k}d`, stickiness_days: 2 }],
  lifecycle: (k) => ["persons/lifecycle", { events: pageview, insight: "LIFECYCLE", date_from: `-${30 - k}d`, target_date: "2024-05-20", lifecycle_type: "returning" }],
  retention: (k) => ["persons/retention", { period: "Day", total_intervals: 14 - k, selected_interval: 0 }],
  paths: (k) => ["persons/path", { include_event_types: ["$pageview"], date_from: `-${30 - k}d`, path_start_key: "1_https://app.example.com/dashboard", path_end_key: "2_https://app.example.com/settings" }],
};

export async function benchActorLists(events: number, runs: number) {
  const server = await startServer({ events, now: NOW, logLevel: "silent", port: 0 });
  const { project_id, api_key } = server.credentials();
  await parallelScanReady();
  const byList: Record<string, { p50Ms: number; longestStallMs: number; people: number }> = {};
  try {
    for (const [name, make] of Object.entries(LISTS)) {
      const times: number[] = [];
      let stall = 0;
      let people = 0;
      for (let k = 0; k <= runs; k++) {
        const [path, params] = make(k);
        const query = Object.entries(params).map(([key, v]) => `${key}=${encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v))}`).join("&");
        const delay = monitorEventLoopDelay({ resolution: 1 });
        delay.enable();
        const started = performance.now();
        const res = await fetch(`${server.url}/api/projects/${project_id}/${path}/?${query}`, { headers: { authorization: `Bearer ${api_key}` } });
        const body = (await res.json()) as { results?: { count: number }[] };
        const ms = performance.now() - started;
        delay.disable();
        if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
        if (k === 0) continue;
        times.push(ms);
        stall = Math.max(stall, delay.max / 1e6);
        people = body.results?.[0]?.count ?? 0;
      }
      byList[name] = { p50Ms: +median(times).toFixed(1), longestStallMs: +stall.toFixed(1), people };
    }
  } finally {
    await server.close();
  }
  return { events, runs, byList };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const events = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
  const at = args.indexOf("--runs");
  console.log(JSON.stringify(await benchActorLists(events, at >= 0 ? Number(args[at + 1]) : 5), null, 2));
  process.exit(0);
}

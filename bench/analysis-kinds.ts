/**
 * Issue 26: every analysis kind in process (no HTTP) on the generated dataset, each over five fresh date ranges
 * (60 to 56 days back, so no cache answers), median of the five after one warm-up. Run it on two revisions back
 * to back to compare them: `npx tsx bench/analysis-kinds.ts [events] [--only name,name]` (default 1,000,000).
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { AnalysisKind } from "../src/services/analysis-service.ts";
import { inProcessAnalyses, median } from "./in-process.ts";

const NOW = "2024-06-01T12:00:00Z";
const FRESH_DAYS = [60, 59, 58, 57, 56];
const pageviews = [{ id: "$pageview", type: "events", order: 0 }];
const funnelSteps = ["$pageview", "signed_up", "purchase"].map((id, order) => ({ id, type: "events", order }));
const dayBefore = (daysBack: number) => new Date(Date.parse(NOW) - daysBack * 86_400_000).toISOString().slice(0, 10);

/** Each kind's filter over the range starting `from` (`-60d`…) or, for retention, ending `daysBack` days after its start. */
export const KINDS: Record<string, (from: string, daysBack: number) => { kind: AnalysisKind; filter: Record<string, unknown> }> = {
  "trend total": (from) => ({ kind: "TRENDS", filter: { events: pageviews, date_from: from } }),
  "trend dau": (from) => ({ kind: "TRENDS", filter: { events: [{ ...pageviews[0], math: "dau" }], date_from: from } }),
  "trend weekly active": (from) => ({ kind: "TRENDS", filter: { events: [{ ...pageviews[0], math: "weekly_active" }], date_from: from } }),
  "trend $browser breakdown": (from) => ({ kind: "TRENDS", filter: { events: pageviews, breakdown: "$browser", breakdown_type: "event", date_from: from } }),
  "trend filtered $browser = Chrome": (from) => ({ kind: "TRENDS", filter: { events: [{ ...pageviews[0], properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] }], date_from: from } }),
  "trend sum of duration_ms": (from) => ({ kind: "TRENDS", filter: { events: [{ id: "$pageleave", type: "events", math: "sum", math_property: "duration_ms" }], date_from: from } }),
  "trend avg events per person": (from) => ({ kind: "TRENDS", filter: { events: [{ ...pageviews[0], math: "avg_count_per_actor" }], date_from: from } }),
  "trend first time for user": (from) => ({ kind: "TRENDS", filter: { events: [{ id: "signed_up", type: "events", math: "first_time_for_user" }], date_from: from } }),
  "trend plan (person) breakdown": (from) => ({ kind: "TRENDS", filter: { events: pageviews, breakdown: "plan", breakdown_type: "person", date_from: from } }),
  "funnel 3 steps": (from) => ({ kind: "FUNNELS", filter: { insight: "FUNNELS", events: funnelSteps, date_from: from } }),
  "funnel strict": (from) => ({ kind: "FUNNELS", filter: { insight: "FUNNELS", events: funnelSteps, funnel_order_type: "strict", date_from: from } }),
  "funnel unordered": (from) => ({ kind: "FUNNELS", filter: { insight: "FUNNELS", events: funnelSteps, funnel_order_type: "unordered", date_from: from } }),
  "funnel time to convert": (from) => ({ kind: "FUNNELS", filter: { insight: "FUNNELS", events: funnelSteps, funnel_viz_type: "time_to_convert", date_from: from } }),
  "funnel trends": (from) => ({ kind: "FUNNELS", filter: { insight: "FUNNELS", events: funnelSteps, funnel_viz_type: "trends", date_from: from } }),
  "funnel, a step on Chrome": (from) => ({
    kind: "FUNNELS",
    filter: { insight: "FUNNELS", events: [{ ...funnelSteps[0], properties: [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }] }, ...funnelSteps.slice(1)], date_from: from },
  }),
  retention: (_from, daysBack) => ({
    kind: "RETENTION",
    filter: { insight: "RETENTION", target_entity: { id: "$pageview", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 30, date_to: dayBefore(daysBack - 30) },
  }),
  "retention, first time": (_from, daysBack) => ({
    kind: "RETENTION",
    filter: { insight: "RETENTION", retention_type: "retention_first_time", target_entity: { id: "signed_up", type: "events" }, returning_entity: { id: "$pageview", type: "events" }, period: "Day", total_intervals: 30, date_to: dayBefore(daysBack - 30) },
  }),
  paths: (from) => ({ kind: "PATHS", filter: { insight: "PATHS", include_event_types: ["$pageview"], date_from: from } }),
  stickiness: (from) => ({ kind: "STICKINESS", filter: { insight: "STICKINESS", events: pageviews, date_from: from, interval: "day" } }),
  lifecycle: (from) => ({ kind: "LIFECYCLE", filter: { insight: "LIFECYCLE", events: pageviews, date_from: from, interval: "day" } }),
  correlation: (from) => ({ kind: "FUNNEL_CORRELATION", filter: { insight: "FUNNELS", events: funnelSteps, funnel_correlation_type: "events", date_from: from } }),
};

export async function benchAnalysisKinds(events: number, only?: string[]) {
  const loadAtStart = loadavg().map((l) => +l.toFixed(2));
  const { service, project, total } = await inProcessAnalyses(events, NOW);
  // A server's scan workers start with its first large scan and stay: time them started, as every later query finds them.
  const pool = await import("../src/analyses/parallel/worker-pool.ts").catch(() => undefined);
  await pool?.parallelScanReady();
  const medianMs: Record<string, number> = {};
  const maxMs: Record<string, number> = {};
  for (const [name, make] of Object.entries(KINDS)) {
    if (only && !only.includes(name)) continue;
    const times: number[] = [];
    for (const daysBack of [FRESH_DAYS[0]! + 1, ...FRESH_DAYS]) {
      const { kind, filter } = make(`-${daysBack}d`, daysBack);
      const started = performance.now();
      service.run(project, kind, filter, { refresh: true });
      if (daysBack <= FRESH_DAYS[0]!) times.push(performance.now() - started);
    }
    medianMs[name] = +median(times).toFixed(1);
    maxMs[name] = +Math.max(...times).toFixed(1);
  }
  return { events: total, loadAverage: { start: loadAtStart, end: loadavg().map((l) => +l.toFixed(2)) }, medianMs, maxMs };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const events = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
  const onlyAt = args.indexOf("--only");
  console.log(JSON.stringify(await benchAnalysisKinds(events, onlyAt >= 0 ? args[onlyAt + 1]!.split(",") : undefined), null, 2));
}

/**
 * Session breakdown vs event-property breakdown, in process, on the generated dataset (issue 14: a session
 * breakdown at 1 M events within 2× its event-breakdown counterpart). Exported for bench/run.ts; runnable alone:
 * `npx tsx bench/session-breakdown.ts [events]` (default 1,000,000).
 */
import { fileURLToPath } from "node:url";
import { inProcessAnalyses, medianTrendMs } from "./in-process.ts";

const NOW = "2024-06-01T12:00:00Z";
const RUNS = 7;
const base = { insight: "TRENDS", events: [{ id: "$pageview", math: "total" }], date_from: "-30d", interval: "day" };
export const SESSION_BREAKDOWNS: Record<string, Record<string, unknown>> = {
  "event property ($browser)": { ...base, breakdown: "$browser", breakdown_type: "event" },
  "session ($entry_pathname)": { ...base, breakdown: "$entry_pathname", breakdown_type: "session" },
  "event property histogram (duration_ms, 10 bins)": { ...base, breakdown: "duration_ms", breakdown_type: "event", breakdown_histogram_bin_count: 10 },
  "session ($session_duration, 10 bins)": { ...base, breakdown: "$session_duration", breakdown_type: "session", breakdown_histogram_bin_count: 10 },
};


export interface SessionBreakdownFigures {
  events: number;
  /** First session breakdown after a data change: derives the sessions (then cached per data version). */
  sessionDerivationMs: number;
  /** Median per analysis, sessions already derived, every run recomputed (refresh). */
  medianMs: Record<string, number>;
}

export async function benchSessionBreakdown(events = 1_000_000): Promise<SessionBreakdownFigures> {
  const { service, project, total } = await inProcessAnalyses(events, NOW);
  const t0 = performance.now();
  service.run(project, "TRENDS", SESSION_BREAKDOWNS["session ($entry_pathname)"]!, { refresh: true });
  const sessionDerivationMs = performance.now() - t0;
  const medianMs: Record<string, number> = {};
  for (const [name, filter] of Object.entries(SESSION_BREAKDOWNS)) medianMs[name] = medianTrendMs({ service, project }, filter, RUNS);
  return { events: total, sessionDerivationMs, medianMs };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await benchSessionBreakdown(Number(process.argv[2] ?? 1_000_000));
  console.log(JSON.stringify(figures, null, 2));
}

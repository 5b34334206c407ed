/**
 * Group-aggregated funnels and session breakdowns at 1 M events, each next to its person / event-property
 * counterpart, in process (issue 14: neither more than 2× its counterpart). The measuring lives in
 * bench/group-funnel.ts and bench/session-breakdown.ts, which also run alone.
 */
import { benchGroupFunnel, formatGroupFunnel } from "../group-funnel.ts";
import { BIG, log } from "../harness.ts";
import { counterparts } from "../results.ts";
import { benchSessionBreakdown } from "../session-breakdown.ts";

export async function phaseGroupsAndSessions(events = BIG): Promise<void> {
  const funnel = await benchGroupFunnel(events);
  log(formatGroupFunnel(funnel));
  counterparts.push({ label: "group-aggregated 3-step funnel (by workspace), 1 M events", counterpart: "by persons", ms: funnel.groupMs, counterpartMs: funnel.personMs, limit: 2 });
  const sessions = await benchSessionBreakdown(events);
  log(`session breakdowns: ${JSON.stringify(sessions.medianMs)}; sessions derived in ${sessions.sessionDerivationMs.toFixed(0)} ms`);
  const ms = (name: string) => sessions.medianMs[name]!;
  counterparts.push({ label: "session breakdown ($entry_pathname), 1 M events", counterpart: "event breakdown ($browser)", ms: ms("session ($entry_pathname)"), counterpartMs: ms("event property ($browser)"), limit: 2 });
  counterparts.push({ label: "session histogram ($session_duration, 10 bins)", counterpart: "event histogram (duration_ms)", ms: ms("session ($session_duration, 10 bins)"), counterpartMs: ms("event property histogram (duration_ms, 10 bins)"), limit: 2 });
}

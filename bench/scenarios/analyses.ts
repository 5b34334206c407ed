/**
 * Scenario "analyses growth": 1,000,000 events in memory over HTTP (refresh=true and cached), and the
 * analyses in-process at 100 k and 1 M events, to see how they grow with the number of events.
 */
import { inProcessAnalyses } from "../in-process.ts";
import { BIG, bench, check, log, median, NOW, rssMb, SEED, startOurs, stopProc } from "../harness.ts";
import { ANALYSES, analysisEndpoint, READS, type AnalysisName } from "../requests.ts";
import { inProcess, notes, startups } from "../results.ts";

export async function phaseBigInMemory() {
  const p = await startOurs("ours 1M in memory", "big-memory", ["--in-memory", "--events", String(BIG)]);
  startups.push({ what: "ours, 1 M events, generated at start (--in-memory)", ms: p.startupMs, rssMb: p.rssAfterStartMb });
  for (const name of Object.keys(ANALYSES) as AnalysisName[]) {
    const ep = analysisEndpoint(name, true);
    const body = JSON.parse((await check(p.base, ep)).body) as { result: unknown[]; is_cached: boolean };
    if (body.is_cached) throw new Error(`${ep.name}: refresh=true answered from the cache`);
    if (name.startsWith("funnel")) {
      const steps = body.result as { count: number }[];
      notes.push(`Funnel over 1 M events, last 30 days: ${steps.map((s) => s.count).join(" → ")} persons.`);
    }
    await bench("ours 1M", p.base, ep, 1);
    await bench("ours 1M", p.base, ep, 10);
  }
  for (const name of ["trend dau", "funnel 3 steps"] as AnalysisName[]) {
    const ep = analysisEndpoint(name, false);
    await check(p.base, ep);
    await bench("ours 1M", p.base, ep);
  }
  await bench("ours 1M", p.base, READS.detail);
  notes.push(`RSS of our server with 1 M events after the analysis load: ${rssMb(p.serverPid).toFixed(0)} MiB.`);
  await stopProc(p);
}

export const IN_PROCESS_RUNS = 11;

export async function phaseInProcess(events: number) {
  const { service, project, total } = await inProcessAnalyses(events, NOW, SEED);
  const ms: Record<string, number> = {};
  for (const [name, filter] of Object.entries(ANALYSES)) {
    const kind = filter.insight;
    for (let i = 0; i < 3; i++) service.run(project, kind, filter, { refresh: true }); // warm-up
    const times: number[] = [];
    for (let i = 0; i < IN_PROCESS_RUNS; i++) {
      const t = performance.now();
      service.run(project, kind, filter, { refresh: true });
      times.push(performance.now() - t);
    }
    ms[name] = median(times);
  }
  inProcess.push({ events: total, ms });
  log(`in-process at ${events} events: ${Object.entries(ms).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(", ")}`);
}

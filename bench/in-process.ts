/**
 * The analyses without HTTP: the generated dataset of `events` events in a memory store, with the analysis
 * service over it. Shared by the in-process scenarios and the standalone bench files (which must not import
 * bench/harness.ts: it reads the bench's own command line).
 */
import { createClock } from "../src/core/clock.ts";
import { generatedState } from "../src/fixtures/generated-state.ts";
import { createAnalysisService } from "../src/services/analysis-service.ts";
import { createStore } from "../src/store/store.ts";

export async function inProcessAnalyses(events: number, nowIso: string, seed = 42) {
  const now = new Date(nowIso);
  const clock = createClock(now.getTime());
  const store = await createStore(generatedState({ seed, now, events }, clock.now()), clock, null, { persist: false });
  const service = createAnalysisService(store, clock);
  const project = store.projects.get("1")!;
  /** Events stored over both projects of the dataset. */
  const total = store.analysisData.events("1").length + store.analysisData.events("2").length;
  return { store, service, project, total };
}

type Analyses = Awaited<ReturnType<typeof inProcessAnalyses>>;

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median ms of `runs` refreshed trend runs of `filter`, after one discarded warm-up run. */
export function medianTrendMs({ service, project }: Pick<Analyses, "service" | "project">, filter: Record<string, unknown>, runs: number): number {
  service.run(project, "TRENDS", filter, { refresh: true });
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    service.run(project, "TRENDS", filter, { refresh: true });
    times.push(performance.now() - t);
  }
  return median(times);
}

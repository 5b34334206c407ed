/**
 * Group-aggregated funnel vs the same funnel by persons, in process, on the generated dataset (issue 14: the group
 * one must stay within 2× of the person one). The two run interleaved so that drift on a shared machine hits both.
 *
 *   npx tsx bench/group-funnel.ts [events]      # default 1,000,000
 *
 * bench/run.ts can call `benchGroupFunnel(events)` and print `formatGroupFunnel(result)` in its report.
 */
import { inProcessAnalyses } from "./in-process.ts";
import { ANALYSES } from "./requests.ts";

const NOW = "2024-06-15T12:00:00Z";
const SEED = 42;
const RUNS = 15;

const FUNNEL = ANALYSES["funnel 3 steps"];
/** Workspaces (group type 1 of the web project): the spec reads 0 as users, so 1 is the first group type a funnel can use. */
const BY_WORKSPACE = { ...FUNNEL, aggregation_group_type_index: 1 };

export interface GroupFunnelResult {
  events: number;
  personMs: number;
  groupMs: number;
  /** groupMs / personMs. */
  ratio: number;
  /** Step counts, to show both computed something. */
  personSteps: number[];
  groupSteps: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function benchGroupFunnel(events = 1_000_000): Promise<GroupFunnelResult> {
  const { service, project, total } = await inProcessAnalyses(events, NOW, SEED);
  const run = (filter: Record<string, unknown>) => service.run(project, "FUNNELS", filter, { refresh: true }).result as { count: number }[];
  for (let i = 0; i < 3; i++) run(FUNNEL), run(BY_WORKSPACE); // warm-up
  const person: number[] = [];
  const group: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    run(FUNNEL);
    person.push(performance.now() - t);
    t = performance.now();
    run(BY_WORKSPACE);
    group.push(performance.now() - t);
  }
  const personMs = median(person);
  const groupMs = median(group);
  return {
    events: total,
    personMs,
    groupMs,
    ratio: groupMs / personMs,
    personSteps: run(FUNNEL).map((s) => s.count),
    groupSteps: run(BY_WORKSPACE).map((s) => s.count),
  };
}

export const formatGroupFunnel = (r: GroupFunnelResult): string =>
  `funnel 3 steps at ${r.events.toLocaleString("en-US")} events: by persons ${r.personMs.toFixed(1)} ms (${r.personSteps.join("/")}), ` +
  `by workspace ${r.groupMs.toFixed(1)} ms (${r.groupSteps.join("/")}), ratio ${r.ratio.toFixed(2)}×`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const events = Number(process.argv[2] ?? 1_000_000);
  console.log(formatGroupFunnel(await benchGroupFunnel(events)));
}

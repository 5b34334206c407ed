import { compileRowPredicate } from "../analyses/shared/property-filter.ts";
import { reject } from "../core/analysis-errors.ts";
import { computeHeatmap, type HeatmapContext } from "../heatmaps/heatmaps.ts";
import { readHeatmapQuery } from "../heatmaps/query.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";

/** The named cohorts' members; a cohort the project does not have (or deleted) is a 400 naming them all. */
function cohortMembersOf(args: HandlerArgs, ids: readonly number[]): Set<number>[] {
  const cohorts = args.deps.store.analysisData.cohorts(args.project.id);
  const missing = ids.filter((id) => !cohorts.some((c) => c.id === id));
  if (missing.length > 0) throw reject.invalid("cohort_ids", `Cohort(s) not found or deleted: [${missing.join(", ")}]`);
  return ids.map((id) => new Set(cohorts.find((c) => c.id === id)!.person_ids));
}

function heatmapContext(args: HandlerArgs, cohortIds: readonly number[]): HeatmapContext {
  const { store } = args.deps;
  const index = store.analysisData.index(args.project.id);
  const filterContext = { cohorts: store.analysisData.cohorts(args.project.id), now: args.deps.clock.now(), timezone: args.project.timezone, groups: store.analysisData.groupData(args.project.id) };
  return {
    personOf: (distinctId) => index.personsByDistinctId.get(distinctId),
    testAccounts: () => compileRowPredicate([...args.project.test_account_filters], filterContext, "filter_test_accounts"),
    cohortMembers: cohortMembersOf(args, cohortIds),
  };
}

export const heatmapHandlers = {
  heatmaps_list: (args) => {
    const { project, deps } = args;
    const query = readHeatmapQuery(args.c.request.query as Record<string, unknown>, { now: deps.clock.now(), timezone: project.timezone, weekStartDay: project.week_start_day });
    return reply(200, computeHeatmap(deps.store.analysisData.events(project.id), query, heatmapContext(args, query.cohortIds)));
  },
} satisfies Record<string, Handler>;

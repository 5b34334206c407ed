import type { AnalysisContext } from "../../src/analyses/shared/context.ts";
import { deriveSessions } from "../../src/analyses/shared/session-properties.ts";
import type { EventList } from "../../src/store/schema.ts";
import type { Store } from "../../src/store/store.ts";

/** What an analysis of project 1 reads, as the analysis service builds it, over the given events (a table or plain records). */
export function analysisContextOf(store: Store, now: Date, events: EventList): AnalysisContext {
  const project = store.projects.get("1")!;
  const index = store.analysisData.index("1");
  const sessions = deriveSessions(events);
  return {
    projectId: "1",
    now: now.getTime(),
    timezone: project.timezone,
    weekStartDay: project.week_start_day,
    personOf: (distinctId) => index.personsByDistinctId.get(distinctId),
    cohorts: store.analysisData.cohorts("1"),
    actions: store.analysisData.actions("1"),
    testAccountFilters: project.test_account_filters,
    groups: store.analysisData.groupData("1"),
    sessions: () => sessions,
  };
}

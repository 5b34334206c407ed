import type { HandlerMap } from "./product-api.ts";
import { actorHandlers } from "./actors.ts";
import { insightAnalysisHandlers } from "./insight-analyses.ts";
import { insightHandlers } from "./insights.ts";
import { contextHandlers } from "./context.ts";
import { dashboardHandlers } from "./dashboards.ts";
import { definitionHandlers } from "./definitions.ts";
import { projectHandlers, projectScopedHandlers } from "./projects.ts";
import { personHandlers } from "./persons.ts";
import { eventHandlers } from "./events.ts";
import { queryHandlers } from "./query.ts";
import { featureFlagHandlers } from "./feature-flags.ts";
import { actionHandlers } from "./actions.ts";
import { insightViewHandlers } from "./insight-views.ts";
import { annotationHandlers } from "./annotations.ts";
import { groupHandlers } from "./groups.ts";
import { cohortHandlers } from "./cohorts.ts";
import { insightSharingHandlers } from "./insight-sharing.ts";
import { surveyHandlers } from "./surveys.ts";
import { heatmapHandlers } from "./heatmaps.ts";
import { earlyAccessFeatureHandlers } from "./early-access-features.ts";
import { webExperimentHandlers } from "./web-experiments.ts";
import { sessionRecordingHandlers } from "./session-recordings.ts";

/** operationId → handler. An operation missing here answers 501 until its issue lands. */
export const handlers: HandlerMap = {
  ...projectHandlers,
  ...projectScopedHandlers,
  ...contextHandlers,
  ...definitionHandlers,
  ...insightHandlers,
  ...dashboardHandlers,
  ...insightAnalysisHandlers,
  ...personHandlers,
  ...actorHandlers,
  ...eventHandlers,
  ...queryHandlers,
  ...featureFlagHandlers,
  ...actionHandlers,
  ...insightViewHandlers,
  ...annotationHandlers,
  ...groupHandlers,
  ...cohortHandlers,
  ...insightSharingHandlers,
  ...surveyHandlers,
  ...heatmapHandlers,
  ...earlyAccessFeatureHandlers,
  ...webExperimentHandlers,
  ...sessionRecordingHandlers,
};

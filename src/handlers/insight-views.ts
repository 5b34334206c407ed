import { reply, type Body, type Handler } from "./types.ts";

export const insightViewHandlers = {
  /** Ids of no live insight of the project are skipped, not refused: the web app reports what it displayed. */
  insights_viewed_list_create: async ({ c, caller, project, deps }) => {
    const { insight_ids } = c.request.requestBody as Body<"insights_viewed_list_create">;
    const live = insight_ids.filter((id) => deps.store.insights.get(project.id, id) !== undefined);
    await deps.store.insights.recordViews(project.id, caller.user.id, live);
    return reply(201);
  },
} satisfies Record<string, Handler>;

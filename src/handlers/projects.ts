import { paginate } from "../http/pagination.ts";
import { reply, type ProjectlessHandler } from "../http/types.ts";

export const projectHandlers = {
  /** The projects the key's user belongs to (reference: ingestion-persons-events §6.2). */
  projects_list: ({ c, caller, deps, url }) => {
    const q = c.request.query as { limit?: number; offset?: number };
    const projects = deps.store.projects.forUser(caller.user.id).map((p) => ({
      id: p.id,
      name: p.name,
      timezone: p.timezone,
      week_start_day: p.week_start_day,
    }));
    return reply(200, paginate(projects, url, q.limit ?? 100, q.offset ?? 0));
  },
} satisfies Record<string, ProjectlessHandler>;

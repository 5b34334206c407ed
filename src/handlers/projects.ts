import { paginate } from "../http/pagination.ts";
import { reply, type Handler, type ProjectlessHandler } from "../http/types.ts";
import { toProjectJson } from "./project-json.ts";

export const projectHandlers = {
  /** The projects the key's user belongs to (reference: ingestion-persons-events §6.2). */
  projects_list: ({ c, caller, deps, url }) => {
    const q = c.request.query as { limit?: number; offset?: number };
    const meta = { users: deps.store.users.all() };
    const projects = deps.store.projects.forUser(caller.user.id).map((p) => toProjectJson(p, meta));
    return reply(200, paginate(projects, url, q.limit ?? 100, q.offset ?? 0));
  },
} satisfies Record<string, ProjectlessHandler>;

export const projectScopedHandlers = {
  projects_retrieve: ({ project, deps }) => reply(200, toProjectJson(project, { users: deps.store.users.all() })),
} satisfies Record<string, Handler>;

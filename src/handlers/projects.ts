import { fail } from "../core/errors.ts";
import { paginate } from "../http/pagination.ts";
import { reply, type Handler, type ProjectlessHandler } from "./types.ts";
import { projectJsonMeta, toProjectJson } from "./project-json.ts";
import { clientSettingChanges } from "./project-settings.ts";

/** An IANA zone the runtime knows, or a 400 on `timezone`. */
function requireTimezone(zone: string | undefined): void {
  if (zone === undefined) return;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    throw fail.invalid("timezone", `"${zone}" is not a valid time zone.`);
  }
}

export const projectHandlers = {
  /** The projects the key's user belongs to (reference: ingestion-persons-events §6.2). */
  projects_list: ({ c, caller, deps, url }) => {
    const q = c.request.query as { limit?: number; offset?: number };
    const meta = projectJsonMeta(deps);
    const projects = deps.store.projects.forUser(caller.user.id).map((p) => toProjectJson(p, meta));
    return reply(200, paginate(projects, url, q.limit ?? 100, q.offset ?? 0));
  },
  projects_create: async ({ c, deps }) => {
    const body = c.request.requestBody as { name: string; timezone?: string; week_start_day?: 0 | 1 };
    requireTimezone(body.timezone);
    const project = await deps.store.projects.create(body);
    return reply(201, toProjectJson(project, projectJsonMeta(deps)));
  },
} satisfies Record<string, ProjectlessHandler>;

export const projectScopedHandlers = {
  projects_retrieve: ({ project, deps }) => reply(200, toProjectJson(project, projectJsonMeta(deps))),
  projects_partial_update: async ({ c, project, deps }) => {
    const body = c.request.requestBody as { name?: string; timezone?: string; week_start_day?: 0 | 1 } & Record<string, unknown>;
    requireTimezone(body.timezone);
    const { name, timezone, week_start_day } = body;
    const changes = { ...(name !== undefined && { name }), ...(timezone !== undefined && { timezone }), ...(week_start_day !== undefined && { week_start_day }), ...clientSettingChanges(body) };
    const updated = await deps.store.projects.update(project.id, changes);
    return reply(200, toProjectJson(updated, projectJsonMeta(deps)));
  },
} satisfies Record<string, Handler>;

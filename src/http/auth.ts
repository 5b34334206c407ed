import type { Context } from "openapi-backend";
import type { Store } from "../store/store.ts";
import { fail } from "../core/errors.ts";
import type { Caller } from "./types.ts";
import { projectNumber } from "../util/ids.ts";

const BEARER = /^Bearer +(\S+)\s*$/i;

/** The personal API key of an `Authorization: Bearer` header, if it has one. */
export const bearerKey = (header: string | undefined): string | undefined => (header ? BEARER.exec(header)?.[1] : undefined);

/**
 * The PersonalAPIKey security handler: 401 without a key or with an unknown one; then the project of the
 * path: 404 when it does not exist, 403 when the key's user is not a member (reference §6.2). Throwing makes
 * openapi-backend treat the request as unauthorized; `unauthorizedHandler` answers the thrown error.
 */
export function authenticate(c: Context, header: string | undefined, store: Store): Caller {
  if (!header) throw fail.notAuthenticated();
  const key = BEARER.exec(header)?.[1];
  if (!key) throw fail.notAuthenticated();
  const user = store.users.byKey(key);
  if (!user) throw fail.badKey();
  const projectParam = (c.request.params as Record<string, string | undefined>).project_id;
  if (projectParam === undefined) return { user, project: null };
  const project =
    projectParam === "@current"
      ? store.projects.forUser(user.id)[0]
      : (store.projects.get(projectParam) ?? store.projects.all().find((p) => String(projectNumber(p)) === projectParam));
  if (!project) throw fail.notFound(`Project ${projectParam} not found.`);
  if (project.members !== null && !project.members.includes(user.id)) throw fail.forbidden();
  return { user, project };
}

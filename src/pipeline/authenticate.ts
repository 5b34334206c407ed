import { timingSafeEqual } from "node:crypto";
import type { Store } from "../store/store.ts";
import { ApiError, fail } from "../core/errors.ts";
import type { ProjectRecord, UserRecord } from "../store/schema.ts";
import { derivedProjectSecretKey, projectNumber } from "../util/ids.ts";

/**
 * The one `Authorization` grammar of every surface, as the real service reads it (PostHog/posthog
 * `posthog/auth.py`, PersonalAPIKeyAuthentication.find_key_with_source: `^Bearer\s+(\S.+)$`, the rest stripped):
 * `Bearer` as written, spaces or tabs, then everything up to the end. Two words are one (unknown) key.
 */
const BEARER = /^Bearer\s+(\S.*)$/;

/** The credential of an `Authorization: Bearer` header, or undefined when the header is absent or of another scheme. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value === undefined ? undefined : BEARER.exec(value)?.[1]?.trim();
}

/** Who is calling, resolved by authentication. */
export interface Caller {
  user: UserRecord;
  /** The project addressed by the path, when there is one. */
  project: ProjectRecord | null;
}

/** 403 unless the project lets the user in (a project without a member list is everyone's). */
function requireMember(project: ProjectRecord, user: UserRecord): ProjectRecord {
  if (project.members !== null && !project.members.includes(user.id)) throw fail.forbidden();
  return project;
}

/** The user of a personal API key: 401 without a key, 401 `authentication_failed` for an unknown one. */
function userOfKey(key: string | undefined, store: Store): UserRecord {
  if (key === undefined) throw fail.notAuthenticated();
  const user = store.users.byKey(key);
  if (!user) throw fail.badKey();
  return user;
}

/** The project of a path's `{project_id}`: its id, its number, or `@current` (the user's first). */
function projectOfPath(param: string, user: UserRecord, store: Store): ProjectRecord | undefined {
  if (param === "@current") return store.projects.forUser(user.id)[0];
  return store.projects.get(param) ?? store.projects.all().find((p) => String(projectNumber(p)) === param);
}

/**
 * A personal API key (the product API's PersonalAPIKey scheme): 401 without a key or with an unknown one; then
 * the project of the path: 404 when it does not exist, 403 when the key's user is not a member (reference §6.2).
 */
function authenticatePersonalKey(header: string | string[] | undefined, projectParam: string | undefined, store: Store): Caller {
  const user = userOfKey(bearerToken(header), store);
  if (projectParam === undefined) return { user, project: null };
  const project = projectOfPath(projectParam, user, store);
  if (!project) throw fail.notFound(`Project ${projectParam} not found.`);
  return { user, project: requireMember(project, user) };
}

/** The token a shared insight's read carries in place of a key (`?sharing_access_token=`), when there is one. */
export function sharingAccessToken(query: Record<string, string | string[]>): string | undefined {
  const value = query.sharing_access_token;
  return Array.isArray(value) ? value[0] : value;
}

const sharingFailed = (detail: string) => new ApiError(401, { type: "authentication_error", code: "authentication_failed", detail, attr: null });

/**
 * A shared insight's token (reference: PostHog `posthog/auth.py` SharingAccessTokenAuthentication, and
 * SharingTokenPermission): GET only, the token of an enabled sharing, and the shared insight alone (by id or
 * short id, in its own project); else 403. It reads as the user who shared it.
 */
export function authenticateSharingToken(token: string, method: string, operationId: string | undefined, params: Record<string, string | undefined>, store: Store): Caller {
  if (method !== "GET" && method !== "HEAD") throw sharingFailed("Sharing access token can only be used for GET requests.");
  const sharing = store.sharing.byToken(token);
  const insight = sharing && store.insights.get(sharing.project_id, sharing.insight_id);
  const user = sharing && (store.users.get(sharing.created_by) ?? store.users.all()[0]);
  if (!sharing || !insight || !user) throw sharingFailed("Sharing access token is invalid.");
  const project = params.project_id === undefined ? undefined : projectOfPath(params.project_id, user, store);
  const sameInsight = params.id === String(insight.id) || params.id === insight.short_id;
  if (operationId !== "insights_retrieve" || project?.id !== sharing.project_id || !sameInsight) throw fail.forbidden("You do not have permission to perform this action.");
  return { user, project };
}

/** The capture endpoints' refusals of a project token (reference: ingestion §1.6). */
export const tokenFail = {
  missing: () =>
    new ApiError(401, {
      type: "authentication_error",
      code: "missing_api_key",
      detail: "API key not provided. You can find your project API key in PostHog project settings.",
      attr: null,
    }),
  unknown: () =>
    new ApiError(401, {
      type: "authentication_error",
      code: "invalid_api_key",
      detail: "Project API key invalid. You can find your project API key in PostHog project settings.",
      attr: null,
    }),
};

/** Token shape: trimmed, 1–64 ASCII characters, no NUL, never a personal key (`phx_`). */
const wellFormedToken = (token: string) => token.length <= 64 && /^[\x01-\x7f]+$/.test(token) && !token.startsWith("phx_");

/** The project of a capture payload's token (capture's own scheme): 401 without one, or for one that names no project. */
function authenticateProjectToken(token: string | undefined, store: Store): ProjectRecord {
  if (token === undefined) throw tokenFail.missing();
  const project = wellFormedToken(token) ? store.projects.byToken(token) : undefined;
  if (!project) throw tokenFail.unknown();
  return project;
}

/**
 * The project whose flag definitions a local evaluation poll asks for (capture's Bearer scheme): the `token`
 * names it, and the bearer key is a personal API key of a member or that project's secret key (`phs_…`);
 * without a token, the key's user's first project (as `@current`).
 */
function authenticateSecretOrPersonalKey(header: string | string[] | undefined, token: string | undefined, store: Store): ProjectRecord {
  const key = bearerToken(header);
  if (key === undefined) throw fail.notAuthenticated();
  const named = token === undefined ? undefined : store.projects.byToken(token);
  if (token !== undefined && !named) throw tokenFail.unknown();
  if (key.startsWith("phs_")) {
    const project = named ?? store.projects.all().find((p) => derivedProjectSecretKey(p.id) === key);
    if (!project || derivedProjectSecretKey(project.id) !== key) throw fail.badKey();
    return project;
  }
  const user = userOfKey(key, store);
  const project = named ?? store.projects.forUser(user.id)[0];
  if (!project) throw fail.notFound();
  return requireMember(project, user);
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The control API's caller: a loopback client, or anyone with the admin token the server was started with; else 403. */
function authenticateAdmin(adminTokenHeader: string | string[] | undefined, remoteAddress: string | undefined, adminToken: string | null): void {
  const token = Array.isArray(adminTokenHeader) ? adminTokenHeader[0] : adminTokenHeader;
  if (adminToken !== null && token !== undefined && sameToken(token, adminToken)) return;
  if (LOOPBACK.has(remoteAddress ?? "")) return;
  throw fail.forbidden("The control API answers loopback clients, or clients sending the X-Admin-Token the server was started with.");
}

type Header = string | string[] | undefined;

/** A request's credentials, by the scheme its operation declares (in one of the three documents). */
export type Credentials =
  /** openapi.yaml's PersonalAPIKey, with the path's `{project_id}` when it has one. */
  | { scheme: "personal_api_key"; authorization: Header; projectParam: string | undefined }
  /** capture.yaml's payload token (`api_key`/`token` of an event or a batch). */
  | { scheme: "project_token"; token: string | undefined }
  /** capture.yaml's Bearer (flag definitions): a project secret key `phs_…` or a member's personal API key; `token` names the project. */
  | { scheme: "secret_or_personal_key"; authorization: Header; token: string | undefined }
  /** control.yaml: loopback, or the `X-Admin-Token` the server was started with (`expected`). */
  | { scheme: "admin"; adminToken: Header; remoteAddress: string | undefined; expected: string | null };

interface Authenticated {
  personal_api_key: Caller;
  project_token: ProjectRecord;
  secret_or_personal_key: ProjectRecord;
  admin: null;
}

/**
 * The authenticate stage of every surface: who the credentials name (the caller, or the project), or the
 * refusal (401 `not_authenticated` / `authentication_failed` / `invalid_api_key`, 403, 404). Bearer headers
 * are read by one grammar (`bearerToken`).
 */
export function authenticate<C extends Credentials>(credentials: C, ...[store]: C["scheme"] extends "admin" ? [] : [Store]): Authenticated[C["scheme"]] {
  const c = credentials as Credentials;
  const found =
    c.scheme === "personal_api_key"
      ? authenticatePersonalKey(c.authorization, c.projectParam, store!)
      : c.scheme === "project_token"
        ? authenticateProjectToken(c.token, store!)
        : c.scheme === "secret_or_personal_key"
          ? authenticateSecretOrPersonalKey(c.authorization, c.token, store!)
          : authenticateAdmin(c.adminToken, c.remoteAddress, c.expected);
  return (found ?? null) as Authenticated[C["scheme"]];
}

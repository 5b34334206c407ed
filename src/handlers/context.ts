import { fail } from "../core/errors.ts";
import { bearerToken } from "../pipeline/authenticate.ts";
import { paginate } from "../http/pagination.ts";
import { reply, type ProjectlessHandler } from "./types.ts";
import type { Store } from "../store/store.ts";
import { stableUuid } from "../util/ids.ts";
import { organizationOf, projectJsonMeta, toProjectJson } from "./project-json.ts";

type Q = Record<string, unknown>;

/** `@current` or the organization's own uuid; anything else is no organization of the mock. */
function requireOrganization(store: Store, param: string) {
  const org = organizationOf(store.users.all());
  if (param !== "@current" && param.toLowerCase() !== org.id) throw fail.notFound(`Organization ${param} not found.`);
  return org;
}

const pageOf = (q: Q) => [Number(q.limit ?? 100), Number(q.offset ?? 0)] as const;

/** `phx_…abcd`-style: the first four and last four characters, never the key. */
const masked = (key: string) => `${key.slice(0, 4)}...${key.slice(-4)}`;



export const contextHandlers = {
  personal_api_keys_current: ({ c, caller }) => {
    const key = bearerToken(c.request.headers.authorization) ?? "";
    return reply(200, {
      id: stableUuid(`personal-api-key:${key}`).replace(/-/g, "").slice(0, 16),
      label: `analytics-mock key ${caller.user.personal_api_keys.indexOf(key) + 1}`,
      mask_value: masked(key),
      user_id: caller.user.id,
      created_at: null,
      last_used_at: null,
      scopes: ["*"],
      scoped_teams: [],
      scoped_organizations: [],
    });
  },

  users_me: ({ caller, deps }) => {
    const meta = { users: deps.store.users.all() };
    const org = organizationOf(meta.users);
    const first = deps.store.projects.forUser(caller.user.id)[0];
    const team = first ? toProjectJson(first, meta) : null;
    const u = caller.user;
    return reply(200, {
      id: u.id,
      uuid: u.uuid,
      distinct_id: u.distinct_id,
      first_name: u.first_name,
      email: u.email,
      is_email_verified: u.is_email_verified,
      organization: org,
      organizations: [{ id: org.id, name: org.name }],
      team: team && { id: team.id, uuid: team.uuid, organization: team.organization, name: team.name, api_token: team.api_token, timezone: team.timezone },
    });
  },

  /** No user of this server has two-factor authentication. */
  users_two_factor_status_retrieve: () => reply(200, { is_enabled: false, backup_codes: [], method: null }),

  /** No user of this server has set up the web app's hedgehog. */
  users_hedgehog_config_retrieve: () => reply(200, {}),

  organizations_list: ({ c, deps, url }) => {
    const [limit, offset] = pageOf(c.request.query as Q);
    return reply(200, paginate([organizationOf(deps.store.users.all())], url, limit, offset));
  },

  organizations_retrieve: ({ c, deps }) => reply(200, requireOrganization(deps.store, String((c.request.params as Q).organization_id))),

  organizations_projects_list: ({ c, caller, deps, url }) => {
    requireOrganization(deps.store, String((c.request.params as Q).organization_id));
    const [limit, offset] = pageOf(c.request.query as Q);
    const meta = projectJsonMeta(deps);
    return reply(200, paginate(deps.store.projects.forUser(caller.user.id).map((p) => toProjectJson(p, meta)), url, limit, offset));
  },

  /** RFC 7662: an unknown token is inactive, not an error. */
  oauth_introspect: ({ c, deps }) => {
    const token = String((c.request.requestBody as Q).token ?? "");
    if (!deps.store.users.byKey(token)) return reply(200, { active: false });
    return reply(200, { active: true, scope: "*", scoped_teams: [], scoped_organizations: [], client_id: null, client_name: null, token_type: "personal_api_key" });
  },
} satisfies Record<string, ProjectlessHandler>;

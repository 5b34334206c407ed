import type { ClientSettingsOverride } from "../store/project-settings.ts";
import type { ProjectRecord, UserRecord } from "../store/schema.ts";
import type { Deps } from "./types.ts";
import { clientSettingsJson } from "./project-settings.ts";
import { derivedProjectSecretKey, projectNumber, stableUuid } from "../util/ids.ts";

export { projectNumber };

/** The one organization of the mock: its uuid follows from the first user, so it stays with the data. */
export function organizationOf(users: readonly UserRecord[]) {
  const id = stableUuid(`organization:${users[0]?.uuid ?? "none"}`);
  return { id, name: "Default organization", slug: "default-organization", created_at: "2020-01-01T00:00:00Z", membership_level: 15 };
}

/** What every project answer needs besides the project: the users (for the organization) and the start-up override. */
export const projectJsonMeta = (deps: Pick<Deps, "store" | "config">) => ({
  users: deps.store.users.all(),
  settingsOverride: { sessionRecording: deps.config.sessionRecording ?? false },
});

export const toProjectJson = (p: ProjectRecord, meta: { users: readonly UserRecord[]; settingsOverride?: ClientSettingsOverride }) => ({
  id: projectNumber(p),
  uuid: stableUuid(`project:${p.id}`),
  name: p.name,
  organization: organizationOf(meta.users).id,
  api_token: p.api_token,
  secret_api_token: derivedProjectSecretKey(p.id),
  timezone: p.timezone,
  week_start_day: p.week_start_day,
  ...clientSettingsJson(p, meta.settingsOverride),
});

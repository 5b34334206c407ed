import type { Clock } from "../core/clock.ts";
import { derivedProjectToken } from "../util/ids.ts";
import { createCore } from "./core.ts";
import { DEFAULT_DELETION_SCHEDULE, type DeletionSchedule } from "./deletion-schedule.ts";
import { createEventsRepo } from "./events-repo.ts";
import { createAnnotationsRepo } from "./annotations-repo.ts";
import { createSharingRepo } from "./sharing-repo.ts";
import { createGroupsRepo } from "./groups-repo.ts";
import { createInsightsRepo } from "./insights-repo.ts";
import { openDatabases, writeAll, type Databases, type StoreFiles } from "./persistence.ts";
import { createPersonsRepo } from "./persons-repo.ts";
import { createFlagsRepo } from "./flags-repo.ts";
import { createActionsRepo } from "./actions-repo.ts";
import { createCohortsRepo } from "./cohorts-repo.ts";
import { createEarlyAccessRepo, createWebExperimentsRepo } from "./early-access-repo.ts";
import { createSurveysRepo } from "./surveys-repo.ts";
import { createRecordingsRepo } from "./recordings-repo.ts";
import type { ActivityRecord, GroupRecord, GroupTypeRecord, ProjectClientSettings, ProjectRecord, State, UserRecord } from "./schema.ts";

export { INSIGHT_WRITABLE, type InsightInput } from "./insights-repo.ts";

export interface StoreOptions {
  /** Write the whole state to the files at once (a state that did not come from them). */
  persist: boolean;
  deletionSchedule?: DeletionSchedule;
}

/** Opens the store over a state: files when given, memory otherwise. The only owner of lowdb. */
export async function createStore(state: State, clock: Clock, files: StoreFiles | null, opts: StoreOptions) {
  const store = createStoreOver(openDatabases(files, state), clock, opts.deletionSchedule ?? DEFAULT_DELETION_SCHEDULE);
  if (opts.persist) await store.flushAll();
  // A file that did not prove its log's history is written again with the new one, so that the next start can
  // (and the SQL mirror need not load everything again then); in the background: a start does not wait for it.
  else if (files && state.events.log.unwritten) store.rewriteEvents();
  return store;
}

function createStoreOver(dbs: Databases, clock: Clock, schedule: DeletionSchedule) {
  const core = createCore(dbs, clock);
  let rewriting: Promise<void> = Promise.resolve();
  const { meta } = core;
  const { insights, dashboards } = createInsightsRepo(core);
  const events = createEventsRepo(core);
  const cohorts = createCohortsRepo(core);
  const recordings = createRecordingsRepo(core);
  type GroupData = { types: GroupTypeRecord[]; groups: GroupRecord[] };
  const groupData = new Map<string, { version: number; data: GroupData }>();
  /** A project's group types and groups, one object per data version (analyses memoise their lookups on it). */
  const groupDataOf = (projectId: string): GroupData => {
    const known = groupData.get(projectId);
    if (known && known.version === core.version(projectId)) return known.data;
    const data = { types: meta().group_types.filter((t) => t.project_id === projectId), groups: meta().groups.filter((g) => g.project_id === projectId) };
    groupData.set(projectId, { version: core.version(projectId), data });
    return data;
  };
  return {
    users: {
      get: (id: number | null): UserRecord | undefined => (id === null ? undefined : meta().users.find((u) => u.id === id)),
      byKey: (key: string): UserRecord | undefined => meta().users.find((u) => u.personal_api_keys.includes(key)),
      all: (): readonly UserRecord[] => meta().users,
    },
    projects: {
      get: (id: string): ProjectRecord | undefined => meta().projects.find((p) => p.id === id),
      forUser: (userId: number): ProjectRecord[] => meta().projects.filter((p) => p.members === null || p.members.includes(userId)),
      /** The project a capture request's API token names. */
      byToken: (token: string): ProjectRecord | undefined => meta().projects.find((p) => p.api_token === token),
      all: (): readonly ProjectRecord[] => meta().projects,
      /** A new project with the next integer id and its own capture token, open to every user. */
      async create(input: { name: string; timezone?: string; week_start_day?: 0 | 1 }): Promise<ProjectRecord> {
        const next = 1 + Math.max(0, ...meta().projects.map((p) => (/^\d+$/.test(p.id) ? Number(p.id) : 0)));
        const id = String(next);
        const project: ProjectRecord = {
          id,
          name: input.name,
          timezone: input.timezone ?? "UTC",
          members: null,
          test_account_filters: [],
          week_start_day: input.week_start_day ?? 0,
          api_token: derivedProjectToken(id),
        };
        meta().projects.push(project);
        await dbs.meta.write();
        return project;
      },
      /** Changes settings in place; the project's data version moves, so analyses cached under the old settings are not served. */
      async update(id: string, changes: Partial<Pick<ProjectRecord, "name" | "timezone" | "week_start_day">> & ProjectClientSettings): Promise<ProjectRecord> {
        const project = meta().projects.find((p) => p.id === id)!;
        Object.assign(project, changes);
        core.bump(id);
        await dbs.meta.write();
        return project;
      },
    },
    groups: createGroupsRepo(core),
    dashboards,
    insights,
    flags: createFlagsRepo(core),
    surveys: createSurveysRepo(core),
    actions: createActionsRepo(core),
    annotations: createAnnotationsRepo(core),
    earlyAccess: createEarlyAccessRepo(core),
    webExperiments: createWebExperimentsRepo(core),
    sharing: createSharingRepo(core),
    cohorts,
    persons: createPersonsRepo(core, schedule),
    events,
    recordings,
    activity: {
      /** Entries of a scope, newest first; one item's entries when `itemId` is given. */
      list: (projectId: string, scope: ActivityRecord["scope"], itemId?: string): ActivityRecord[] =>
        dbs.activity.data.filter((a) => a.project_id === projectId && a.scope === scope && (itemId === undefined || a.item_id === itemId)).reverse(),
    },
    /** What analyses read, and the version that changes whenever it does (part of every analysis cache key). */
    analysisData: {
      events: events.of,
      index: core.indexOf,
      /** The project's actions that are not deleted. */
      actions: (projectId: string) => meta().actions.filter((a) => a.project_id === projectId && !a.deleted),
      /** Cohorts with their members (dynamic ones evaluated against the current persons). */
      cohorts: cohorts.resolved,
      groupTypes: (projectId: string) => meta().group_types.filter((t) => t.project_id === projectId),
      groups: (projectId: string) => meta().groups.filter((g) => g.project_id === projectId),
      groupData: groupDataOf,
      version: core.version,
      /** The log that numbers every change of the events (src/store/log.ts): what copies of them follow. */
      log: () => dbs.events.data.log,
    },
    /** Replaces the whole state (fixture reload, reset) and writes it. */
    async replace(state: State): Promise<void> {
      state.events.continueLog(dbs.events.data.log);
      dbs.meta.data = state.meta;
      dbs.persons.data = { persons: state.persons };
      dbs.events.data = state.events;
      dbs.activity.data = state.activity;
      dbs.recordings.data = state.recordings ?? [];
      recordings.reindex();
      core.reindex();
      cohorts.forgetResolved();
      for (const p of new Set([...core.versionedProjects(), ...state.meta.projects.map((p) => p.id)])) core.bump(p);
      await writeAll(dbs);
    },
    /** Changes whenever the state does (every change is written): what is derived from the state is keyed by it. */
    revision: () => dbs.revision(),
    snapshot: (): State => ({ meta: dbs.meta.data, persons: dbs.persons.data.persons, events: dbs.events.data, activity: dbs.activity.data }),
    flushAll: () => writeAll(dbs),
    /** Writes the events file again without waiting for it (a failure leaves the file as it was); `settled` waits. */
    rewriteEvents(): void {
      rewriting = dbs.events
        .write()
        .then(() => void (dbs.events.data.log.unwritten = false))
        .catch(() => undefined);
    },
    /** Resolves once a background rewrite of the events file is done. */
    settled: () => rewriting,
  };
}

export type Store = ReturnType<typeof createStoreOver>;

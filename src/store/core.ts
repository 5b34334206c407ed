import type { Clock } from "../core/clock.ts";
import { buildIndexes, indexOver, noIndex, type ProjectIndex } from "./indexes.ts";
import type { Databases } from "./persistence.ts";
import type { ActivityRecord, MetaData } from "./schema.ts";

/** What every repository shares: the databases, the clock, the indexes and the data versions. */
export function createCore(dbs: Databases, clock: Clock) {
  let indexes = buildIndexes(dbs.persons.data.persons, dbs.events.data);
  const versions = new Map<string, number>();
  return {
    dbs,
    clock,
    meta: (): MetaData => dbs.meta.data,
    nowIso: () => new Date(clock.now()).toISOString(),
    indexOf: (projectId: string): ProjectIndex => indexes.get(projectId) ?? noIndex(projectId),
    /** The project's index, created (and kept) for a project that had no data yet: for writes. */
    indexFor: (projectId: string): ProjectIndex => {
      let index = indexes.get(projectId);
      if (!index) indexes.set(projectId, (index = indexOver(dbs.events.data, projectId)));
      return index;
    },
    reindex: () => {
      indexes = buildIndexes(dbs.persons.data.persons, dbs.events.data);
    },
    /** Marks a project's analysed data (persons, events) as changed: cached analyses of it become stale. */
    bump: (projectId: string) => versions.set(projectId, (versions.get(projectId) ?? 0) + 1),
    version: (projectId: string) => versions.get(projectId) ?? 0,
    versionedProjects: () => [...versions.keys()],
    async logActivity(entries: readonly ActivityRecord[]) {
      if (!entries.length) return;
      dbs.activity.data.push(...entries);
      await dbs.appendActivity(entries);
    },
  };
}

export type StoreCore = ReturnType<typeof createCore>;

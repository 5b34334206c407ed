import type { StoreCore } from "./core.ts";
import type { GroupRecord, GroupTypeRecord, Properties } from "./schema.ts";

/** Group types have indexes 0–4: a project has at most five (reference: analytics §1.1). */
export const MAX_GROUP_TYPES = 5;

/** Group types and groups (group analytics); kept in the main store file. */
export function createGroupsRepo(core: StoreCore) {
  const { dbs, meta, nowIso } = core;
  const typesOf = (projectId: string) => meta().group_types.filter((t) => t.project_id === projectId);

  return {
    /** A project's group types, by index. */
    types: (projectId: string): GroupTypeRecord[] => typesOf(projectId).sort((a, b) => a.group_type_index - b.group_type_index),
    /** The index of a group type name, or undefined when the project has no such type. */
    indexOf: (projectId: string, groupType: string): number | undefined => typesOf(projectId).find((t) => t.group_type === groupType)?.group_type_index,
    list: (projectId: string, groupTypeIndex?: number): GroupRecord[] =>
      meta().groups.filter((g) => g.project_id === projectId && (groupTypeIndex === undefined || g.group_type_index === groupTypeIndex)),
    get: (projectId: string, groupTypeIndex: number, groupKey: string): GroupRecord | undefined =>
      meta().groups.find((g) => g.project_id === projectId && g.group_type_index === groupTypeIndex && g.group_key === groupKey),

    /**
     * The index of `groupType`, giving an unknown name the next free index as the real service's ingestion
     * does; undefined once all five are taken (the mapping is then ignored, never an error).
     */
    async ensureType(projectId: string, groupType: string): Promise<number | undefined> {
      const existing = typesOf(projectId);
      const known = existing.find((t) => t.group_type === groupType);
      if (known) return known.group_type_index;
      const used = new Set(existing.map((t) => t.group_type_index));
      const free = [...Array(MAX_GROUP_TYPES).keys()].find((i) => !used.has(i));
      if (free === undefined) return undefined;
      meta().group_types.push({ project_id: projectId, group_type_index: free, group_type: groupType, name_singular: null, name_plural: null });
      core.bump(projectId);
      await dbs.meta.write();
      return free;
    },

    /** Sets the names given for existing types (all checked by the caller first), in one write. */
    async renameTypes(projectId: string, names: readonly (Pick<GroupTypeRecord, "group_type_index"> & Partial<Pick<GroupTypeRecord, "name_singular" | "name_plural">>)[]): Promise<void> {
      for (const { group_type_index, ...given } of names) {
        const type = typesOf(projectId).find((t) => t.group_type_index === group_type_index);
        if (type) Object.assign(type, given);
      }
      await dbs.meta.write();
    },

    /** Creates the group or merges `properties` into it (`$groupidentify` sets them, as `$set` does for persons). */
    async upsert(projectId: string, groupTypeIndex: number, groupKey: string, properties: Properties, createdAt = nowIso()): Promise<GroupRecord> {
      let group = meta().groups.find((g) => g.project_id === projectId && g.group_type_index === groupTypeIndex && g.group_key === groupKey);
      if (group) group.properties = { ...group.properties, ...properties };
      else {
        group = { project_id: projectId, group_type_index: groupTypeIndex, group_key: groupKey, properties: { ...properties }, created_at: createdAt };
        meta().groups.push(group);
      }
      core.bump(projectId);
      await dbs.meta.write();
      return group;
    },
  };
}

export type GroupsRepo = ReturnType<typeof createGroupsRepo>;

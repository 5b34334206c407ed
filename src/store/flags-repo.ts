import type { StoreCore } from "./core.ts";
import type { FeatureFlagRecord, FlagHashKeyOverrideRecord, Properties } from "./schema.ts";

/** Fields a client may write on a flag; the rest (id, version, creator, times) are the server's. */
export const FLAG_WRITABLE = ["key", "name", "filters", "active", "deleted", "ensure_experience_continuity", "tags"] as const;
export type FlagInput = Partial<Pick<FeatureFlagRecord, (typeof FLAG_WRITABLE)[number]>>;

/** Feature flags and the hash key overrides of experience continuity; kept in the main store file. */
export function createFlagsRepo(core: StoreCore) {
  const { dbs, meta, nowIso } = core;
  const live = (f: FeatureFlagRecord, includeDeleted: boolean) => includeDeleted || !f.deleted;
  // Overrides by project and person, rebuilt when the list changes (every flags request of a continuity flag reads it).
  let indexed: { list: FlagHashKeyOverrideRecord[]; length: number; byPerson: Map<string, Map<string, string>> } | null = null;
  const overridesByPerson = () => {
    const list = meta().flag_hash_key_overrides;
    if (indexed?.list !== list || indexed.length !== list.length) {
      const byPerson = new Map<string, Map<string, string>>();
      for (const o of list) {
        const person = `${o.project_id}\u0000${o.person_uuid}`;
        (byPerson.get(person) ?? byPerson.set(person, new Map()).get(person)!).set(o.feature_flag_key, o.hash_key);
      }
      indexed = { list, length: list.length, byPerson };
    }
    return indexed.byPerson;
  };

  return {
    /** A project's flags, newest first (the real list's default order); deleted ones only when asked. */
    list: (projectId: string, opts: { includeDeleted?: boolean } = {}): FeatureFlagRecord[] =>
      meta()
        .feature_flags.filter((f) => f.project_id === projectId && live(f, opts.includeDeleted ?? false))
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id),
    get: (projectId: string, id: number, opts: { includeDeleted?: boolean } = {}): FeatureFlagRecord | undefined =>
      meta().feature_flags.find((f) => f.id === id && f.project_id === projectId && live(f, opts.includeDeleted ?? false)),
    /** The live flag with this key (a key names one live flag per project). */
    byKey: (projectId: string, key: string): FeatureFlagRecord | undefined =>
      meta().feature_flags.find((f) => f.key === key && f.project_id === projectId && !f.deleted),

    async create(projectId: string, input: FlagInput & { key: string; filters: Properties }, userId: number | null): Promise<FeatureFlagRecord> {
      const now = nowIso();
      // A deleted flag with the same key is dropped, as the real service drops it before creating.
      meta().feature_flags = meta().feature_flags.filter((f) => !(f.project_id === projectId && f.key === input.key && f.deleted));
      const counters = meta().counters;
      const flag: FeatureFlagRecord = {
        id: (counters.feature_flag = (counters.feature_flag ?? 0) + 1),
        project_id: projectId,
        key: input.key,
        name: input.name ?? "",
        filters: input.filters,
        active: input.active ?? true,
        deleted: input.deleted ?? false,
        ensure_experience_continuity: input.ensure_experience_continuity ?? false,
        version: 1,
        tags: input.tags ?? [],
        created_by: userId,
        created_at: now,
        updated_at: now,
        last_modified_by: userId,
      };
      meta().feature_flags.push(flag);
      await dbs.meta.write();
      return flag;
    },

    /** Applies the written fields; every update raises the version by one. */
    async update(flag: FeatureFlagRecord, input: FlagInput, userId: number | null): Promise<FeatureFlagRecord> {
      Object.assign(flag, input, { version: flag.version + 1, updated_at: nowIso(), last_modified_by: userId });
      await dbs.meta.write();
      return flag;
    },

    /** The person's hash key per continuity flag key. */
    hashKeyOverrides(projectId: string, personUuid: string): Map<string, string> {
      return new Map(overridesByPerson().get(`${projectId}\u0000${personUuid}`));
    },

    /** Records hash keys for flags the person has none for yet (a first override is never replaced). */
    async addHashKeyOverrides(projectId: string, personUuid: string, flagKeys: readonly string[], hashKey: string): Promise<void> {
      const known = this.hashKeyOverrides(projectId, personUuid);
      const added: FlagHashKeyOverrideRecord[] = flagKeys
        .filter((key) => !known.has(key))
        .map((key) => ({ project_id: projectId, person_uuid: personUuid, feature_flag_key: key, hash_key: hashKey }));
      if (!added.length) return;
      meta().flag_hash_key_overrides.push(...added);
      await dbs.meta.write();
    },

    /** A merge moves the merged person's overrides to the person it merged into, keeping the target's own. */
    async moveHashKeyOverrides(projectId: string, fromUuid: string, toUuid: string): Promise<void> {
      const target = this.hashKeyOverrides(projectId, toUuid);
      const overrides = meta().flag_hash_key_overrides;
      let changed = false;
      meta().flag_hash_key_overrides = overrides.filter((o) => {
        if (o.project_id !== projectId || o.person_uuid !== fromUuid) return true;
        changed = true;
        if (target.has(o.feature_flag_key)) return false;
        o.person_uuid = toUuid;
        return true;
      });
      indexed = null;
      if (changed) await dbs.meta.write();
    },
  };
}

export type FlagsRepo = ReturnType<typeof createFlagsRepo>;

import type { StoreCore } from "./core.ts";
import type { EarlyAccessFeatureRecord, WebExperimentRecord } from "./schema.ts";

/** Early access features; kept in the main store file, deleted for good (the real API's destroy is a hard delete). */
export function createEarlyAccessRepo(core: StoreCore) {
  const { meta, dbs } = core;
  const all = (): EarlyAccessFeatureRecord[] => meta().early_access_features ?? [];
  return {
    /** The project's features in the order they were made (the real queryset has no ordering). */
    list: (projectId: string): EarlyAccessFeatureRecord[] => all().filter((f) => f.project_id === projectId),
    get: (projectId: string, id: string): EarlyAccessFeatureRecord | undefined => all().find((f) => f.id === id && f.project_id === projectId),
    /** The feature a flag is linked to (a flag carries at most one). */
    byFlag: (flagId: number): EarlyAccessFeatureRecord | undefined => all().find((f) => f.feature_flag_id === flagId),

    async create(feature: EarlyAccessFeatureRecord): Promise<EarlyAccessFeatureRecord> {
      meta().early_access_features = [...all(), feature];
      await dbs.meta.write();
      return feature;
    },
    async update(feature: EarlyAccessFeatureRecord, changes: Partial<EarlyAccessFeatureRecord>): Promise<EarlyAccessFeatureRecord> {
      Object.assign(feature, changes);
      await dbs.meta.write();
      return feature;
    },
    async remove(feature: EarlyAccessFeatureRecord): Promise<void> {
      meta().early_access_features = all().filter((f) => f !== feature);
      await dbs.meta.write();
    },
  };
}

/** Web experiments; kept in the main store file, deleted for good (the real API's destroy is a hard delete). */
export function createWebExperimentsRepo(core: StoreCore) {
  const { meta, dbs, nowIso } = core;
  const all = (): WebExperimentRecord[] => meta().web_experiments ?? [];
  return {
    /** Newest first (the real queryset orders by `-created_at`). */
    list: (projectId: string): WebExperimentRecord[] =>
      all()
        .filter((e) => e.project_id === projectId)
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id),
    get: (projectId: string, id: number): WebExperimentRecord | undefined => all().find((e) => e.id === id && e.project_id === projectId),

    async create(input: Omit<WebExperimentRecord, "id" | "created_at">): Promise<WebExperimentRecord> {
      const counters = meta().counters;
      const experiment: WebExperimentRecord = { ...input, id: (counters.web_experiment ?? 0) + 1, created_at: nowIso() };
      counters.web_experiment = experiment.id;
      meta().web_experiments = [...all(), experiment];
      await dbs.meta.write();
      return experiment;
    },
    async update(experiment: WebExperimentRecord, changes: Partial<Pick<WebExperimentRecord, "name" | "variants">>): Promise<WebExperimentRecord> {
      Object.assign(experiment, changes);
      await dbs.meta.write();
      return experiment;
    },
    async remove(experiment: WebExperimentRecord): Promise<void> {
      meta().web_experiments = all().filter((e) => e !== experiment);
      await dbs.meta.write();
    },
  };
}

import { randomBytes } from "node:crypto";
import type { StoreCore } from "./core.ts";
import type { SharingConfigurationRecord } from "./schema.ts";

/** A fresh token as the real service makes one (`secrets.token_urlsafe(22)`: 30 URL-safe characters). */
export const newAccessToken = (): string => randomBytes(22).toString("base64url");

export type SharingInput = Partial<Pick<SharingConfigurationRecord, "enabled" | "settings" | "access_token">>;

/** Insights' sharing configurations; kept in the main store file. */
export function createSharingRepo(core: StoreCore) {
  const { meta, dbs, nowIso } = core;
  const find = (projectId: string, insightId: number) => meta().sharing_configurations?.find((s) => s.project_id === projectId && s.insight_id === insightId);

  return {
    forInsight: find,
    /** The enabled configuration a token opens, if any. */
    byToken: (token: string): SharingConfigurationRecord | undefined => meta().sharing_configurations?.find((s) => s.enabled && s.access_token === token),

    /**
     * Writes the given fields in one assignment. The first write stores the configuration, with the token the
     * caller was shown when nothing was stored yet (`access_token` in `input`).
     */
    async write(projectId: string, insightId: number, input: SharingInput, userId: number): Promise<SharingConfigurationRecord> {
      const stored = find(projectId, insightId);
      const base: SharingConfigurationRecord = stored ?? { project_id: projectId, insight_id: insightId, enabled: false, access_token: newAccessToken(), settings: null, created_at: nowIso(), created_by: userId };
      const next: SharingConfigurationRecord = { ...base, ...input, created_by: input.enabled ? userId : base.created_by };
      if (stored) Object.assign(stored, next);
      else (meta().sharing_configurations ??= []).push(next);
      await dbs.meta.write();
      return stored ?? next;
    },
  };
}

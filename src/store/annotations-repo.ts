import type { StoreCore } from "./core.ts";
import type { AnnotationRecord } from "./schema.ts";

/** Fields a client may write on an annotation (the real serializer's writable fields). */
export const ANNOTATION_WRITABLE = ["content", "date_marker", "creation_type", "dashboard_item", "dashboard_id", "scope", "deleted"] as const;
export type AnnotationInput = Partial<Pick<AnnotationRecord, (typeof ANNOTATION_WRITABLE)[number]>>;

/** Annotations; kept in the main store file. */
export function createAnnotationsRepo(core: StoreCore) {
  const { meta, dbs, nowIso } = core;
  /** A project sees its own annotations and the organization-wide ones of every project (one organization here). */
  const visibleIn = (projectId: string) => (a: AnnotationRecord) => a.project_id === projectId || a.scope === "organization";

  return {
    /** The annotations visible in the project that are not deleted, in stored order. */
    list: (projectId: string): AnnotationRecord[] => meta().annotations.filter((a) => !a.deleted && visibleIn(projectId)(a)),
    get: (projectId: string, id: number, opts: { includeDeleted?: boolean } = {}): AnnotationRecord | undefined =>
      meta().annotations.find((a) => a.id === id && (opts.includeDeleted || !a.deleted) && visibleIn(projectId)(a)),

    async create(projectId: string, input: AnnotationInput, userId: number): Promise<AnnotationRecord> {
      const now = nowIso();
      const annotation: AnnotationRecord = {
        id: (meta().counters.annotation ?? 0) + 1,
        project_id: projectId,
        content: input.content ?? null,
        date_marker: input.date_marker ?? null,
        creation_type: input.creation_type ?? "USR",
        dashboard_item: input.dashboard_item ?? null,
        dashboard_id: input.dashboard_id ?? null,
        scope: input.scope ?? "dashboard_item",
        deleted: input.deleted ?? false,
        created_by: userId,
        created_at: now,
        updated_at: now,
      };
      meta().counters.annotation = annotation.id;
      meta().annotations.push(annotation);
      await dbs.meta.write();
      return annotation;
    },

    /** Applies the written fields in one assignment; `deleted: false` restores a soft-deleted annotation. */
    async update(annotation: AnnotationRecord, input: AnnotationInput): Promise<AnnotationRecord> {
      Object.assign(annotation, input, { updated_at: nowIso() });
      await dbs.meta.write();
      return annotation;
    },
  };
}

export type AnnotationsRepo = ReturnType<typeof createAnnotationsRepo>;

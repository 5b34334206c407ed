import { randomUUID } from "node:crypto";
import type { FixtureAction } from "./fixture-document.ts";
import type { StoreCore } from "./core.ts";
import type { ActionRecord, ActionStep, ActivityChange, ActivityRecord } from "./schema.ts";

/** Fields a client may write on an action (the real service's serializer, less its read-only fields). */
export const ACTION_WRITABLE = ["name", "description", "tags", "post_to_slack", "slack_message_format", "steps", "deleted", "pinned_at"] as const;
export type ActionInput = Partial<Pick<Required<ActionRecord>, (typeof ACTION_WRITABLE)[number]>>;

/** An action of a fixture document (or the generated dataset) with the fields fixtures cannot carry, created `nowIso`. */
export function actionFromFixture(a: FixtureAction | Pick<ActionRecord, "project_id" | "id" | "name" | "steps">, nowIso: string): ActionRecord {
  return {
    ...a,
    steps: a.steps.map((s) => ({ ...s })),
    description: "",
    tags: [],
    post_to_slack: false,
    slack_message_format: "",
    created_at: nowIso,
    created_by: null,
    deleted: false,
    last_calculated_at: nowIso,
    pinned_at: null,
  };
}

export function createActionsRepo(core: StoreCore) {
  const { meta, nowIso, dbs } = core;
  const live = (a: ActionRecord, projectId: string, includeDeleted: boolean) => a.project_id === projectId && (includeDeleted || !a.deleted);

  const activity = (action: ActionRecord, kind: string, userId: number | null, changes: ActivityChange[] | null): ActivityRecord => ({
    id: randomUUID(),
    project_id: action.project_id,
    scope: "Action",
    item_id: String(action.id),
    activity: kind,
    user_id: userId,
    detail: { name: action.name, short_id: null, changes, trigger: null, type: null },
    created_at: nowIso(),
  });

  /** Writes the change; analyses of the project are recomputed, since they may match with this action. */
  async function commit(action: ActionRecord, entry: ActivityRecord | null) {
    core.bump(action.project_id);
    await Promise.all([dbs.meta.write(), core.logActivity(entry ? [entry] : [])]);
  }

  return {
    /** The project's actions (deleted ones only when asked), in stored order. */
    list: (projectId: string, opts: { includeDeleted?: boolean } = {}): ActionRecord[] => meta().actions.filter((a) => live(a, projectId, opts.includeDeleted ?? false)),
    get: (projectId: string, id: number, opts: { includeDeleted?: boolean } = {}): ActionRecord | undefined =>
      meta().actions.find((a) => a.id === id && live(a, projectId, opts.includeDeleted ?? false)),

    /** A new action; ids are unique across projects, as the real service's are (deleted actions keep theirs). */
    async create(projectId: string, input: ActionInput & { name: string }, userId: number): Promise<ActionRecord> {
      const now = nowIso();
      const action: ActionRecord = {
        project_id: projectId,
        id: 1 + Math.max(0, ...meta().actions.map((a) => a.id)),
        name: input.name,
        steps: input.steps ?? [],
        description: input.description ?? "",
        tags: input.tags ?? [],
        post_to_slack: input.post_to_slack ?? false,
        slack_message_format: input.slack_message_format ?? "",
        created_at: now,
        created_by: userId,
        deleted: input.deleted ?? false,
        last_calculated_at: now,
        pinned_at: input.pinned_at ?? null,
      };
      meta().actions.push(action);
      await commit(action, activity(action, "created", userId, null));
      return action;
    },

    /** Applies the sent writable fields; logs each changed field's before/after; new steps restart the calculation time. */
    async update(action: ActionRecord, input: ActionInput, userId: number): Promise<ActionRecord> {
      const changes: ActivityChange[] = [];
      const record = action as unknown as Record<string, unknown>;
      for (const field of ACTION_WRITABLE) {
        if (!(field in input)) continue;
        const after = input[field];
        if (JSON.stringify(record[field] ?? null) === JSON.stringify(after ?? null)) continue;
        changes.push({ type: "Action", action: "changed", field, before: record[field], after });
        record[field] = field === "steps" ? (after as ActionStep[]).map((s) => ({ ...s })) : after;
      }
      if (changes.some((c) => c.field === "steps")) action.last_calculated_at = nowIso();
      const deletedChange = changes.find((c) => c.field === "deleted");
      const kind = deletedChange ? (action.deleted ? "deleted" : "restored") : "updated";
      await commit(action, changes.length ? activity(action, kind, userId, changes) : null);
      return action;
    },
  };
}

import { randomUUID } from "node:crypto";
import type { ActivityChange, ActivityRecord } from "./schema.ts";

/** One activity log entry, as the insights', persons' and dashboards' writes record them. */
export function activityEntry(
  item: { scope: ActivityRecord["scope"]; project_id: string; id: number | string; name: string | null; short_id: string | null },
  kind: string,
  userId: number | null,
  changes: ActivityChange[] | null,
  now: string,
): ActivityRecord {
  return {
    id: randomUUID(),
    project_id: item.project_id,
    scope: item.scope,
    item_id: String(item.id),
    activity: kind,
    user_id: userId,
    detail: { name: item.name, short_id: item.short_id, changes, trigger: null, type: null },
    created_at: now,
  };
}

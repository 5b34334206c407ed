import type { UserRecord } from "../store/schema.ts";

/** The user object of created_by / last_modified_by (spec: Insight, User object). */
export const toUserJson = (u: UserRecord | undefined) =>
  u ? { id: u.id, uuid: u.uuid, distinct_id: u.distinct_id, first_name: u.first_name, email: u.email, is_email_verified: u.is_email_verified } : null;

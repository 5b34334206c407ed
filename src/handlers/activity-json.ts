import type { Store } from "../store/store.ts";
import type { ActivityRecord } from "../store/schema.ts";

const withPage = (url: URL, page: number) => {
  const u = new URL(url);
  u.searchParams.set("page", String(page));
  return u.toString();
};

/** An activity log page as the real service writes it: `limit` per page, 1-based `page`, links by page (reference §9.1, §4.7). */
export function activityPage(entries: readonly ActivityRecord[], store: Store, url: URL, limit: number, page: number) {
  const start = (page - 1) * limit;
  return {
    results: entries.slice(start, start + limit).map((a) => {
      const user = store.users.get(a.user_id);
      return {
        id: a.id,
        user: user ? { first_name: user.first_name, email: user.email } : null,
        activity: a.activity,
        scope: a.scope,
        item_id: a.item_id,
        detail: a.detail,
        created_at: a.created_at,
      };
    }),
    next: start + limit < entries.length ? withPage(url, page + 1) : null,
    previous: page > 1 ? withPage(url, page - 1) : null,
    total_count: entries.length,
  };
}

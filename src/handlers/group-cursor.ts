import type { GroupRecord } from "../store/schema.ts";

/** Groups per page (the real service's GroupCursorPagination). */
export const GROUPS_PAGE_SIZE = 100;

/** Newest first, ties by key: a total order, so a cursor names a place that survives inserts and deletes. */
const byPageOrder = (a: Pick<GroupRecord, "created_at" | "group_key">, b: Pick<GroupRecord, "created_at" | "group_key">) =>
  b.created_at.localeCompare(a.created_at) || (a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0);

/** A place in the order: after (or, `before`, ahead of) the group with this creation time and key. */
interface Cursor {
  created_at: string;
  group_key: string;
  before: boolean;
}

const encode = (c: Cursor) => Buffer.from(JSON.stringify([c.created_at, c.group_key, c.before ? 1 : 0])).toString("base64url");

function decode(text: string): Cursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 3) return undefined;
    const [created_at, group_key, before] = value as unknown[];
    if (typeof created_at !== "string" || typeof group_key !== "string" || (before !== 0 && before !== 1)) return undefined;
    return { created_at, group_key, before: before === 1 };
  } catch {
    return undefined;
  }
}

export interface GroupPage {
  items: GroupRecord[];
  hasPrevious: boolean;
  hasNext: boolean;
}

/** The page a cursor names (the first without one); undefined when the cursor does not decode. */
export function pageOf(groups: readonly GroupRecord[], cursorText: string | undefined): GroupPage | undefined {
  const sorted = [...groups].sort(byPageOrder);
  const cursor = cursorText === undefined ? undefined : decode(cursorText);
  if (cursorText !== undefined && !cursor) return undefined;
  let start = 0;
  let end = Math.min(sorted.length, GROUPS_PAGE_SIZE);
  if (cursor) {
    const firstAfter = sorted.findIndex((g) => byPageOrder(g, cursor) > 0);
    const firstAtOrAfter = sorted.findIndex((g) => byPageOrder(g, cursor) >= 0);
    if (cursor.before) {
      end = firstAtOrAfter === -1 ? sorted.length : firstAtOrAfter;
      start = Math.max(0, end - GROUPS_PAGE_SIZE);
    } else {
      start = firstAfter === -1 ? sorted.length : firstAfter;
      end = Math.min(sorted.length, start + GROUPS_PAGE_SIZE);
    }
  }
  return { items: sorted.slice(start, end), hasPrevious: start > 0, hasNext: end < sorted.length };
}

/** `next` and `previous` as absolute URLs keeping the other query parameters. */
export function nextPage(page: GroupPage, url: URL): { next: string | null; previous: string | null } {
  const link = (c: Cursor) => {
    const u = new URL(url);
    u.searchParams.set("cursor", encode(c));
    return u.toString();
  };
  const first = page.items[0];
  const last = page.items.at(-1);
  return {
    next: page.hasNext && last ? link({ created_at: last.created_at, group_key: last.group_key, before: false }) : null,
    previous: page.hasPrevious && first ? link({ created_at: first.created_at, group_key: first.group_key, before: true }) : null,
  };
}

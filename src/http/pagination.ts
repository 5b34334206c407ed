/** A page of a list: limit/offset as the spec says, links as absolute URLs that keep the other query parameters. */
export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

const withOffset = (url: URL, offset: number): string => {
  const u = new URL(url);
  u.searchParams.set("offset", String(offset));
  return u.toString();
};

/**
 * Slices `items` and links the neighbours. `next` only when something follows (the real service also links
 * past an exactly-full last page; we do not); `previous` writes offset=0 explicitly instead of repeating the
 * current URL (a quirk of the real service, reference: ingestion-persons-events §4.1).
 */
export function paginate<T>(items: readonly T[], url: URL, limit: number, offset: number): Page<T> {
  const results = items.slice(offset, offset + limit);
  return {
    count: items.length,
    next: offset + limit < items.length ? withOffset(url, offset + limit) : null,
    previous: offset > 0 ? withOffset(url, Math.max(0, Math.min(offset - limit, items.length - 1))) : null,
    results,
  };
}

import { paginate, type Page } from "../http/pagination.ts";
import type { HandlerArgs } from "./types.ts";

/** A list's page size when the request gives no `limit` (the real service's default page size). */
const DEFAULT_LIMIT = 100;

/** The page of `items` a list request's `limit` and `offset` ask for, linked to its neighbours. */
export function listPage<T>(args: Pick<HandlerArgs, "c" | "url">, items: readonly T[]): Page<T> {
  const q = args.c.request.query as { limit?: unknown; offset?: unknown };
  return paginate(items, args.url, Number(q.limit ?? DEFAULT_LIMIT), Number(q.offset ?? 0));
}

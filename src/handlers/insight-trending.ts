import type { InsightViewRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { toInsightBasicJson } from "./insight-json.ts";
import { toUserJson } from "./user-json.ts";

const DAY_MS = 86_400_000;

export interface TrendingWindow {
  days: number;
  limit: number;
  offset: number;
}

/**
 * Insights viewed in the last `days` days, most viewers first, then most recently viewed, then newest id.
 * The store keeps each user's latest view of an insight (as the real service's InsightViewed), so a view
 * count is a count of users.
 */
export function trendingInsights(projectId: string, store: Store, now: number, window: TrendingWindow) {
  const since = now - window.days * DAY_MS;
  const byInsight = new Map<number, InsightViewRecord[]>();
  for (const view of store.insights.views(projectId)) {
    const at = Date.parse(view.viewed_at);
    if (at < since || at > now) continue;
    const views = byInsight.get(view.insight_id);
    if (views) views.push(view);
    else byInsight.set(view.insight_id, [view]);
  }
  const rows = [...byInsight].flatMap(([id, views]) => {
    const insight = store.insights.get(projectId, id);
    if (!insight) return [];
    const newestFirst = [...views].sort((a, b) => b.viewed_at.localeCompare(a.viewed_at));
    return [{ insight, views: newestFirst, last: newestFirst[0]!.viewed_at }];
  });
  rows.sort((a, b) => b.views.length - a.views.length || b.last.localeCompare(a.last) || b.insight.id - a.insight.id);
  return rows.slice(window.offset, window.offset + window.limit).map(({ insight, views, last }) => ({
    ...toInsightBasicJson(insight, store),
    last_viewed_at: last,
    view_count: views.length,
    viewers: views.flatMap((v) => {
      const user = toUserJson(store.users.get(v.user_id));
      return user ? [user] : [];
    }),
  }));
}

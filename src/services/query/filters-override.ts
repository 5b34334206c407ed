import { isObject, type Loose } from "../../analyses/shared/filter-read.ts";

/**
 * The query API's `filters_override` (a DashboardFilter) on the SQL kinds, as the real service's runners apply it
 * (HogQLQueryRunner and EventsQueryRunner.apply_dashboard_filters): a HogQL query's `filters` take the date range
 * and gain the properties; an events query's `after`/`before` take the range. Insight
 * kinds apply it to their legacy filter (applyDashboardFilter); other kinds are left as they are.
 */
export function withFiltersOverride(node: Loose, override: Loose | null | undefined): Loose {
  if (!isObject(override)) return node;
  const properties = Array.isArray(override.properties) ? override.properties : [];
  const hasRange = Boolean(override.date_from || override.date_to);
  if (node.kind === "HogQLQuery") {
    const filters: Loose = isObject(node.filters) ? { ...node.filters } : {};
    if (hasRange) filters.dateRange = { ...(isObject(filters.dateRange) ? filters.dateRange : {}), date_from: override.date_from ?? null, date_to: override.date_to ?? null };
    if (properties.length) filters.properties = [...(Array.isArray(filters.properties) ? filters.properties : []), ...properties];
    return { ...node, filters };
  }
  // An events query here takes no property filters (its `where` is HogQL): only the range applies.
  if (node.kind === "EventsQuery" && hasRange) return { ...node, after: override.date_from ?? null, before: override.date_to ?? null };
  return node;
}

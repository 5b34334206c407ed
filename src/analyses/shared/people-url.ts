/**
 * Legacy persons URLs (reference: analytics §5.5, §7.3; ingestion-persons-events §4.9): the insight's filter as
 * query parameters, lists and objects JSON-encoded, followed by the data point. Following one lists the actors
 * behind that number.
 */
import type { AnalysisContext, PersonsEndpoint } from "./context.ts";

export const paramValue = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/** The filter's keys as query parameters of `endpoint`, without the keys it does not declare or `point` sets. */
export function filterParams(ctx: Pick<AnalysisContext, "personsQueryKeys">, endpoint: PersonsEndpoint, filter: Record<string, unknown>, skip: (key: string) => boolean): URLSearchParams {
  const declared = ctx.personsQueryKeys?.(endpoint);
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined || value === null || skip(key) || (declared && !declared.has(key))) continue;
    params.append(key, paramValue(value));
  }
  return params;
}

export function peopleUrl(ctx: Pick<AnalysisContext, "projectId" | "personsQueryKeys">, endpoint: PersonsEndpoint, filter: Record<string, unknown>, point: Record<string, unknown>): string {
  const params = filterParams(ctx, endpoint, filter, (key) => key in point);
  for (const [key, value] of Object.entries(point)) if (value !== undefined && value !== null) params.append(key, paramValue(value));
  return `/api/projects/${ctx.projectId}/persons/${endpoint}/?${params.toString()}`;
}

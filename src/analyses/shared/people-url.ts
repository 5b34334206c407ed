/**
 * Legacy persons URLs (reference: analytics §5.5, §7.3; ingestion-persons-events §4.9): the insight's filter as
 * query parameters, lists and objects JSON-encoded, followed by the data point. Following one lists the actors
 * behind that number.
 */
export const paramValue = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

export function peopleUrl(projectId: string, endpoint: string, filter: Record<string, unknown>, point: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined || value === null || key in point) continue;
    params.append(key, paramValue(value));
  }
  for (const [key, value] of Object.entries(point)) if (value !== undefined && value !== null) params.append(key, paramValue(value));
  return `/api/projects/${projectId}/persons/${endpoint}/?${params.toString()}`;
}

/** What the funnel ports share: a funnel asked through both doors, and its step counts. */
import { expect } from "vitest";
import { filtersToQuery } from "../../src/analyses/filter-to-query.ts";
import type { Reference } from "./support.ts";

export type Filter = Record<string, unknown>;

/** Each step's count, at any depth (a breakdown funnel is a list of step lists). */
export const countsOf = (result: unknown): unknown => (Array.isArray(result) ? result.map(countsOf) : (result as { count: number }).count);

/**
 * The funnel of a legacy filter, through the query API (filter_to_query, as the PostHog test) and the legacy endpoint;
 * both must agree. `legacy: false` where the filter uses a shape our legacy endpoint's document does not take (an
 * entity's properties as an object, precalculated/static cohort filter types): the query path alone is compared.
 */
export async function funnel(ref: Reference, filter: Filter, { legacy: viaLegacy = true } = {}): Promise<any> {
  const full = { insight: "FUNNELS", ...filter };
  const node = (filtersToQuery(full) as { source: Record<string, unknown> }).source;
  const { results } = await ref.query(node);
  if (!viaLegacy) return results;
  const legacy = await ref.legacy("POST", "insights/funnel", full);
  expect(legacy.status, legacy.text).toBe(200);
  expect(countsOf(legacy.body.result)).toEqual(countsOf(results));
  return results;
}

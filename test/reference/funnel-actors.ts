/**
 * PostHog's funnel actor lists as its tests ask for them (test_funnel_persons.py::get_actors): the funnel (a legacy
 * filter turned into a FunnelsQuery by filter_to_query, or a FunnelsQuery node as it is) wrapped in
 * ActorsQuery(source=FunnelsActorsQuery, select=["id", "person"]). Where the PostHog test uses a filter and the legacy
 * endpoint can say the same (funnel_step, funnel_step_breakdown, entrance_period_start, drop_off), GET
 * /persons/funnel/ must list the same persons. Used by funnels-persons.test.ts and funnels-trends.test.ts.
 */
import { expect } from "vitest";
import { filtersToQuery } from "../../src/analyses/filter-to-query.ts";
import type { Reference } from "./support.ts";

export type Filter = Record<string, unknown>;
/** One row: the person's id, the person, and (with includeRecordings) its matched recordings. */
export type Row = [string, { id: string; distinct_ids: string[] }, unknown?];

/** The fields of PostHog's get_actors helper, camelCase as FunnelsActorsQuery takes them. */
export interface Ask {
  funnelStep?: number | string;
  funnelCustomSteps?: number[];
  funnelStepBreakdown?: unknown;
  funnelTrendsDropOff?: boolean;
  funnelTrendsEntrancePeriodStart?: string;
  offset?: number;
  includeRecordings?: boolean;
}

const isNode = (funnel: Filter): boolean => funnel.kind === "FunnelsQuery";

/** The ActorsQuery of get_actors over a legacy filter or a FunnelsQuery node. */
export function actorsQuery(funnel: Filter, { offset, includeRecordings = false, ...point }: Ask): Filter {
  const source = isNode(funnel) ? funnel : (filtersToQuery({ insight: "FUNNELS", ...funnel }) as { source: Filter }).source;
  return {
    kind: "ActorsQuery",
    source: { kind: "FunnelsActorsQuery", source, ...point, includeRecordings },
    ...(offset === undefined ? {} : { offset }),
    select: ["id", "person", ...(includeRecordings ? ["matched_recordings"] : [])],
  };
}

/** The legacy endpoint's data point for the same ask; undefined where it has no parameter for it (custom steps, paging). */
function legacyPoint({ funnelStep, funnelCustomSteps, funnelStepBreakdown, funnelTrendsDropOff, funnelTrendsEntrancePeriodStart, offset }: Ask): Filter | undefined {
  if (funnelCustomSteps !== undefined || offset !== undefined) return undefined;
  return {
    ...(funnelStep === undefined ? {} : { funnel_step: funnelStep }),
    ...(funnelStepBreakdown === undefined ? {} : { funnel_step_breakdown: funnelStepBreakdown }),
    ...(funnelTrendsEntrancePeriodStart === undefined ? {} : { entrance_period_start: funnelTrendsEntrancePeriodStart }),
    ...(funnelTrendsDropOff === undefined ? {} : { drop_off: funnelTrendsDropOff }),
  };
}

const idsOf = (rows: readonly Row[]) => rows.map((row) => row[1].distinct_ids).sort();

/** PostHog's get_actors: the rows of the ActorsQuery; each row's id is its person's. */
export async function getActors(ref: Reference, funnel: Filter, ask: Ask = {}): Promise<Row[]> {
  const rows = (await ref.query(actorsQuery(funnel, ask))).results as Row[];
  for (const row of rows) expect(row[0]).toBe(row[1].id);
  const point = legacyPoint(ask);
  if (point && !isNode(funnel) && rows.length < 100) {
    const res = await ref.legacy("GET", "persons/funnel", { insight: "FUNNELS", ...funnel, ...point });
    expect(res.status, res.text).toBe(200);
    const people = res.body.results[0].people as { distinct_ids: string[] }[];
    expect(people.map((p) => p.distinct_ids).sort()).toEqual(idsOf(rows));
  }
  return rows;
}

/** The distinct ids of the rows' persons, in the rows' order. */
export const who = (rows: readonly Row[]) => rows.map((row) => row[1].distinct_ids);
/** The same, order ignored (PostHog's assertCountEqual). */
export const whoever = (rows: readonly Row[]) => who(rows).map((ids) => [...ids].sort()).sort();
